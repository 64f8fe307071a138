// Codable for recognizer specs: one flat mapping per recognizer, `kind` selecting which
// parameter keys are allowed besides the common ones. Every value is range-checked here, so a
// decoded spec is valid on its own; references between specs are checked by
// `EngineConfiguration.validate()`.

/// A parameter set of one kind, decoded from (and encoded into) the recognizer's own mapping.
protocol ParameterSet: Codable {
    associatedtype Keys: CodingKey & CaseIterable & RawRepresentable<String>
}

extension ParameterSet {
    static var keyNames: [String] { Keys.allCases.map(\.rawValue) }
}

private let fingerRange = 1...10
private let fingersExpectation = "a finger count from 1 to 10"

private extension KeyedDecodingContainer {
    func decodeFingers(_ key: Key, default fallback: Int) throws -> Int {
        try decode(key, default: fallback, expect: fingersExpectation) { fingerRange.contains($0) }
    }

    func decodeMilliseconds(_ key: Key, default fallback: TimeSpan) throws -> TimeSpan {
        let ms = try decode(
            key, default: fallback.microseconds / 1000, expect: "milliseconds from 1 to 60000"
        ) { (1...60_000).contains($0) }
        return .milliseconds(ms)
    }

    /// `settle-ms`: how long fingers may take to land as one gesture (0 = no waiting).
    func decodeSettle(_ key: Key, default fallback: TimeSpan) throws -> TimeSpan {
        let ms = try decode(
            key, default: fallback.microseconds / 1000, expect: "milliseconds from 0 to 1000"
        ) { (0...1000).contains($0) }
        return .milliseconds(ms)
    }

    func decodeMillimeters(_ key: Key, default fallback: Millimeters, allowZero: Bool = false) throws -> Millimeters {
        let mm = try decode(key, default: fallback.value, expect: "millimetres from \(allowZero ? 0 : 0.01) to 10000") {
            ($0 > 0 || (allowZero && $0 == 0)) && $0 <= 10_000
        }
        return Millimeters(mm)
    }

    /// `min-fingers` / `max-fingers`, checked against each other and against the kind's own
    /// minimum (`what` names the gesture in the error: "a pinch").
    func decodeFingerRange(
        min minKey: Key, max maxKey: Key, defaults: (Int, Int), atLeast minimum: Int = 1, for what: String = ""
    ) throws -> (Int, Int) {
        let lower = try decodeFingers(minKey, default: defaults.0)
        guard lower >= minimum else {
            throw DecodingError.dataCorruptedError(
                forKey: minKey, in: self, debugDescription: "expected at least \(minimum) fingers for \(what)")
        }
        let upper = try decodeFingers(maxKey, default: Swift.max(defaults.1, lower))
        guard upper >= lower else {
            throw DecodingError.dataCorruptedError(
                forKey: maxKey, in: self, debugDescription: "expected max-fingers ≥ min-fingers (\(lower))")
        }
        return (lower, upper)
    }

    func decodeNonEmptySet<T: Decodable & Hashable>(_ key: Key, default fallback: Set<T>, what: String) throws -> Set<T>
    {
        guard let list = try decodeIfPresent([T].self, forKey: key) else { return fallback }
        guard !list.isEmpty else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "expected at least one \(what)")
        }
        return Set(list)
    }
}

private extension KeyedEncodingContainer {
    mutating func encodeMilliseconds(_ span: TimeSpan, for key: Key) throws {
        try encode(span.microseconds / 1000, forKey: key)
    }

    /// Sets are encoded in a stable order (their declaration order).
    mutating func encodeSorted<T: Encodable & CaseIterable & Hashable>(_ set: Set<T>, for key: Key) throws {
        try encode(T.allCases.filter { set.contains($0) }, forKey: key)
    }
}

extension TapParameters: ParameterSet {
    enum Keys: String, CodingKey, CaseIterable {
        case taps, fingers
        case maxDuration = "max-duration-ms", maxGap = "max-gap-ms"
        case slop = "slop-mm", maxTapDistance = "max-tap-distance-mm"
    }

