#if canImport(Glibc)
import GestureLogging
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import GestureProtocol
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// The WebSocket endpoint's listener: SwiftNIO's HTTP/1 server pipeline with its WebSocket
/// upgrader, on the server's own event loop. The listening channel's ``WebSocketConnectionGate``
/// counts connections as they are accepted (the endpoint's limits). After the handshake a
/// connection's pipeline is
///
///     WebSocketFrameEncoder                           (NIOWebSocket)
///     WebSocketFrameReader                            (NIOWebSocket's decoder, going on past a
///                                                      frame it refuses)
///     WebSocketFrameChecker                           (RFC 6455's rules on each frame)
///     NIOWebSocketFrameAggregator                     (fragments → one message)
///     WebSocketLineCodec                              (message ↔ line; ping, pong, close)
///     WebSocketBridge                                 (to the server thread's ClientSession)
///
/// and its ``ClientSession`` is the Unix socket's own, on the server thread, so subscriptions, filters, `define`, limits, back-pressure and errors are the Unix socket's
/// own code (one hop per read in, one per flush out). After the handshake the channel reads
/// only when its session asks (`autoRead` off, a `read()` per demand: ``WebSocketBridge``);
/// `NIOAsyncChannel` would do the same through Swift concurrency, which the daemon keeps out of
/// its process (``GestureServer/startOnThisThread()``). A request that is not an acceptable upgrade gets `HandshakeRefusal`'s answer.
enum WebSocketListener {
    /// Binds the endpoint; the channel is the listening socket. `session` makes the server
    /// thread's session of an upgraded connection (called on NIO's loop; it must not touch the
    /// core, only build the session for the mailbox to start).
    static func bind(
        _ endpoint: WebSocketEndpoint, group: any EventLoopGroup, mailbox: Mailbox,
        session: @escaping @Sendable (WebSocketLink, WebSocketEndpoint) -> Void,
        limits: ServerLimits, closeTimeout: TimeAmount, logger: Logger, throttle: LogThrottle,
        refused: RefusedConnections
    ) -> EventLoopFuture<any Channel> {
        let maxMessageBytes = limits.maxLineBytes
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 128)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        WebSocketConnectionGate(
                            maxClients: endpoint.maxClients, maxClientsPerPeer: endpoint.maxClientsPerPeer,
                            names: .webSocket, logger: logger, throttle: throttle, refused: refused))
                }
            }
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            // A connection's read budget, as on the Unix socket: one read of at most 16 KiB per
            // read asked for (``WebSocketBridge``).
            .childChannelOption(.maxMessagesPerRead, value: 1)
            .childChannelOption(
                .recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: ClientSession.readBudgetBytes))
            // What the kernel holds for a connection that is not being read (SwiftNIO reads all of
            // it when the peer half-closes): 64 KiB asked, which Linux doubles, instead of the
            // megabytes TCP's auto-tuning grows to. Requests are small; a browser never notices.
            .childChannelOption(.socketOption(.so_rcvbuf), value: 64 * 1024)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let refusal = HandshakeRefusal(endpoint: endpoint, logger: logger, throttle: throttle)
                    let upgrader = NIOWebSocketServerUpgrader(
                        maxFrameSize: maxMessageBytes, automaticErrorHandling: false,
                        shouldUpgrade: { channel, head in
                            guard case .upgrade = endpoint.verdict(for: head) else {
                                return channel.eventLoop.makeSucceededFuture(nil)
                            }
                            return channel.eventLoop.makeSucceededFuture(HTTPHeaders())
                        },
                        upgradePipelineHandler: { channel, head in
                            channel.eventLoop.makeCompletedFuture {
                                guard case .upgrade(let origin) = endpoint.verdict(for: head) else {
                                    throw ServerError("a refused WebSocket handshake was upgraded")
                                }
                                // From now on the session's demand reads (``WebSocketBridge``).
                                try channel.syncOptions?.setOption(.autoRead, value: false)
                                let pipeline = channel.pipeline.syncOperations
                                // The upgrader's frame decoder stops at the first frame it refuses;
                                // its replacement goes on, so the page's answer to the close is read.
                                let refusing = try pipeline.handler(
                                    type: ByteToMessageHandler<WebSocketFrameDecoder>.self)
                                let reader = WebSocketFrameReader(maxFrameSize: maxMessageBytes)
                                try pipeline.addHandler(ByteToMessageHandler(reader), position: .after(refusing))
                                pipeline.removeHandler(refusing, promise: nil)
                                try addMessageHandlers(
                                    to: pipeline, reader: reader, maxMessageBytes: maxMessageBytes,
                                    pingInterval: endpoint.pingInterval.map(WebSocketEndpoint.timeAmount),
                                    closeTimeout: closeTimeout, logger: logger)
                                let link = WebSocketLink(
                                    channel: channel, origin: origin, peer: channel.remoteAddress?.description ?? "?",
                                    logger: logger)
                                session(link, endpoint)
                                try pipeline.addHandler(WebSocketBridge(link: link, mailbox: mailbox))
                            }
                        })
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                        withServerUpgrade: (
                            upgraders: [upgrader],
                            completionHandler: { [refusal = NIOLoopBound(refusal, eventLoop: channel.eventLoop)] context in
                                context.pipeline.syncOperations.removeHandler(refusal.value, promise: nil)
                            }
                        ))
                    try channel.pipeline.syncOperations.addHandler(refusal)
                }
            }
        let listening: EventLoopFuture<any Channel>
        if let descriptor = endpoint.inheritedSocket {
            listening = adopt(descriptor, endpoint: endpoint, bootstrap: bootstrap, group: group)
        } else {
            listening = bootstrap.bind(host: endpoint.host, port: endpoint.port)
                .flatMapErrorThrowing { error in
                    // What a unit that allows no IP (gestured.service) makes socket() fail with.
                    let hint =
                        (error as? IOError)?.errnoCode == EAFNOSUPPORT
                        ? " (under systemd, enable gestured-websocket.socket: docs/DEPLOYMENT.md, \"The WebSocket endpoint\")"
                        : ""
                    throw ServerError(
                        "cannot listen for WebSockets on \(endpoint.listenDescription): \(error)\(hint)")
                }
        }
        return listening
            .map { channel in
                let address = channel.localAddress
                logger.info(
                    "listening for WebSockets",
                    metadata: [
                        "address": "\(address?.description ?? "?")", "port": "\(address?.port ?? endpoint.port)",
                        "origins": "\(endpoint.allowedOrigins.joined(separator: " "))",
                        "socket": "\(endpoint.inheritedSocket.map { "inherited (fd \($0))" } ?? "bound")",
                    ])
                if let address, !WebSocketEndpoint.isLoopback(address) {
                    logger.warning(
                        "the WebSocket endpoint is reachable from other machines: it has no authentication (docs/DEPLOYMENT.md)",
                        metadata: ["address": "\(address)"])
                }
                return channel
            }
    }

    /// Fragments one message may arrive in.
    static let maxFragments = 256

    /// How long the listener waits before accepting again after accept(2) failed (out of
    /// descriptors, most likely): short, so that it resumes soon after descriptors are free, and
    /// long enough that a listener with connections waiting costs next to nothing meanwhile.
    static let acceptRetry = TimeAmount.milliseconds(100)

    /// The handlers between SwiftNIO's frame decoder and the bridge to the session: the RFC's
    /// rules on each frame, fragments joined into messages, messages as lines.
    static func addMessageHandlers(
        to pipeline: ChannelPipeline.SynchronousOperations, reader: WebSocketFrameReader, maxMessageBytes: Int,
        pingInterval: TimeAmount?, closeTimeout: TimeAmount, logger: Logger
    ) throws {
        try pipeline.addHandler(WebSocketFrameChecker())
        // Empty fragments are allowed (RFC 6455 5.4); how many a message may have is bounded.
        try pipeline.addHandler(
            NIOWebSocketFrameAggregator(
                minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: maxFragments,
                maxAccumulatedFrameSize: maxMessageBytes))
        try pipeline.addHandler(
            WebSocketLineCodec(pingInterval: pingInterval, closeTimeout: closeTimeout, reader: reader, logger: logger))
    }

    /// Adopts systemd's socket once it proves to be a listening TCP socket on the endpoint's
    /// address: a socket unit and a configuration that disagree fail the start, naming both.
    private static func adopt(
        _ descriptor: Int32, endpoint: WebSocketEndpoint, bootstrap: ServerBootstrap, group: any EventLoopGroup
    ) -> EventLoopFuture<any Channel> {
        let described = "the inherited WebSocket socket (fd \(descriptor), named 'websocket')"
        do {
            try SocketFile.setCloseOnExec(descriptor)
            try SystemdSockets.checkListeningTCP(descriptor, described: described, example: "127.0.0.1:7330")
        } catch {
            return group.next().makeFailedFuture(error)
        }
        return bootstrap.withBoundSocket(descriptor)
            .flatMapErrorThrowing { error in
                throw ServerError("cannot use \(described): \(error)")
            }
            .flatMap { channel in
                if let address = channel.localAddress, endpoint.isListenAddress(address) {
                    return channel.eventLoop.makeSucceededFuture(channel)
                }
                let actual = channel.localAddress.map {
                    WebSocketEndpoint.describe(host: $0.ipAddress ?? "?", port: $0.port ?? 0)
                }
                let error = ServerError(
                    "\(described) listens on \(actual ?? "an unknown address"), "
                        + "but websocket.listen is \(endpoint.listenDescription): give ListenStream= of "
                        + "gestured-websocket.socket and the configuration the same address")
                return channel.close().recover { _ in }.flatMapThrowing { throw error }
            }
    }
}

