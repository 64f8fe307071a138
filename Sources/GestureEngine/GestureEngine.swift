/// The gesture engine: touch frames in, gesture and view-touch events out, in kernel time.
///
/// Deterministic and pure: no clock, no I/O, no threads. Time moves only with frames and
/// ``advance(to:into:)``; ``nextDeadline`` says when the caller must call it. Every touchscreen
/// has its own arena (R1–R9, docs/ARBITRATION.md). The caller owns the event buffer and empties it
/// with `removeAll(keepingCapacity: true)`, so frames in steady state allocate nothing.
public struct GestureEngine: Sendable {
    /// Everyone's definitions, compiled: the running set, to make the next one from
    /// (``DefinitionSet``).
    public private(set) var definitions: DefinitionSet
    /// The configuration running now.
    public var configuration: EngineConfiguration { definitions.configuration }
    private var arenas: [DeviceArena] = []
    /// The device of each arena (kept apart so finding an arena reads no arena).
    private var arenaDevices: [DeviceID] = []

    /// How many clients are connected, for `when: client-connected` (R3).
    public var connectedClients = 0 {
        didSet { for i in arenas.indices { arenas[i].clientsConnected = connectedClients } }
    }

    /// Whether the engine explains its decisions: every failure of a recognizer with its reason,
    /// every arbitration decision that fails, holds, blocks or cancels one with its rule
    /// (``EngineEvent/explanation(_:)``, in order with the gestures). Off by default; off, the
    /// engine makes none of them and costs what it did before (docs/PERFORMANCE.md). What the stage
    /// before an arena kept from everyone (``PanelEvent/isExplanation``) is made either way.
    public var explains = false {
        didSet { for i in arenas.indices { arenas[i].explaining = explains } }
    }

    /// Whether the views are told of every touch's moves (R8: `moved` and `stationary` view
    /// events, every frame, for every touch they see). On by default. Off, those events are not
    /// made — a touch still begins, ends and is cancelled for the views, and every decision is
    /// the same — for a caller with no one to hand them to (the daemon, while no client takes raw
    /// touches and no panel is mirrored): they are most of the events a frame makes.
    public var reportsTouchMoves = true {
        didSet { for i in arenas.indices { arenas[i].reportingMoves = reportsTouchMoves } }
    }

    /// The kinds whose `gesture` events the engine makes; nil (the default): every kind. A kind
    /// left out is recognized, arbitrated and counted (``reportCounts``) as ever — every decision
    /// is the same — but its reports make no event, for a caller with no one to hand them to (the
    /// daemon, for the kinds no client takes: a client of swipes does not pay for the pan's,
    /// the pinch's and the rotation's every frame).
    public var reportedKinds: Set<GestureKind>? {
        didSet {
            let mask = Self.kindMask(reportedKinds)
            for i in arenas.indices { arenas[i].reportedKinds = mask }
        }
    }

    /// One bit a kind (``GestureKind/index``), every bit for nil.
    private static func kindMask(_ kinds: Set<GestureKind>?) -> UInt32 {
        guard let kinds else { return .max }
        return kinds.reduce(0) { $0 | 1 << $1.index }
    }

    /// Frames for devices that were never added (or were removed); they are ignored.
    public private(set) var unknownDeviceFrames = 0

    /// Touches ignored because a device had 64 touches in use at once.
    public var droppedTouches: Int { arenas.reduce(0) { $0 + $1.droppedTouches } }

    /// The failures and reports of the devices removed so far (an arena's go with it).
    private var removedFailures = FailureTally()
    private var removedReports = ReportTally()

    /// Recognizers that failed since the engine started, by kind and reason, on every device
    /// (those removed too). Made when asked (a scrape), from counts the arenas keep.
    public var failureCounts: [FailureCount] {
        var all = removedFailures
        for arena in arenas { all.add(arena.failures) }
        return all.counts
    }

    /// Gesture reports since the engine started, by recognizer and state, on every device (those
    /// removed too): the configuration's recognizers by name, the clients' by kind with an empty
    /// name. Made when asked (a scrape), from counts the arenas keep.
    public var reportCounts: [ReportCount] {
        var all = removedReports
        for arena in arenas { all.add(arena.reports.folded(definitions.compiled)) }
        return all.counts
    }

    /// Validates and compiles `configuration`.
    public init(configuration: EngineConfiguration) throws(SpecError) {
        definitions = try DefinitionSet(configuration: configuration)
    }

    // MARK: - Devices

    /// Starts an arena for a touchscreen. Adding an id that is already present changes nothing.
    public mutating func addDevice(_ device: DeviceDescriptor) {
        addDevice(device, panel: PanelSettings(), at: nil)
    }

