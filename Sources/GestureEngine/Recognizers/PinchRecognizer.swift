/// `pinch`: `min-fingers`…`max-fingers` fingers whose spread changes by `min-scale-change`
/// (a ratio, 0.1 = 10 %). Continuous; reports scale and its velocity.
public struct PinchParameters: Hashable, Sendable {
    public var minFingers: Int = 2
    public var maxFingers: Int = 5
    public var minScaleChange: Double = 0.1
    public init() {}
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

/// `pinch`: `min-fingers`…`max-fingers` fingers whose spread (mean distance from their centroid)
/// changes by `min-scale-change` (UIPinchGestureRecognizer). Continuous; reports the scale since
/// the first finger landed and its velocity per second. Fingers may land and lift while it runs:
/// the scale carries on from where it was.
///
/// | state \ input | fingers land | fingers move | a finger lifts, others stay | the last finger lifts |
/// |---|---|---|---|---|
/// | tracking | more than `max-fingers` → fail | \|scale − 1\| ≥ min-scale-change with `min`…`max` fingers → active: **begin** | follow the rest | fail |
/// | active | followed, up to `max-fingers` (R1) | **change** | fewer than `min-fingers` left → done: **end** | → done: **end** |
/// | done | ignored | ignored | ignored | ignored |
///
/// No timers. The machine is ``CentroidRecognizer``; this is the kind's part.
typealias PinchRecognizer = CentroidRecognizer<Pinch>

struct Pinch: CentroidGesture {
    /// Below this spread (fingers nearly on one spot, or one finger) the ratio means nothing.
    static let minSpread = 1.0

    let parameters: PinchParameters
    let scale: MeasuringScale
    /// The touches the spread was last measured on, that spread, the scale accumulated before.
    private var mask: UInt64 = 0
    private var baseSpread = 0.0
    private var accumulated = 1.0
    private var currentScale = 1.0

    init(_ parameters: PinchParameters, scale: MeasuringScale) {
        self.parameters = parameters
        self.scale = scale
    }

    /// Mean distance of the touches from their centroid, in millimetres. Static, so that calling
    /// it from `measure` does not copy the whole value to lend it out while it is being changed.
    private static func spread(_ mask: UInt64, _ touches: borrowing TouchTable, _ scale: MeasuringScale) -> Double {
        let c = scale.mm(touches.centroid(mask))
        var sum = 0.0
        for slot in SlotBits(mask) { sum += (scale.mm(touches.position(slot)) - c).length }
        return mask == 0 ? 0 : sum / Double(mask.count)
    }

    /// The scale since the first finger landed.
    mutating func measure(_ live: UInt64, _ touches: borrowing TouchTable) -> Double {
        if live != mask {
            if mask != 0 && baseSpread >= Self.minSpread {
                accumulated *= Self.spread(mask, touches, scale) / baseSpread
            }
            mask = live
            baseSpread = Self.spread(live, touches, scale)
        }
        if live != 0 {
            currentScale =
                baseSpread >= Self.minSpread
                ? accumulated * Self.spread(live, touches, scale) / baseSpread : accumulated
        }
        return currentScale
    }

    func track(_ input: RecognizerInput, down: Int, peak: Int, translation: SurfaceVector) -> TrackingDecision {
        .fingerRange(
            input, down: down, peak: peak, minFingers: parameters.minFingers, maxFingers: parameters.maxFingers,
            reached: abs(currentScale - 1) >= parameters.minScaleChange,
            shortfall: Failure(
                .scaleTooSmall, .minScaleChange, measured: abs(currentScale - 1), limit: parameters.minScaleChange))
    }

    func ends(down: Int) -> Bool { down < parameters.minFingers }

    func annotate(_ report: inout Report, measureVelocity: Double) {
        report.scale = currentScale
        report.scaleVelocity = measureVelocity
    }

    mutating func reset() {
        mask = 0
        baseSpread = 0
        accumulated = 1
        currentScale = 1
    }
}

extension GestureKind {
    /// `pinch` (``PinchParameters``).
    public static var pinch: GestureKind { GestureKind(PinchKind.self) }
}

extension RecognizerParameters {
    /// The parameters of a pinch recognizer.
    public static func pinch(_ parameters: PinchParameters) -> RecognizerParameters {
        RecognizerParameters(PinchKind.self, parameters)
    }
}

/// `pinch` in the engine's list of kinds (``RegisteredKinds``).
enum PinchKind: KindDefinition {
    typealias Parameters = PinchParameters
    typealias Machine = PinchRecognizer
    static let name = "pinch"
    static let isContinuous = true
    static func mostFingers(_ parameters: PinchParameters) -> Int { parameters.maxFingers }
}

extension PinchKind {
    /// The checks a pinch fails with and the key each names (the registry's table).
    static let failures: [(check: FailureCheck, key: ParameterKey?)] =
        TrackingDecision.fingerRangeFailures + [(.scaleTooSmall, .minScaleChange)]
}