/// Answers the HTTP requests that do not become WebSockets, and closes their connections:
/// `404` for another path, `405` for another method than GET, `403` for an origin not in the
/// allow-list (the journal says which, shortened and rate-limited: ``LogThrottle``), `426` for a
/// plain HTTP request. Only a connection's first request is answered; what follows it is not
/// read. Also closes a connection that sends no complete handshake within the endpoint's
/// handshake timeout. Removed from the pipeline by a successful upgrade.
private final class HandshakeRefusal: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let endpoint: WebSocketEndpoint
    private let logger: Logger
    private let throttle: LogThrottle
    private var head: HTTPRequestHead?
    /// The connection's request was answered: it is being closed, nothing more is read.
    private var answered = false
    private var timeout: Scheduled<Void>?

    init(endpoint: WebSocketEndpoint, logger: Logger, throttle: LogThrottle) {
        self.endpoint = endpoint
        self.logger = logger
        self.throttle = throttle
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        let (logger, throttle) = (self.logger, self.throttle)
        timeout = context.eventLoop.scheduleTask(in: WebSocketEndpoint.timeAmount(endpoint.handshakeTimeout)) {
            throttle.log(
                .info, "no WebSocket handshake in time, closing", cause: "websocket.handshake-timeout",
                peer: channel.remoteAddress?.ipAddress ?? "?", metadata: ["peer": "\(channel.remoteAddress?.description ?? "?")"], to: logger)
            channel.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timeout?.cancel()
        timeout = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        switch unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body: break
        case .end:
            guard let head else { return }
            self.head = nil
            answered = true
            respond(to: head, context: context)
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let status: HTTPResponseStatus
        let text: String
        var headers = HTTPHeaders()
        switch endpoint.verdict(for: head) {
        case .notFound:
            status = .notFound
            text = "gestured serves WebSockets at \(WebSocketEndpoint.path) only"
        case .methodNotAllowed:
            status = .methodNotAllowed
            text = "a WebSocket handshake is a GET request (RFC 6455 4.1)"
            headers.add(name: "Allow", value: "GET")
        case .forbidden(let refusal):
            status = .forbidden
            let origin: String
            switch refusal {
            case .missing:
                origin = "-"
                text = "a WebSocket handshake must carry an Origin header"
            case .several(let count):
                origin = "-"
                text = "a WebSocket handshake must carry one Origin header, not \(count)"
            case .notAllowed(let refused):
                origin = loggable(refused)
                text = "origin '\(origin)' is not in websocket.allowed-origins"
            }
            throttle.log(
                .warning, "WebSocket handshake refused", cause: "websocket.refused-handshake",
                peer: context.channel.remoteAddress?.ipAddress ?? "?",
                metadata: [
                    "origin": "\(origin)", "peer": "\(context.channel.remoteAddress?.description ?? "?")",
                    "reason": "\(refusal.reason)",
                ],
                to: logger)
        case .upgrade:
            status = .upgradeRequired
            text = "this is gestured's WebSocket endpoint: connect with a WebSocket (docs/PROTOCOL.md)"
            headers.add(name: "Upgrade", value: "websocket")
        }
        let body = context.channel.allocator.buffer(string: text + "\n")
        headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: "\(body.readableBytes)")
        headers.add(name: "Connection", value: "close")
        let response = HTTPResponseHead(version: head.version, status: status, headers: headers)
        context.write(wrapOutboundOut(.head(response)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // The upgrader declined (shouldUpgrade said no, or a header was bad): the request itself
        // comes next, and is answered.
        if error is NIOWebSocketUpgradeError { return }
        // A request HTTP/1 cannot parse: nothing sensible to answer.
        logger.debug("bad HTTP request on the WebSocket endpoint, closing", metadata: ["error": "\(error)"])
        context.close(promise: nil)
    }
}

extension WebSocketEndpoint.OriginRefusal {
    /// For the journal: which rule refused it (the origin itself is logged beside it).
    var reason: String {
        switch self {
        case .missing: "no Origin header"
        case .several(let count): "\(count) Origin headers"
        case .notAllowed: "not in websocket.allowed-origins"
        }
    }
}