    /// Starts an arena for a touchscreen, behind the stage `panel` asks for (dead zones, stuck
    /// contacts, wakes, idle: docs/ARBITRATION.md, "Before the arena"), added at `time` (when
    /// the panel's idle time starts; nil: at its first frame). Adding an id that is already
    /// present changes nothing.
    public mutating func addDevice(_ device: DeviceDescriptor, panel: PanelSettings, at time: Timestamp?) {
        guard arenaIndex(device.id) == nil else { return }
        var arena = DeviceArena(device: device, compiled: definitions.compiled)
        arena.clientsConnected = connectedClients
        arena.explaining = explains
        arena.reportingMoves = reportsTouchMoves
        arena.reportedKinds = Self.kindMask(reportedKinds)
        if panel.isActive { arena.placeGate(ContactGate(device: device, settings: panel, at: time)) }
        arenas.append(arena)
        arenaDevices.append(device.id)
        updateDeadline()
    }

    /// Whether the screen of `device`'s panel is on, as the caller read it where the kernel says
    /// it (for a panel added with ``PanelSettings/screenWake``): while it is off, the next touch
    /// that lands with nothing else down wakes it and reaches nobody, nor do the fingers that land
    /// before it lifts (``PanelEvent/What/woken(_:at:cause:)``). A wake clears it.
    public mutating func screen(_ device: DeviceID, isOn: Bool) {
        guard let i = arenaIndex(device), arenas[i].gated else { return }
        arenas[i].withGate { $0.screenOff = !isOn }
    }

    /// Where `device`'s panel stands before its arena (docs/ARBITRATION.md, "Before the arena"):
    /// idle, and whether its screen was last said to be off (``screen(_:isOn:)``, until a wake);
    /// nil for a panel without that stage (then it is never idle, and its screen never read).
    public func panelState(_ device: DeviceID) -> (idle: Bool, screenOff: Bool)? {
        guard let i = arenaIndex(device), let gate = arenas[i].gate else { return nil }
        return (gate.state == .idle, gate.screenOff)
    }

    /// R9: the device is gone. Its active gestures report `cancelled`, undecided ones fail, the
    /// views get `cancelled` for its live touches; then its state is dropped.
    public mutating func removeDevice(_ id: DeviceID, at time: Timestamp, into events: inout [EngineEvent]) {
        defer { updateDeadline() }
        guard let i = arenaIndex(id) else { return }
        arenas[i].abortAll(.deviceRemoved, at: time, definitions.compiled, into: &events)
        removedFailures.add(arenas[i].failures)
        removedReports.add(arenas[i].reports.folded(definitions.compiled))
        arenas.remove(at: i)
        arenaDevices.remove(at: i)
    }

    /// R9: events were lost (SYN_DROPPED). Everything in progress is cancelled as on removal;
    /// touches still down are ignored until they lift. The device stays.
    public mutating func resync(_ id: DeviceID, at time: Timestamp, into events: inout [EngineEvent]) {
        defer { updateDeadline() }
        guard let i = arenaIndex(id) else { return }
        arenas[i].abortAll(.eventsLost, at: time, definitions.compiled, into: &events)
    }

    // MARK: - Input and time

    /// One frame of one device. Deadlines up to the frame's time fire first (R7).
    public mutating func process(_ frame: TouchFrame, into events: inout [EngineEvent]) {
        defer { updateDeadline() }
        // ``nextDeadline`` is up to date (every call that can start or stop a timer brings it up
        // to date): most frames have no timer due, and skip the scan of every arena's.
        if let next = nextDeadline, next <= frame.time { fireDeadlines(upTo: frame.time, into: &events) }
        guard let i = arenaIndex(frame.device) else {
            unknownDeviceFrames += 1
            return
        }
        arenas[i].process(frame, definitions.compiled, into: &events)
    }

    /// Fires every deadline up to `time`, earliest first (R7). ``nextDeadline`` is up to date, as
    /// in ``process(_:into:)``: with no timer due there is nothing to fire, nor to recompute (a
    /// caller may call this on every wake-up).
    public mutating func advance(to time: Timestamp, into events: inout [EngineEvent]) {
        guard let next = nextDeadline, next <= time else { return }
        fireDeadlines(upTo: time, into: &events)
        updateDeadline()
    }

    private mutating func fireDeadlines(upTo time: Timestamp, into events: inout [EngineEvent]) {
        while true {
            var chosen = -1
            var earliest = time.microseconds
            for i in arenas.indices {
                let d = arenas[i].earliestDeadline
                if d <= earliest && d < Int64.max && (chosen < 0 || d < earliest) {
                    earliest = d
                    chosen = i
                }
            }
            guard chosen >= 0 else { return }
            arenas[chosen].fireEarliest(definitions.compiled, into: &events)
        }
    }

    /// When ``advance(to:into:)`` must be called next, if a timer is running. Stored, and
    /// brought up to date by every call that can start or stop a timer: a caller that keeps the
    /// engine in a class property reads it without copying the engine (a computed property of
    /// another module's struct is read from a copy).
    public private(set) var nextDeadline: Timestamp?

    private mutating func updateDeadline() {
        var earliest = Int64.max
        for i in arenas.indices { earliest = min(earliest, arenas[i].earliestDeadline) }
        nextDeadline = earliest == Int64.max ? nil : Timestamp(microseconds: earliest)
    }

