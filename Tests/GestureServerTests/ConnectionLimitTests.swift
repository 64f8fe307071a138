import Foundation
import GestureProtocol
import NIOCore
import NIOPosix
import TestSupport
import Testing

@testable import GestureServer

/// A user who cannot open the Unix socket (uid 65534, mode 0660) held 127
/// WebSocket connections, and root's Unix client got `too-many-clients`. Each transport now has
/// its own limits, in all and per peer (docs/PROTOCOL.md §10).
@Suite struct ConnectionLimitTests {
    // MARK: The quota itself

    @Test func `a quota admits up to its total, and up to its share per peer`() {
        var quota = ConnectionQuota<String>(total: 3, perPeer: 2)
        #expect(quota.admit("a") == .admitted)
        #expect(quota.admit("a") == .admitted)
        #expect(quota.admit("a") == .peerFull)
        #expect(quota.admit("b") == .admitted)
        #expect(quota.admit("c") == .full)
        quota.release("a")
        #expect(quota.held(by: "a") == 1)
        #expect(quota.admit("c") == .admitted)
        #expect(quota.open == 3)
    }

    /// Any sequence of connects and closes: never more open than the total, nor than the share
    /// of any peer, and a refusal only when one of the two is reached.
    @Test func `no sequence of connects and closes takes a quota past its limits`() {
        let seed = UInt64.random(in: 0...UInt64.max)
        var rng = SplitMix64(seed: seed)
        var quota = ConnectionQuota<Int>(total: 10, perPeer: 4)
        var open: [Int] = []
        for _ in 0..<20_000 {
            if !open.isEmpty, Bool.random(using: &rng) {
                quota.release(open.remove(at: Int.random(in: 0..<open.count, using: &rng)))
                continue
            }
            let peer = Int.random(in: 0..<5, using: &rng)
            let held = open.count { $0 == peer }
            switch quota.admit(peer) {
            case .admitted:
                open.append(peer)
                #expect(open.count <= 10 && held < 4, "seed \(seed)")
            case .full:
                #expect(open.count == 10, "seed \(seed)")
            case .peerFull:
                #expect(held == 4 && open.count < 10, "seed \(seed)")
            }
            if open.count > 10 { break }
        }
    }

    // MARK: Transports apart

    /// Before: WebSocket connections counted against `max_clients` with the Unix ones.
    @Test func `WebSocket connections do not take the Unix socket's slots`() async throws {
        try await WebSocketTests.with(limits: ServerLimits(maxClients: 3)) { f in
            var hellos: [HelloMessage] = []
            for _ in 0..<3 {
                let page = try await f.connectWebSocket()
                guard case .hello(let hello) = try await page.next() else { throw Unexpected("no hello for a page") }
                hellos.append(hello)
            }
            let unix = try await f.connect()
            guard case .hello(let hello) = try await unix.next() else {
                throw Unexpected("no hello for the Unix client")
            }
            // Each is told its own transport's limits.
            #expect(hello.limits.maxClients == 3 && hello.limits.maxClientsPerPeer == 64)
            #expect(hellos.allSatisfy { $0.limits.maxClients == 32 && $0.limits.maxClientsPerPeer == 8 })
        }
    }

    @Test func `the endpoint holds at most max-clients connections, handshakes in progress included`() async throws {
        try await WebSocketTests.with(endpoint: WebSocketTests.endpoint(maxClients: 3, maxClientsPerPeer: 3)) { f in
            let port = try #require(f.server.webSocketPort)
            let first = try await f.connectWebSocket()
            _ = try await first.next(ofType: "hello")
            _ = try await f.connectWebSocket()
            // Connected, no handshake: it holds a place.
            let silent = try await WebSocketClient.open(port: port, log: f.log, sendsRequest: false)
            let refused = try await WebSocketClient.open(port: port, log: f.log)
            #expect(refused.received.value.head == nil, "answered: \(refused.received.value.head ?? "")")
            #expect(refused.received.value.closed)
            await first.close()
            // Its place comes back as it closes: on SwiftNIO's loop, before the server thread
            // hears of it.
            try await f.delegate!.log.wait(for: "the first page to leave", within: .seconds(60)) {
                $0.disconnected.count == 1
            }
            let next = try await WebSocketClient.open(port: port, log: f.log)
            #expect(next.received.value.head?.hasPrefix("HTTP/1.1 101") == true)
            await silent.close()
        }
    }

