// Codable for recognizer specs: one flat mapping per recognizer, `kind` selecting which
// parameter keys are allowed besides the common ones. Every value is range-checked here, by the
// same rules validation uses (the descriptors, ParameterDescriptor.swift), so a decoded spec is
// valid on its own; references between specs are checked by `EngineConfiguration.validate()`.

extension TapParameters: DescribedParameters {
    static var descriptors: [ParameterDescriptor<Self>] {
        [
            .count("taps", \.taps, 1...5, noun: "a tap count", "taps in a row"),
            .fingers("fingers", \.fingers, "fingers of each tap"),
            .milliseconds("max-duration-ms", \.maxDuration, "the longest a tap's fingers stay down"),
            .milliseconds("max-gap-ms", \.maxGap, "the longest pause between taps"),
            .millimetres("slop-mm", \.slop, "how far a finger may move and still tap"),
            .millimetres("max-tap-distance-mm", \.maxTapDistance, "how far a later tap may land from the first"),
        ]
    }
}

extension LongPressParameters: DescribedParameters {
    static var descriptors: [ParameterDescriptor<Self>] {
        [
            .fingers("fingers", \.fingers, "fingers held"),
            .milliseconds("min-duration-ms", \.minDuration, "how long they are held before it begins"),
            .millimetres("slop-mm", \.slop, "how far a finger may move before it begins"),
        ]
    }
}

extension PanParameters: DescribedParameters {
    static var descriptors: [ParameterDescriptor<Self>] {
        [
            .minFingers(\.minFingers, "fewest fingers"),
            .maxFingers(\.maxFingers, atLeast: \.minFingers, "most fingers"),
            .millimetres(
                "start-distance-mm", \.startDistance, allowZero: true, "how far the centroid moves before it begins"),
            .settle(\.settle),
        ]
    }
}

extension SwipeParameters: DescribedParameters {
    static var descriptors: [ParameterDescriptor<Self>] {
        [
            .minFingers(\.minFingers, "fewest fingers"),
            .maxFingers(\.maxFingers, atLeast: \.minFingers, "most fingers"),
            .choices("directions", \.directions, noun: "direction", "directions recognized (8, diagonals included)"),
            .millimetres("min-distance-mm", \.minDistance, "how far the fingers move to be a swipe"),
            .millimetres(
                "min-velocity-mm-s", \.minVelocity, unit: "mm/s", allowZero: true,
                "slowest average speed over that distance (1 or 2 fingers)"),
            .milliseconds("max-duration-ms", \.maxDuration, "longest time to cover that distance (1 or 2 fingers)"),
            .number(
                "angle-tolerance-deg", \.angleTolerance, unit: "°", accepts: "degrees above 0 and at most 45",
                "how far the stroke's angle may be from its direction", where: { $0 > 0 && $0 <= 45 }),
            .settle(\.settle),
            .millimetres(
                "hold-distance-mm", \.holdDistance, allowZero: true,
                "how much farther a stroke slower than twice min-velocity-mm-s keeps its direction before it is decided"
            ),
            .millimetres(
                "multi-finger-min-velocity-mm-s", \.multiFingerMinVelocity, unit: "mm/s", allowZero: true,
                inherits: "min-velocity-mm-s",
                "slowest average speed over that distance with 3 fingers or more (written alone, min-velocity-mm-s counts)"
            ),
            .milliseconds(
                "multi-finger-max-duration-ms", \.multiFingerMaxDuration, inherits: "max-duration-ms",
                "longest time to cover that distance with 3 fingers or more (written alone, max-duration-ms counts)"),
            .ratio(
                "min-straightness", \.minStraightness,
                "how straight that distance is covered: displacement over path (a half circle is 0.64)"),
        ]
    }
}

extension EdgeSwipeParameters: DescribedParameters {
    static var descriptors: [ParameterDescriptor<Self>] {
        [
            .choices("edges", \.edges, noun: "edge", "edges it starts from"),
            .fingers("fingers", \.fingers, "fingers"),
            .millimetres("band-mm", \.band, "how near an edge the fingers must land"),
            .millimetres("min-distance-mm", \.minDistance, "how far they move away from it before it begins"),
        ]
    }
}

extension PinchParameters: DescribedParameters {
    static var descriptors: [ParameterDescriptor<Self>] {
        [
            .minFingers(\.minFingers, least: 2, for: "a pinch", "fewest fingers"),
            .maxFingers(\.maxFingers, atLeast: \.minFingers, "most fingers"),
            .number(
                "min-scale-change", \.minScaleChange, unit: "ratio", accepts: "a ratio above 0 and below 1",
                "how much the spread changes before it begins (0.1 = 10 %)", where: { $0 > 0 && $0 < 1 }),
        ]
    }
}

