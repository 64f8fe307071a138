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

    let core: ServerCore
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
        case .unixSocket: .local(peer)
        case .webSocket: .page
        }
    /// Who the client is, as the kernel said when it connected (asked once, at its first
    /// request: the kernel's answer does not change).
    private lazy var peer: PeerCredentials? = link?.peerCredentials
    private var queue: OutboundQueue<ByteBuffer>
    private var needsFlush = false
    /// Its `define` is with the engine, not yet answered (``Define``): one at a time, not among
    /// its requests in flight. (What it holds of the limits of all connections together is in
    /// the ``DefinitionLedger``.)
    private(set) var definePending = false
    /// A request of it is with the ``RequestDecoder``.
    private var decoding = false
    /// Its requests being performed, not yet answered (with the daemon, or their replies being
    /// made on the request thread).
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

    /// What its queue holds (``OutboundQueue/bytes``).
    var queuedBytes: Int { queue.bytes }

    var isOpen: Bool {
        if case .open = state { return true }
        return false
    }

    /// Its number, once admitted (while it closes too).
    var id: ClientID? {
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
        let admitted = id
        state = .closed
        queue.removeAll()
        if let id = admitted {
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
            // What its type says of who asks, on its head alone (``RequestType/refusal(_:)``).
            if var refusal = core.requests.refusal(head.type, asker(client)) {
                refusal.id = head.id
                return reject(refusal, client: client)
            }
            if let request = core.requests.bare(head) {
                return handle(request, id: head.id, client: client)
            }
        }
        decoding = true
        let session = ServerThreadBound(self)
        let mailbox = core.mailbox
        let rules = AdmissionRules(
            client: client, transport: transport, hasDaemon: core.delegate != nil, limits: core.limits,
            ledger: core.ledger)
        core.decoder.decode(line, against: core.requests, rules: rules) { decoded in
            mailbox.post { session.value.decoded(decoded) }
        }
    }

    /// Who asks, as a request type sees it.
    private func asker(_ client: ClientID) -> Asker {
        let isPage = if case .webSocket = transport { true } else { false }
        return Asker(
            client: client, peer: peer, isPage: isPage, daemon: core.delegate,
            session: ServerThreadBound(self))
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

    private func reject(_ error: ErrorMessage, client: ClientID) {
        core.logger.debug("bad request", metadata: ["client": "\(client)", "error": "\(error)"])
        send(.error(error))
    }

    /// Performs a request, decoded or read whole from its head (a `define` has been admitted
    /// where it was decoded): its type does, and answers through the reply, once.
    private func handle(_ request: any RequestType, id: RequestID?, client: ClientID) {
        requestsInFlight += 1
        let session = ServerThreadBound(self)
        let mailbox = core.mailbox
        request.perform(
            for: asker(client), reply: RequestReply(id: id) { answer in mailbox.post { session.value.answered(answer) } })
    }

    /// One of its requests is answered (on this thread, from its mailbox): the message written,
    /// or a reply of the request's own encoded on the request thread first. `counted`: it was
    /// among the requests in flight (a `define` is not).
    func answered(_ answer: RequestReply.Answer, counted: Bool = true) {
        guard isOpen else { return }
        if case .reply(let reply) = answer {
            let session = ServerThreadBound(self)
            let mailbox = core.mailbox
            return core.decoder.run {
                let line = try? ByteBuffer(bytes: GestureProtocol.encodeLine(reply, with: GestureProtocol.makeEncoder()))
                mailbox.post { session.value.replyReady(line) }
            }
        }
        if counted { requestsInFlight -= 1 }
        if case .message(let message) = answer { send(message) }
        pump()
    }

    /// Its `define` goes to the engine: pending, holding the connection's reading (``pump()``),
    /// instead of counting among its requests in flight.
    func defineHandedOver() {
        requestsInFlight -= 1
        definePending = true
    }

    /// The engine answered its `define`.
    func defineAnswered(_ answer: RequestReply.Answer) {
        guard isOpen else { return }
        definePending = false
        answered(answer, counted: false)
    }

    /// A reply encoded on the request thread: written as it is.
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

    /// Answers the request being performed at once, from its performer on this thread (it is
    /// not read meanwhile, so nothing of the connection's comes between).
    func answerNow(_ message: ServerMessage) {
        requestsInFlight -= 1
        send(message)
    }

    /// Replaces its subscription (`subscribe`), or drops it (`unsubscribe`: nil), and answers:
    /// raw touches only if it may see where fingers are (``PositionAccess``).
    func subscribe(_ filters: Subscription?, id: RequestID?) {
        if let filters {
            let sight = core.positions.decide(viewer, sees: .touches)
            if filters.touches, case .refused(let code, let reason) = sight {
                if let client = self.id { core.touchesRefused(client, reason) }
                return answerNow(.error(ErrorMessage(code: code, message: reason, id: id, path: "/touches")))
            }
            seesPositions = sight.isAllowed
        }
        subscription = filters
        core.readerChanged(self)
        answerNow(.ok(id: id))
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
                    "client": "\(id.map(\.description) ?? "-")", "queued": "\(queue.count)",
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
