/// `rotate`: `min-fingers`…`max-fingers` fingers turning by `min-rotation-deg`. Continuous;
/// reports radians and their velocity.
public struct RotateParameters: Hashable, Sendable {
    public var minFingers: Int = 2
    public var maxFingers: Int = 5
    public var minRotation: Double = 15
    public init() {}
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

/// `rotate`: `min-fingers`…`max-fingers` fingers turning about their centroid by
/// `min-rotation-deg` (UIRotationGestureRecognizer). Continuous; reports radians since the first
/// finger landed (positive clockwise on the surface) and radians per second.
///
/// The rotation is accumulated frame by frame as the mean change of each touch's angle about the
/// centroid (in millimetres, so a non-square panel does not skew it); touches within
/// ``Rotate/minRadius`` of the centroid have no meaningful angle and are left out. When fingers
/// land or lift the angles are re-measured and the rotation carries on.
///
/// | state \ input | fingers land | fingers move | a finger lifts, others stay | the last finger lifts |
/// |---|---|---|---|---|
/// | tracking | more than `max-fingers` → fail | \|rotation\| ≥ min-rotation with `min`…`max` fingers → active: **begin** | follow the rest | fail |
/// | active | followed, up to `max-fingers` (R1) | **change** | fewer than `min-fingers` left → done: **end** | → done: **end** |
/// | done | ignored | ignored | ignored | ignored |
///
/// No timers. The machine is ``CentroidRecognizer``; this is the kind's part.
typealias RotateRecognizer = CentroidRecognizer<Rotate>

struct Rotate: CentroidGesture {
    static let minRadius = 1.0

    let parameters: RotateParameters
    let scale: MeasuringScale
    private let minRotation: Double
    private var mask: UInt64 = 0
    /// Touches whose previous angle is known, and the angles, by slot.
    private var angleKnown: UInt64 = 0
    private var angles: [Double]
    private var rotation = 0.0

    init(_ parameters: RotateParameters, scale: MeasuringScale) {
        self.parameters = parameters
        self.scale = scale
        minRotation = parameters.minRotation * Double.pi / 180
        angles = Array(repeating: 0, count: TouchTable.capacity)
    }

    /// The rotation since the first finger landed.
    mutating func measure(_ live: UInt64, _ touches: borrowing TouchTable) -> Double {
        guard live != 0 else { return rotation }
        let c = scale.mm(touches.centroid(live))
        let sameSet = live == mask
        var sum = 0.0
        var n = 0
        var known: UInt64 = 0
        for slot in SlotBits(live) {
            let v = scale.mm(touches.position(slot)) - c
            guard v.length >= Self.minRadius else { continue }
            let a = atan2Approx(v.y, v.x)
            if sameSet && angleKnown & .bit(slot) != 0 {
                sum += wrapAngle(a - angles[slot])
                n += 1
            }
            angles[slot] = a
            known |= .bit(slot)
        }
        if n > 0 { rotation += sum / Double(n) }
        angleKnown = known
        mask = live
        return rotation
    }

    func track(_ input: RecognizerInput, down: Int, peak: Int, translation: SurfaceVector) -> TrackingDecision {
        .fingerRange(
            input, down: down, peak: peak, minFingers: parameters.minFingers, maxFingers: parameters.maxFingers,
            reached: abs(rotation) >= minRotation,
            shortfall: Failure(
                .rotationTooSmall, .minRotation, measured: abs(rotation) * 180 / Double.pi,
                limit: parameters.minRotation))
    }

    func ends(down: Int) -> Bool { down < parameters.minFingers }

    func annotate(_ report: inout Report, measureVelocity: Double) {
        report.rotation = rotation
        report.rotationVelocity = measureVelocity
    }

    /// Back to the start, keeping the angle buffer (a reset must not allocate).
    mutating func reset() {
        mask = 0
        angleKnown = 0
        rotation = 0
    }
}

extension GestureKind {
    /// `rotate` (``RotateParameters``).
    public static var rotate: GestureKind { GestureKind(RotateKind.self) }
}

extension RecognizerParameters {
    /// The parameters of a rotation recognizer.
    public static func rotate(_ parameters: RotateParameters) -> RecognizerParameters {
        RecognizerParameters(RotateKind.self, parameters)
    }
}

/// `rotate` in the engine's list of kinds (``RegisteredKinds``).
enum RotateKind: KindDefinition {
    typealias Parameters = RotateParameters
    typealias Machine = RotateRecognizer
    static let name = "rotate"
    static let isContinuous = true
    static func mostFingers(_ parameters: RotateParameters) -> Int { parameters.maxFingers }
}

extension RotateKind {
    /// The checks a rotation fails with and the key each names (the registry's table).
    static let failures: [(check: FailureCheck, key: ParameterKey?)] =
        TrackingDecision.fingerRangeFailures + [(.rotationTooSmall, .minRotation)]
}
