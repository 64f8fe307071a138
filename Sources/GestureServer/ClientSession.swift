import GestureEngine
import GestureLogging
import GestureProtocol
import Logging
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The connection under a ``ClientSession``: what the session asks of its transport. The Unix
/// socket's is ``UnixConnection`` (served from the server thread's epoll loop, no hop); the
/// WebSocket endpoint's is ``WebSocketLink`` (SwiftNIO's loop, one hop per flush). Called on the
/// server thread only.
protocol SessionLink: AnyObject {
    /// Whether the connection takes another line now without its buffer growing past its high
    /// mark (else the session queues, coalesces, and finally overflows the client).
    var isWritable: Bool { get }
    /// Buffers a line for the next ``flush()``.
    func write(_ line: ByteBuffer)
    /// Sends what was buffered: one `sendmsg` on the Unix socket, one hop to NIO for a WebSocket.
    func flush()
    /// Sends `last` after everything buffered, then closes; closes at `deadline` in any case.
    /// The session calls it once.
    func close(after last: ByteBuffer?, deadline: NIODeadline)
    /// A connection being closed already closes by `deadline` at the latest.
    func closeNoLater(than deadline: NIODeadline)
    /// Logs who connected (peer credentials on the Unix socket, page origin on a WebSocket),
    /// throttled per peer.
    func logConnected(_ id: ClientID, logger: Logger, throttle: LogThrottle)
    /// The peer as the journal's rate limit tells peers apart (``LogThrottle``): a uid, an
    /// address.
    var logPeer: String { get }
    /// The transport's answer to a message it refused (``LineFrame/tooLong``,
    /// ``LineFrame/notUTF8``), once the session's error is written: a line is skipped (nothing to
    /// do), a WebSocket message ends the connection (1009, 1007).
    func refusedMessageAnswered()
    /// The next request the transport has read and not yet handed over; nil when none is
    /// waiting (the session then says whether to read more: ``setReading(_:)``).
    func nextFrame() -> LineFrame?
    /// Whether to read more from the client (read back-pressure): the session says yes once it
    /// has taken every request read so far and can take more, no while it cannot. A transport
    /// reads at most ``ClientSession/readBudgetBytes`` a turn of the server thread, and nothing
    /// while it still holds a request the session has not taken.
    func setReading(_ reading: Bool)
    /// Who the client is, as the kernel says (the Unix socket); nil when it cannot say (a
    /// WebSocket page).
    var peerCredentials: PeerCredentials? { get }
}

/// One connection: its requests in, its messages out, its subscription and its queue.
///
/// Transport-free: both transports tell it of events (``start()``, ``pump()`` when requests
/// were read, ``writable()``, ``closed()``), it takes the requests from its ``SessionLink`` and
/// answers through it, so everything the protocol says happens here, once. Runs on the server
/// thread only.
///
/// What one connection may cost the server thread is bounded (docs/PROTOCOL.md §9): it takes
/// at most ``linesPerTurn`` requests a turn of that thread, and its transport reads at most
/// ``readBudgetBytes`` a turn; and it is not read at all while it cannot take a request — while
/// ``maxRepliesWaiting`` replies to its requests wait to be written (its socket is full), while
/// ``maxRequestsInFlight`` of its requests wait for the daemon, or while its `define` is being
/// applied. What is published to it and waits (it reads, but is behind) does not stop its
/// reading: its `ping` is still taken, and its `pong` comes behind what waits.
final class ClientSession {
    /// How the connection reached the server: the little that differs between transports.
    enum Transport {
        /// The Unix socket, from `user` (its peer credentials; nil if the kernel would not say).
        case unixSocket(user: uid_t?)
        /// The WebSocket endpoint, from a page of `origin` (allowed, as the handshake checked).
        case webSocket(origin: String, peer: String, allowsDefine: Bool, allowsStatus: Bool)
    }

    private enum State {
        /// Before admission (``start()``).
        case connecting
        case open(ClientID)
        /// Its last message (an `error`) is on its way; nothing else is sent or read.
        case closing(ClientID?)
        case closed
    }

