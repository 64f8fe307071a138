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

/// The server's state. Lives on the server thread and is only touched there, so it needs no
/// locks: the daemon's input thread is that thread (it publishes straight into the core); any
/// other thread reaches it through ``GestureServer``, which posts one ``Mailbox`` job per call.
final class ServerCore {
    let configuration: GestureServer.Configuration
    let logger: Logger
    /// Warnings a flood could repeat (refused connections, accept failures), per cause.
    let throttle: LogThrottle
    let delegate: (any GestureServerDelegate)?
    /// The request types it serves: its own (``ServerRequests``) and the daemon's.
    let requests: RequestTable
    /// Where the publisher learns what the connections want (``Interest``).
    let interest: InterestBoard
    /// Moves on every change of a connection's subscription (``readerChanged(_:)``): an
    /// ``Interest`` and each connection's subscription carry the value it had then.
    private var subscriptionClock: UInt64 = 0
    /// The subscribed connections by ``Interest/Reader/slot`` (nil: a free slot).
    private var readerSlots: [ClientSession?] = []
    /// Where replies from other threads (`pong`, `define`, decoded requests) come back to the
    /// server thread.
    let mailbox: Mailbox
    /// Where requests are decoded, off this thread.
    let decoder: RequestDecoder
    /// What each connection's definitions hold of the limits of all connections together.
    let ledger: DefinitionLedger
    /// Who may see where fingers are: the configuration's rule, until a reload replaces it
    /// (``setPositions(_:)``).
    private(set) var positions: PositionAccess
    private var encoder = LineEncoder()
    /// Where ``encode(_:)`` writes each line (its storage reused while nobody keeps a line).
    private var lineStorage = ByteBufferAllocator().buffer(capacity: 1024)

    /// Open connections, in the order they were accepted (fan-out order).
    private var sessions: [ClientSession] = []
    /// The Unix socket's connections, in all and per user (the WebSocket endpoint's are counted
    /// as they are accepted: ``WebSocketConnectionGate``). Nil user: no peer credentials.
    private var unixQuota: ConnectionQuota<uid_t?>
    /// `status` answers shared by the requests within 100 ms (``status(for:_:)``).
    private var statusShare = StatusShare<(StatusShare<Void>.Answer) -> Void>()
    private var devices: [DeviceInfo] = []
    private var recognizers: [RecognizerSummary] = []
    private var nextClientID: UInt64 = 1
    private(set) var isShuttingDown = false
    /// What it counts for the metrics (``ServerStatistics``); the connected clients are counted
    /// when asked (``statistics(refusedByGate:)``).
    private var counts = ServerStatistics()
    /// The server thread's turn: one handling of what is ready (``ServerLoop/service(timeoutMilliseconds:)``).
    /// A connection's read budget is per turn (``ClientSession/linesPerTurn``).
    private(set) var turn: UInt64 = 0

    /// A new turn of the server thread begins.
    func beginTurn() { turn &+= 1 }
    /// Every connection has gone, after ``shutdown()``.
    var isDrained: Bool { isShuttingDown && sessions.isEmpty }

    init(
        configuration: GestureServer.Configuration, delegate: (any GestureServerDelegate)?,
        requests: [any RequestType.Type] = [], mailbox: Mailbox, interest: InterestBoard = InterestBoard(),
        logger: Logger, throttle: LogThrottle = LogThrottle(), decoder: RequestDecoder = RequestDecoder()
    ) {
        self.requests = RequestTable(declared: requests)
        self.decoder = decoder
        self.configuration = configuration
        self.throttle = throttle
        self.delegate = delegate
        self.mailbox = mailbox
        self.interest = interest
        self.logger = logger
        unixQuota = ConnectionQuota(
            total: configuration.limits.maxClients, perPeer: configuration.limits.maxClientsPerPeer)
        ledger = DefinitionLedger(limits: configuration.limits)
        positions = configuration.positions
    }

    /// A reload changed who may see where fingers are: every connection's right is decided again
    /// (``ClientSession/positionsChanged()``).
    func setPositions(_ access: PositionAccess) {
        guard access != positions else { return }
        positions = access
        for session in sessions { session.positionsChanged() }
    }

