import GestureMetrics
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The metrics over HTTP (docs/FLEET.md, "Metrics"): `GET /metrics` on the TCP socket systemd
/// passes named `metrics` (gestured-metrics.socket, loopback only), served by SwiftNIO's HTTP/1
/// on an event loop of its own, never on the input thread.
///
/// A scrape asks the input thread for a ``MetricsSnapshot`` through the request queue (one
/// eventfd write; the input thread copies its counters between two frames and posts the snapshot
/// back to this loop) and renders it here. So the frame path takes no lock a scrape holds, and
/// what scrapes cost the input thread is bounded whatever a local program sends: one request
/// is outstanding at a time, scrapes arriving meanwhile share its answer, and a snapshot younger
/// than ``freshFor`` answers the scrapes that follow it.
final class MetricsEndpoint {
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let logger: Logger

    /// A snapshot serves the scrapes within this much of it.
    static let freshFor = TimeAmount.milliseconds(100)
    /// Connections open at once (Prometheus keeps one; a few for people with curl).
    static let maxConnections = 16
    /// A connection with no request for this long is closed.
    static let idleTimeout = TimeAmount.seconds(60)
    /// A scrape the input thread has not answered within this gets `503`.
    static let answerTimeout = TimeAmount.seconds(5)

    /// Serves `descriptor`, a listening TCP socket, until ``shutdown()``.
    init(descriptor: Int32, requests: RequestQueue, logger: Logger) throws(DaemonError) {
        self.logger = logger
        let described = "the inherited metrics socket (fd \(descriptor), named 'metrics')"
        try Self.checkListeningTCP(descriptor, described: described)
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let snapshots: NIOLoopBound<SnapshotSource>
        do {
            snapshots = try loop.submit { NIOLoopBound(SnapshotSource(requests: requests, loop: loop), eventLoop: loop) }
                .wait()
        } catch {
            try? group.syncShutdownGracefully()
            throw DaemonError("cannot start the metrics endpoint's loop: \(error)")
        }
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 16)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ConnectionCap(limit: Self.maxConnections))
                }
            }
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(IdleStateHandler(allTimeout: Self.idleTimeout))
                    try pipeline.configureHTTPServerPipeline(withErrorHandling: true)
                    try pipeline.addHandler(MetricsHTTPHandler(snapshots: snapshots.value))
                }
            }
        do {
            channel = try bootstrap.withBoundSocket(descriptor).wait()
        } catch {
            try? group.syncShutdownGracefully()
            throw DaemonError("cannot serve metrics on \(described): \(error)")
        }
        self.group = group
        logger.info(
            "serving metrics", metadata: ["address": "\(channel.localAddress?.description ?? "?")", "path": "/metrics"])
    }

    /// Closes the socket and stops the loop.
    func shutdown() {
        channel.close(promise: nil)
        try? group.syncShutdownGracefully()
    }

    /// Throws unless `descriptor` is a TCP socket that listens.
    private static func checkListeningTCP(_ descriptor: Int32, described: String) throws(DaemonError) {
        func option(_ name: Int32) throws(DaemonError) -> Int32 {
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(descriptor, SOL_SOCKET, name, &value, &length) == 0 else {
                throw DaemonError("\(described) is unusable: \(String(cString: strerror(errno)))")
            }
            return value
        }
        let domain = try option(SO_DOMAIN)
        guard domain == AF_INET || domain == AF_INET6, try option(SO_TYPE) == Int32(SOCK_STREAM.rawValue) else {
            throw DaemonError(
                "\(described) is not a TCP socket: its ListenStream= must be an address and port, such as 127.0.0.1:7331")
        }
        guard try option(SO_ACCEPTCONN) != 0 else { throw DaemonError("\(described) is not listening") }
    }
}

/// Snapshots for the scrapes, on the endpoint's loop: at most one request to the input thread at
/// a time, shared by the scrapes that wait for it; a fresh one answers at once.
private final class SnapshotSource {
    private let requests: RequestQueue
    private let loop: any EventLoop
    private var latest: (snapshot: MetricsSnapshot, at: NIODeadline)?
    private var waiting: [(MetricsSnapshot) -> Void] = []

    init(requests: RequestQueue, loop: any EventLoop) {
        self.requests = requests
        self.loop = loop
    }

