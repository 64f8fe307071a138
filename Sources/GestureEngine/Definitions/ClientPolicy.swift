/// What the configuration lets clients' own recognizers do to the configuration's recognizers
/// (the configuration's `clients` key; docs/ARBITRATION.md, "Client recognizers").
///
/// By default a client's recognizers observe the configuration's and compete only among
/// themselves: they are simultaneous with every configuration recognizer (R6), so they can never
/// make one fail or cancel it, and they may not name one in `preempts` (nor `*`) or in
/// `requires-failure-of`; a client's regions take touches from its own recognizers only, never
/// from the configuration's (R1). Two clients never arbitrate with each other, whatever is
/// granted. The operator grants more, one right at a time.
public struct ClientPolicy: Hashable, Sendable {
    /// Client recognizers take part in exclusivity (R5) against the configuration's: a client's
    /// gesture that begins first makes a configuration gesture on the same touches fail.
    public var mayCompete: Bool
    /// Client recognizers may name configuration recognizers, or `*`, in `preempts`.
    public var mayPreempt: Bool
    /// Client recognizers may name configuration recognizers in `requires-failure-of`.
    public var mayRequireFailure: Bool
    /// Client regions take part in the configuration's hit-testing (R1): a touch landing in a
    /// client region that lies above the configuration's regions there goes to the configuration's
    /// recognizers of that region's ancestors only, as a view covers the views below it.
    public var mayCover: Bool

    public init(
        mayCompete: Bool = false, mayPreempt: Bool = false, mayRequireFailure: Bool = false, mayCover: Bool = false
    ) {
        self.mayCompete = mayCompete
        self.mayPreempt = mayPreempt
        self.mayRequireFailure = mayRequireFailure
        self.mayCover = mayCover
    }
}

extension ClientPolicy: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case mayCompete = "may-compete"
        case mayPreempt = "may-preempt"
        case mayRequireFailure = "may-require-failure"
        case mayCover = "may-cover"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.strictContainer(keyedBy: CodingKeys.self, in: "'clients'")
        self.init(
            mayCompete: try c.decode(.mayCompete, default: false),
            mayPreempt: try c.decode(.mayPreempt, default: false),
            mayRequireFailure: try c.decode(.mayRequireFailure, default: false),
            mayCover: try c.decode(.mayCover, default: false))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(mayCompete, forKey: .mayCompete)
        try c.encode(mayPreempt, forKey: .mayPreempt)
        try c.encode(mayRequireFailure, forKey: .mayRequireFailure)
        try c.encode(mayCover, forKey: .mayCover)
    }
}
