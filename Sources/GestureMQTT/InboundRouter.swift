/// What a message from the broker does: run the rule its topic and payload name, or nothing —
/// refused, with the reason. The
/// broker is trusted no more than a client of the daemon's socket: only a message that matches an
/// inbound topic of the mqtt file byte for byte runs anything, and only the rule the file names
/// for it; every other message is refused and counted, checked in this order, each check linear in
/// what the file holds, never in what the broker sent:
///
/// | check | refused as |
/// |---|---|
/// | the topic is not one subscribed to | ``Refusal/unknownTopic`` |
/// | the payload is over ``InboundTopic/maximumPayloadBytes`` (before it is read) | ``Refusal/tooLong`` |
/// | the message is a retained one (the broker's stored copy: it would run again at every connection) | ``Refusal/retained`` |
/// | the payload is none of the topic's | ``Refusal/unknownPayload`` |
/// | `max-per-minute` rules ran in the last minute | ``Refusal/overRate`` |
///
/// A retained message is the broker's stored copy, delivered again at every subscription: a
/// command published with retain runs once when it is published (the broker delivers it live as
/// an ordinary message) and is refused at every connection after that.
public struct InboundRouter: Sendable {
    /// What a message does.
    public enum Decision: Hashable, Sendable {
        /// Run `rule`: the message was `payload` on `topic` (both the file's own strings).
        case run(rule: String, topic: String, payload: String)
        case refused(Refusal)
    }

    /// Why a message did nothing.
    public enum Refusal: Hashable, Sendable, CustomStringConvertible {
        case unknownTopic
        case tooLong(bytes: Int)
        case retained
        case unknownPayload
        case overRate(perMinute: Int)

        /// The counter and journal cause it goes under.
        public var reason: String {
            switch self {
            case .unknownTopic: "unknown-topic"
            case .tooLong: "too-long"
            case .retained: "retained"
            case .unknownPayload: "unknown-payload"
            case .overRate: "over-rate"
            }
        }

        public var description: String {
            switch self {
            case .unknownTopic: "not a topic this client subscribed to"
            case .tooLong(let bytes):
                "a payload of \(bytes) bytes: an inbound topic takes at most \(InboundTopic.maximumPayloadBytes)"
            case .retained:
                "a retained message (the broker's stored copy, which would run again at every connection): "
                    + "publish commands without retain"
            case .unknownPayload: "none of this topic's payloads in the mqtt file"
            case .overRate(let n): "over the limit of \(n) a minute (inbound.max-per-minute)"
            }
        }
    }

    /// Full topic → (payload → rule).
    private let routes: [String: [String: String]]
    private let perMinute: Int
    /// Token bucket: `perMinute` rules at most, refilled at `perMinute` a minute, counted in units
    /// of which a rule costs ``unitsPerRule`` and a millisecond brings `perMinute`, so time adds
    /// up exactly in integers.
    private var units: Int64
    private static let unitsPerRule: Int64 = 60_000
    private var last: Int64?
    /// Messages refused, by ``Refusal/reason``.
    public private(set) var refused: [String: Int] = [:]
    /// Rules run.
    public private(set) var runs = 0

    public init(inbound: InboundSettings?, topics: Topics) {
        var routes: [String: [String: String]] = [:]
        for entry in inbound?.topics ?? [] {
            routes[topics.command(entry.topic), default: [:]][entry.payload] = entry.rule
        }
        self.routes = routes
        perMinute = inbound?.maxPerMinute ?? 1
        units = Int64(perMinute) * Self.unitsPerRule
    }

    /// The topics to subscribe to, sorted.
    public var subscriptions: [String] { routes.keys.sorted() }

    /// The decision for a message on `topic` of `length` bytes, whose bytes `payload` gives
    /// (called only once the length is within bounds), at `now` (milliseconds, any monotonic
    /// origin).
    public mutating func route(
        topic: String, length: Int, retained: Bool, now: Int64, payload: () -> String
    ) -> Decision {
        let decision = decide(topic: topic, length: length, retained: retained, now: now, payload: payload)
        switch decision {
        case .refused(let refusal): refused[refusal.reason, default: 0] += 1
        case .run: runs += 1
        }
        return decision
    }

    private mutating func decide(
        topic: String, length: Int, retained: Bool, now: Int64, payload: () -> String
    ) -> Decision {
        guard let payloads = routes[topic] else { return .refused(.unknownTopic) }
        guard length <= InboundTopic.maximumPayloadBytes else { return .refused(.tooLong(bytes: length)) }
        guard !retained else { return .refused(.retained) }
        let text = payload()
        guard let rule = payloads[text] else { return .refused(.unknownPayload) }
        refill(now)
        guard units >= Self.unitsPerRule else { return .refused(.overRate(perMinute: perMinute)) }
        units -= Self.unitsPerRule
        return .run(rule: rule, topic: topic, payload: text)
    }

    private mutating func refill(_ now: Int64) {
        defer { last = now }
        guard let last, now > last else { return }
        let full = Int64(perMinute) * Self.unitsPerRule
        units = min(full, units + min(now - last, 60_000) * Int64(perMinute))
    }
}
