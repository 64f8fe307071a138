/// `pan`: `min-fingers`…`max-fingers` fingers whose centroid moves `start-distance-mm`, once
/// the fingers landing within `settle-ms` of the first have settled. Continuous.
public struct PanParameters: Hashable, Sendable {
    public var minFingers: Int = 1
    public var maxFingers: Int = 5
    public var startDistance = Millimeters(3)
    public var settle: TimeSpan = .milliseconds(150)
    public init() {}
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

/// `pan`: `min-fingers`…`max-fingers` fingers whose centroid moves `start-distance-mm`
/// (UIPanGestureRecognizer). Continuous; fingers may land and lift while it runs without the
/// translation jumping. It begins only once the finger count has settled (``FingerSettling``:
/// fingers landing within `settle-ms` of the first are one gesture), so a four-finger pan whose
/// fingers land over 150 ms reports four fingers from its first message (a finger stamped later
/// still joins while the hand has not moved 8 mm); it then reports the fingers down, a change
/// taking effect after ``FingerSettling/switchDelay``.
///
/// | state \ input | fingers land | fingers move | a finger lifts, others stay | the last finger lifts | deadline (landing window closes) |
/// |---|---|---|---|---|---|
/// | tracking | more than `max-fingers` → fail | settled, translation ≥ start-distance with `min`…`max` fingers → active: **begin** | follow the rest (commits the count) | fail | settled |
/// | active | followed, up to `max-fingers` (R1) | **change** | followed | → done: **end** | — |
/// | done | ignored | ignored | ignored | ignored | — |
///
/// The machine is ``CentroidRecognizer``; this is the kind's part.
typealias PanRecognizer = CentroidRecognizer<Pan>

struct Pan: CentroidGesture {
    let parameters: PanParameters
    let scale: MeasuringScale

    init(_ parameters: PanParameters, scale: MeasuringScale) {
        self.parameters = parameters
        self.scale = scale
    }

    func track(_ input: RecognizerInput, down: Int, peak: Int, translation: SurfaceVector) -> TrackingDecision {
        .fingerRange(
            input, down: down, peak: peak, minFingers: parameters.minFingers, maxFingers: parameters.maxFingers,
            reached: scale.mm(translation).length >= parameters.startDistance.value,
            shortfall: Failure(
                .notFarEnough, .startDistance, measured: scale.mm(translation).length,
                limit: parameters.startDistance.value))
    }

    func ends(down: Int) -> Bool { down == 0 }

    func fingerSettling() -> FingerSettling? {
        FingerSettling(window: parameters.settle, maxFingers: parameters.maxFingers)
    }
}

extension GestureKind {
    /// `pan` (``PanParameters``).
    public static var pan: GestureKind { GestureKind(PanKind.self) }
}

extension RecognizerParameters {
    /// The parameters of a pan recognizer.
    public static func pan(_ parameters: PanParameters) -> RecognizerParameters {
        RecognizerParameters(PanKind.self, parameters)
    }
}

/// `pan` in the engine's list of kinds (``RegisteredKinds``).
enum PanKind: KindDefinition {
    typealias Parameters = PanParameters
    typealias Machine = PanRecognizer
    static let name = "pan"
    static let isContinuous = true
    static func mostFingers(_ parameters: PanParameters) -> Int { parameters.maxFingers }
}

extension PanKind {
    /// The checks a pan fails with and the key each names (the registry's table).
    static let failures: [(check: FailureCheck, key: ParameterKey?)] =
        TrackingDecision.fingerRangeFailures + FingerSettling.failures + [(.notFarEnough, .startDistance)]
}