    public init(from decoder: any Decoder) throws {
        self.init()
        let c = try decoder.container(keyedBy: Keys.self)
        taps = try c.decode(.taps, default: taps, expect: "a tap count from 1 to 5") { (1...5).contains($0) }
        fingers = try c.decodeFingers(.fingers, default: fingers)
        maxDuration = try c.decodeMilliseconds(.maxDuration, default: maxDuration)
        maxGap = try c.decodeMilliseconds(.maxGap, default: maxGap)
        slop = try c.decodeMillimeters(.slop, default: slop)
        maxTapDistance = try c.decodeMillimeters(.maxTapDistance, default: maxTapDistance)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(taps, forKey: .taps)
        try c.encode(fingers, forKey: .fingers)
        try c.encodeMilliseconds(maxDuration, for: .maxDuration)
        try c.encodeMilliseconds(maxGap, for: .maxGap)
        try c.encode(slop.value, forKey: .slop)
        try c.encode(maxTapDistance.value, forKey: .maxTapDistance)
    }
}

extension LongPressParameters: ParameterSet {
    enum Keys: String, CodingKey, CaseIterable {
        case fingers
        case minDuration = "min-duration-ms", slop = "slop-mm"
    }

    public init(from decoder: any Decoder) throws {
        self.init()
        let c = try decoder.container(keyedBy: Keys.self)
        fingers = try c.decodeFingers(.fingers, default: fingers)
        minDuration = try c.decodeMilliseconds(.minDuration, default: minDuration)
        slop = try c.decodeMillimeters(.slop, default: slop)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(fingers, forKey: .fingers)
        try c.encodeMilliseconds(minDuration, for: .minDuration)
        try c.encode(slop.value, forKey: .slop)
    }
}

extension PanParameters: ParameterSet {
    enum Keys: String, CodingKey, CaseIterable {
        case minFingers = "min-fingers", maxFingers = "max-fingers", startDistance = "start-distance-mm"
        case settle = "settle-ms"
    }

    public init(from decoder: any Decoder) throws {
        self.init()
        let c = try decoder.container(keyedBy: Keys.self)
        (minFingers, maxFingers) = try c.decodeFingerRange(
            min: .minFingers, max: .maxFingers, defaults: (minFingers, maxFingers))
        startDistance = try c.decodeMillimeters(.startDistance, default: startDistance, allowZero: true)
        settle = try c.decodeSettle(.settle, default: settle)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(minFingers, forKey: .minFingers)
        try c.encode(maxFingers, forKey: .maxFingers)
        try c.encode(startDistance.value, forKey: .startDistance)
        try c.encodeMilliseconds(settle, for: .settle)
    }
}

extension SwipeParameters: ParameterSet {
    enum Keys: String, CodingKey, CaseIterable {
        case minFingers = "min-fingers", maxFingers = "max-fingers", directions
        case minDistance = "min-distance-mm", minVelocity = "min-velocity-mm-s"
        case maxDuration = "max-duration-ms", angleTolerance = "angle-tolerance-deg"
        case settle = "settle-ms"
    }

    public init(from decoder: any Decoder) throws {
        self.init()
        let c = try decoder.container(keyedBy: Keys.self)
        (minFingers, maxFingers) = try c.decodeFingerRange(
            min: .minFingers, max: .maxFingers, defaults: (minFingers, maxFingers))
        directions = try c.decodeNonEmptySet(.directions, default: directions, what: "direction")
        minDistance = try c.decodeMillimeters(.minDistance, default: minDistance)
        minVelocity = try c.decodeMillimeters(.minVelocity, default: minVelocity, allowZero: true)
        maxDuration = try c.decodeMilliseconds(.maxDuration, default: maxDuration)
        angleTolerance = try c.decode(
            .angleTolerance, default: angleTolerance, expect: "degrees above 0 and at most 45"
        ) { $0 > 0 && $0 <= 45 }
        settle = try c.decodeSettle(.settle, default: settle)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(minFingers, forKey: .minFingers)
        try c.encode(maxFingers, forKey: .maxFingers)
        try c.encodeSorted(directions, for: .directions)
        try c.encode(minDistance.value, forKey: .minDistance)
        try c.encode(minVelocity.value, forKey: .minVelocity)
        try c.encodeMilliseconds(maxDuration, for: .maxDuration)
        try c.encode(angleTolerance, forKey: .angleTolerance)
        try c.encodeMilliseconds(settle, for: .settle)
    }
}

