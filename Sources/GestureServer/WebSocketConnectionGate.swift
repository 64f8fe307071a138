import CLinuxSupport
import GestureLogging
import Logging
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Who is at the other end of a TCP connection, as far as this machine can tell: the user owning
/// the peer's socket when the peer is on this machine (every loopback peer), else its address.
enum TCPPeer: Hashable, CustomStringConvertible {
    case user(uid_t)
    case address(String)

    var description: String {
        switch self {
        case .user(let uid): "user \(uid)"
        case .address(let address): "address \(address)"
        }
    }
}

/// Asks the kernel which user owns the socket at the other end of an accepted TCP connection
/// (sock_diag(7): the `ss -e` of one socket), so that local users — who all connect from
/// 127.0.0.1 — are told apart. Unlike SO_PEERCRED, which TCP does not have, this works for any
/// peer on this machine; one with no socket here is known by its address. Owns its netlink
/// socket (one descriptor for the endpoint's life).
final class PeerIdentifier {
    private let diagnostics: Int32

    /// Nil when the kernel offers no sock_diag (then peers are told apart by address only).
    init?() {
        diagnostics = gestured_sock_diag_open()
        guard diagnostics >= 0 else { return nil }
    }

    deinit { close(diagnostics) }

    func identify(remote: SocketAddress?, local: SocketAddress?) -> TCPPeer {
        guard let remote else { return .address("?") }
        let address = remote.ipAddress ?? "?"
        guard let local, let ends = Self.ends(remote: remote, local: local) else { return .address(address) }
        let uid = ends.source.withUnsafeBytes { source in
            ends.destination.withUnsafeBytes { destination in
                gestured_tcp_socket_uid(
                    diagnostics, ends.family, source.baseAddress, ends.sourcePort, destination.baseAddress,
                    ends.destinationPort)
            }
        }
        return uid >= 0 ? .user(uid_t(uid)) : .address(address)
    }

    /// The peer's socket as the kernel files it: its own address and port (`source`), and ours.
    /// A peer mapped into IPv6 (`::ffff:127.0.0.1`) has an IPv4 socket.
    private static func ends(
        remote: SocketAddress, local: SocketAddress
    ) -> (
        family: Int32, source: [UInt8], sourcePort: UInt16, destination: [UInt8], destinationPort: UInt16
    )? {
        switch (remote, local) {
        case (.v4(let peer), .v4(let us)):
            return (
                AF_INET, bytes(of: peer.address.sin_addr), UInt16(bigEndian: peer.address.sin_port),
                bytes(of: us.address.sin_addr), UInt16(bigEndian: us.address.sin_port)
            )
        case (.v6(let peer), .v6(let us)):
            let (source, destination) = (bytes(of: peer.address.sin6_addr), bytes(of: us.address.sin6_addr))
            let ports = (UInt16(bigEndian: peer.address.sin6_port), UInt16(bigEndian: us.address.sin6_port))
            let mapped = Array(repeating: UInt8(0), count: 10) + [0xFF, 0xFF]
            if source.prefix(12).elementsEqual(mapped), destination.prefix(12).elementsEqual(mapped) {
                return (AF_INET, Array(source.suffix(4)), ports.0, Array(destination.suffix(4)), ports.1)
            }
            return (AF_INET6, source, ports.0, destination, ports.1)
        default:
            return nil
        }
    }

    private static func bytes<T>(of value: T) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }
}

/// The WebSocket endpoint's ``ConnectionQuota``, applied as each TCP connection is accepted — in
/// the listening channel's pipeline, before the connection has a pipeline of its own. A
/// connection the quota has no room for (`websocket.max-clients` connections open, or
/// `websocket.max-clients-per-peer` of its peer's) is closed at once, before its handshake:
/// a connection waiting for its handshake holds a descriptor like any other, so half-finished
/// handshakes count too, and a peer that opens them by the thousand only ever holds its share.
/// The journal says which limit refused it (rate-limited).
///
/// The metrics endpoint uses it too, under its own ``Names`` and limits: each listener has its
/// own gate, so a peer that fills one has no effect on another's.
///
/// Also pauses accepting when accept(2) fails (out of descriptors, most likely: the connection
/// stays in the backlog, and a level-triggered listener would be ready again at once, a spin of
/// thousands of failures a second) for ``WebSocketListener/acceptRetry``, and says so,
/// rate-limited. SwiftNIO's `AcceptBackoffHandler` would be the part to use, but it cannot stop
/// this spin: it delays the listener's `read()`, and after a failed accept SwiftNIO keeps the
/// read pending and the socket registered without asking for another (swift-nio 2.101,
/// `BaseSocketChannel.readable0`). Turning `autoRead` off takes the listener out of epoll.
public final class WebSocketConnectionGate: ChannelInboundHandler {
    public typealias InboundIn = any Channel
    public typealias InboundOut = any Channel

