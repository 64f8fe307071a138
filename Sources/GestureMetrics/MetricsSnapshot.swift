/// What the daemon counts, as the input thread handed it over at one moment: the values of every
/// metric (``Metric/all``), for the metrics endpoint, `gestured status` and the textfile collector
/// alike. A plain value: the input thread fills it from its own counters when asked (a scrape, a
/// `status` request), and whoever asked renders it on its own thread (``MetricsExposition``).
///
/// Times are Unix seconds (the wall clock when the snapshot was made, minus the monotonic age of
/// the event), nil when the event has not happened yet. Its JSON (snake_case keys) is the
/// `metrics` object of the protocol's `status` message (docs/PROTOCOL.md), from which `gestured
/// status --format openmetrics` writes the exposition.
public struct MetricsSnapshot: Sendable, Hashable {
    /// The daemon's version (`gestured_build_info`).
    public var version: String
    /// When the daemon started.
    public var startTime: Double
    /// When the snapshot was made.
    public var time: Double
    /// Every ``Counter``.
    public var counts = Counts()
    /// Gesture reports by recognizer and state.
    public var gestures: [GestureCount] = []
    /// Recognizer failures by kind and reason.
    public var failures: [FailureCount] = []
    /// Clients by transport.
    public var transports: [TransportCounts] = []
    /// When the running configuration was loaded (at start, or by the last good reload).
    public var configurationLoaded: Double
    /// The newest contact's time on any panel.
    public var lastTouch: Double?
    /// The panels open now (a recording counts as one).
    public var panels: [Panel] = []
    /// CPU time the input thread has used (user and system).
    public var inputThreadCPUSeconds: Double = 0
    /// From a frame's kernel time to its lines written to the clients (sampled).
    public var frameToLine = Histogram()

    /// A snapshot with every count at zero and nothing listed.
    public init(version: String, startTime: Double, time: Double, configurationLoaded: Double) {
        self.version = version
        self.startTime = startTime
        self.time = time
        self.configurationLoaded = configurationLoaded
    }

    /// Reports of one recognizer in one state.
    public struct GestureCount: Sendable, Hashable, Codable {
        /// The configuration's recognizer name; empty for a client's recognizers, which are
        /// counted together by kind (their names are the clients' to choose: not a label).
        public var recognizer: String
        /// `configuration` or `client`.
        public var owner: String
        public var kind: String
        public var state: String
        public var count: UInt64

        public init(recognizer: String, owner: String, kind: String, state: String, count: UInt64) {
            self.recognizer = recognizer
            self.owner = owner
            self.kind = kind
            self.state = state
            self.count = count
        }
    }

    /// Failures of recognizers of one kind for one reason.
    public struct FailureCount: Sendable, Hashable, Codable {
        public var kind: String
        /// The recognizer's own check (`too-far`, `too-slow`, … docs/PROTOCOL.md, `explain`), or
        /// `arbitration` for one failed by the rules (R3–R5) or a fault (R9).
        public var reason: String
        public var count: UInt64

        public init(kind: String, reason: String, count: UInt64) {
            self.kind = kind
            self.reason = reason
            self.count = count
        }
    }

    /// One transport's clients.
    public struct TransportCounts: Sendable, Hashable, Codable {
        /// `unix` or `websocket`.
        public var transport: String
        /// Connected now.
        public var connected: Int
        /// Admitted and refused since the start.
        public var accepted: UInt64
        public var refused: UInt64
        /// Messages left out for clients that read too slowly (`changed` updates coalesced), and
        /// clients disconnected because their queue overflowed all the same.
        public var messagesDropped: UInt64
        public var overflowed: UInt64

        public init(
            transport: String, connected: Int = 0, accepted: UInt64 = 0, refused: UInt64 = 0,
            messagesDropped: UInt64 = 0, overflowed: UInt64 = 0
        ) {
            self.transport = transport
            self.connected = connected
            self.accepted = accepted
            self.refused = refused
            self.messagesDropped = messagesDropped
            self.overflowed = overflowed
        }