extension EdgeSwipeParameters: ParameterSet {
    enum Keys: String, CodingKey, CaseIterable {
        case edges, fingers
        case band = "band-mm", minDistance = "min-distance-mm"
    }

    public init(from decoder: any Decoder) throws {
        self.init()
        let c = try decoder.container(keyedBy: Keys.self)
        edges = try c.decodeNonEmptySet(.edges, default: edges, what: "edge")
        fingers = try c.decodeFingers(.fingers, default: fingers)
        band = try c.decodeMillimeters(.band, default: band)
        minDistance = try c.decodeMillimeters(.minDistance, default: minDistance)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encodeSorted(edges, for: .edges)
        try c.encode(fingers, forKey: .fingers)
        try c.encode(band.value, forKey: .band)
        try c.encode(minDistance.value, forKey: .minDistance)
    }
}

extension PinchParameters: ParameterSet {
    enum Keys: String, CodingKey, CaseIterable {
        case minFingers = "min-fingers", maxFingers = "max-fingers", minScaleChange = "min-scale-change"
    }

    public init(from decoder: any Decoder) throws {
        self.init()
        let c = try decoder.container(keyedBy: Keys.self)
        (minFingers, maxFingers) = try c.decodeFingerRange(
            min: .minFingers, max: .maxFingers, defaults: (minFingers, maxFingers), atLeast: 2, for: "a pinch")
        minScaleChange = try c.decode(
            .minScaleChange, default: minScaleChange, expect: "a ratio above 0 and below 1"
        ) { $0 > 0 && $0 < 1 }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(minFingers, forKey: .minFingers)
        try c.encode(maxFingers, forKey: .maxFingers)
        try c.encode(minScaleChange, forKey: .minScaleChange)
    }
}

extension RotateParameters: ParameterSet {
    enum Keys: String, CodingKey, CaseIterable {
        case minFingers = "min-fingers", maxFingers = "max-fingers", minRotation = "min-rotation-deg"
    }

    public init(from decoder: any Decoder) throws {
        self.init()
        let c = try decoder.container(keyedBy: Keys.self)
        (minFingers, maxFingers) = try c.decodeFingerRange(
            min: .minFingers, max: .maxFingers, defaults: (minFingers, maxFingers), atLeast: 2, for: "a rotation")
        minRotation = try c.decode(
            .minRotation, default: minRotation, expect: "degrees above 0 and below 180"
        ) { $0 > 0 && $0 < 180 }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(minFingers, forKey: .minFingers)
        try c.encode(maxFingers, forKey: .maxFingers)
        try c.encode(minRotation, forKey: .minRotation)
    }
}

extension ShapeParameters: ParameterSet {
    enum Keys: String, CodingKey, CaseIterable {
        case templates
        case minScore = "min-score", minSize = "min-size-mm"
        case minFingers = "min-fingers", maxFingers = "max-fingers", settle = "settle-ms"
    }

    public init(from decoder: any Decoder) throws {
        self.init()
        let c = try decoder.container(keyedBy: Keys.self)
        templates = try c.decode(.templates, default: templates)
        guard !templates.isEmpty else {
            throw DecodingError.dataCorruptedError(
                forKey: .templates, in: c, debugDescription: "expected at least one template")
        }
        minScore = try c.decode(.minScore, default: minScore, expect: "a score from 0 to 1") { (0...1).contains($0) }
        minSize = try c.decodeMillimeters(.minSize, default: minSize)
        (minFingers, maxFingers) = try c.decodeFingerRange(
            min: .minFingers, max: .maxFingers, defaults: (minFingers, maxFingers))
        settle = try c.decodeSettle(.settle, default: settle)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(templates, forKey: .templates)
        try c.encode(minScore, forKey: .minScore)
        try c.encode(minSize.value, forKey: .minSize)
        try c.encode(minFingers, forKey: .minFingers)
        try c.encode(maxFingers, forKey: .maxFingers)
        try c.encodeMilliseconds(settle, for: .settle)
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
            throw DecodingError.dataCorruptedError(
                forKey: .name, in: c, debugDescription: "expected a name of letters, digits, '-', '_' or '.'")
        }
        let pairs = try c.decode([[Double]].self, forKey: .points)
        guard pairs.count >= 3, pairs.count <= 1000, pairs.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isFinite) })
        else {
            throw DecodingError.dataCorruptedError(
                forKey: .points, in: c, debugDescription: "expected 3 to 1000 points, each [x, y]")
        }
        self = .points(name: name, points: pairs.map { SurfacePoint(x: $0[0], y: $0[1]) })
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
}