    /// What the journal calls the listener and its limits.
    public struct Names: Sendable {
        /// `WebSocket`, `metrics`: "\(listener) connection refused".
        public var listener: String
        /// The limit on connections at once, and on one peer's, as the journal names them.
        public var maxClients: String
        public var maxClientsPerPeer: String
        /// The prefix of its lines' causes (``LogThrottle``).
        public var cause: String

        public init(listener: String, maxClients: String, maxClientsPerPeer: String, cause: String) {
            self.listener = listener
            self.maxClients = maxClients
            self.maxClientsPerPeer = maxClientsPerPeer
            self.cause = cause
        }

        static let webSocket = Names(
            listener: "WebSocket", maxClients: "websocket.max-clients",
            maxClientsPerPeer: "websocket.max-clients-per-peer",
            cause: "websocket")
    }

    private let names: Names
    private var quota: ConnectionQuota<TCPPeer>
    private let identifier: PeerIdentifier?
    private let logger: Logger
    private let throttle: LogThrottle
    /// Accepting is paused until the retry.
    private var paused = false

    /// Counts what it refuses, for the metrics.
    private let refused: RefusedConnections

    public init(
        maxClients: Int, maxClientsPerPeer: Int, names: Names, logger: Logger, throttle: LogThrottle,
        refused: RefusedConnections
    ) {
        self.names = names
        quota = ConnectionQuota(total: maxClients, perPeer: maxClientsPerPeer)
        self.refused = refused
        identifier = PeerIdentifier()
        self.logger = logger
        self.throttle = throttle
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let connection = unwrapInboundIn(data)
        let peer =
            identifier?.identify(remote: connection.remoteAddress, local: connection.localAddress)
            ?? .address(connection.remoteAddress?.ipAddress ?? "?")
        let verdict = quota.admit(peer)
        guard verdict == .admitted else {
            let limit =
                verdict == .full
                ? "\(names.maxClients) (\(quota.total) connections)"
                : "\(names.maxClientsPerPeer) (\(quota.perPeer) connections of one peer)"
            throttle.log(
                .warning, "\(names.listener) connection refused", cause: "\(names.cause).refused-connection",
                peer: "\(peer)",
                metadata: ["peer": "\(peer)", "limit": "\(limit)"], to: logger)
            refused.add()
            connection.close(promise: nil)
            return
        }
        let gate = NIOLoopBound(self, eventLoop: context.eventLoop)
        connection.closeFuture.hop(to: context.eventLoop).whenComplete { _ in gate.value.quota.release(peer) }
        context.fireChannelRead(data)
    }

    public func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let error = error as? IOError else { return context.fireErrorCaught(error) }
        throttle.log(
            .error, "cannot accept \(names.listener) connections, retrying shortly",
            cause: "\(names.cause).accept-failed",
            metadata: ["error": "\(error)", "retry-ms": "\(WebSocketListener.acceptRetry.nanoseconds / 1_000_000)"],
            to: logger)
        guard !paused, let options = context.channel.syncOptions else { return }
        paused = true
        try? options.setOption(.autoRead, value: false)
        let gate = NIOLoopBound(self, eventLoop: context.eventLoop)
        let channel = NIOLoopBound(context.channel, eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: WebSocketListener.acceptRetry) {
            gate.value.paused = false
            guard channel.value.isActive else { return }
            try? channel.value.syncOptions?.setOption(.autoRead, value: true)
        }
    }
}
