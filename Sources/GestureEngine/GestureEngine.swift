/// The gesture engine: touch frames in, gesture and view-touch events out, in kernel time.
///
/// Deterministic and pure: no clock, no I/O, no threads. Time moves only with frames and
/// ``advance(to:into:)``; ``nextDeadline`` says when the caller must call it. Every touchscreen
/// has its own arena (R1–R9, docs/ARBITRATION.md). The caller owns the event buffer and empties it
/// with `removeAll(keepingCapacity: true)`, so frames in steady state allocate nothing.
public struct GestureEngine: Sendable {
    /// The configuration running now.
    public private(set) var configuration: EngineConfiguration
    /// The configuration's definitions (their shape templates prepared once).
    private var configurationDefinitions: CompiledSet.Definitions
    /// Client definitions, in the order the clients made them.
    private var clients: [CompiledSet.Definitions] = []
    private var compiled: CompiledSet
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
    /// engine makes none of them and costs what it did before (docs/PERFORMANCE.md).
    public var explains = false {
        didSet { for i in arenas.indices { arenas[i].explaining = explains } }
    }

    /// Frames for devices that were never added (or were removed); they are ignored.
    public private(set) var unknownDeviceFrames = 0

    /// Touches ignored because a device had 64 touches in use at once.
    public var droppedTouches: Int { arenas.reduce(0) { $0 + $1.droppedTouches } }

    /// Validates and compiles `configuration`.
    public init(configuration: EngineConfiguration) throws(SpecError) {
        try configuration.validate()
        self.configuration = configuration
        configurationDefinitions = CompiledSet.Definitions(
            owner: .configuration, regions: configuration.regions, recognizers: configuration.recognizers)
        compiled = CompiledSet([configurationDefinitions], clientsCompete: configuration.clients.mayCompete)
    }

    // MARK: - Devices

    /// Starts an arena for a touchscreen. Adding an id that is already present changes nothing.
    public mutating func addDevice(_ device: DeviceDescriptor) {
        guard arenaIndex(device.id) == nil else { return }
        var arena = DeviceArena(device: device, compiled: compiled)
        arena.clientsConnected = connectedClients
        arena.explaining = explains
        arenas.append(arena)
        arenaDevices.append(device.id)
    }

    /// R9: the device is gone. Its active gestures report `cancelled`, undecided ones fail, the
    /// views get `cancelled` for its live touches; then its state is dropped.
    public mutating func removeDevice(_ id: DeviceID, at time: Timestamp, into events: inout [EngineEvent]) {
        guard let i = arenaIndex(id) else { return }
        arenas[i].abortAll(.deviceRemoved, at: time, compiled, into: &events)
        arenas.remove(at: i)
        arenaDevices.remove(at: i)
    }

    /// R9: events were lost (SYN_DROPPED). Everything in progress is cancelled as on removal;
    /// touches still down are ignored until they lift. The device stays.
    public mutating func resync(_ id: DeviceID, at time: Timestamp, into events: inout [EngineEvent]) {
        guard let i = arenaIndex(id) else { return }
        arenas[i].abortAll(.eventsLost, at: time, compiled, into: &events)
    }

    // MARK: - Input and time

    /// One frame of one device. Deadlines up to the frame's time fire first (R7).
    public mutating func process(_ frame: TouchFrame, into events: inout [EngineEvent]) {
        advance(to: frame.time, into: &events)
        guard let i = arenaIndex(frame.device) else {
            unknownDeviceFrames += 1
            return
        }
        arenas[i].process(frame, compiled, into: &events)
    }

