import Foundation
import GestureProtocol
import Glibc
import TestSupport
import Testing

@testable import GestureServer

/// Socket activation with names: gestured.socket's Unix socket and
/// gestured-websocket.socket's TCP socket, passed together and told apart by LISTEN_FDNAMES, so
/// the service never opens an IP socket itself (docs/DEPLOYMENT.md, "The WebSocket endpoint").
@Suite struct SocketActivationTests {
    static let pid: Int32 = 4242

    static func read(_ fds: String, names: String? = nil, pid: String = "4242") throws(ServerError) -> SystemdSockets? {
        var environment = ["LISTEN_PID": pid, "LISTEN_FDS": fds]
        environment["LISTEN_FDNAMES"] = names
        return try SystemdSockets.systemdActivated(environment: environment, processID: Self.pid)
    }

    // MARK: LISTEN_PID, LISTEN_FDS, LISTEN_FDNAMES

    @Test func `no variables, or variables meant for another process, are no activation`() throws {
        #expect(try SystemdSockets.systemdActivated(environment: [:], processID: Self.pid) == nil)
        #expect(try Self.read("2", names: "unix:websocket", pid: "1") == nil)
        #expect(try Self.read("1", pid: "not a pid") == nil)
        #expect(try Self.read("0") == nil)
    }

    @Test func `named sockets go where their names say, in any order`() throws {
        #expect(try Self.read("2", names: "unix:websocket") == SystemdSockets(unix: 3, webSocket: 4))
        #expect(try Self.read("2", names: "websocket:unix") == SystemdSockets(unix: 4, webSocket: 3))
        #expect(try Self.read("1", names: "websocket") == SystemdSockets(webSocket: 3), "the Unix socket is bound")
    }