    /// Calls `answer` with a snapshot at most ``MetricsEndpoint/freshFor`` old, on the loop.
    func snapshot(_ answer: @escaping (MetricsSnapshot) -> Void) {
        if let latest, NIODeadline.now() - latest.at < MetricsEndpoint.freshFor {
            answer(latest.snapshot)
            return
        }
        waiting.append(answer)
        guard waiting.count == 1 else { return }
        let bound = NIOLoopBound(self, eventLoop: loop)
        let loop = self.loop
        requests.snapshot(
            SnapshotRequest { snapshot in
                loop.execute { bound.value.arrived(snapshot) }
            })
    }

    private func arrived(_ snapshot: MetricsSnapshot) {
        latest = (snapshot, NIODeadline.now())
        let answers = waiting
        waiting.removeAll()
        for answer in answers { answer(snapshot) }
    }
}

/// Answers `GET /metrics` (and `HEAD`) in the format the `Accept` header prefers; `404` for
/// another path, `405` for another method. Keeps the connection for the next scrape unless the
/// client says otherwise.
private final class MetricsHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let snapshots: SnapshotSource
    private var request: HTTPRequestHead?
    /// A response is being prepared (the snapshot is on its way): a request meanwhile is not
    /// answered (HTTP/1.1 clients wait for a response before the next request).
    private var busy = false
    /// Numbers the responses prepared, so a late snapshot or timeout answers only its own.
    private var generation = 0

    init(snapshots: SnapshotSource) {
        self.snapshots = snapshots
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): request = head
        case .body: break
        case .end:
            guard let head = request, !busy else { return }
            request = nil
            respond(to: head, context: context)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        guard head.method == .GET || head.method == .HEAD else {
            send(.methodNotAllowed, "only GET and HEAD\n", head: head, context: context, extra: [("Allow", "GET, HEAD")])
            return
        }
        guard path == "/metrics" else {
            send(.notFound, "gestured serves its metrics at /metrics\n", head: head, context: context)
            return
        }
        busy = true
        generation &+= 1
        let waitingFor = generation
        let format = MetricsFormat.negotiated(accept: head.headers["Accept"].first)
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        let timeout = context.eventLoop.scheduleTask(in: MetricsEndpoint.answerTimeout) {
            let (handler, context) = bound.value
            guard handler.busy, handler.generation == waitingFor else { return }
            handler.busy = false
            handler.send(.serviceUnavailable, "the input thread did not answer\n", head: head, context: context)
        }
        snapshots.snapshot { snapshot in
            let (handler, context) = bound.value
            guard handler.busy, handler.generation == waitingFor else { return }
            handler.busy = false
            timeout.cancel()
            handler.send(
                .ok, MetricsExposition.render(snapshot, format: format), head: head, context: context,
                contentType: format.contentType)
        }
    }

    private func send(
        _ status: HTTPResponseStatus, _ body: String, head: HTTPRequestHead, context: ChannelHandlerContext,
        contentType: String = "text/plain; charset=utf-8", extra: [(String, String)] = []
    ) {
        guard context.channel.isActive else { return }
        var buffer = context.channel.allocator.buffer(capacity: body.utf8.count)
        buffer.writeString(body)
        var headers = HTTPHeaders([("Content-Type", contentType), ("Content-Length", "\(buffer.readableBytes)")])
        headers.add(contentsOf: extra)
        let keepAlive = head.isKeepAlive
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        let response = HTTPResponseHead(version: head.version, status: status, headers: headers)
        context.write(wrapOutboundOut(.head(response)), promise: nil)
        if head.method != .HEAD { context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil) }
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            let channel = context.channel
            written.whenComplete { _ in channel.close(promise: nil) }
        }
    }
}

/// Closes connections beyond `limit` open at once as they are accepted.
private final class ConnectionCap: ChannelInboundHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel

    private let limit: Int
    private var open = 0

    init(limit: Int) { self.limit = limit }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let connection = unwrapInboundIn(data)
        guard open < limit else {
            connection.close(promise: nil)
            return
        }
        open += 1
        let cap = NIOLoopBound(self, eventLoop: context.eventLoop)
        connection.closeFuture.hop(to: context.eventLoop).whenComplete { _ in cap.value.open -= 1 }
        context.fireChannelRead(data)
    }
}