    private let core: ServerCore
    let transport: Transport
    private var state = State.connecting
    /// Weak: the transport owns its link (the epoll loop's connection table, the NIO pipeline),
    /// and the link holds its session; once the connection is gone writes go nowhere.
    private weak var link: (any SessionLink)?
    private var subscription: Subscription?
    /// The version of its subscription (``ServerCore/readerChanged(_:)``); 0 before its first.
    var readerVersion: UInt64 = 0
    /// Its place among the readers while it reads (``Interest/Reader/slot``).
    var readerSlot: Int?
    /// Whether it may see where fingers are, as decided when it last subscribed or the rule
    /// changed (``PositionAccess``).
    private var seesPositions = false
    /// Who it is to that rule, looked up once: its credentials are those of its connect.
    private lazy var viewer: PositionAccess.Viewer =
        switch transport {
        case .unixSocket: .local(link?.peerCredentials)
        case .webSocket: .page
        }
    private var queue: OutboundQueue<ByteBuffer>
    private var needsFlush = false
    /// Bumped by every `define` sent to the delegate; a reply for an older one is stale.
    private var defineGeneration = 0
    /// Its `define` is with the engine, not yet answered. (What it holds of the limits of all
    /// connections together is in the ``DefinitionLedger``.)
    private var definePending = false
    /// A request of it is with the ``RequestDecoder``.
    private var decoding = false
    /// Its `ping`s, `status` requests, `record`s and declared requests with the daemon, not yet
    /// answered.
    private var requestsInFlight = 0
    /// The server thread's turn in which it last took a request, and how many it took then.
    private var turn: UInt64 = 0
    private var linesThisTurn = 0
    /// A ``pump()`` is posted for the next turn (its budget for this one was spent).
    private var pumpPosted = false
    /// Its peer, for the journal's rate limit (``SessionLink/logPeer``).
    private var logPeer = "?"

    init(core: ServerCore, link: any SessionLink, transport: Transport) {
        self.core = core
        self.link = link
        self.transport = transport
        self.queue = OutboundQueue(limit: core.limits.maxQueuedMessages, byteLimit: core.limits.maxQueuedBytes)
    }

    var id: ClientID? { clientID }

    /// What its queue holds (``OutboundQueue/bytes``).
    var queuedBytes: Int { queue.bytes }

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

    /// Whether it reads what is published: open and subscribed.
    var isReading: Bool { isOpen && subscription != nil }

    /// What this connection wants, while it is open and subscribed.
    var reader: Interest.Reader? {
        guard case .open(let id) = state, let subscription, let readerSlot else { return nil }
        return Interest.Reader(
            client: id, subscription: subscription, slot: readerSlot, version: readerVersion,
            seesPositions: seesPositions)
    }

    // MARK: Connection events

    /// The connection is up: admitted with its `hello`, or refused with its error.
    func start() {
        guard case .connecting = state else { return }
        logPeer = link?.logPeer ?? "?"
        switch core.admit(self) {
        case .accepted(let id, let hello):
            state = .open(id)
            link?.logConnected(id, logger: core.logger, throttle: core.throttle)
            send(hello)
            pump()
        case .refused(let error):
            core.throttle.log(
                .warning, "connection refused", cause: "connection-refused", peer: logPeer,
                metadata: ["code": "\(error.code)", "reason": "\(error.message)"], to: core.logger)
            close(with: error)
        }
    }

    /// The connection has gone (closed by either side, or failed).
    func closed() {
        let id = clientID
        let wasAdmitted: Bool
        switch state {
        case .open: wasAdmitted = true
        case .closing(let admitted): wasAdmitted = admitted != nil
        case .connecting, .closed: wasAdmitted = false
        }
        state = .closed
        queue.removeAll()
        if wasAdmitted, let id {
            core.throttle.log(
                .info, "client disconnected", cause: "disconnection", peer: logPeer, metadata: ["client": "\(id)"],
                to: core.logger)
            core.remove(self, id: id)
        }
    }

    /// The connection's buffer went below its low mark: what waits in the queue goes out.
    func writable() {
        guard isOpen, let link else { return }
        while link.isWritable, let line = queue.dequeue() {
            link.write(line)
            needsFlush = true
        }
        pump()
    }

    // MARK: Requests