    @Test func `the metrics socket goes by its name beside the others`() throws {
        #expect(
            try Self.read("3", names: "metrics:unix:websocket") == SystemdSockets(unix: 4, webSocket: 5, metrics: 3))
        #expect(try Self.read("2", names: "unix:metrics") == SystemdSockets(unix: 3, metrics: 4))
        #expect(throws: ServerError.self, "a second metrics socket is not used") {
            try Self.read("3", names: "unix:metrics:metrics")
        }
    }

    @Test func `gestured.socket without FileDescriptorName= passes its unit name, taken as the Unix socket`() throws {
        #expect(try Self.read("2", names: "gestured.socket:websocket") == SystemdSockets(unix: 3, webSocket: 4))
    }

    @Test(arguments: [nil, "unknown", "gestured.socket", "kiosk.socket", ""])
    func `one socket not named websocket is the Unix socket, as before names were read`(_ names: String?) throws {
        #expect(try Self.read("1", names: names) == SystemdSockets(unix: 3))
    }

    @Test(arguments: [
        ("2", "unix", "LISTEN_FDNAMES names 1 sockets ('unix') but LISTEN_FDS is 2"),
        ("1", "unix:websocket", "LISTEN_FDNAMES names 2 sockets"),
        ("2", nil, "fd 3, named 'unknown'"),
        ("2", "unix:web", "fd 4, named 'web'"),
        ("2", "websocket:websocket", "fd 4, named 'websocket'"),
        ("2", "unix:gestured.socket", "fd 4, named 'gestured.socket'"),
        ("3", "unix:websocket:prometheus", "fd 5, named 'prometheus' (all: fd 3 'unix', fd 4 'websocket', fd 5 'prometheus')"),
        ("many", nil, "LISTEN_FDS is 'many'"),
        ("-1", nil, "LISTEN_FDS is '-1'"),
        ("100000", nil, "LISTEN_FDS is '100000'"),
    ] as [(String, String?, String)])
    func `counts that disagree and sockets gestured would not use are errors that name them`(
        fds: String, names: String?, says: String
    ) throws {
        let error = #expect(throws: ServerError.self) { try Self.read(fds, names: names) }
        #expect(error?.message.contains(says) == true, "\(error?.message ?? "no error")")
    }

    // MARK: The server adopts the TCP socket

    static func endpoint(port: Int, socket: Int32?, host: String = "127.0.0.1") -> WebSocketEndpoint {
        WebSocketEndpoint(
            host: host, port: port, allowedOrigins: [WebSocketTests.origin], pingInterval: nil,
            handshakeTimeout: .seconds(120), inheritedSocket: socket)
    }

    @Test func `a listening TCP socket on the configured address is adopted and serves pages`() async throws {
        let (fd, port) = try RawSocket.listeningTCP()
        try await ServerFixture.with(webSocket: Self.endpoint(port: port, socket: fd)) { f in
            #expect(f.server.webSocketPort == port)
            #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0)
            let page = try await f.connectWebSocket()
            guard case .hello = try await page.next() else { throw Unexpected("no hello first") }
        }
    }

    @Test func `configured port 0 takes the socket's port, whatever it is`() async throws {
        let (fd, port) = try RawSocket.listeningTCP()
        try await ServerFixture.with(webSocket: Self.endpoint(port: 0, socket: fd)) { f in
            #expect(f.server.webSocketPort == port)
        }
    }

    /// Starts a server with `endpoint`; the error it refuses to start with. (A socket it adopted
    /// and then refused is closed with the server; one refused before is still the caller's.)
    static func refusal(_ endpoint: WebSocketEndpoint) async throws -> String {
        let directory = ServerFixture.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = GestureServer(
            configuration: .init(listener: .path(directory + "/s.sock"), daemonVersion: "t", webSocket: endpoint),
            delegate: nil, logger: ServerFixture.logger)
        let error = await #expect(throws: ServerError.self) { try await server.start() }
        await server.shutdown()
        #expect(!FileManager.default.fileExists(atPath: directory + "/s.sock"), "the Unix socket is given back")
        return error?.message ?? "no error"
    }

    @Test func `a socket on another address than websocket.listen is refused, naming both`() async throws {
        let (fd, port) = try RawSocket.listeningTCP()
        let other = port == 65535 ? port - 1 : port + 1
        let message = try await Self.refusal(Self.endpoint(port: other, socket: fd))
        #expect(message.contains("127.0.0.1:\(port)") && message.contains("websocket.listen is 127.0.0.1:\(other)"), "\(message)")
        let (v4, v4Port) = try RawSocket.listeningTCP()
        let onV6 = try await Self.refusal(Self.endpoint(port: v4Port, socket: v4, host: "::1"))
        #expect(onV6.contains("websocket.listen is [::1]:\(v4Port)"), "\(onV6)")
    }

    @Test func `a socket that does not listen, or is not TCP, is refused, saying which`() async throws {
        let (bound, port) = try RawSocket.listeningTCP(listens: false)
        let message = try await Self.refusal(Self.endpoint(port: port, socket: bound))
        #expect(message.contains("fd \(bound)") && message.contains("is not listening"), "\(message)")
        close(bound)  // refused before the server took it

        let directory = ServerFixture.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let unix = try RawSocket.listening(directory + "/u.sock")
        defer { close(unix) }
        let notTCP = try await Self.refusal(Self.endpoint(port: 7330, socket: unix))
        #expect(notTCP.contains("is not a TCP socket"), "\(notTCP)")
    }

    // MARK: The daemon, as systemd starts it

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    /// 11 taps on a WeTab (LGPL-3.0, from the evemu project; see Tests/TouchInputTests/Fixtures).
    static let recording = repository.appendingPathComponent("Tests/TouchInputTests/Fixtures/wetab.event").path

    /// `gestured run` with `descriptors` as fds 3, 4, … and LISTEN_PID (its own pid: a shell
    /// sets it to its $$ and execs), LISTEN_FDS and LISTEN_FDNAMES set as systemd sets them.
    static func activated(
        passing descriptors: [Int32], names: String, directory: String, configuration: String
    ) throws -> ChildProcess {
        let config = directory + "/gestured.yaml"
        try configuration.write(toFile: config, atomically: true, encoding: .utf8)
        return try ChildProcess(
            [
                "/bin/sh", "-c", #"LISTEN_PID=$$ LISTEN_FDS=\#(descriptors.count) LISTEN_FDNAMES=\#(names) exec "$0" "$@""#,
                try ChildProcess.builtExecutable("gestured"), "run", "--config", config,
                "--socket", directory + "/not-this-one.sock", "--replay", recording, "--loop", "--speed", "8",
            ],
            passing: descriptors)
    }

    @Test(.timeLimit(.minutes(10)))
    func `gestured run serves pages on systemd's TCP socket and programs on its Unix socket`() async throws {
        let directory = ServerFixture.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let unix = try RawSocket.listening(directory + "/g.sock")
        defer { close(unix) }
        let (tcp, port) = try RawSocket.listeningTCP()
        defer { close(tcp) }
        let daemon = try Self.activated(
            passing: [unix, tcp], names: "unix:websocket", directory: directory,
            configuration: """
                websocket:
                  listen: "127.0.0.1:\(port)"
                  allowed-origins: ["\(WebSocketTests.origin)"]

                """)
        defer { daemon.send(SIGKILL) }
        try await daemon.output.wait(for: "the daemon to be ready", within: .seconds(60)) {
            $0.status != nil || $0.lines.contains { $0.contains(" ready ") }
        }
        #expect(
            daemon.lines.contains { $0.contains("listening for WebSockets") && $0.contains("socket=inherited (fd 4)") },
            "\(daemon.lines)")

        let log = TrafficLog()
        let page = try await WebSocketClient.connect(port: port, log: log)
        guard case .hello = try await page.next() else { throw Unexpected("no hello first") }
        try await page.send(#"{"type":"subscribe","id":"s","kinds":["tap"]}"#)
        _ = try await page.next(ofType: "ok")
        guard case .gesture(let tap) = try await page.next(ofType: "gesture", within: .seconds(60)) else {
            throw Unexpected("no gesture")
        }
        #expect(tap.kind == .tap && tap.device == "wetab.event")
        let (client, hello) = try RawSocket.connectAndReadLine(directory + "/g.sock")
        close(client)
        #expect(hello.contains(#""type":"hello""#))
        #expect(!FileManager.default.fileExists(atPath: directory + "/not-this-one.sock"))
        try log.validate()

        daemon.send(SIGTERM)
        #expect(try await daemon.waitForExit(within: .seconds(30)) == 0, "\(daemon.lines.suffix(10))")
        await page.close()
    }

    @Test(.timeLimit(.minutes(10)))
    func `gestured run refuses a WebSocket socket its configuration has no endpoint for`() async throws {
        let directory = ServerFixture.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let unix = try RawSocket.listening(directory + "/g.sock")
        defer { close(unix) }
        let (tcp, _) = try RawSocket.listeningTCP()
        defer { close(tcp) }
        let daemon = try Self.activated(
            passing: [unix, tcp], names: "unix:websocket", directory: directory, configuration: "log-level: info\n")
        defer { daemon.send(SIGKILL) }
        #expect(try await daemon.waitForExit(within: .seconds(60)) != 0)
        #expect(
            daemon.lines.contains {
                $0.contains("systemd passed a WebSocket socket") && $0.contains("no 'websocket' section")
            }, "\(daemon.lines)")
    }
}

extension RawSocket {
    /// A TCP socket bound to 127.0.0.1 at a free port, listening unless told otherwise: what
    /// systemd makes of `ListenStream=127.0.0.1:PORT`.
    static func listeningTCP(listens: Bool = true) throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Unexpected("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound, !listens || listen(fd, 16) == 0 else {
            close(fd)
            throw Unexpected("bind/listen 127.0.0.1: \(String(cString: strerror(errno)))")
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