    @inline(__always) private func arenaIndex(_ id: DeviceID) -> Int? {
        for i in arenaDevices.indices where arenaDevices[i] == id { return i }
        return nil
    }

    // MARK: - Definitions

    /// Runs `next`, a set made from the running one (``DefinitionSet/defining(owner:regions:recognizers:)``,
    /// ``DefinitionSet/removing(_:)``, ``DefinitionSet/reloading(_:)``). Returns false, changing
    /// nothing, when `next` was made from another set (a change was installed meanwhile): make it
    /// again from ``definitions``. Costs each device a carry of its state, linear in the
    /// recognizers; no validating, no compiling.
    ///
    /// A client's change: its gestures in progress are cancelled (to it), touches its recognizers
    /// held back from the views are released, everyone else's gestures carry on. A reload (R9):
    /// everything in progress is cancelled as on device removal, and touches still down are
    /// ignored until they lift.
    @discardableResult
    public mutating func install(_ next: DefinitionSet, at time: Timestamp, into events: inout [EngineEvent]) -> Bool {
        defer { updateDeadline() }
        guard next.generation == definitions.generation &+ 1 else { return false }
        let old = definitions.compiled
        definitions = next
        let compiled = next.compiled
        switch next.change {
        case .configuration:
            for i in arenas.indices { arenas[i].abortAll(.reload, at: time, old, into: &events) }
            let fresh = Array(repeating: -1, count: compiled.count)
            for i in arenas.indices {
                // The reports counted by the old set's recognizers' indices (the cancellations just
                // made too), kept by name.
                arenas[i].reports = arenas[i].reports.folded(old)
                arenas[i] = DeviceArena(carrying: arenas[i], compiled: compiled, previousIndex: fresh, changed: nil)
            }
        case .client(let owner, let removed, let previousIndex):
            for i in arenas.indices {
                arenas[i].retire(removed, at: time, old, into: &events)
                arenas[i].reports = arenas[i].reports.folded(old)
                var arena = DeviceArena(
                    carrying: arenas[i], compiled: compiled, previousIndex: previousIndex, changed: owner)
                arena.settleViews(at: arena.now, compiled, into: &events)
                arena.finishCycle(compiled)
                arenas[i] = arena
            }
        }
        return true
    }

    /// R9: replaces the configuration (``DefinitionSet/reloading(_:)`` and ``install(_:at:into:)``).
    /// A configuration that does not validate throws and changes nothing. Returns what each
    /// client lost, to tell it.
    @discardableResult
    public mutating func reload(
        _ configuration: EngineConfiguration, at time: Timestamp, into events: inout [EngineEvent]
    ) throws(SpecError) -> [DroppedDefinitions] {
        let (next, losses) = try definitions.reloading(configuration)
        install(next, at: time, into: &events)
        return losses
    }

    /// A client's regions and recognizers, replacing whatever that client defined before
    /// (``DefinitionSet/defining(owner:regions:recognizers:)`` and ``install(_:at:into:)``). On
    /// error nothing changes.
    public mutating func define(
        owner: Owner, regions: [RegionSpec], recognizers: [RecognizerSpec], at time: Timestamp,
        into events: inout [EngineEvent]
    ) throws(SpecError) {
        install(
            try definitions.defining(owner: owner, regions: regions, recognizers: recognizers), at: time,
            into: &events)
    }

    /// Removes a client's definitions (it disconnected): its active gestures report
    /// `cancelled` to it, touches its recognizers held back from the views are released.
    public mutating func removeDefinitions(of owner: Owner, at time: Timestamp, into events: inout [EngineEvent]) {
        guard let next = definitions.removing(owner) else { return }
        install(next, at: time, into: &events)
    }

    // MARK: - Introspection

    /// Every recognizer running: the configuration's, then each client's (for `hello`).
    public var recognizerSummaries: [RecognizerSummary] { definitions.recognizerSummaries }
}

/// What a client learns about a recognizer in `hello`.
public struct RecognizerSummary: Hashable, Sendable {
    public var name: String
    public var kind: GestureKind
    public var owner: Owner
    /// The region it is attached to.
    public var region: String

    public init(name: String, kind: GestureKind, owner: Owner, region: String) {
        self.name = name
        self.kind = kind
        self.owner = owner
        self.region = region
    }
}

/// What a reload took from one client: the regions and recognizers that no longer fit the new
/// configuration, each with the validation error that dropped it.
public struct DroppedDefinitions: Hashable, Sendable {
    public struct Item: Hashable, Sendable {
        public enum Kind: String, Hashable, Sendable { case region, recognizer }
        public var kind: Kind
        public var name: String
        /// The validation error, path first: `recognizers[0].requires-failure-of[0]: unknown recognizer 'x'…`.
        public var reason: String
    }

    public var owner: Owner
    public var dropped: [Item]
}
