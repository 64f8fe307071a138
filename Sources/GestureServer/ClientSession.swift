import CLinuxSupport
import GestureEngine
import GestureProtocol
import Logging
import NIOCore

/// One connection: its requests in, its messages out, its subscription and its queue.
///
/// The last handler of the connection's pipeline, after ``LineFrameDecoder`` on the Unix socket
/// and after ``WebSocketLineCodec`` on the WebSocket endpoint: both transports hand it lines and
/// take lines from it, so everything the protocol says happens here, once. Runs on the server's
/// event loop only.
final class ClientSession: ChannelInboundHandler {
    typealias InboundIn = LineFrame
    typealias OutboundOut = ByteBuffer

    /// How the connection reached the server: the little that differs between transports.
    enum Transport {
        /// The Unix socket; peer credentials are logged.
        case unixSocket
        /// The WebSocket endpoint, from a page of `origin` (allowed, as the handshake checked).
        case webSocket(origin: String, peer: String, allowsDefine: Bool)
    }

    private enum State {
        /// Before admission (channelActive).
        case connecting
        case open(ClientID)
        /// Its last message (an `error`) is on its way; nothing else is sent or read.
        case closing(ClientID?)
        case closed
    }

    private let core: ServerCore
    private let transport: Transport
    private var state = State.connecting
    private var context: ChannelHandlerContext?
    private var subscription: Subscription?
    private var queue: OutboundQueue<ByteBuffer>
    private var needsFlush = false
    /// Bumped by every `define` sent to the delegate; a reply for an older one is stale.
    private var defineGeneration = 0
    /// The definitions the engine runs for this connection, and those of a `define` not yet
    /// answered: what counts against the limits of all connections together.
    private var acceptedDefinitions = Definitions()
    private var pendingDefinitions: Definitions?
    private var closeTimer: Scheduled<Void>?
    /// When ``closeTimer`` closes the connection.
    private var closeDeadline: NIODeadline?

    init(core: ServerCore, transport: Transport = .unixSocket) {
        self.core = core
        self.transport = transport
        self.queue = OutboundQueue(limit: core.limits.maxQueuedMessages)
    }

    var id: ClientID? { clientID }

    var isOpen: Bool {
        if case .open = state { return true }
        return false
    }

    private var clientID: ClientID? {
        switch state {
        case .open(let id): id
        case .closing(let id): id
        case .connecting, .closed: nil
        }
    }

    // MARK: Filters

    /// What this connection wants, while it is open and subscribed.
    var reader: Interest.Reader? {
        guard case .open(let id) = state, let subscription else { return nil }
        return Interest.Reader(client: id, subscription: subscription)
    }

    func wants(_ gesture: GestureMessage, from owner: Owner) -> Bool {
        reader?.wants(gesture, from: owner) ?? false
    }

    func wants(_ touch: TouchMessage) -> Bool {
        reader?.wants(touch) ?? false
    }

    func wants(_ explanation: ExplainMessage, from owner: Owner) -> Bool {
        reader?.wants(explanation, from: owner) ?? false
    }

