import NIOCore
import NIOHTTP1

/// The WebSocket endpoint for browsers (docs/PROTOCOL.md, "WebSocket"): the same protocol as the
/// Unix socket, one JSON message per text frame, for pages that cannot open a Unix socket.
///
/// Nothing here authenticates a local user: any process on the machine that can reach the
/// address may connect (the `Origin` check keeps out *web pages* of other sites, which is what a
/// browser lets a page do; a local program can send any header). So `define` is refused unless
/// ``allowsDefine``, `status` (which names the local users of the Unix socket's clients) unless
/// ``allowsStatus``, and the address should stay a loopback one (the server warns otherwise).
public struct WebSocketEndpoint: Sendable, Hashable {
    /// An IP address literal (`127.0.0.1`, `::1`); not a name, so binding never waits on DNS.
    public var host: String
    /// 0 picks a free port (the server logs it; ``GestureServer/webSocketPort``).
    public var port: Int
    /// Serialized origins (`http://localhost:8080`, `file://`) whose pages may connect, compared
    /// exactly (ASCII case-insensitively); a handshake from any other origin, or with none, is
    /// answered `403 Forbidden`.
    public var allowedOrigins: [String]
    /// Whether connections of this endpoint may `define` (else `unavailable`).
    public var allowsDefine: Bool
    /// Whether connections of this endpoint are answered `status` (else `unavailable`).
    public var allowsStatus: Bool
    /// Connections at once through the endpoint, handshakes in progress included; one beyond is
    /// closed as soon as it is accepted. Apart from the Unix socket's ``ServerLimits/maxClients``.
    public var maxClients: Int
    /// Connections at once of one peer: one local user (whoever owns the peer's socket), or one
    /// address for a peer on another machine.
    public var maxClientsPerPeer: Int
    /// The server pings every connection this often; one that sent nothing since the previous
    /// ping is closed. Nil: no pings (only tests want that).
    public var pingInterval: Duration?
    /// How long a connection may take to send its handshake before it is closed.
    public var handshakeTimeout: Duration
    /// A listening TCP socket to adopt instead of binding one (systemd's, from
    /// gestured-websocket.socket: ``SystemdSockets/webSocket``). It must listen on ``host`` and
    /// ``port`` (port 0: any), or the server refuses to start, naming both addresses.
    public var inheritedSocket: Int32?

    public init(
        host: String = "127.0.0.1", port: Int = 7330, allowedOrigins: [String], allowsDefine: Bool = false,
        allowsStatus: Bool = false, maxClients: Int = 32, maxClientsPerPeer: Int = 8, pingInterval: Duration? = .seconds(30),
        handshakeTimeout: Duration = .seconds(10), inheritedSocket: Int32? = nil
    ) {
        precondition(maxClients > 0 && maxClientsPerPeer > 0, "an endpoint admits at least one connection")
        self.host = host
        self.port = port
        self.inheritedSocket = inheritedSocket
        self.allowedOrigins = allowedOrigins
        self.allowsDefine = allowsDefine
        self.allowsStatus = allowsStatus
        self.maxClients = maxClients
        self.maxClientsPerPeer = maxClientsPerPeer
        self.pingInterval = pingInterval
        self.handshakeTimeout = handshakeTimeout
    }

    /// The one path the endpoint serves; a query string is ignored.
    static let path = "/"

    /// What to answer an HTTP request on the endpoint's port.
    enum Verdict: Equatable {
        /// Upgrade to a WebSocket (when the request asks for one).
        case upgrade(origin: String)
        case notFound
        /// Not a GET: a handshake is one (RFC 6455 4.1).
        case methodNotAllowed
        /// The request's `Origin` is not allowed.
        case forbidden(OriginRefusal)
    }

    /// Why an `Origin` was refused.
    enum OriginRefusal: Equatable {
        /// The request named none.
        case missing
        /// It named several (`count`): which one a browser meant cannot be told.
        case several(count: Int)
        /// Not in ``allowedOrigins``.
        case notAllowed(String)
    }

    /// Path first, then method, then origin: a refused origin is told nothing about paths.
    func verdict(for head: HTTPRequestHead) -> Verdict {
        let path = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard path == Self.path else { return .notFound }
        guard head.method == .GET else { return .methodNotAllowed }
        let origins = head.headers["Origin"]
        guard let origin = origins.first else { return .forbidden(.missing) }
        guard origins.count == 1 else { return .forbidden(.several(count: origins.count)) }
        let lowered = origin.lowercased()
        guard allowedOrigins.contains(where: { $0.lowercased() == lowered }) else {
            return .forbidden(.notAllowed(origin))
        }
        return .upgrade(origin: origin)
    }

    /// `duration` as SwiftNIO's time amount.
    static func timeAmount(_ duration: Duration) -> TimeAmount {
        .nanoseconds(duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }

    /// `listen` as the configuration writes it: `127.0.0.1:7330`, `[::1]:7330`.
    var listenDescription: String { Self.describe(host: host, port: port) }

    static func describe(host: String, port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Whether a socket bound to `address` is the one ``host`` and ``port`` name (port 0: any).
    func isListenAddress(_ address: SocketAddress) -> Bool {
        guard let wanted = try? SocketAddress(ipAddress: host, port: port) else { return false }
        return address.protocol == wanted.protocol && address.ipAddress == wanted.ipAddress
            && (port == 0 || address.port == port)
    }

    /// Whether `address` can only be reached from this machine (127.0.0.0/8, ::1, and
    /// 127.0.0.0/8 mapped into IPv6 as `::ffff:127.x.y.z`).
    static func isLoopback(_ address: SocketAddress) -> Bool {
        switch address {
        case .v4(let v4):
            return UInt32(bigEndian: v4.address.sin_addr.s_addr) >> 24 == 127
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            let mappedV4Prefix = Array(repeating: UInt8(0), count: 10) + [0xFF, 0xFF]
            return bytes == Array(repeating: 0, count: 15) + [1]
                || (bytes.prefix(12).elementsEqual(mappedV4Prefix) && bytes[12] == 127)
        case .unixDomainSocket:
            return true
        }
    }
}