    /// Requests of one connection taken in one turn of the server thread, at most; the rest wait
    /// for the next turn (and nothing more is read meanwhile).
    static let linesPerTurn = 16
    /// Bytes a transport reads from one connection in one turn, at most.
    static let readBudgetBytes = 16 * 1024
    /// Requests of one connection waiting for the daemon (`ping`, `status`) at once, at most; with that
    /// many, the connection is not read until one is answered.
    static let maxRequestsInFlight = 16
    /// Replies to one connection's requests waiting to be written (its socket full), at most; with
    /// that many, the connection is not read until they are written.
    static let maxRepliesWaiting = 16

    /// Whether it takes a request now: open, fewer than ``maxRepliesWaiting`` of its replies wait
    /// to be written, none of its requests is being decoded, and not too many wait for the daemon.
    private var takesRequests: Bool {
        guard isOpen, link != nil else { return false }
        return !decoding && queue.replies < Self.maxRepliesWaiting && requestsInFlight < Self.maxRequestsInFlight
    }

    /// Takes the requests its transport has read, as many as this turn's budget and its
    /// back-pressure allow, and tells the transport whether to read more: the transports call it
    /// after each read; the session itself whenever what held it back is gone (its socket
    /// drained, a reply from the daemon came).
    func pump() {
        guard case .open(let id) = state, let link else { return }
        if turn != core.turn {
            turn = core.turn
            linesThisTurn = 0
        }
        var waiting = false
        while takesRequests {
            guard linesThisTurn < Self.linesPerTurn else {
                waiting = true
                pumpNextTurn()
                break
            }
            guard let frame = link.nextFrame() else { break }
            linesThisTurn += 1
            received(frame, client: id)
        }
        flushIfNeeded()
        // A `define` being applied stops the reading (read back-pressure): what was read with
        // it is still taken (a second `define` gets `busy`), nothing more.
        link.setReading(takesRequests && !waiting && !definePending)
    }

    /// Its budget for this turn is spent: it goes on in the next.
    private func pumpNextTurn() {
        guard !pumpPosted else { return }
        pumpPosted = true
        let session = ServerThreadBound(self)
        core.mailbox.post {
            session.value.pumpPosted = false
            session.value.pump()
        }
    }

    /// A request line (or an over-long one) arrived.
    private func received(_ frame: LineFrame, client id: ClientID) {
        switch frame {
        case .tooLong:
            let consequence =
                switch transport {
                case .unixSocket:
                    "a line is longer than \(core.limits.maxLineBytes) bytes; it was skipped up to its newline"
                case .webSocket:
                    "a message is longer than \(core.limits.maxLineBytes) bytes; the connection is closed (1009)"
                }
            reject(ErrorMessage(code: .lineTooLong, message: consequence), client: id)
            flushIfNeeded()
            link?.refusedMessageAnswered()
        case .line(let line):
            // Empty lines are framing, not requests (a client may send them as keep-alives).
            guard line.readableBytes > 0 else { return }
            handle(line, client: id)
        case .notUTF8:
            // Known without decoding: the transport checked it (a WebSocket text message).
            reject(ClientMessage.notUTF8, client: id)
            flushIfNeeded()
            link?.refusedMessageAnswered()
        }
    }

    /// A request line: refused or answered on its head where that tells enough, else decoded
    /// off this thread (``RequestDecoder``) while the connection waits.
    private func handle(_ line: ByteBuffer, client: ClientID) {
        if let head = line.withUnsafeReadableBytes({ RequestHead.scan($0) }) {
            if let refusal = refusalBeforeDecoding(head, client: client) { return reject(refusal, client: client) }
            if let request = RequestDecoding.bare(head, among: core.requests.types) {
                return handle(request, id: head.id, client: client)
            }
        }
        decoding = true
        let session = ServerThreadBound(self)
        let mailbox = core.mailbox
        core.decoder.decode(line, against: core.requests, rules: defineRules(client)) { decoded in
            mailbox.post { session.value.decoded(decoded) }
        }
    }