extension BeginConditions: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case minFingers = "min-fingers", maxFingers = "max-fingers", startIn = "start-in", devices
        case clientConnected = "client-connected"
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)), in: "'when'")
        let c = try decoder.container(keyedBy: CodingKeys.self)
        minFingers = try c.decodeIfPresent(Int.self, forKey: .minFingers)
        maxFingers = try c.decodeIfPresent(Int.self, forKey: .maxFingers)
        if let n = minFingers, !fingerRange.contains(n) {
            throw DecodingError.dataCorruptedError(
                forKey: .minFingers, in: c, debugDescription: "expected \(fingersExpectation)")
        }
        if let n = maxFingers, !fingerRange.contains(n) || n < (minFingers ?? 1) {
            throw DecodingError.dataCorruptedError(
                forKey: .maxFingers, in: c, debugDescription: "expected \(fingersExpectation), at least min-fingers")
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
        tools = try c.decodeNonEmptySet(.tools, default: tools, what: "tool type")
        if let mm = try c.decodeIfPresent(Double.self, forKey: .maxContactSize) {
            guard mm > 0, mm <= 1000 else {
                throw DecodingError.dataCorruptedError(
                    forKey: .maxContactSize, in: c, debugDescription: "expected millimetres above 0 and at most 1000")
            }
            maxContactSize = Millimeters(mm)
        }
        devices = try c.decode(.devices, default: [])
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeSorted(tools, for: .tools)
        try c.encodeIfPresent(maxContactSize?.value, for: .maxContactSize)
        if !devices.isEmpty { try c.encode(devices, forKey: .devices) }
    }
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
        let kindKeys: [String]
        switch kind {
        case .tap: kindKeys = TapParameters.keyNames
        case .longPress: kindKeys = LongPressParameters.keyNames
        case .pan: kindKeys = PanParameters.keyNames
        case .swipe: kindKeys = SwipeParameters.keyNames
        case .edgeSwipe: kindKeys = EdgeSwipeParameters.keyNames
        case .pinch: kindKeys = PinchParameters.keyNames
        case .rotate: kindKeys = RotateParameters.keyNames
        case .shape: kindKeys = ShapeParameters.keyNames
        }
        try decoder.rejectUnknownKeys(
            allowed: Set(CommonKeys.allCases.map(\.rawValue) + kindKeys), in: "a \(kind.rawValue) recognizer")
        name = try c.decode(String.self, forKey: .name)
        guard RegionSpec.isValidName(name) else {
            throw DecodingError.dataCorruptedError(
                forKey: .name, in: c, debugDescription: "expected a name of letters, digits, '-', '_' or '.'")
        }
        region = try c.decode(.region, default: RegionSpec.rootName)
        switch kind {
        case .tap: parameters = .tap(try TapParameters(from: decoder))
        case .longPress: parameters = .longPress(try LongPressParameters(from: decoder))
        case .pan: parameters = .pan(try PanParameters(from: decoder))
        case .swipe: parameters = .swipe(try SwipeParameters(from: decoder))
        case .edgeSwipe: parameters = .edgeSwipe(try EdgeSwipeParameters(from: decoder))
        case .pinch: parameters = .pinch(try PinchParameters(from: decoder))
        case .rotate: parameters = .rotate(try RotateParameters(from: decoder))
        case .shape: parameters = .shape(try ShapeParameters(from: decoder))
        }
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
        switch parameters {
        case .tap(let p): try p.encode(to: encoder)
        case .longPress(let p): try p.encode(to: encoder)
        case .pan(let p): try p.encode(to: encoder)
        case .swipe(let p): try p.encode(to: encoder)
        case .edgeSwipe(let p): try p.encode(to: encoder)
        case .pinch(let p): try p.encode(to: encoder)
        case .rotate(let p): try p.encode(to: encoder)
        case .shape(let p): try p.encode(to: encoder)
        }
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
