import GestureEngine
import GestureProtocol

/// `gestured mqtt` with no I/O: the daemon's messages and the broker's events go in; what to
/// publish, what to subscribe to and which rule to run come out. The caller (GestureMQTTRuntime)
/// carries them out with the daemon's socket and libmosquitto, and tells it what happened.
///
/// | event | published |
/// |---|---|
/// | the daemon's `hello` | availability `online`; the discovery configs (with discovery on) |
/// | the connection to the daemon ends | availability `offline` |
/// | a `gesture` report the file chooses | on `gesture`, the socket's line |
/// | `idle`, `active`, `wake` (`publish.panel`) | on `panel`, the socket's line; `idle`/`active` also the `active` state |
/// | `contact` (`publish.contact`) | on `contact`, the socket's line |
/// | the broker connected | its subscriptions; then every state again (availability, active, the configs), before what waits |
/// | the broker gone | what was in flight waits again (``OutgoingQueue``) |
/// | a message from the broker | ``InboundRouter``'s decision |
///
/// The state `active` is `OFF` while every panel that has reported idle or active is idle (a
/// panel without an idle timer never does, and counts for nothing), `ON` once one is touched.
public struct MQTTSession {
    public let configuration: MQTTConfiguration
    public let topics: Topics
    public let clientID: String
    public let discovery: HomeAssistantDiscovery?
    public private(set) var queue: OutgoingQueue
    public private(set) var router: InboundRouter
    public private(set) var hello: HelloMessage?
    public private(set) var isBrokerConnected = false
    /// Panels by label that have reported `idle` (true) or `active` (false) on this connection.
    private var idle: [String: Bool] = [:]
    private var encoder = LineEncoder()
    /// Availability's payload last queued, so that a daemon that stays away (an attempt every
    /// few seconds) adds nothing.
    private var announcedAvailability: String?
    /// The event types of the configs last queued: a new `hello` with the same recognizers adds
    /// nothing.
    private var announcedEventTypes: [String]?
    /// Reports and messages published (queued), by topic's last level.
    public private(set) var published: [String: Int] = [:]
    /// Lines the encoder refused (a number JSON cannot carry); never sent by a daemon.
    public private(set) var unencodable = 0

    /// The state keys of the queue.
    static let availabilityKey = "availability"
    static let activeKey = "active"

    public init(configuration: MQTTConfiguration, hostname: String, version: String) {
        self.configuration = configuration
        topics = Topics(prefix: configuration.topicPrefix ?? .default(hostname: hostname))
        clientID = configuration.broker.clientID ?? String(("gestured-" + TopicLevel.sanitized(hostname)).prefix(64))
        let ha = configuration.homeAssistant
        discovery =
            ha.discovery
            ? HomeAssistantDiscovery(
                settings: ha, topics: topics, clientID: clientID, hostname: hostname, version: version)
            : nil
        queue = OutgoingQueue(bounds: configuration.queue)
        router = InboundRouter(inbound: configuration.inbound, topics: topics)
        announceAvailability(force: true)
    }

    // MARK: The daemon's side

    /// What to ask the daemon for: the chosen reports (by name, or by kind, or both: then
    /// everything, chosen here), and explanations when contacts are published (the daemon sends
    /// `contact` only with them). `idle`, `active` and `wake` reach every connection.
    public var subscription: Subscription {
        let p = configuration.publish
        let names = p.kinds == nil ? p.gestures : nil
        let kinds = p.gestures == nil ? p.kinds : nil
        return Subscription(gestures: names, kinds: kinds, states: p.states, explain: p.contact)
    }

    /// Connected to the daemon: available, and (with discovery) its recognizers are the event's
    /// types.
    public mutating func daemonConnected(_ hello: HelloMessage) {
        self.hello = hello
        idle.removeAll()
        announceAvailability(force: false)
        addDiscovery(force: false)
    }

    /// The connection to the daemon ended: unavailable until it is back.
    public mutating func daemonDisconnected() {
        hello = nil
        announceAvailability(force: false)
    }

    private mutating func announceAvailability(force: Bool) {
        let now = availability
        let text = String(decoding: now.payload, as: UTF8.self)
        guard force || text != announcedAvailability else { return }
        announcedAvailability = text
        queue.add(now, kind: .state(Self.availabilityKey))
    }