    /// What the server answers a request of this head without decoding it: a `define` this
    /// connection may not make (`unavailable`), or may not make now (`busy`: one is pending); a
    /// page's `record`, and its `status` unless the endpoint allows it (`unavailable`); what a
    /// declared type's ``RequestType/refusal(_:)`` says.
    private func refusalBeforeDecoding(_ head: RequestHead, client: ClientID) -> ErrorMessage? {
        switch head.type {
        case "define":
            if let defineUnavailable {
                return ErrorMessage(code: .unavailable, message: defineUnavailable, id: head.id)
            }
            if definePending { return ErrorMessage.busy(id: head.id) }
            return nil
        case "record":
            // The rule refuses every page: it has no credentials to check.
            guard case .page = viewer,
                case .refused(let code, let reason) = core.positions.decide(viewer, sees: .panel(nil))
            else { return nil }
            return ErrorMessage(code: code, message: reason, id: head.id)
        case "status":
            // It names the local users of the Unix socket's clients, and any page may ask.
            guard case .webSocket(_, _, _, allowsStatus: false) = transport else { return nil }
            return ErrorMessage(
                code: .unavailable,
                message: "the WebSocket endpoint does not answer status (websocket.allow-status is false)", id: head.id)
        default:
            var refusal = core.requests.refusal(head.type, asker(client))
            refusal?.id = head.id
            return refusal
        }
    }

    /// Who asks, as a declared request type sees it.
    private func asker(_ client: ClientID) -> Asker {
        let isPage = if case .webSocket = transport { true } else { false }
        return Asker(client: client, peer: link?.peerCredentials, isPage: isPage, daemon: core.delegate)
    }

    /// The decoder's result for this connection's request.
    private func decoded(_ result: RequestDecoder.Decoded) {
        guard case .open(let client) = state else { return }
        decoding = false
        switch result {
        case .request(let request, let id): handle(request, id: id, client: client)
        case .refused(let error): reject(error, client: client)
        }
        pump()
    }

    /// Why this connection may not define at all (nil: it may).
    private var defineUnavailable: String? {
        RequestDecoder.DefineRules.unavailable(transport: transport, hasDelegate: core.delegate != nil)
    }

    private func defineRules(_ client: ClientID) -> RequestDecoder.DefineRules {
        RequestDecoder.DefineRules(
            client: client, unavailable: defineUnavailable, limits: core.limits, ledger: core.ledger)
    }

    private func reject(_ error: ErrorMessage, client: ClientID) {
        core.logger.debug("bad request", metadata: ["client": "\(client)", "error": "\(error)"])
        send(.error(error))
    }

    /// Acts on a request, decoded or read whole from its head; a `define` has been admitted
    /// where it was decoded (``RequestDecoder``).
    private func handle(_ request: ServedRequest, id: RequestID?, client: ClientID) {
        switch request {
        case .message(let body): handle(body, id: id, client: client)
        case .declared(let request):
            requestsInFlight += 1
            let session = ServerThreadBound(self)
            let mailbox = core.mailbox
            let decoder = core.decoder
            request.perform(
                for: asker(client),
                reply: RequestReply(id: id) { answer in
                    switch answer {
                    case .message(let message): mailbox.post { session.value.answered(message) }
                    case .published: mailbox.post { session.value.answered(nil) }
                    case .encoded(let encode):
                        decoder.run {
                            let line = encode().map { ByteBuffer(bytes: $0) }
                            mailbox.post { session.value.replyReady(line) }
                        }
                    }
                })
        }
    }

