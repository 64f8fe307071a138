import GestureEngine
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
    /// Where the publisher learns what the connections want (``Interest``).
    let interest: InterestBoard
    /// Where replies from other threads (`pong`, `define`) come back to the server thread.
    let mailbox: Mailbox
    private var encoder = LineEncoder()
    /// Where ``encode(_:)`` writes each line (its storage reused while nobody keeps a line).
    private var lineStorage = ByteBufferAllocator().buffer(capacity: 1024)

    /// Open connections, in the order they were accepted (fan-out order).
    private var sessions: [ClientSession] = []
    /// The Unix socket's connections, in all and per user (the WebSocket endpoint's are counted
    /// as they are accepted: ``WebSocketConnectionGate``). Nil user: no peer credentials.
    private var unixQuota: ConnectionQuota<uid_t?>
    private var devices: [DeviceInfo] = []
    private var recognizers: [RecognizerSummary] = []
    private var nextClientID: UInt64 = 1
    private(set) var isShuttingDown = false
    /// Every connection has gone, after ``shutdown()``.
    var isDrained: Bool { isShuttingDown && sessions.isEmpty }

    init(
        configuration: GestureServer.Configuration, delegate: (any GestureServerDelegate)?, mailbox: Mailbox,
        interest: InterestBoard = InterestBoard(), logger: Logger, throttle: LogThrottle = LogThrottle()
    ) {
        self.configuration = configuration
        self.throttle = throttle
        self.delegate = delegate
        self.mailbox = mailbox
        self.interest = interest
        self.logger = logger
        unixQuota = ConnectionQuota(
            total: configuration.limits.maxClients, perPeer: configuration.limits.maxClientsPerPeer)
    }

    /// A connection subscribed, unsubscribed, or stopped reading: post what they all want now.
    func interestChanged() {
        interest.post(Interest(readers: sessions.compactMap(\.reader)))
    }

    var limits: ServerLimits { configuration.limits }

    // MARK: Encoding

    /// The message as one line, ready to write to any number of channels (a `ByteBuffer` is
    /// shared, not copied, when written to several). A message JSON cannot carry (a non-finite
    /// number from a faulty publisher) is logged and yields nil.
    func encode(_ message: ServerMessage) -> ByteBuffer? {
        do {
            return try encoder.encode(message) { line in
                // The last line's storage, unless a slow client's queue still holds it (then
                // `clear()` gives fresh storage): a line written straight out allocates nothing.
                lineStorage.clear()
                lineStorage.writeBytes(line)
                return lineStorage
            }
        } catch {
            logger.error("cannot encode a \(message.type) message, not sent", metadata: ["error": "\(error)"])
            return nil
        }
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
        interestChanged()
        delegate?.clientDisconnected(id)
    }

    // MARK: Publishing

    func publish(_ batch: [Publication]) {
        for publication in batch {
            switch publication {
            case .gesture(let gesture, let owner):
                fanOut(
                    .gesture(gesture), stream: .gesture(name: gesture.name, device: gesture.device),
                    isUpdate: gesture.state == .changed
                ) { $0.wants(gesture, from: owner) }
            case .touch(let touch, let clientRegions):
                fanOut(touch, clientRegions: clientRegions)
            case .explain(let explanation, let owner):
                fanOut(.explain(explanation), stream: nil, isUpdate: false) { $0.wants(explanation, from: owner) }
            case .device(let message):
                devices.removeAll { $0.label == message.device.label }
                switch message.event {
                case .added: devices.append(message.device)
                case .removed: break
                }
                fanOut(.device(message), stream: nil, isUpdate: false) { $0.isOpen }
            case .recognizers(let list):
                recognizers = list
            }
        }
        for session in sessions { session.flushIfNeeded() }
    }

    /// Sends `touch` to every session that takes it where it sees it land (``Interest/Reader``'s
    /// rules, the publisher's own): in the configuration's region, or in a region of its own.
    /// Each region's line is encoded once, when a session first takes it.
    private func fanOut(_ touch: TouchMessage, clientRegions: [ClientRegion]) {
        let stream = OutboundQueue<ByteBuffer>.StreamKey.touch(device: touch.device, touch: touch.touch)
        // The configuration's region's line, and those of clients' own regions (rare: no array
        // is made for a touch that landed in none).
        var line: ByteBuffer?
        var ownLines: [(region: String, line: ByteBuffer)] = []
        for session in sessions {
            guard let reader = session.reader else { continue }
            let seen = reader.sees(touch, clientRegions: clientRegions)
            guard reader.wants(seen) else { continue }
            let own = seen.region != touch.region
            var taken = own ? ownLines.first { $0.region == seen.region }?.line : line
            if taken == nil {
                // `encode`'s storage is copied on write when the next line is encoded into it.
                guard let encoded = encode(.touch(seen)) else { return }
                taken = encoded
                if own { ownLines.append((seen.region, encoded)) } else { line = encoded }
            }
            session.deliver(taken!, stream: stream, isUpdate: touch.phase == .moved)
        }
    }

    /// Sends `message` to every session `wants` picks, encoding it once and only if someone does.
    private func fanOut(
        _ message: ServerMessage, stream: OutboundQueue<ByteBuffer>.StreamKey?, isUpdate: Bool,
        to wants: (ClientSession) -> Bool
    ) {
        var line: ByteBuffer?
        for session in sessions where wants(session) {
            if line == nil {
                line = encode(message)
                if line == nil { return }
            }
            session.deliver(line!, stream: stream, isUpdate: isUpdate)
        }
    }

    /// Why `definitions` from `session` would take all connections together past
    /// ``ServerLimits/maxClientDefinitions`` or ``ServerLimits/maxClientTemplates``; nil when
    /// they fit. Counts every other connection's definitions, pending ones included.
    func exceedsClientLimits(_ definitions: Definitions, from session: ClientSession) -> String? {
        var (regions, recognizers, templates) = (
            definitions.regions.count, definitions.recognizers.count, definitions.templateCount
        )
        for other in sessions where other !== session {
            let reserved = other.reservedCounts
            regions += reserved.regions
            recognizers += reserved.recognizers
            templates += reserved.templates
        }
        let (most, mostTemplates) = (limits.maxClientDefinitions, limits.maxClientTemplates)
        if recognizers > most {
            return
                "all clients together may define at most \(most) recognizers; with these there would be \(recognizers)"
        }
        if regions > most {
            return "all clients together may define at most \(most) regions; with these there would be \(regions)"
        }
        if templates > mostTemplates {
            return
                "all clients together may define at most \(mostTemplates) shape templates; with these there would be \(templates)"
        }
        return nil
    }

    /// A reload took some of a client's definitions: tell it.
    func dropped(_ message: DroppedMessage, client: ClientID) {
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

/// How much of the limits of all connections together a connection holds.
struct DefinitionCounts {
    var regions: Int
    var recognizers: Int
    var templates: Int

    init(_ definitions: Definitions) {
        (regions, recognizers, templates) = (
            definitions.regions.count, definitions.recognizers.count, definitions.templateCount
        )
    }

    /// The larger of the two in each count.
    func larger(_ other: DefinitionCounts) -> DefinitionCounts {
        var larger = self
        larger.regions = max(regions, other.regions)
        larger.recognizers = max(recognizers, other.recognizers)
        larger.templates = max(templates, other.templates)
        return larger
    }
}

extension Definitions {
    /// Shape templates named or built in, over all its shape recognizers.
    var templateCount: Int {
        recognizers.reduce(0) { count, spec in
            if case .shape(let p) = spec.parameters { return count + p.templates.count }
            return count
        }
    }
}
