/// What the daemon counts, as the input thread handed it over at one moment: the values of every
/// metric (docs/FLEET.md lists them with their names), for the metrics endpoint, `gestured
/// status` and the textfile collector alike. A plain value: the input thread fills it from its
/// own counters when asked (a scrape, a `status` request), and whoever asked renders it on its
/// own thread (``MetricsExposition``).
///
/// Times are Unix seconds (the wall clock when the snapshot was made, minus the monotonic age of
/// the event), nil when the event has not happened yet. Its JSON (snake_case keys) is the
/// `metrics` object of the protocol's `status` message (docs/PROTOCOL.md), from which `gestured
/// status --format openmetrics` writes the exposition.
public struct MetricsSnapshot: Sendable, Hashable, Codable {
    /// The daemon's version (`gestured_build_info`).
    public var version: String
    /// When the daemon started.
    public var startTime: Double
    /// When the snapshot was made.
    public var time: Double
    /// Frames read from panels (or a recording), and contacts that landed in them.
    public var framesRead: UInt64
    public var touchesRead: UInt64
    /// Frames written to passthrough mirrors.
    public var mirrorFrames: UInt64
    /// Gesture reports by recognizer and state.
    public var gestures: [GestureCount]
    /// Recognizer failures by kind and reason.
    public var failures: [FailureCount]
    /// Clients by transport.
    public var transports: [TransportCounts]
    /// Client definitions (`define`, and a disconnected client's definitions taken out) the
    /// engine accepted and refused.
    public var definitionsAccepted: UInt64
    public var definitionsRefused: UInt64
    /// Reloads (SIGHUP) that replaced the configuration, and those that kept the running one.
    public var reloadsSucceeded: UInt64
    public var reloadsFailed: UInt64
    /// When the running configuration was loaded (at start, or by the last good reload).
    public var configurationLoaded: Double
    /// The newest contact's time on any panel.
    public var lastTouch: Double?
    /// The panels open now (a recording counts as one).
    public var panels: [Panel]
    /// CPU time the input thread has used (user and system).
    public var inputThreadCPUSeconds: Double
    /// From a frame's kernel time to its lines written to the clients (sampled).
    public var frameToLine: Histogram
    /// A kiosk's day on every panel since the start (those unplugged too): wakes, contacts kept
    /// from everyone, stuck contacts ended, screen states read.
    public var panelDay: PanelDay

    public init(
        version: String, startTime: Double, time: Double, framesRead: UInt64 = 0, touchesRead: UInt64 = 0,
        mirrorFrames: UInt64 = 0, gestures: [GestureCount] = [], failures: [FailureCount] = [],
        transports: [TransportCounts] = [], definitionsAccepted: UInt64 = 0, definitionsRefused: UInt64 = 0,
        reloadsSucceeded: UInt64 = 0, reloadsFailed: UInt64 = 0, configurationLoaded: Double, lastTouch: Double? = nil,
        panels: [Panel] = [], inputThreadCPUSeconds: Double = 0, frameToLine: Histogram = Histogram(),
        panelDay: PanelDay = PanelDay()
    ) {
        self.version = version
        self.startTime = startTime
        self.time = time
        self.framesRead = framesRead
        self.touchesRead = touchesRead
        self.mirrorFrames = mirrorFrames
        self.gestures = gestures
        self.failures = failures
        self.transports = transports
        self.definitionsAccepted = definitionsAccepted
        self.definitionsRefused = definitionsRefused
        self.reloadsSucceeded = reloadsSucceeded
        self.reloadsFailed = reloadsFailed
        self.configurationLoaded = configurationLoaded
        self.lastTouch = lastTouch
        self.panels = panels
        self.inputThreadCPUSeconds = inputThreadCPUSeconds
        self.frameToLine = frameToLine
        self.panelDay = panelDay
    }

    /// What the stages before the panels' arenas did (docs/CONFIGURATION.md: `screen`,
    /// `idle-after-ms`, `wake-after-idle`, `devices[].ignore`, `stuck-contact`), and how often the
    /// daemon read a screen's state. All zero where none of it is configured.
    public struct PanelDay: Sendable, Hashable, Codable {
        /// Touches that woke the screen (each reached nobody): the screen's file said off, or the
        /// panel was idle with `wake-after-idle`.
        public var wakesScreenOff: UInt64
        public var wakesIdle: UInt64
        /// Contacts a wake swallowed: the waking touch and those that landed with it.
        public var contactsSwallowed: UInt64
        /// Contacts that landed in a dead zone.
        public var contactsIgnored: UInt64
        /// Contacts held still past `stuck-contact` and ended.
        public var stuckContactsEnded: UInt64
        /// Of those, the ones ended where one was ended before on the same panel (within 10 mm).
        public var stuckContactsRecurring: UInt64
        /// Reads of a screen's state file (at a touch's landing after a quiet moment).
        public var screenReads: UInt64

        public init(
            wakesScreenOff: UInt64 = 0, wakesIdle: UInt64 = 0, contactsSwallowed: UInt64 = 0,
            contactsIgnored: UInt64 = 0, stuckContactsEnded: UInt64 = 0, stuckContactsRecurring: UInt64 = 0,
            screenReads: UInt64 = 0
        ) {
            self.wakesScreenOff = wakesScreenOff
            self.wakesIdle = wakesIdle
            self.contactsSwallowed = contactsSwallowed
            self.contactsIgnored = contactsIgnored
            self.stuckContactsEnded = stuckContactsEnded
            self.stuckContactsRecurring = stuckContactsRecurring
            self.screenReads = screenReads
        }

        enum CodingKeys: String, CodingKey {
            case wakesScreenOff = "wakes_screen_off"
            case wakesIdle = "wakes_idle"
            case contactsSwallowed = "contacts_swallowed"
            case contactsIgnored = "contacts_ignored"
            case stuckContactsEnded = "stuck_contacts_ended"
            case stuckContactsRecurring = "stuck_contacts_recurring"
            case screenReads = "screen_reads"
        }
    }

    enum CodingKeys: String, CodingKey {
        case version
        case startTime = "start_time"
        case time
        case framesRead = "frames_read"
        case touchesRead = "touches_read"
        case mirrorFrames = "mirror_frames"
        case gestures, failures, transports
        case definitionsAccepted = "definitions_accepted"
        case definitionsRefused = "definitions_refused"
        case reloadsSucceeded = "reloads_succeeded"
        case reloadsFailed = "reloads_failed"
        case configurationLoaded = "configuration_loaded"
        case lastTouch = "last_touch"
        case panels
        case inputThreadCPUSeconds = "input_thread_cpu_seconds"
        case frameToLine = "frame_to_line"
        case panelDay = "panel_day"
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
