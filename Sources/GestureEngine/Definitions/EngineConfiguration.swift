/// What the engine runs: regions and recognizers, as the configuration file (under its
/// `regions` and `recognizers` keys) defines them. Clients add their own through
/// ``GestureEngine/define(owner:regions:recognizers:at:into:)``, validated by the same code.
public struct EngineConfiguration: Hashable, Sendable {
    public var regions: [RegionSpec]
    public var recognizers: [RecognizerSpec]
    /// What clients' recognizers may do to these.
    public var clients: ClientPolicy

    public init(regions: [RegionSpec] = [], recognizers: [RecognizerSpec] = [], clients: ClientPolicy = ClientPolicy())
    {
        self.regions = regions
        self.recognizers = recognizers
        self.clients = clients
    }

    /// Checks everything a decoder cannot see on its own: names (valid, unique, `root`
    /// reserved), references (regions, parents, `requires-failure-of`, `simultaneous-with`,
    /// `preempts`), cycles (parents, failure requirements) and every parameter's range (specs
    /// built in code skip the decoder's checks). The error's path starts at this configuration's
    /// root, e.g. `recognizers[3].requires-failure-of[0]`.
    public func validate() throws(SpecError) {
        try SpecValidator(configuration: self).validateConfiguration()
    }
}

extension EngineConfiguration: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable { case regions, recognizers, clients }

    /// Every key is optional (an empty configuration recognizes nothing); unknown keys are
    /// errors. Decoding checks each spec on its own; call ``validate()`` for the references.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.strictContainer(keyedBy: CodingKeys.self, in: "the configuration")
        regions = try c.decode(.regions, default: [])
        recognizers = try c.decode(.recognizers, default: [])
        clients = try c.decode(.clients, default: ClientPolicy())
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(regions, forKey: .regions)
        try c.encode(recognizers, forKey: .recognizers)
        try c.encode(clients, forKey: .clients)
    }
}