    // MARK: Per peer

    /// A client as another user (65534), started with `setpriv`: it prints the first line the
    /// server sends (`unix PATH`), or the handshake's status line (`websocket PORT`).
    static let otherUser = """
        import socket, sys
        if sys.argv[1] == "unix":
            s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[2])
            print(s.makefile("rb").readline().decode().strip(), flush=True)
        else:
            s = socket.create_connection(("127.0.0.1", int(sys.argv[2])))
            s.sendall(("GET / HTTP/1.1\\r\\nHost: x\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\n"
                "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\\r\\nSec-WebSocket-Version: 13\\r\\n"
                "Origin: http://localhost:8080\\r\\n\\r\\n").encode())
            print(s.makefile("rb").readline().decode().strip() or "closed", flush=True)
        """

    static func asOtherUser(_ arguments: [String]) async throws -> String {
        // The system's Python: one under /root (pyenv's) is out of that user's reach.
        let client = try ChildProcess(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", otherUser]
                + arguments)
        #expect(try await client.waitForExit() == 0, "\(client.lines)")
        return client.lines.first ?? ""
    }

    static let isRoot = getuid() == 0

    @Test(.enabled(if: isRoot, "needs root, to connect as another user"))
    func `on the Unix socket one user holds at most its share; another user still gets in`() async throws {
        try await ServerFixture.with(limits: ServerLimits(maxClients: 10, maxClientsPerPeer: 2), socketMode: 0o666) {
            f in
            _ = try await f.subscriber()
            _ = try await f.subscriber()
            let third = try await f.connect()
            guard case .error(let error) = try await third.next() else { throw Unexpected("no error") }
            #expect(error.code == .tooManyClients)
            #expect(error.message.contains("2 connections at once of user \(getuid()) (socket.max-clients-per-user)"))
            // The fixture's directory is private (0700): let that user reach the socket.
            #expect(chmod(f.directory, 0o755) == 0)
            let other = try await Self.asOtherUser(["unix", f.path])
            #expect(other.contains(#""type":"hello""#), "\(other)")
        }
    }

    /// All local users connect from 127.0.0.1: the endpoint tells them apart by the owner of
    /// the peer's socket (sock_diag).
    @Test(.enabled(if: isRoot, "needs root, to connect as another user"))
    func `on the WebSocket one local user holds at most its share; another user still gets in`() async throws {
        try await WebSocketTests.with(endpoint: WebSocketTests.endpoint(maxClients: 10, maxClientsPerPeer: 2)) { f in
            let port = try #require(f.server.webSocketPort)
            _ = try await f.connectWebSocket()
            _ = try await WebSocketClient.open(port: port, log: f.log, sendsRequest: false)
            let third = try await WebSocketClient.open(port: port, log: f.log)
            #expect(third.received.value.head == nil && third.received.value.closed)
            let other = try await Self.asOtherUser(["websocket", "\(port)"])
            #expect(other.hasPrefix("HTTP/1.1 101"), "\(other)")
        }
    }

    @Test func `a peer is its socket's owner when it is on this machine`() throws {
        let identifier = try #require(PeerIdentifier())
        let group = MultiThreadedEventLoopGroup.singleton
        let server = try ServerBootstrap(group: group).bind(host: "127.0.0.1", port: 0).wait()
        defer { try? server.close().wait() }
        let client = try ClientBootstrap(group: group).connect(to: try #require(server.localAddress)).wait()
        defer { try? client.close().wait() }
        // The client's socket seen from the server: remote = the client's address.
        #expect(identifier.identify(remote: client.localAddress, local: client.remoteAddress) == .user(getuid()))
        // Nobody on this machine has this socket.
        let stranger = try SocketAddress(ipAddress: "192.0.2.7", port: 4242)
        #expect(identifier.identify(remote: stranger, local: server.localAddress) == .address("192.0.2.7"))
    }
}
