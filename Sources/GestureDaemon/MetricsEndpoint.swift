import GestureLogging
import GestureMetrics
import GestureServer
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
///
/// What a local program can make it hold is bounded too (docs/FLEET.md, "The endpoint's limits"):
/// ``maxConnections`` connections, ``maxConnectionsPerPeer`` of one local user (the WebSocket
/// endpoint's gate, ``WebSocketConnectionGate``); a request in whole within ``requestTimeout`` of
/// its first byte (``RequestDeadline``); a connection's next request read only once the answer
/// before it is written, at most ``readBytes`` at a time; and any error answer closes the
/// connection, so nothing after a request it refused is read.
final class MetricsEndpoint {
    private let channel: any Channel
    private let logger: Logger

    /// A snapshot serves the scrapes within this much of it.
    static let freshFor = TimeAmount.milliseconds(100)
    /// Connections open at once (Prometheus keeps one; a few for people with curl).
    static let maxConnections = 16
    /// A connection with no request for this long is closed.
    static let idleTimeout = TimeAmount.seconds(60)
    /// Connections open at once of one peer: one local user (whoever owns the peer's socket), or
    /// one address for a peer on another machine. Prometheus and an operator's curl are two.
    static let maxConnectionsPerPeer = 4
    /// A request (its head and any body) must be in whole within this of its first byte.
    static let requestTimeout = TimeAmount.seconds(10)
    /// Bytes read from a connection at a time (a scrape's request is a few hundred). Nothing more
    /// is read until the requests in them are answered.
    static let readBytes = 4096
    /// What the kernel holds for a connection not being read: 16 KiB asked, which Linux doubles.
    static let receiveBufferBytes = 16 * 1024
    /// A scrape the input thread has not answered within this gets `503`.
    static let answerTimeout = TimeAmount.seconds(5)

    /// Serves `descriptor`, a listening TCP socket, on `loop` (the daemon's one event loop) until
    /// ``shutdown()``.
    init(descriptor: Int32, loop: any EventLoop, requests: RequestQueue, logger: Logger) throws(DaemonError) {
        self.logger = logger
        let described = "the inherited metrics socket (fd \(descriptor), named 'metrics')"
        do {
            try SystemdSockets.checkListeningTCP(descriptor, described: described, example: "127.0.0.1:7331")
        } catch {
            throw DaemonError(error.message)
        }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        let snapshots: NIOLoopBound<SnapshotSource>
        do {
            snapshots = try loop.submit {
                NIOLoopBound(SnapshotSource(requests: requests, loop: loop), eventLoop: loop)
            }
            .wait()
        } catch {
            throw DaemonError("cannot start the metrics endpoint's loop: \(error)")
        }
        let throttle = LogThrottle()
        let bootstrap = ServerBootstrap(group: loop)
            .serverChannelOption(.backlog, value: 16)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        WebSocketConnectionGate(
                            maxClients: Self.maxConnections, maxClientsPerPeer: Self.maxConnectionsPerPeer,
                            names: Self.gateNames, logger: logger, throttle: throttle, refused: RefusedConnections()))
                }
            }
            .childChannelOption(.maxMessagesPerRead, value: 1)
            .childChannelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: Self.readBytes))
            .childChannelOption(.socketOption(.so_rcvbuf), value: Self.receiveBufferBytes)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try Self.configureConnection(channel.pipeline.syncOperations, snapshots: snapshots.value)
                }
            }
        do {
            channel = try bootstrap.withBoundSocket(descriptor).wait()
        } catch {
            throw DaemonError("cannot serve metrics on \(described): \(error)")
        }
        logger.info(
            "serving metrics", metadata: ["address": "\(channel.localAddress?.description ?? "?")", "path": "/metrics"])
    }

    /// What the journal calls the endpoint's limits.
    static let gateNames = WebSocketConnectionGate.Names(
        listener: "metrics", maxClients: "the metrics endpoint's limit",
        maxClientsPerPeer: "the metrics endpoint's limit per peer", cause: "metrics")

    /// A connection's handlers: the request deadline on the bytes as they come, SwiftNIO's HTTP/1
    /// server (its pipelining handler holds requests read behind one being answered), the
    /// answers.
    static func configureConnection(
        _ pipeline: ChannelPipeline.SynchronousOperations, snapshots: SnapshotSource
    ) throws {
        let deadline = RequestDeadline(timeout: Self.requestTimeout)
        try pipeline.addHandler(deadline)
        try pipeline.addHandler(IdleStateHandler(allTimeout: Self.idleTimeout))
        try pipeline.configureHTTPServerPipeline(withErrorHandling: true)
        try pipeline.addHandler(MetricsHTTPHandler(snapshots: snapshots, deadline: deadline))
    }

    /// Closes the socket (its connections close with the loop, which the server stops).
    func shutdown() {
        channel.close(promise: nil)
    }
}

/// Snapshots for the scrapes, on the endpoint's loop: at most one request to the input thread at
/// a time, shared by the scrapes that wait for it; a fresh one answers at once.
final class SnapshotSource {
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
        requests.snapshot { snapshot in loop.execute { bound.value.arrived(snapshot) } }
    }

    private func arrived(_ snapshot: MetricsSnapshot) {
        latest = (snapshot, NIODeadline.now())
        let answers = waiting
        waiting.removeAll()
        for answer in answers { answer(snapshot) }
    }
}

