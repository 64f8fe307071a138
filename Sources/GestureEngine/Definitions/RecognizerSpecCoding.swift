// Codable for recognizer specs: one flat mapping per recognizer, `kind` selecting which
// parameter keys are allowed besides the common ones. Every value is range-checked here, by the
// same rules validation uses (the descriptors, ParameterDescriptor.swift), so a decoded spec is
// valid on its own; references between specs are checked by `EngineConfiguration.validate()`.

extension BeginConditions: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case minFingers = "min-fingers", maxFingers = "max-fingers", startIn = "start-in", devices
        case clientConnected = "client-connected"
    }

    public init(from decoder: any Decoder) throws {
        self.init()
        let c = try decoder.strictContainer(keyedBy: CodingKeys.self, in: "'when'")
        minFingers = try c.decodeLocated(Int.self, forKey: .minFingers)
        maxFingers = try c.decodeLocated(Int.self, forKey: .maxFingers)
        if let (key, message) = fingerProblem() {
            throw c.corrupted(key, message)
        }
        startIn = try c.decodeIfPresent(SurfaceRect.self, forKey: .startIn)
        devices = try c.decode(.devices, default: [])
        clientConnected = try c.decodeIfPresent(Bool.self, forKey: .clientConnected)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(minFingers, for: .minFingers)
        try c.encodeIfPresent(maxFingers, for: .maxFingers)
        try c.encodeIfPresent(startIn, for: .startIn)
        if !devices.isEmpty { try c.encode(devices, forKey: .devices) }
        try c.encodeIfPresent(clientConnected, for: .clientConnected)
    }

    private func fingerProblem() -> (CodingKeys, String)? {
        if let n = minFingers, let problem = FingerCount.problem(n) { return (.minFingers, problem) }
        if let n = maxFingers, let problem = FingerCount.problem(max: n, min: minFingers ?? 1) {
            return (.maxFingers, problem)
        }
        return nil
    }

    /// The first rule broken, as a path below `when`: the finger counts and the start area (also
    /// checked when decoding), and no empty device pattern.
    func problem() -> ParameterProblem? {
        if let (key, message) = fingerProblem() {
            return ParameterProblem(path: [.key(key.rawValue)], message: message)
        }
        if let area = startIn, var problem = area.problem() {
            problem.path.insert(.key(CodingKeys.startIn.rawValue), at: 0)
            return problem
        }
        return devicePatternProblem(devices)
    }
}

extension TouchFilter: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case tools
        case maxContactSize = "max-contact-size-mm", devices
    }

    public init(from decoder: any Decoder) throws {
        self.init()
        let c = try decoder.strictContainer(keyedBy: CodingKeys.self, in: "'accepts'")
        tools = Set(try c.decode(.tools, default: Array(tools)))
        if let message = toolsProblem() {
            throw c.corrupted(.tools, message)
        }
        maxContactSize = try c.decodeIfPresent(Double.self, forKey: .maxContactSize).map(Millimeters.init)
        if let message = sizeProblem() {
            throw c.corrupted(.maxContactSize, message)
        }
        devices = try c.decode(.devices, default: [])
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(ToolType.allCases.filter { tools.contains($0) }, forKey: .tools)
        try c.encodeIfPresent(maxContactSize?.value, for: .maxContactSize)
        if !devices.isEmpty { try c.encode(devices, forKey: .devices) }
    }

    private func toolsProblem() -> String? { tools.isEmpty ? "expected at least one tool type" : nil }

    private func sizeProblem() -> String? { maxContactSize.flatMap { Length.problem($0.value) } }

    /// The first rule broken, as a path below `accepts`: the tools and the size (also checked
    /// when decoding), and no empty device pattern.
    func problem() -> ParameterProblem? {
        if let message = toolsProblem() {
            return ParameterProblem(path: [.key(CodingKeys.tools.rawValue)], message: message)
        }
        if let message = sizeProblem() {
            return ParameterProblem(path: [.key(CodingKeys.maxContactSize.rawValue)], message: message)
        }
        return devicePatternProblem(devices)
    }
}

