/// A number the daemon counts up: one metric, or one label value of one (``Metric/all`` says
/// which). A snapshot carries them in one block (``MetricsSnapshot/counts``), and `status` lists
/// each under its key, the raw value. Each case says who counts it; a new counter is a case here
/// and its line in ``Metric/all`` (CONTRIBUTING.md, "Adding a counter").
public enum Counter: String, CaseIterable, Sendable, CodingKey {
    /// Frames read from the panels or a recording (the frame path, `InputCounters`).
    case framesRead = "frames_read"
    /// Contacts that landed (the frame path, `InputCounters`).
    case touchesRead = "touches_read"
    /// Frames written to passthrough mirrors (the passthrough router).
    case mirrorFrames = "mirror_frames"
    /// Client definition changes (`define`, a disconnected client's definitions taken out) the
    /// engine accepted and refused (the input loop, as it installs or refuses one).
    case definitionsAccepted = "definitions_accepted"
    case definitionsRefused = "definitions_refused"
    /// Reloads (SIGHUP) that replaced the configuration, and those that kept the running one (the
    /// input loop).
    case reloadsSucceeded = "reloads_succeeded"
    case reloadsFailed = "reloads_failed"
    /// A kiosk's day: what the stages before the panels' arenas did, counted by the frame path as
    /// each panel event's declaration says (`PanelEvent.declared`) — touches that woke the screen
    /// (its file said off; the panel was idle with `wake-after-idle`), contacts a wake swallowed,
    /// contacts in a dead zone, stuck contacts ended and of those the ones ended where one was
    /// ended before on the same panel.
    case wakesScreenOff = "wakes_screen_off"
    case wakesIdle = "wakes_idle"
    case contactsSwallowed = "contacts_swallowed"
    case contactsIgnored = "contacts_ignored"
    case stuckContactsEnded = "stuck_contacts_ended"
    case stuckContactsRecurring = "stuck_contacts_recurring"
    /// Screen states taken at a landing after a quiet moment (``PanelWake``: the file itself is
    /// read on the worker).
    case screenReads = "screen_reads"

    /// Whether `status` lists it in `metrics.panel_day` (a kiosk's day) rather than in `metrics`.
    public var isPanelDay: Bool {
        switch self {
        case .framesRead, .touchesRead, .mirrorFrames, .definitionsAccepted, .definitionsRefused, .reloadsSucceeded,
            .reloadsFailed:
            false
        case .wakesScreenOff, .wakesIdle, .contactsSwallowed, .contactsIgnored, .stuckContactsEnded,
            .stuckContactsRecurring, .screenReads:
            true
        }
    }
}

/// One value for each ``Counter``, 0 until counted.
public struct Counts: Sendable, Hashable {
    private var values: [Counter: UInt64] = [:]

    public init() {}

    public subscript(counter: Counter) -> UInt64 {
        get { values[counter, default: 0] }
        set { values[counter] = newValue }
    }

    public static func == (a: Counts, b: Counts) -> Bool { Counter.allCases.allSatisfy { a[$0] == b[$0] } }

    public func hash(into hasher: inout Hasher) {
        for counter in Counter.allCases { hasher.combine(self[counter]) }
    }
}