extension RotateParameters: DescribedParameters {
    static var descriptors: [ParameterDescriptor<Self>] {
        [
            .minFingers(\.minFingers, least: 2, for: "a rotation", "fewest fingers"),
            .maxFingers(\.maxFingers, atLeast: \.minFingers, "most fingers"),
            .number(
                "min-rotation-deg", \.minRotation, unit: "°", accepts: "degrees above 0 and below 180",
                "how far the fingers turn before it begins", where: { $0 > 0 && $0 < 180 }),
        ]
    }
}

extension ShapeParameters: DescribedParameters {
    static var descriptors: [ParameterDescriptor<Self>] {
        [
            .value(
                "templates", unit: "list", accepts: "at least one template",
                "built-in shapes by name, or `{name, points: [[x, y], …]}`", read: { $0.templates },
                write: { $0.templates = $1 }, spell: { $0.map(\.name).joined(separator: ", ") },
                check: { templates, _ in ShapeTemplate.problem(in: templates) }),
            .number(
                "min-score", \.minScore, unit: "score", accepts: "a score from 0 to 1",
                "lowest match score recognized (1 = the template exactly)", where: { (0...1).contains($0) }),
            .millimetres("min-size-mm", \.minSize, "smallest stroke (the longer side of its bounding box)"),
            .minFingers(\.minFingers, "fewest fingers"),
            .maxFingers(\.maxFingers, atLeast: \.minFingers, "most fingers"),
            .settle(\.settle),
            .degrees(
                "circle-min-turn-deg", \.circleMinTurn, upTo: 360,
                "circle: how far round its centre a stroke lifted as a whole goes (a loop left open)"),
            .degrees(
                "circle-loop-turn-deg", \.circleLoopTurn, upTo: 360,
                "circle: how far round its centre a loop goes while the stroke moves, or at the end of a longer stroke"),
            .ratio("circle-max-spread", \.circleMaxSpread, "circle: how much the radius may vary (of its mean)"),
            .ratio(
                "circle-max-corners", \.circleMaxCorners,
                "circle: how strong a 3rd–5th harmonic of the radius may be (triangles, squares, stars)"),
            .ratio(
                "circle-max-spiral", \.circleMaxSpiral,
                "circle: how much the radius at a loop's ends may differ (of its mean)"),
            .ratio(
                "circle-max-overshoot", \.circleMaxOvershoot,
                "circle: the same, for a stroke lifted after going round at most circle-overshoot-turn-deg"),
            .degrees(
                "circle-overshoot-turn-deg", \.circleOvershootTurn, upTo: 3600,
                "circle: how far round a stroke may go and still end past its start by circle-max-overshoot"),
            .ratio(
                "circle-min-axis-ratio", \.circleMinAxisRatio,
                "circle: the least short over long axis of its ellipse (lines and flat zigzags are none)"),
            .millimetres(
                "circle-straight-run-mm", \.circleStraightRun,
                "circle alone: path that, staying within circle-straight-run-deviation-mm of its chord, gives up"),
            .millimetres(
                "circle-straight-run-deviation-mm", \.circleStraightRunDeviation,
                "circle alone: how near its chord that path stays"),
        ]
    }
}