/// Device name patterns (`when.devices`, `accepts.devices`) must not be empty.
private func devicePatternProblem(_ patterns: [String]) -> ParameterProblem? {
    guard let i = patterns.firstIndex(where: \.isEmpty) else { return nil }
    return ParameterProblem(path: [.key("devices"), .index(i)], message: "expected a device name pattern")
}

extension RecognizerSpec: Codable {
    enum CommonKeys: String, CodingKey, CaseIterable {
        case name, kind, region
        case requiresFailureOf = "requires-failure-of", simultaneousWith = "simultaneous-with", preempts
        case when, accepts
        case cancelsTouches = "cancels-touches", delaysTouchesBegan = "delays-touches-began"
        case delaysTouchesEnded = "delays-touches-ended"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CommonKeys.self)
        let kind = try c.decode(GestureKind.self, forKey: .kind)
        let kindKeys = kind.visit(KeyNames())
        try decoder.rejectUnknownKeys(
            allowed: Set(CommonKeys.allCases.map(\.rawValue) + kindKeys),
            in: "\(kind.rawValue.first.map { "aeiou".contains($0) } == true ? "an" : "a") \(kind.rawValue) recognizer")
        name = try c.decode(String.self, forKey: .name)
        guard RegionSpec.isValidName(name) else {
            throw c.corrupted(.name, RegionSpec.nameExpectation)
        }
        region = try c.decode(.region, default: RegionSpec.rootName)
        parameters = try kind.visit(DecodeParameters(decoder: decoder))
        requiresFailureOf = try c.decode(.requiresFailureOf, default: [])
        simultaneousWith = try c.decode(.simultaneousWith, default: [])
        preempts = try c.decode(.preempts, default: [])
        when = try c.decode(.when, default: BeginConditions())
        accepts = try c.decode(.accepts, default: TouchFilter())
        cancelsTouches = try c.decode(.cancelsTouches, default: true)
        delaysTouchesBegan = try c.decode(.delaysTouchesBegan, default: false)
        delaysTouchesEnded = try c.decode(.delaysTouchesEnded, default: true)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CommonKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(kind, forKey: .kind)
        try c.encode(region, forKey: .region)
        try kind.visit(EncodeParameters(parameters: parameters, encoder: encoder))
        if !requiresFailureOf.isEmpty { try c.encode(requiresFailureOf, forKey: .requiresFailureOf) }
        if !simultaneousWith.isEmpty { try c.encode(simultaneousWith, forKey: .simultaneousWith) }
        if !preempts.isEmpty { try c.encode(preempts, forKey: .preempts) }
        if when != BeginConditions() { try c.encode(when, forKey: .when) }
        if accepts != TouchFilter() { try c.encode(accepts, forKey: .accepts) }
        try c.encode(cancelsTouches, forKey: .cancelsTouches)
        try c.encode(delaysTouchesBegan, forKey: .delaysTouchesBegan)
        try c.encode(delaysTouchesEnded, forKey: .delaysTouchesEnded)
    }
}

private struct KeyNames: KindVisitor {
    func visit<Kind: KindDefinition>(_: Kind.Type) -> [String] { Kind.Parameters.keyNames }
}

private struct DecodeParameters: KindVisitor {
    let decoder: any Decoder

    func visit<Kind: KindDefinition>(_: Kind.Type) throws(any Error) -> RecognizerParameters {
        RecognizerParameters(Kind.self, try Kind.Parameters(decodingFrom: decoder))
    }
}

private struct EncodeParameters: KindVisitor {
    let parameters: RecognizerParameters
    let encoder: any Encoder

    func visit<Kind: KindDefinition>(_: Kind.Type) throws(any Error) {
        try parameters.of(Kind.self).encodeParameters(to: encoder)
    }
}