    /// Fires every deadline up to `time`, earliest first (R7).
    public mutating func advance(to time: Timestamp, into events: inout [EngineEvent]) {
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
            arenas[chosen].fireEarliest(compiled, into: &events)
        }
    }

    /// When ``advance(to:into:)`` must be called next, if a timer is running.
    public var nextDeadline: Timestamp? {
        var earliest = Int64.max
        for i in arenas.indices { earliest = min(earliest, arenas[i].earliestDeadline) }
        return earliest == Int64.max ? nil : Timestamp(microseconds: earliest)
    }

    @inline(__always) private func arenaIndex(_ id: DeviceID) -> Int? {
        for i in arenaDevices.indices where arenaDevices[i] == id { return i }
        return nil
    }

    // MARK: - Definitions

    /// R9: replaces the configuration. A configuration that does not validate throws and
    /// changes nothing. Otherwise everything in progress is cancelled as on device removal and
    /// touches still down are ignored until they lift. Each client keeps the regions and
    /// recognizers that still validate against the new configuration (and the other clients'
    /// kept ones); what no longer fits is dropped, one definition at a time with the reason (and
    /// then whatever named it). Returns what each client lost, to tell it.
    @discardableResult
    public mutating func reload(
        _ configuration: EngineConfiguration, at time: Timestamp, into events: inout [EngineEvent]
    ) throws(SpecError) -> [DroppedDefinitions] {
        try configuration.validate()
        let validator = SpecValidator(configuration: configuration)
        var kept: [CompiledSet.Definitions] = []
        var losses: [DroppedDefinitions] = []
        for client in clients {
            var regions = client.regions
            var recognizers = client.recognizers
            var dropped: [DroppedDefinitions.Item] = []
            while true {
                do {
                    try validator.validateClient(
                        regions: regions, recognizers: recognizers, others: kept.map { ($0.regions, $0.recognizers) })
                    break
                } catch {
                    // The error's path names the definition at fault; drop it and try the rest.
                    switch (error.path.first, error.path.dropFirst().first) {
                    case (.key("recognizers")?, .index(let i)?) where recognizers.indices.contains(i):
                        dropped.append(.init(kind: .recognizer, name: recognizers[i].name, reason: "\(error)"))
                        recognizers.remove(at: i)
                    case (.key("regions")?, .index(let i)?) where regions.indices.contains(i):
                        dropped.append(.init(kind: .region, name: regions[i].name, reason: "\(error)"))
                        regions.remove(at: i)
                    default:
                        dropped += regions.map { .init(kind: .region, name: $0.name, reason: "\(error)") }
                        dropped += recognizers.map { .init(kind: .recognizer, name: $0.name, reason: "\(error)") }
                        regions = []
                        recognizers = []
                    }
                }
            }
            if !dropped.isEmpty { losses.append(DroppedDefinitions(owner: client.owner, dropped: dropped)) }
            if regions.isEmpty && recognizers.isEmpty { continue }
            kept.append(
                dropped.isEmpty
                    ? client : CompiledSet.Definitions(owner: client.owner, regions: regions, recognizers: recognizers))
        }
        for i in arenas.indices { arenas[i].abortAll(.reload, at: time, compiled, into: &events) }
        self.configuration = configuration
        configurationDefinitions = CompiledSet.Definitions(
            owner: .configuration, regions: configuration.regions, recognizers: configuration.recognizers)
        clients = kept
        compiled = compile()
        let fresh = Array(repeating: -1, count: compiled.count)
        for i in arenas.indices {
            arenas[i] = DeviceArena(carrying: arenas[i], compiled: compiled, previousIndex: fresh, regionMap: [])
        }
        return losses
    }

    /// A client's regions and recognizers, replacing whatever that client defined before (its
    /// gestures in progress are cancelled, as by ``removeDefinitions(of:at:into:)``). They may
    /// name the configuration's regions and recognizers and their own, never another client's;
    /// names must not collide with anyone's. Validated like the configuration: on error nothing
    /// changes, and the error's path starts at the definitions' root (`recognizers[0].region`).
    /// Everyone else's gestures in progress carry on.
    public mutating func define(
        owner: Owner, regions: [RegionSpec], recognizers: [RecognizerSpec], at time: Timestamp,
        into events: inout [EngineEvent]
    ) throws(SpecError) {
        guard case .client = owner else {
            throw SpecError(path: [], message: "the configuration's definitions change only by reload")
        }
        let others = clients.filter { $0.owner != owner }.map { ($0.regions, $0.recognizers) }
        try SpecValidator(configuration: configuration).validateClient(
            regions: regions, recognizers: recognizers, others: others)
        replaceDefinitions(
            of: owner, with: CompiledSet.Definitions(owner: owner, regions: regions, recognizers: recognizers),
            at: time, into: &events)
    }

    /// Removes a client's definitions (it disconnected): its active gestures report
    /// `cancelled` to it, touches its recognizers held back from the views are released.
    public mutating func removeDefinitions(of owner: Owner, at time: Timestamp, into events: inout [EngineEvent]) {
        guard case .client = owner, clients.contains(where: { $0.owner == owner }) else { return }
        replaceDefinitions(of: owner, with: nil, at: time, into: &events)
    }

    private var allDefinitions: [CompiledSet.Definitions] { [configurationDefinitions] + clients }

    private func compile() -> CompiledSet {
        CompiledSet(allDefinitions, clientsCompete: configuration.clients.mayCompete)
    }

    private mutating func replaceDefinitions(
        of owner: Owner, with definitions: CompiledSet.Definitions?, at time: Timestamp,
        into events: inout [EngineEvent]
    ) {
        let old = compiled
        clients.removeAll { $0.owner == owner }
        if let definitions { clients.append(definitions) }
        compiled = compile()

        let removed = old.order.filter { old.owners[$0] == owner }
        let previousIndex = (0..<compiled.count).map { r -> Int in
            compiled.owners[r] == owner
                ? -1 : old.index[CompiledSet.Key(owner: compiled.owners[r], name: compiled.names[r])] ?? -1
        }
        var newRegion: [String: Int] = [:]
        for (i, name) in compiled.regionNames.enumerated() { newRegion[name] = i }
        let regionMap = old.regionNames.indices.map { region -> Int in
            var current = region
            while current > 0 {
                if old.regionOwners[current] != owner, let mapped = newRegion[old.regionNames[current]] {
                    return mapped
                }
                current = old.regionParents[current]
            }
            return 0
        }
        for i in arenas.indices {
            arenas[i].retire(removed, at: time, old, into: &events)
            var arena = DeviceArena(
                carrying: arenas[i], compiled: compiled, previousIndex: previousIndex, regionMap: regionMap)
            arena.settleViews(at: arena.now, compiled, into: &events)
            arena.finishCycle(compiled)
            arenas[i] = arena
        }
    }

    // MARK: - Introspection

    /// Every recognizer running: the configuration's, then each client's (for `hello`).
    public var recognizerSummaries: [RecognizerSummary] {
        (0..<compiled.count).map { r in
            RecognizerSummary(
                name: compiled.names[r], kind: compiled.kinds[r], owner: compiled.owners[r],
                region: compiled.regionNames[compiled.regionOf[r]])
        }
    }
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
