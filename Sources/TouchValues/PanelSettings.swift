/// What becomes of a panel's contacts before any recognizer sees them, and when the panel is idle:
/// the engine's stage between the frames and the arena (GestureEngine's `ContactGate`,
/// docs/ARBITRATION.md, "Before the arena"). Nothing is on by default; a panel with none of it
/// costs the engine nothing.
public struct PanelSettings: Hashable, Sendable {
    /// Dead zones, in surface coordinates: a contact that lands in one reaches nothing — no
    /// recognizer, no view, no mirror — until it lifts. One that lands outside and slides in is
    /// kept (it belongs to a real finger).
    public var deadZones: [SurfaceRect]
    /// A contact that stays this still for this long is ended as cancelled; nil: never.
    public var stuckContact: StuckContactLimit?
    /// After this long without a touch the panel is idle; the next touch makes it active again.
    /// Nil: the panel is never idle.
    public var idleAfter: TimeSpan?
    /// The first touch on an idle panel wakes it: it reaches nobody, nor do fingers that land
    /// before it lifts (a wake, as when the screen is off).
    public var wakeAfterIdle: Bool
    /// The caller reports whether the panel's screen is on (`GestureEngine.screen(_:isOn:)`); a
    /// touch that lands while it is off wakes it and reaches nobody.
    public var screenWake: Bool

    public init(
        deadZones: [SurfaceRect] = [], stuckContact: StuckContactLimit? = nil, idleAfter: TimeSpan? = nil,
        wakeAfterIdle: Bool = false, screenWake: Bool = false
    ) {
        self.deadZones = deadZones
        self.stuckContact = stuckContact
        self.idleAfter = idleAfter
        self.wakeAfterIdle = wakeAfterIdle
        self.screenWake = screenWake
    }

    /// Whether any of it is on: else the engine runs the panel's frames straight into its arena.
    public var isActive: Bool {
        !deadZones.isEmpty || stuckContact != nil || idleAfter != nil || screenWake
    }
}

/// When a contact counts as stuck: it has stayed within `within` of one point for `after`.
public struct StuckContactLimit: Hashable, Sendable {
    public var after: TimeSpan
    public var within: Millimeters

    public init(after: TimeSpan, within: Millimeters) {
        self.after = after
        self.within = within
    }
}