    /// A connection is refused raw touches: the journal says who and why, as often as the
    /// throttle lets a flood of them through.
    func touchesRefused(_ client: ClientID, _ reason: String) {
        throttle.log(
            .warning, "raw touches refused", cause: "touches-refused",
            metadata: ["client": "\(client)", "reason": "\(reason)"], to: logger)
    }

    /// `session` subscribed, unsubscribed, or stopped reading (it is closing or gone): its
    /// subscription gets the next version, a reader its slot (one that stopped gives its slot
    /// back), and the publisher what they all want now.
    func readerChanged(_ session: ClientSession) {
        subscriptionClock += 1
        session.readerVersion = subscriptionClock
        switch (session.isReading, session.readerSlot) {
        case (true, nil):
            if let free = readerSlots.firstIndex(where: { $0 == nil }) {
                readerSlots[free] = session
                session.readerSlot = free
            } else {
                readerSlots.append(session)
                session.readerSlot = readerSlots.count - 1
            }
        case (false, let slot?):
            readerSlots[slot] = nil
            session.readerSlot = nil
        case (true, _?), (false, nil):
            break
        }
        interest.post(Interest(readers: sessions.compactMap(\.reader), version: subscriptionClock))
    }

    var limits: ServerLimits { configuration.limits }

    // MARK: Encoding