        enum CodingKeys: String, CodingKey {
            case transport, connected, accepted, refused, overflowed
            case messagesDropped = "messages_dropped"
        }
    }

    /// A panel open now.
    public struct Panel: Sendable, Hashable, Codable {
        /// The device's label (`device` in messages).
        public var label: String
        /// Grabbed with a passthrough mirror.
        public var grabbed: Bool
        /// Its newest contact's time.
        public var lastTouch: Double?
        /// Stuck contacts ended on it since it was added, and of those the ones ended where one
        /// was ended before; nil when it has no `stuck-contact` limit nor anything else of a
        /// kiosk's day configured.
        public var stuckContactsEnded: UInt64?
        public var stuckContactsRecurring: UInt64?

        public init(
            label: String, grabbed: Bool, lastTouch: Double? = nil, stuckContactsEnded: UInt64? = nil,
            stuckContactsRecurring: UInt64? = nil
        ) {
            self.label = label
            self.grabbed = grabbed
            self.lastTouch = lastTouch
            self.stuckContactsEnded = stuckContactsEnded
            self.stuckContactsRecurring = stuckContactsRecurring
        }

        enum CodingKeys: String, CodingKey {
            case label, grabbed
            case lastTouch = "last_touch"
            case stuckContactsEnded = "stuck_contacts_ended"
            case stuckContactsRecurring = "stuck_contacts_recurring"
        }
    }
}

/// `status`' `metrics` object: the snapshot's values by their keys, and each counter under its own
/// (``Counter``'s raw value) — a kiosk's day's in the nested `panel_day` object.
extension MetricsSnapshot: Codable {
    enum CodingKeys: String, CodingKey {
        case version, time, gestures, failures, transports, panels
        case startTime = "start_time"
        case configurationLoaded = "configuration_loaded"
        case lastTouch = "last_touch"
        case inputThreadCPUSeconds = "input_thread_cpu_seconds"
        case frameToLine = "frame_to_line"
        case panelDay = "panel_day"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        version = try c.decode(String.self, forKey: .version)
        startTime = try c.decode(Double.self, forKey: .startTime)
        time = try c.decode(Double.self, forKey: .time)
        gestures = try c.decode([GestureCount].self, forKey: .gestures)
        failures = try c.decode([FailureCount].self, forKey: .failures)
        transports = try c.decode([TransportCounts].self, forKey: .transports)
        configurationLoaded = try c.decode(Double.self, forKey: .configurationLoaded)
        lastTouch = try c.decodeIfPresent(Double.self, forKey: .lastTouch)
        panels = try c.decode([Panel].self, forKey: .panels)
        inputThreadCPUSeconds = try c.decode(Double.self, forKey: .inputThreadCPUSeconds)
        frameToLine = try c.decode(Histogram.self, forKey: .frameToLine)
        let top = try decoder.container(keyedBy: Counter.self)
        let day = try c.nestedContainer(keyedBy: Counter.self, forKey: .panelDay)
        for counter in Counter.allCases {
            counts[counter] = try (counter.isPanelDay ? day : top).decode(UInt64.self, forKey: counter)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(version, forKey: .version)
        try c.encode(startTime, forKey: .startTime)
        try c.encode(time, forKey: .time)
        try c.encode(gestures, forKey: .gestures)
        try c.encode(failures, forKey: .failures)
        try c.encode(transports, forKey: .transports)
        try c.encode(configurationLoaded, forKey: .configurationLoaded)
        try c.encodeIfPresent(lastTouch, forKey: .lastTouch)
        try c.encode(panels, forKey: .panels)
        try c.encode(inputThreadCPUSeconds, forKey: .inputThreadCPUSeconds)
        try c.encode(frameToLine, forKey: .frameToLine)
        var top = encoder.container(keyedBy: Counter.self)
        var day = c.nestedContainer(keyedBy: Counter.self, forKey: .panelDay)
        for counter in Counter.allCases where !counter.isPanelDay { try top.encode(counts[counter], forKey: counter) }
        for counter in Counter.allCases where counter.isPanelDay { try day.encode(counts[counter], forKey: counter) }
    }
}