extension ShapeTemplate: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable { case name, points }

    /// A string names a built-in template; a mapping `{name, points: [[x, y], …]}` defines one.
    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let name = try? single.decode(String.self) {
            guard let shape = BuiltInShape(rawValue: name) else {
                let known = BuiltInShape.allCases.map(\.rawValue).joined(separator: ", ")
                throw DecodingError.dataCorruptedError(
                    in: single, debugDescription: "unknown built-in shape '\(name)' (known: \(known))")
            }
            self = .builtIn(shape)
            return
        }
        try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)), in: "a shape template")
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let name = try c.decode(String.self, forKey: .name)
        guard RegionSpec.isValidName(name) else {
            throw DecodingError.dataCorruptedError(forKey: .name, in: c, debugDescription: RegionSpec.nameExpectation)
        }
        let pairs = try c.decode([[Double]].self, forKey: .points)
        let points = pairs.map { $0.count == 2 ? SurfacePoint(x: $0[0], y: $0[1]) : SurfacePoint(x: .nan, y: .nan) }
        if let message = Self.pointsProblem(points) {
            throw DecodingError.dataCorruptedError(forKey: .points, in: c, debugDescription: message)
        }
        self = .points(name: name, points: points)
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .builtIn(let shape):
            var c = encoder.singleValueContainer()
            try c.encode(shape.rawValue)
        case .points(let name, let points):
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(name, forKey: .name)
            try c.encode(points.map { [$0.x, $0.y] }, forKey: .points)
        }
    }

    /// A drawn template's points: 3 to 1000 of them, each a pair of finite numbers (a point that
    /// is not a pair arrives here as not finite), not all in one place.
    static func pointsProblem(_ points: [SurfacePoint]) -> String? {
        guard (3...1000).contains(points.count), points.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else {
            return "expected 3 to 1000 points, each [x, y]"
        }
        let xs = points.map(\.x)
        let ys = points.map(\.y)
        let extent = max(xs.max()! - xs.min()!, ys.max()! - ys.min()!)
        return extent > 0 ? nil : "the points of a template must not all be the same"
    }

    /// The rules of a template list: at least one, drawn ones well formed. Several may share a
    /// name: more examples of one gesture match better (the $1 paper, Wobbrock et al. 2007,
    /// measures accuracy rising with the number of templates per gesture).
    static func problem(in templates: [ShapeTemplate]) -> ParameterProblem? {
        guard !templates.isEmpty else { return ParameterProblem(message: "expected at least one template") }
        for (i, template) in templates.enumerated() {
            guard case .points(let name, let points) = template else { continue }
            if !RegionSpec.isValidName(name) {
                return ParameterProblem(path: [.index(i), .key("name")], message: RegionSpec.nameExpectation)
            }
            if let message = pointsProblem(points) {
                return ParameterProblem(path: [.index(i), .key("points")], message: message)
            }
        }
        return nil
    }
}

extension BeginConditions: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case minFingers = "min-fingers", maxFingers = "max-fingers", startIn = "start-in", devices
        case clientConnected = "client-connected"
    }

    public init(from decoder: any Decoder) throws {
        self.init()
        try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)), in: "'when'")
        let c = try decoder.container(keyedBy: CodingKeys.self)
        minFingers = try c.decodeLocated(Int.self, forKey: .minFingers)
        maxFingers = try c.decodeLocated(Int.self, forKey: .maxFingers)
        if let (key, message) = fingerProblem() {
            throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: message)
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
        let counts = "a finger count from \(fingerCounts.lowerBound) to \(fingerCounts.upperBound)"
        if let n = minFingers, !fingerCounts.contains(n) { return (.minFingers, "expected \(counts)") }
        if let n = maxFingers, !fingerCounts.contains(n) || n < (minFingers ?? 1) {
            return (.maxFingers, "expected \(counts), at least min-fingers")
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
        try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)), in: "'accepts'")
        let c = try decoder.container(keyedBy: CodingKeys.self)
        tools = Set(try c.decode(.tools, default: Array(tools)))
        if let message = toolsProblem() {
            throw DecodingError.dataCorruptedError(forKey: .tools, in: c, debugDescription: message)
        }
        maxContactSize = try c.decodeIfPresent(Double.self, forKey: .maxContactSize).map(Millimeters.init)
        if let message = sizeProblem() {
            throw DecodingError.dataCorruptedError(forKey: .maxContactSize, in: c, debugDescription: message)
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

    private func sizeProblem() -> String? {
        guard let size = maxContactSize?.value, !(size > 0 && size <= 1000) else { return nil }
        return "expected millimetres above 0 and at most 1000"
    }

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
            allowed: Set(CommonKeys.allCases.map(\.rawValue) + kindKeys), in: "a \(kind.rawValue) recognizer")
        name = try c.decode(String.self, forKey: .name)
        guard RegionSpec.isValidName(name) else {
            throw DecodingError.dataCorruptedError(forKey: .name, in: c, debugDescription: RegionSpec.nameExpectation)
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
    func visit<Kind: KindDefinition>(_: Kind.Type, _: inout Void) -> [String] { Kind.Parameters.keyNames }
}

private struct DecodeParameters: KindVisitor {
    let decoder: any Decoder

    func visit<Kind: KindDefinition>(_: Kind.Type, _: inout Void) throws(any Error) -> RecognizerParameters {
        Kind.wrap(try Kind.Parameters(decodingFrom: decoder))
    }
}

private struct EncodeParameters: KindVisitor {
    let parameters: RecognizerParameters
    let encoder: any Encoder

    func visit<Kind: KindDefinition>(_: Kind.Type, _: inout Void) throws(any Error) {
        try Kind.unwrap(parameters)!.encodeParameters(to: encoder)
    }
}
