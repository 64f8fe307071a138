/// One message for the broker.
public struct OutgoingMessage: Hashable, Sendable {
    public var topic: String
    public var payload: [UInt8]
    public var qos: Int
    public var retain: Bool

    public init(topic: String, payload: [UInt8], qos: Int, retain: Bool) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }

    public init(topic: String, text: String, qos: Int, retain: Bool) {
        self.init(topic: topic, payload: Array(text.utf8), qos: qos, retain: retain)
    }

    /// What it costs the queue: its topic and its payload.
    public var bytes: Int { topic.utf8.count + payload.count }
}

/// What `gestured mqtt` holds for the broker, bounded in messages and bytes
/// (``QueueBounds``): messages waiting (the broker away, or more than the window in flight) and
/// messages handed to the MQTT library and not yet done with (a QoS 1 message until the broker's
/// PUBACK, a QoS 0 one until it is written to the socket).
///
/// | event | waiting | in flight |
/// |---|---|---|
/// | an event is added, within the bounds | appended | — |
/// | an event is added, past a bound | the oldest waiting event never sent dropped (counted) until it fits; it alone over the bytes: it is dropped | — |
/// | a state (availability, the active state, a discovery config) is added | replaces the waiting one of its key, or goes before every waiting event | — |
/// | ``next()`` with fewer than ``window`` in flight and the broker connected | the first taken | added, under the token the caller gives (``sent(_:token:)``) |
/// | ``done(token:)`` | — | removed: delivered |
/// | ``connectionLost()`` | every message still in flight goes back first, in order (a QoS 1 one is sent again: at least once) | emptied |
///
/// States are never dropped for events (a broker that comes back gets the latest of each), nor
/// are events sent once and waiting again (the broker may have them: dropping them would count as
/// lost what may not be); other events are dropped oldest first, so what the broker gets after an
/// outage is the newest backlog, in order, and ``dropped`` says exactly how many it never got.
/// The bounds hold all the same: what cannot be dropped is at most the window and the states,
/// fewer than the smallest `max-messages`. Every operation is linear at worst in the messages
/// held, which the bounds keep small.
public struct OutgoingQueue: Sendable {
    /// Messages handed to the library at once: enough to keep a loopback or LAN connection busy,
    /// and what the library itself lets be in flight (`max_inflight_messages`).
    public static let window = 32

    /// What a message is to the queue.
    public enum Kind: Hashable, Sendable {
        /// A report: dropped oldest first past the bounds.
        case event
        /// A retained value of which only the latest matters: replaced, never dropped.
        case state(String)
    }

    struct Entry: Sendable {
        var publication: OutgoingMessage
        var kind: Kind
        /// Sent before a lost connection: not dropped.
        var resent = false

        var droppable: Bool { kind == .event && !resent }
    }

    public let bounds: QueueBounds
    /// Waiting, oldest first, from `head` on (taken from the front without moving the rest).
    private var waiting: [Entry] = []
    private var head = 0
    /// Handed to the library, by the caller's token (libmosquitto's message id).
    private var inFlight: [Int: (order: Int, entry: Entry)] = [:]
    private var order = 0

    /// Messages and bytes held (waiting and in flight).
    public private(set) var count = 0
    public private(set) var bytes = 0
    /// Events dropped to keep within the bounds, since the start.
    public private(set) var dropped = 0
    /// Messages sent again after a connection was lost while they were in flight.
    public private(set) var resent = 0
    /// Messages done with (acknowledged, or written for QoS 0).
    public private(set) var delivered = 0

    public init(bounds: QueueBounds) {
        self.bounds = bounds
    }

    public var waitingCount: Int { waiting.count - head }
    public var inFlightCount: Int { inFlight.count }

    /// Adds a message; returns how many events were dropped for it (the message itself
    /// included, when it alone is over the bytes).
    @discardableResult
    public mutating func add(_ publication: OutgoingMessage, kind: Kind = .event) -> Int {
        let size = publication.bytes
        if case .state(let key) = kind {
            if let i = waiting[head...].firstIndex(where: { $0.kind == kind }) {
                bytes += size - waiting[i].publication.bytes
                waiting[i].publication = publication
                return 0
            }
            // After the states already waiting, before every event.
            let at =
                waiting[head...].firstIndex { if case .state = $0.kind { false } else { true } } ?? waiting.endIndex
            waiting.insert(Entry(publication: publication, kind: .state(key)), at: at)
            count += 1
            bytes += size
            return makeRoom()
        }
        guard size <= bounds.maxBytes else {
            dropped += 1
            return 1
        }
        waiting.append(Entry(publication: publication, kind: .event))
        count += 1
        bytes += size
        return makeRoom()
    }

    /// Drops the oldest waiting events until the bounds hold; returns how many.
    private mutating func makeRoom() -> Int {
        var removed = 0
        var i = head
        while count > bounds.maxMessages || bytes > bounds.maxBytes, i < waiting.endIndex {
            guard waiting[i].droppable else {
                i += 1
                continue
            }
            count -= 1
            bytes -= waiting[i].publication.bytes
            waiting.remove(at: i)
            removed += 1
        }
        dropped += removed
        compact()
        return removed
    }

    /// The next message to hand to the library, nil when none waits or the window is full. The
    /// caller hands it over and says under which token (``sent(_:token:)``), or gives it back
    /// (``putBack(_:)``) if the library refused it.
    public mutating func next() -> OutgoingMessage? {
        guard head < waiting.endIndex, inFlight.count < Self.window else { return nil }
        return waiting[head].publication
    }

    /// The message ``next()`` gave is with the library under `token`.
    public mutating func sent(token: Int) {
        let entry = waiting[head]
        head += 1
        order += 1
        inFlight[token] = (order, entry)
        compact()
    }

    /// The library is done with the message of `token` (acknowledged, or written for QoS 0).
    /// A token not in flight (one from before a lost connection) changes nothing.
    public mutating func done(token: Int) {
        guard let (_, entry) = inFlight.removeValue(forKey: token) else { return }
        count -= 1
        bytes -= entry.publication.bytes
        delivered += 1
    }

    /// The connection is gone: what was in flight waits again, first, in the order it was sent.
    public mutating func connectionLost() {
        waiting.removeSubrange(..<head)
        head = 0
        var back: [Entry] = []
        for (_, var entry) in inFlight.values.sorted(by: { $0.order < $1.order }) {
            // A state with a newer value waiting is superseded by it.
            if case .state = entry.kind, waiting.contains(where: { $0.kind == entry.kind }) {
                count -= 1
                bytes -= entry.publication.bytes
                continue
            }
            entry.resent = true
            back.append(entry)
        }
        inFlight.removeAll()
        resent += back.count
        waiting.insert(contentsOf: back, at: 0)
    }

    /// Frees the taken front once it is a good part of the array.
    private mutating func compact() {
        if head > 64 && head * 2 > waiting.count {
            waiting.removeSubrange(..<head)
            head = 0
        }
    }
}
