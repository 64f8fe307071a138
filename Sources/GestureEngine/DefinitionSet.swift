/// Everyone's definitions, validated and compiled: what a ``GestureEngine`` runs, as an immutable
/// value.
///
/// A change (a client's `define`, its definitions going, a reload) makes a new set from the
/// current one: validating and compiling are the costly part of a change and need no engine, so
/// a caller with a frame path to keep (the daemon) makes the set on another thread and hands it
/// to ``GestureEngine/install(_:at:into:)``, which only carries each device's state over. A
/// set installs only onto the set it was made from: one made from a set that is no longer
/// running (another change was installed meanwhile) is refused, and the caller makes it again
/// from the running one.
public struct DefinitionSet: Sendable {
    /// The configuration's part.
    public private(set) var configuration: EngineConfiguration
    /// The configuration's definitions (their shape templates prepared once).
    private(set) var configurationDefinitions: CompiledSet.Definitions
    /// Client definitions, in the order the clients made them.
    private(set) var clients: [CompiledSet.Definitions]
    private(set) var compiled: CompiledSet
    /// Validates clients' definitions against the configuration (its names gathered once).
    private let clientValidator: SpecValidator
    /// Counts the changes since the engine started; a set installs onto `generation - 1` only.
    public private(set) var generation: UInt64 = 0
    /// What changed from the set it was made from, and how each device's state carries over.
    private(set) var change = Change.configuration

    enum Change: Sendable {
        /// Everything in progress is cancelled; only the touches carry over (R9).
        case configuration
        /// One client's definitions changed: its recognizers in the previous set (`removed`,
        /// by their previous index) are retired; everyone else's carry over
        /// (`previousIndex[r]`: the index recognizer `r` had, -1 for new ones). The
        /// configuration's regions keep their indices; touches forget where they landed among
        /// `owner`'s.
        case client(Owner, removed: [Int], previousIndex: [Int])
    }

    /// Validates and compiles `configuration`.
    init(configuration: EngineConfiguration) throws(SpecError) {
        try configuration.validate()
        self.configuration = configuration
        configurationDefinitions = CompiledSet.Definitions(
            owner: .configuration, regions: configuration.regions, recognizers: configuration.recognizers)
        clients = []
        compiled = CompiledSet([configurationDefinitions], policy: configuration.clients)
        clientValidator = SpecValidator.forClients(of: configuration)
    }

    /// Whether `owner` has any definitions in this set.
    public func defines(_ owner: Owner) -> Bool {
        clients.contains { $0.owner == owner }
    }

    /// This set with a client's regions and recognizers in place of whatever that client defined
    /// before. They may name the configuration's regions and recognizers and their own, never
    /// another client's; their names must not be the configuration's (another client's names are
    /// that client's own). Validated like the configuration: the error's path starts at the
    /// definitions' root (`recognizers[0].region`).
    public func defining(owner: Owner, regions: [RegionSpec], recognizers: [RecognizerSpec]) throws(SpecError)
        -> DefinitionSet
    {
        guard case .client = owner else {
            throw SpecError(path: [], message: "the configuration's definitions change only by reload")
        }
        try clientValidator.validateClient(regions: regions, recognizers: recognizers)
        return replacing(
            owner, with: CompiledSet.Definitions(owner: owner, regions: regions, recognizers: recognizers))
    }

    /// This set without a client's definitions (it disconnected); nil when it had none.
    public func removing(_ owner: Owner) -> DefinitionSet? {
        guard case .client = owner, defines(owner) else { return nil }
        return replacing(owner, with: nil)
    }

    /// This set under a new configuration (R9). Each client keeps the regions and recognizers
    /// that still validate against it; what no longer fits is dropped, one definition at a time
    /// with the reason (and then whatever named it), the reason's path naming the definition as
    /// the client defined it. Returns what each client lost, to tell it. A configuration that
    /// does not validate throws.
    public func reloading(_ configuration: EngineConfiguration) throws(SpecError)
        -> (definitions: DefinitionSet, dropped: [DroppedDefinitions])
    {
        var next = try DefinitionSet(configuration: configuration)
        let validator = next.clientValidator
        var kept: [CompiledSet.Definitions] = []
        var losses: [DroppedDefinitions] = []
        for client in clients {
            var regions = client.regions
            var recognizers = client.recognizers
            // Where each remaining definition was in the client's `define`, for the reasons.
            var regionPlaces = Array(regions.indices)
            var recognizerPlaces = Array(recognizers.indices)
            var dropped: [DroppedDefinitions.Item] = []
            while true {
                do {
                    try validator.validateClient(regions: regions, recognizers: recognizers)
                    break
                } catch {
                    // The error's path names the definition at fault; drop it and try the rest.
                    var error = error
                    switch (error.path.first, error.path.dropFirst().first) {
                    case (.key("recognizers")?, .index(let i)?) where recognizers.indices.contains(i):
                        error.path[1] = .index(recognizerPlaces[i])
                        dropped.append(.init(kind: .recognizer, name: recognizers[i].name, reason: "\(error)"))
                        recognizers.remove(at: i)
                        recognizerPlaces.remove(at: i)
                    case (.key("regions")?, .index(let i)?) where regions.indices.contains(i):
                        error.path[1] = .index(regionPlaces[i])
                        dropped.append(.init(kind: .region, name: regions[i].name, reason: "\(error)"))
                        regions.remove(at: i)
                        regionPlaces.remove(at: i)
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
        next.clients = kept
        next.compiled = next.compile()
        next.generation = generation &+ 1
        next.change = .configuration
        return (next, losses)
    }

    private func compile() -> CompiledSet {
        CompiledSet([configurationDefinitions] + clients, policy: configuration.clients)
    }

    /// The new set with `owner`'s definitions replaced, and how the devices' state carries over
    /// from this one (all of it linear in the recognizers and regions).
    private func replacing(_ owner: Owner, with definitions: CompiledSet.Definitions?) -> DefinitionSet {
        var next = self
        next.clients.removeAll { $0.owner == owner }
        if let definitions { next.clients.append(definitions) }
        next.compiled = next.compile()
        next.generation = generation &+ 1

        let old = compiled
        let new = next.compiled
        let removed = old.order.filter { old.owners[$0] == owner }
        let previousIndex = (0..<new.count).map { r -> Int in
            new.owners[r] == owner ? -1 : old.index[CompiledSet.Key(owner: new.owners[r], name: new.names[r])] ?? -1
        }
        next.change = .client(owner, removed: removed, previousIndex: previousIndex)
        return next
    }

    /// Every recognizer in the set: the configuration's, then each client's (for `hello`).
    public var recognizerSummaries: [RecognizerSummary] {
        (0..<compiled.count).map { r in
            RecognizerSummary(
                name: compiled.names[r], kind: compiled.kinds[r], owner: compiled.owners[r],
                region: compiled.regionNames[compiled.regionOf[r]])
        }
    }
}