/// Answers `GET /metrics` (and `HEAD`) in the format the `Accept` header prefers, and keeps the
/// connection for the next scrape unless the client says otherwise; answers `404` for another
/// path, `405` for another method (on the request's head: its body is never read), `503` when the
/// input thread does not answer, and closes the connection after each of them, as after the
/// `400` SwiftNIO's error handler answers a request it cannot parse.
///
/// One request at a time, and one answer: a connection's next request is read only once the
/// answer before it is written (its write done: the kernel took it). While an answer is made or
/// waits, the `read()` SwiftNIO asks for after each read is held here, and a request read already
/// (behind it in the same read) waits here. So a peer that sends requests and never reads holds
/// one answer and what one read brought (``MetricsEndpoint/readBytes``), however much it sends.
private final class MetricsHTTPHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let snapshots: SnapshotSource
    private let deadline: RequestDeadline
    private var request: HTTPRequestHead?
    /// An answer is being made or written.
    private var answering = false
    /// A request that came in while an answer was being made or written: answered after it.
    private var next: HTTPRequestHead?
    /// A read asked for while answering, passed on once the answer is written.
    private var readPending = false
    /// The connection is closing after an error answer: nothing more it sends is looked at.
    private var closing = false
    /// Numbers the answers, so a late snapshot or timeout answers only its own.
    private var generation = 0

    init(snapshots: SnapshotSource, deadline: RequestDeadline) {
        self.snapshots = snapshots
        self.deadline = deadline
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            if let refusal = Self.refusal(of: head) {
                deadline.requestComplete()
                refuse(refusal, head: head, context: context)
                return
            }
            request = head
        case .body:
            break
        case .end:
            deadline.requestComplete()
            guard let head = request else { return }
            request = nil
            guard answering else { return respond(to: head, context: context) }
            // SwiftNIO's pipelining handler hands over one request per answer: one waits here
            // at most.
            guard next == nil else { return context.close(promise: nil) }
            next = head
        }
    }

    func read(context: ChannelHandlerContext) {
        guard !answering && next == nil else {
            readPending = true
            return
        }
        context.read()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A request HTTP/1 cannot parse (SwiftNIO's error handler has answered `400`), or the
        // connection failed: nothing after it is read.
        closing = true
        context.close(promise: nil)
    }

    /// What a request's head alone refuses.
    private struct Refusal {
        var status: HTTPResponseStatus
        var text: String
        var headers: [(String, String)] = []
    }

    private static func refusal(of head: HTTPRequestHead) -> Refusal? {
        guard head.method == .GET || head.method == .HEAD else {
            return Refusal(status: .methodNotAllowed, text: "only GET and HEAD\n", headers: [("Allow", "GET, HEAD")])
        }
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        guard path == "/metrics" else {
            return Refusal(status: .notFound, text: "gestured serves its metrics at /metrics\n")
        }
        return nil
    }

    private func refuse(_ refusal: Refusal, head: HTTPRequestHead, context: ChannelHandlerContext) {
        closing = true
        guard !answering else {
            // Behind an answer still being written: it goes, then the connection.
            return context.close(promise: nil)
        }
        send(refusal.status, refusal.text, head: head, context: context, extra: refusal.headers, thenClose: true)
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        answering = true
        generation &+= 1
        let waitingFor = generation
        let format = MetricsFormat.negotiated(accept: head.headers["Accept"].first)
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        let timeout = context.eventLoop.scheduleTask(in: MetricsEndpoint.answerTimeout) {
            let (handler, context) = bound.value
            guard handler.answering, handler.generation == waitingFor else { return }
            handler.generation &+= 1
            handler.closing = true
            handler.send(
                .serviceUnavailable, "the input thread did not answer\n", head: head, context: context, thenClose: true)
        }
        snapshots.snapshot { snapshot in
            let (handler, context) = bound.value
            guard handler.answering, handler.generation == waitingFor else { return }
            timeout.cancel()
            handler.send(
                .ok, MetricsExposition.render(snapshot, format: format), head: head, context: context,
                contentType: format.contentType, thenClose: !head.isKeepAlive)
        }
    }

    /// The answer written (the kernel took it): the request that waited is answered, or the
    /// read that waited goes on. From the loop's next turn, so a stream of pipelined requests
    /// is not answered in one deepening call.
    private func answered(context: ChannelHandlerContext) {
        answering = false
        guard !closing else { return }
        if let head = next {
            next = nil
            respond(to: head, context: context)
        } else if readPending {
            readPending = false
            context.read()
        }
    }

    private func send(
        _ status: HTTPResponseStatus, _ body: String, head: HTTPRequestHead, context: ChannelHandlerContext,
        contentType: String = "text/plain; charset=utf-8", extra: [(String, String)] = [], thenClose: Bool
    ) {
        guard context.channel.isActive else { return }
        answering = true
        var buffer = context.channel.allocator.buffer(capacity: body.utf8.count)
        buffer.writeString(body)
        var headers = HTTPHeaders([("Content-Type", contentType), ("Content-Length", "\(buffer.readableBytes)")])
        headers.add(contentsOf: extra)
        if thenClose { headers.add(name: "Connection", value: "close") }
        let response = HTTPResponseHead(version: head.version, status: status, headers: headers)
        context.write(wrapOutboundOut(.head(response)), promise: nil)
        if head.method != .HEAD { context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil) }
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        let channel = context.channel
        guard !thenClose else {
            written.whenComplete { _ in channel.close(promise: nil) }
            return
        }
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        written.whenComplete { result in
            guard case .success = result else { return channel.close(promise: nil) }
            channel.eventLoop.execute {
                let (handler, context) = bound.value
                handler.answered(context: context)
            }
        }
    }
}