    /// One message of the daemon's; returns how many waiting events were dropped for it.
    @discardableResult
    public mutating func handle(_ message: ServerMessage) -> Int {
        let p = configuration.publish
        switch message {
        case .gesture(let g) where p.chooses(name: g.name, kind: g.kind, state: g.state):
            return publish(message, on: topics.gesture, "gesture")
        case .idle(let m) where p.panel:
            let dropped = publish(message, on: topics.panel, "panel")
            return dropped + setIdle(m.device, true)
        case .active(let m) where p.panel:
            let dropped = publish(message, on: topics.panel, "panel")
            return dropped + setIdle(m.device, false)
        case .wake where p.panel:
            return publish(message, on: topics.panel, "panel")
        case .contact where p.contact:
            return publish(message, on: topics.contact, "contact")
        case .device(let d) where d.event == .removed:
            idle[d.device.label] = nil
            return 0
        default:
            return 0
        }
    }

    private mutating func publish(_ message: ServerMessage, on topic: String, _ counter: String) -> Int {
        guard let line = try? encoder.encode(message) else {
            unencodable += 1
            return 0
        }
        published[counter, default: 0] += 1
        return queue.add(
            OutgoingMessage(topic: topic, payload: Array(line.dropLast()), qos: configuration.qos, retain: false))
    }

    private mutating func setIdle(_ device: String, _ isIdle: Bool) -> Int {
        let before = activeState
        idle[device] = isIdle
        guard activeState != before, let state = activeState else { return 0 }
        return queue.add(
            OutgoingMessage(topic: topics.active, text: state, qos: configuration.qos, retain: true),
            kind: .state(Self.activeKey))
    }

    /// `ON`, `OFF`, or nil before any panel said.
    public var activeState: String? {
        idle.isEmpty ? nil : idle.values.allSatisfy { $0 } ? Topics.off : Topics.on
    }

    // MARK: The broker's side

    /// The last will: `offline` on availability, retained, which the broker publishes when the
    /// connection is lost without a DISCONNECT.
    public var will: OutgoingMessage {
        OutgoingMessage(topic: topics.availability, text: Topics.offline, qos: 1, retain: true)
    }

    /// Availability as it is now.
    public var availability: OutgoingMessage {
        OutgoingMessage(
            topic: topics.availability, text: hello == nil ? Topics.offline : Topics.online, qos: 1, retain: true)
    }

    /// Connected (the broker's CONNACK accepted): the topics to subscribe to; every state is
    /// published again before what waits (a broker restarted without persistence lost them).
    public mutating func brokerConnected() -> [String] {
        isBrokerConnected = true
        announceAvailability(force: true)
        if let state = activeState {
            queue.add(
                OutgoingMessage(topic: topics.active, text: state, qos: configuration.qos, retain: true),
                kind: .state(Self.activeKey))
        }
        addDiscovery(force: true)
        return router.subscriptions
    }

    /// The connection to the broker is gone (or never came up).
    public mutating func brokerDisconnected() {
        isBrokerConnected = false
        queue.connectionLost()
    }

    /// The next message to hand to the library (nil: none, or not connected, or the window full);
    /// then ``sent(token:)`` with the library's message id.
    public mutating func next() -> OutgoingMessage? {
        isBrokerConnected ? queue.next() : nil
    }

    public mutating func sent(token: Int) { queue.sent(token: token) }

    /// The library is done with message `token` (PUBACK, or written for QoS 0).
    public mutating func done(token: Int) { queue.done(token: token) }

    /// A message from the broker (``InboundRouter``).
    public mutating func inbound(
        topic: String, length: Int, retained: Bool, now: Int64, payload: () -> String
    ) -> InboundRouter.Decision {
        router.route(topic: topic, length: length, retained: retained, now: now, payload: payload)
    }

    /// The recognizers the `event` entity's types are: those of `hello` the file chooses, and the
    /// names it lists (a client may define one later).
    public var eventTypes: [String] {
        let p = configuration.publish
        var names = Set(p.gestures ?? [])
        for r in hello?.recognizers ?? []
        where (p.gestures == nil && p.kinds == nil) || p.kinds?.contains(r.kind) == true {
            names.insert(r.name)
        }
        return names.sorted()
    }

    /// Queues the configs (with discovery on and the daemon's recognizers known): forced, or when
    /// the event types changed since they were last queued.
    private mutating func addDiscovery(force: Bool) {
        guard let discovery, hello != nil else { return }
        let types = eventTypes
        guard force || types != announcedEventTypes else { return }
        announcedEventTypes = types
        for config in discovery.configs(eventTypes: types, inbound: configuration.inbound?.topics ?? []) {
            queue.add(
                OutgoingMessage(topic: config.topic, payload: config.payload, qos: 1, retain: true),
                kind: .state(config.topic))
        }
    }
}