    /// The message as one line, ready to write to any number of channels (a `ByteBuffer` is
    /// shared, not copied, when written to several). A message JSON cannot carry (a non-finite
    /// number from a faulty publisher) is logged and yields nil.
    func encode(_ message: ServerMessage) -> ByteBuffer? {
        do {
            return try encoder.encode(message) { stored($0) }
        } catch {
            logger.error("cannot encode a \(message.type) message, not sent", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// The publication's message as published (a touch in the region it landed in among the
    /// configuration's); a `gesture` straight from where it lies, not copied into a
    /// ``ServerMessage`` first.
    private func encode(published publication: Publication) -> ByteBuffer? {
        guard case .gesture(let gesture, _, _, _) = publication else {
            return publication.message.flatMap { encode($0) }
        }
        do {
            return try encoder.encode(gesture) { stored($0) }
        } catch {
            logger.error("cannot encode a gesture message, not sent", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// `line` in the last line's storage, unless a slow client's queue still holds it (then
    /// `clear()` gives fresh storage): a line written straight out allocates nothing.
    private func stored(_ line: UnsafeBufferPointer<UInt8>) -> ByteBuffer {
        lineStorage.clear()
        lineStorage.writeBytes(line)
        return lineStorage
    }

    // MARK: Connections

    enum Admission {
        case accepted(ClientID, hello: ServerMessage)
        case refused(ErrorMessage)
    }

    /// A new connection: admitted with its `hello`, or refused with the error to send it. The
    /// Unix socket's connections are counted against its own limits, in all and per user; the
    /// WebSocket endpoint's were counted against its own as they were accepted.
    func admit(_ session: ClientSession) -> Admission {
        let admission = decide(session)
        switch admission {
        case .accepted: counts[keyPath: session.transport.counts].accepted &+= 1
        case .refused: counts[keyPath: session.transport.counts].refused &+= 1
        }
        return admission
    }

    /// A message left out for a slow client of `transport` (coalesced), or the client
    /// disconnected because its queue overflowed.
    func countDropped(_ transport: ClientSession.Transport, overflowed: Bool) {
        if overflowed {
            counts[keyPath: transport.counts].overflowed &+= 1
        } else {
            counts[keyPath: transport.counts].messagesDropped &+= 1
        }
    }

    /// The counts, the clients connected now, and `refusedByGate` WebSocket connections the
    /// endpoint's gate refused before they reached the server.
    func statistics(refusedByGate: UInt64) -> ServerStatistics {
        var statistics = counts
        statistics.webSocket.refused &+= refusedByGate
        for session in sessions where session.isOpen { statistics[keyPath: session.transport.counts].connected += 1 }
        return statistics
    }

    /// The open connections, for a `status` reply: who they are (users' names are looked up off
    /// this thread, where the reply is encoded: ``ClientSession``).
    func clients() -> [ConnectedClient] {
        sessions.compactMap { session in
            guard session.isOpen, let id = session.id else { return nil }
            return ConnectedClient(id: id, transport: session.transport)
        }
    }

    /// Calls `answer` on this thread with the daemon's part of a `status` (its configuration,
    /// panels and counters) at most 100 ms old (``StatusShare``): the delegate is asked at most
    /// once at a time, for `asker`'s request. Needs a delegate.
    func status(for asker: Asker, _ answer: @escaping (StatusShare<Void>.Answer) -> Void) {
        switch statusShare.request(answer, at: .now()) {
        case .answer(let shared):
            answer(shared)
        case .wait:
            break
        case .ask:
            let core = ServerThreadBound(self)
            let mailbox = self.mailbox
            // The daemon's part: a status without clients (``RequestReply/send(_:)``), or its error.
            let made = RequestReply(id: nil) { made in
                let answer: StatusShare<Void>.Answer =
                    switch made {
                    case .reply(let status as StatusMessage): .success(status)
                    case .message(.error(let error)): .failure(error)
                    default: .failure(ErrorMessage(code: .unavailable, message: "the daemon made no status"))
                    }
                mailbox.post { core.value.statusArrived(answer) }
            }
            delegate?.perform(DaemonJob(request: Status(), asker: asker, reply: made))
        }
    }

    private func statusArrived(_ answer: StatusShare<Void>.Answer) {
        for waiter in statusShare.arrived(answer, at: .now()) { waiter(answer) }
    }

    /// What `status` says has changed (the daemon reloaded, a panel came or went): no request
    /// from now on is answered from an earlier status.
    func statusChanged() {
        statusShare.invalidate()
    }

    private func decide(_ session: ClientSession) -> Admission {
        if isShuttingDown {
            return .refused(ErrorMessage(code: .shutdown, message: "the daemon is stopping"))
        }
        if case .unixSocket(let user) = session.transport {
            switch unixQuota.admit(user) {
            case .admitted:
                break
            case .full:
                return .refused(
                    ErrorMessage(
                        code: .tooManyClients,
                        message: "the daemon serves at most \(unixQuota.total) connections at once on its Unix socket "
                            + "(socket.max-clients)"))
            case .peerFull:
                let who = user.map { "user \($0)" } ?? "a user it cannot name"
                return .refused(
                    ErrorMessage(
                        code: .tooManyClients,
                        message: "the daemon serves at most \(unixQuota.perPeer) connections at once of \(who) "
                            + "(socket.max-clients-per-user)"))
            }
        }
        let id = ClientID(nextClientID)
        nextClientID += 1
        sessions.append(session)
        ledger.open(id)
        delegate?.clientConnected(id)
        let hello = HelloMessage(
            daemonVersion: configuration.daemonVersion, client: id.rawValue, devices: devices,
            recognizers: recognizers, limits: limits(for: session.transport))
        return .accepted(id, hello: .hello(hello))
    }

    /// The limits a connection of `transport` is told of: the connection limits are its
    /// transport's own.
    private func limits(for transport: ClientSession.Transport) -> ServerLimits {
        guard case .webSocket = transport, let endpoint = configuration.webSocket else { return limits }
        var limits = self.limits
        limits.maxClients = endpoint.maxClients
        limits.maxClientsPerPeer = endpoint.maxClientsPerPeer
        return limits
    }

    /// A connection closed.
    func remove(_ session: ClientSession, id: ClientID) {
        if case .unixSocket(let user) = session.transport { unixQuota.release(user) }
        sessions.removeAll { $0 === session }
        ledger.close(id)
        if session.readerSlot != nil { readerChanged(session) }
        delegate?.clientDisconnected(id)
    }

    // MARK: Publishing

    /// Sends each publication to its audience (``Audience``), in order, and flushes. Empties
    /// `batch`, keeping its storage.
    func publish(draining batch: inout [Publication]) {
        // Moved out of the array one by one, last first once the order is turned: reading
        // `batch[i]` for a call copies the publication (a `gesture`'s is a few hundred bytes and
        // its strings' retains, ~470 instructions) and emptying the array destroys it again.
        if batch.count > 1 { batch.reverse() }
        while let publication = batch.popLast() { publish(publication) }
        for session in sessions { session.flushIfNeeded() }
    }

    private func publish(_ publication: Publication) {
        switch publication {
        case .gesture(let gesture, _, _, let audience):
            fanOut(
                publication, to: audience, stream: .gesture(name: gesture.name, device: gesture.device),
                isUpdate: gesture.state == .changed)
        case .touch(let touch, _, _, let audience):
            fanOut(
                publication, to: audience, stream: .touch(device: touch.device, touch: touch.touch.id.rawValue),
                isUpdate: touch.phase == .moved)
        case .explain(_, _, _, let audience), .contact(_, let audience):
            fanOut(publication, to: audience, stream: nil, isUpdate: false)
        case .announcement(let message):
            broadcast(message)
        case .device(let message):
            statusChanged()
            devices.removeAll { $0.label == message.device.label }
            switch message.event {
            case .added: devices.append(message.device)
            case .removed: break
            }
            broadcast(.device(message))
        case .recording(let message, let client):
            deliver(.recording(message), to: client)
        case .raw(let message, let client):
            deliver(.raw(message), to: client)
        case .recognizers(let list):
            recognizers = list
        }
    }

    /// Sends `message` to every open connection, encoded once (if one is open).
    private func broadcast(_ message: ServerMessage) {
        guard sessions.contains(where: \.isOpen), let line = encode(message) else { return }
        for session in sessions where session.isOpen { session.deliver(line, stream: nil, isUpdate: false) }
    }

    /// Sends `message` to connection `client` alone, if it is still open.
    private func deliver(_ message: ServerMessage, to client: ClientID) {
        guard let session = sessions.first(where: { $0.id == client }), session.isOpen,
            let line = encode(message)
        else { return }
        session.deliver(line, stream: nil, isUpdate: false)
    }

    /// Sends `publication` to the readers of `audience` as it says, without deciding again —
    /// except for a connection whose subscription changed since the audience was decided, which
    /// gets it when its subscription now takes it (``Interest/Reader/view(of:)``, the rule the
    /// publisher decided by). Each line is encoded once, when a reader first takes it: the
    /// message as published, and a touch as it landed in a client's own region (rare: no array
    /// is made for a touch that landed in none).
    private func fanOut(
        _ publication: Publication, to audience: Audience, stream: OutboundQueue<ByteBuffer>.StreamKey?,
        isUpdate: Bool
    ) {
        var published: ByteBuffer?
        var own: [(region: String, line: ByteBuffer)] = []
        func encoded(_ view: Interest.Reader.View) -> ByteBuffer? {
            switch view {
            case .asPublished:
                if published == nil { published = encode(published: publication) }
                return published
            case .landedIn(let region):
                if let line = own.first(where: { $0.region == region })?.line { return line }
                guard case .touch(var touch, _, _, _) = publication else { return nil }
                touch.region = region
                // `encode`'s storage is copied on write when the next line is encoded into it.
                guard let line = encode(.touch(touch)) else { return nil }
                own.append((region, line))
                return line
            }
        }
        /// The reader in `slot`, when its subscription is the one the audience was decided on.
        func unchanged(_ slot: Int) -> ClientSession? {
            guard slot < readerSlots.count, let session = readerSlots[slot],
                session.readerVersion <= audience.decidedAt
            else { return nil }
            return session
        }
        for slot in audience.readers {
            guard let session = unchanged(slot) else { continue }
            guard let line = encoded(.asPublished) else { return }
            session.deliver(line, stream: stream, isUpdate: isUpdate)
        }
        for landing in audience.landings {
            guard let session = unchanged(landing.slot) else { continue }
            guard let line = encoded(.landedIn(landing.region)) else { return }
            session.deliver(line, stream: stream, isUpdate: isUpdate)
        }
        guard subscriptionClock > audience.decidedAt else { return }
        for session in sessions where session.readerVersion > audience.decidedAt {
            guard let view = session.reader?.view(of: publication) else { continue }
            guard let line = encoded(view) else { return }
            session.deliver(line, stream: stream, isUpdate: isUpdate)
        }
    }

    /// A reload took some of a client's definitions: they no longer count, and it is told.
    func dropped(_ message: DroppedMessage, client: ClientID) {
        ledger.dropped(message, client: client)
        for session in sessions where session.id == client { session.dropped(message) }
    }

    // MARK: Lifecycle

    /// Tells every client (`error` `shutdown`) and closes: a client that does not read its last
    /// message is closed after the shutdown timeout, one already being closed too. New
    /// connections are refused from now on; ``isDrained`` says when the last one has gone.
    func shutdown() {
        isShuttingDown = true
        for session in sessions {
            session.close(
                with: ErrorMessage(code: .shutdown, message: "the daemon is stopping"),
                within: configuration.shutdownTimeout)
        }
    }
}