    // MARK: Connection events

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        // A WebSocket session joins a connection that is active already (after its handshake).
        if context.channel.isActive { admit(context: context) }
    }

    /// The pipeline lets go of this handler when the channel closes. The context holds the
    /// handler and the handler held the context: without this, every connection leaked its
    /// session, context and pipeline (~450 bytes; issue 12, defect 4).
    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        admit(context: context)
        context.fireChannelActive()
    }

    private func admit(context: ChannelHandlerContext) {
        guard case .connecting = state else { return }
        switch core.admit(self) {
        case .accepted(let id, let hello):
            state = .open(id)
            logConnection(id, channel: context.channel)
            send(hello)
            flushIfNeeded()
        case .refused(let error):
            core.logger.warning("connection refused", metadata: ["code": "\(error.code)"])
            close(with: error)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        let id = clientID
        let wasAdmitted: Bool
        switch state {
        case .open: wasAdmitted = true
        case .closing(let admitted): wasAdmitted = admitted != nil
        case .connecting, .closed: wasAdmitted = false
        }
        state = .closed
        closeTimer?.cancel()
        closeTimer = nil
        queue.removeAll()
        if wasAdmitted, let id {
            core.logger.info("client disconnected", metadata: ["client": "\(id)"])
            core.remove(self, id: id)
        }
        context.fireChannelInactive()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, isOpen {
            while context.channel.isWritable, let line = queue.dequeue() {
                context.write(wrapOutboundOut(line), promise: nil)
                needsFlush = true
            }
            flushIfNeeded()
        }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        core.logger.debug(
            "connection error, closing",
            metadata: ["client": "\(clientID.map(\.description) ?? "-")", "error": "\(error)"])
        context.close(promise: nil)
    }

    /// Reads SO_PEERCRED through SwiftNIO (which owns the descriptor) and logs who connected;
    /// a WebSocket has no credentials, its page's origin and address are logged instead.
    private func logConnection(_ id: ClientID, channel: any Channel) {
        let logger = core.logger
        if case .webSocket(let origin, let peer, _) = transport {
            logger.info(
                "client connected", metadata: ["client": "\(id)", "websocket": "\(peer)", "origin": "\(origin)"])
            return
        }
        guard let provider = channel as? any SocketOptionProvider else {
            logger.info("client connected", metadata: ["client": "\(id)"])
            return
        }
        let credentials: EventLoopFuture<gestured_ucred> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(GESTURED_SOL_SOCKET), name: SocketOptionName(GESTURED_SO_PEERCRED))
        credentials.whenComplete { result in
            switch result {
            case .success(let c):
                logger.info(
                    "client connected",
                    metadata: ["client": "\(id)", "pid": "\(c.pid)", "uid": "\(c.uid)", "gid": "\(c.gid)"])
            case .failure(let error):
                logger.info(
                    "client connected (no peer credentials)", metadata: ["client": "\(id)", "error": "\(error)"])
            }
        }
    }

    // MARK: Requests

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .open(let id) = state else { return }
        switch unwrapInboundIn(data) {
        case .tooLong:
            let consequence =
                switch transport {
                case .unixSocket: "a line is longer than \(core.limits.maxLineBytes) bytes; it was skipped up to its newline"
                case .webSocket:
                    "a message is longer than \(core.limits.maxLineBytes) bytes; the connection is closed (1009)"
                }
            reject(ErrorMessage(code: .lineTooLong, message: consequence), client: id)
        case .line(let line):
            // Empty lines are framing, not requests (a client may send them as keep-alives).
            guard line.readableBytes > 0 else { return }
            switch ClientMessage.parse(line.readableBytesView) {
            case .success(let request): handle(request, client: id)
            case .failure(let error): reject(error, client: id)
            }
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flushIfNeeded()
        context.fireChannelReadComplete()
    }

    private func reject(_ error: ErrorMessage, client: ClientID) {
        core.logger.debug("bad request", metadata: ["client": "\(client)", "error": "\(error)"])
        send(.error(error))
    }

    private func handle(_ request: ClientMessage, client: ClientID) {
        switch request.body {
        case .subscribe(let filters):
            subscription = filters
            core.interestChanged()
            send(.ok(id: request.id))
        case .unsubscribe:
            subscription = nil
            core.interestChanged()
            send(.ok(id: request.id))
        case .ping:
            guard let delegate = core.delegate, let context else { return send(.pong(id: request.id)) }
            let session = NIOLoopBound(self, eventLoop: context.eventLoop)
            let eventLoop = context.eventLoop
            delegate.ping(
                PingRequest(client: client) {
                    eventLoop.execute { session.value.pongReady(id: request.id) }
                })
        case .define(let definitions):
            define(definitions, id: request.id, client: client)
        }
    }

    private func define(_ definitions: Definitions, id: RequestID?, client: ClientID) {
        guard let delegate = core.delegate else {
            return reject(
                ErrorMessage(code: .unavailable, message: "this server does not accept definitions", id: id),
                client: client)
        }
        if case .webSocket(_, _, allowsDefine: false) = transport {
            return reject(
                ErrorMessage(
                    code: .unavailable,
                    message: "the WebSocket endpoint does not accept definitions (websocket.allow-define is false)",
                    id: id),
                client: client)
        }
        guard pendingDefinitions == nil else {
            return reject(
                ErrorMessage(
                    code: .busy, message: "the previous define of this connection is still being applied", id: id),
                client: client)
        }
        let limits = core.limits
        let max = limits.maxDefinitions
        for (key, count) in [("regions", definitions.regions.count), ("recognizers", definitions.recognizers.count)]
        where count > max {
            return reject(
                ErrorMessage(
                    code: .invalidDefinition, message: "\(key): \(count) given, at most \(max) per connection", id: id,
                    path: "/\(key)"),
                client: client)
        }
        if definitions.templateCount > limits.maxTemplates {
            return reject(
                ErrorMessage(
                    code: .invalidDefinition,
                    message:
                        "recognizers: \(definitions.templateCount) shape templates given, at most \(limits.maxTemplates) per connection",
                    id: id, path: "/recognizers"),
                client: client)
        }
        if let refusal = core.exceedsClientLimits(definitions, from: self) {
            return reject(ErrorMessage(code: .tooManyRecognizers, message: refusal, id: id), client: client)
        }
        pendingDefinitions = definitions
        defineGeneration += 1
        let generation = defineGeneration
        let session = NIOLoopBound(self, eventLoop: context!.eventLoop)
        let eventLoop = context!.eventLoop
        delegate.define(
            DefinitionRequest(client: client, definitions: definitions) { result in
                eventLoop.execute { session.value.defineCompleted(result, id: id, generation: generation) }
            })
    }

    private func defineCompleted(_ result: Result<Void, SpecError>, id: RequestID?, generation: Int) {
        guard let pending = pendingDefinitions, generation == defineGeneration, isOpen else { return }
        pendingDefinitions = nil
        switch result {
        case .success:
            acceptedDefinitions = pending
            send(.ok(id: id))
        case .failure(let error):
            send(.error(ErrorMessage(definitionError: error, id: id)))
        }
        flushIfNeeded()
    }

    private func pongReady(id: RequestID?) {
        guard isOpen else { return }
        send(.pong(id: id))
        flushIfNeeded()
    }

    /// What counts against the limits of all connections together: the pending `define`, or
    /// what the engine runs.
    var reservedDefinitions: Definitions { pendingDefinitions ?? acceptedDefinitions }

    /// A reload took some of this connection's definitions: they no longer count, and the client
    /// is told which and why.
    func dropped(_ message: DroppedMessage) {
        guard isOpen else { return }
        let regions = Set(message.definitions.filter { $0.kind == .region }.map(\.name))
        let recognizers = Set(message.definitions.filter { $0.kind == .recognizer }.map(\.name))
        acceptedDefinitions.regions.removeAll { regions.contains($0.name) }
        acceptedDefinitions.recognizers.removeAll { recognizers.contains($0.name) }
        send(.dropped(message))
        flushIfNeeded()
    }

    // MARK: Sending

    private func send(_ message: ServerMessage) {
        guard let line = core.encode(message) else { return }
        deliver(line, stream: nil, isUpdate: false)
    }

    /// Writes `line` at once when the socket can take it and nothing is waiting, else queues it
    /// (coalescing updates); a queue that overflows ends the connection with `overflow`.
    func deliver(_ line: ByteBuffer, stream: OutboundQueue<ByteBuffer>.StreamKey?, isUpdate: Bool) {
        guard isOpen, let context else { return }
        if queue.isEmpty && context.channel.isWritable {
            context.write(wrapOutboundOut(line), promise: nil)
            needsFlush = true
            return
        }
        switch queue.enqueue(line, stream: stream, isUpdate: isUpdate) {
        case .queued, .coalesced:
            break
        case .overflow:
            core.logger.warning(
                "client reads too slowly, disconnecting",
                metadata: ["client": "\(clientID.map(\.description) ?? "-")", "queued": "\(queue.count)"])
            close(
                with: ErrorMessage(
                    code: .overflow,
                    message:
                        "the client read too slowly: more than \(core.limits.maxQueuedMessages) messages were waiting"))
        }
    }

    func flushIfNeeded() {
        guard needsFlush, let context else { return }
        needsFlush = false
        context.flush()
    }

    /// Sends `error` as the last message and closes once it is written, or after `timeout`
    /// (the close timeout unless given) when the client does not read it. A connection already
    /// closing keeps its last message and only gets the earlier of the two deadlines.
    func close(with error: ErrorMessage, within timeout: TimeAmount? = nil) {
        guard let context else { return }
        let deadline = NIODeadline.now() + (timeout ?? core.configuration.closeTimeout)
        switch state {
        case .connecting: state = .closing(nil)
        case .open(let id):
            state = .closing(id)
            if subscription != nil { core.interestChanged() }
        case .closing:
            if let current = closeDeadline, deadline < current { scheduleClose(at: deadline, context: context) }
            return
        case .closed: return
        }
        queue.removeAll()
        needsFlush = false
        let channel = context.channel
        if let line = core.encode(.error(error)) {
            context.writeAndFlush(wrapOutboundOut(line)).whenComplete { _ in channel.close(promise: nil) }
        } else {
            channel.close(promise: nil)
        }
        scheduleClose(at: deadline, context: context)
    }

    private func scheduleClose(at deadline: NIODeadline, context: ChannelHandlerContext) {
        closeTimer?.cancel()
        closeDeadline = deadline
        let channel = context.channel
        closeTimer = context.eventLoop.scheduleTask(deadline: deadline) { channel.close(promise: nil) }
    }
}