    /// Acts on a request of ``ClientMessage``'s types.
    private func handle(_ body: ClientMessage.Body, id: RequestID?, client: ClientID) {
        switch body {
        case .subscribe(let filters):
            let sight = core.positions.decide(viewer, sees: .touches)
            if filters.touches, case .refused(let code, let reason) = sight {
                core.touchesRefused(client, reason)
                return send(.error(ErrorMessage(code: code, message: reason, id: id, path: "/touches")))
            }
            subscription = filters
            seesPositions = sight.isAllowed
            core.readerChanged(self)
            send(.ok(id: id))
        case .unsubscribe:
            subscription = nil
            core.readerChanged(self)
            send(.ok(id: id))
        case .ping:
            guard let delegate = core.delegate else { return send(.pong(id: id)) }
            requestsInFlight += 1
            let session = ServerThreadBound(self)
            let mailbox = core.mailbox
            delegate.ping(
                PingRequest(client: client) {
                    mailbox.post { session.value.pongReady(id: id) }
                })
        case .define(let definitions):
            // Admitted where it was decoded, which only a server with an engine does.
            define(definitions, id: id, client: client, engine: core.delegate!)
        case .status:
            status(id: id, client: client)
        case .record(let options):
            // The daemon decides who may record what; the transport says who asks.
            guard let delegate = core.delegate else {
                return send(.error(ErrorMessage(code: .unavailable, message: "this daemon records no panel", id: id)))
            }
            requestsInFlight += 1
            let session = ServerThreadBound(self)
            let mailbox = core.mailbox
            delegate.record(
                RecordRequest(
                    client: client, options: options, id: id, peer: link?.peerCredentials,
                    completion: { error in mailbox.post { session.value.answered(error.map { .error($0) }) } }))
        }
    }

    /// Asks for the daemon's part of a `status` (``ServerCore/status(for:_:)``: one shared by the
    /// requests within 100 ms), then makes the reply — the clients connected when it was asked,
    /// their users' names looked up — and encodes it on the decoder's thread; this thread only
    /// writes the finished line.
    private func status(id: RequestID?, client: ClientID) {
        guard core.delegate != nil else {
            return send(.error(ErrorMessage(code: .unavailable, message: "this server keeps no status", id: id)))
        }
        requestsInFlight += 1
        let clients = core.clients()
        let session = ServerThreadBound(self)
        let mailbox = core.mailbox
        let decoder = core.decoder
        core.status(for: client) { answer in
            decoder.run {
                let line: ByteBuffer?
                switch answer {
                case .success(var status):
                    status.id = id
                    status.clients = clients.map(\.status)
                    var encoder = LineEncoder()
                    line = (try? encoder.encode(.status(status))).map { ByteBuffer(bytes: $0) }
                case .failure(var error):
                    error.id = id
                    var encoder = LineEncoder()
                    line = (try? encoder.encode(.error(error))).map { ByteBuffer(bytes: $0) }
                }
                mailbox.post { session.value.replyReady(line) }
            }
        }
    }

    /// A reply made and encoded off this thread (`status`, a declared type's own): written as it is.
    private func replyReady(_ line: ByteBuffer?) {
        guard isOpen else { return }
        requestsInFlight -= 1
        if let line {
            deliver(line, stream: nil, isUpdate: false, isReply: true)
        } else {
            core.logger.error("cannot encode a reply, not sent")
        }
        pump()
    }

    /// The daemon has answered a request of this connection that waited for it (`record`, a
    /// declared type): with `message`, or with what it published (nil).
    private func answered(_ message: ServerMessage?) {
        guard isOpen else { return }
        requestsInFlight -= 1
        if let message { send(message) }
        pump()
    }

    /// Hands an admitted `define` to the engine; it is pending until the engine answers.
    private func define(
        _ definitions: Definitions, id: RequestID?, client: ClientID, engine delegate: any GestureServerDelegate
    ) {
        definePending = true
        defineGeneration += 1
        let generation = defineGeneration
        let session = ServerThreadBound(self)
        let mailbox = core.mailbox
        delegate.define(
            DefinitionRequest(client: client, definitions: definitions) { result in
                mailbox.post { session.value.defineCompleted(result, id: id, generation: generation) }
            })
    }

    private func defineCompleted(_ result: Result<Void, SpecError>, id: RequestID?, generation: Int) {
        guard definePending, generation == defineGeneration, case .open(let client) = state else { return }
        definePending = false
        switch result {
        case .success:
            core.ledger.settle(client, accepted: true)
            send(.ok(id: id))
        case .failure(let error):
            core.ledger.settle(client, accepted: false)
            send(.error(ErrorMessage(definitionError: error, id: id)))
        }
        pump()
    }

    private func pongReady(id: RequestID?) {
        guard isOpen else { return }
        requestsInFlight -= 1
        send(.pong(id: id))
        pump()
    }

    /// The rule of who may see where fingers are changed (a reload): what this connection sees is
    /// decided again; a subscription to raw touches it may no longer have loses them, and the
    /// client is told so (an `error` without an `id`).
    func positionsChanged() {
        guard isOpen, var changed = subscription else { return }
        let sight = core.positions.decide(viewer, sees: .touches)
        var lost: String?
        if changed.touches, case .refused(_, let reason) = sight {
            changed.touches = false
            lost = reason
        }
        guard changed != subscription || sight.isAllowed != seesPositions else { return }
        subscription = changed
        seesPositions = sight.isAllowed
        core.readerChanged(self)
        guard let lost else { return }
        send(.error(ErrorMessage(code: .permissionDenied, message: "raw touches stop: \(lost)")), isReply: false)
        flushIfNeeded()
    }

    /// A reload took some of this connection's definitions: the client is told which and why
    /// (they no longer count: ``ServerCore/dropped(_:client:)``).
    func dropped(_ message: DroppedMessage) {
        guard isOpen else { return }
        send(.dropped(message), isReply: false)
        flushIfNeeded()
    }

    // MARK: Sending

    /// Sends a message of the connection's own: a reply to its request (or its `hello`), unless
    /// `isReply` is false.
    private func send(_ message: ServerMessage, isReply: Bool = true) {
        guard let line = core.encode(message) else { return }
        deliver(line, stream: nil, isUpdate: false, isReply: isReply)
    }

    /// Writes `line` at once when the socket can take it and nothing is waiting, else queues it
    /// (coalescing updates); a queue that overflows ends the connection with `overflow`.
    func deliver(
        _ line: ByteBuffer, stream: OutboundQueue<ByteBuffer>.StreamKey?, isUpdate: Bool, isReply: Bool = false
    ) {
        guard isOpen, let link else { return }
        if queue.isEmpty && link.isWritable {
            link.write(line)
            needsFlush = true
            return
        }
        // A line waits in storage at most twice its size, not in a bigger one it shares (the
        // encoder's, as big as the longest line it ever encoded).
        let line = line.capacity > 2 * line.readableBytes ? ByteBuffer(bytes: line.readableBytesView) : line
        switch queue.enqueue(line, stream: stream, isUpdate: isUpdate, isReply: isReply) {
        case .queued:
            // Its replies wait: it is not read until they are written (read back-pressure).
            if queue.replies >= Self.maxRepliesWaiting { link.setReading(false) }
        case .coalesced:
            core.countDropped(transport, overflowed: false)
        case .overflow:
            core.countDropped(transport, overflowed: true)
            core.throttle.log(
                .warning, "client reads too slowly, disconnecting", cause: "overflow", peer: logPeer,
                metadata: [
                    "client": "\(clientID.map(\.description) ?? "-")", "queued": "\(queue.count)",
                    "queued-bytes": "\(queue.bytes)",
                ], to: core.logger)
            close(
                with: ErrorMessage(
                    code: .overflow,
                    message:
                        "the client read too slowly: \(queue.count) messages (\(queue.bytes) bytes) were waiting; at "
                        + "most \(core.limits.maxQueuedMessages) messages and \(core.limits.maxQueuedBytes) bytes may"))
        }
    }

    func flushIfNeeded() {
        guard needsFlush, let link else { return }
        needsFlush = false
        link.flush()
    }

    /// Sends `error` as the last message and closes once it is written, or after `timeout`
    /// (the close timeout unless given) when the client does not read it. A connection already
    /// closing keeps its last message and only gets the earlier of the two deadlines.
    func close(with error: ErrorMessage, within timeout: TimeAmount? = nil) {
        guard let link else { return }
        let deadline = NIODeadline.now() + (timeout ?? core.configuration.closeTimeout)
        switch state {
        case .connecting: state = .closing(nil)
        case .open(let id):
            state = .closing(id)
            if subscription != nil { core.readerChanged(self) }
        case .closing:
            link.closeNoLater(than: deadline)
            return
        case .closed: return
        }
        queue.removeAll()
        needsFlush = false
        link.close(after: core.encode(.error(error)), deadline: deadline)
    }
}

/// A value that belongs to the server thread, carried through a ``Mailbox`` job (which runs it
/// there): the `Sendable` the compiler cannot see.
struct ServerThreadBound<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
