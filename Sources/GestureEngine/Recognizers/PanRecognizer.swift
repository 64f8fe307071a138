/// `pan`: `min-fingers`…`max-fingers` fingers whose centroid moves `start-distance-mm`
/// (UIPanGestureRecognizer). Continuous; fingers may land and lift while it runs without the
/// translation jumping.
///
/// | state \ input | fingers land | fingers move | a finger lifts, others stay | the last finger lifts |
/// |---|---|---|---|---|
/// | tracking | more than `max-fingers` → fail | translation ≥ start-distance with `min`…`max` fingers → active: **begin** | follow the rest | fail |
/// | active | followed | **change** | followed | → done: **end** |
/// | done | ignored | ignored | ignored | ignored |
///
/// No timers. The machine is ``CentroidRecognizer``; this is the kind's part.
typealias PanRecognizer = CentroidRecognizer<Pan>

struct Pan: CentroidGesture {
    let parameters: PanParameters
    let scale: MeasuringScale

    init(_ parameters: PanParameters, scale: MeasuringScale) {
        self.parameters = parameters
        self.scale = scale
    }

    func track(_ input: RecognizerInput, down: Int, translation: SurfaceVector) -> TrackingDecision {
        .fingerRange(
            input, down: down, minFingers: parameters.minFingers, maxFingers: parameters.maxFingers,
            reached: scale.mm(translation).length >= parameters.startDistance.value)
    }

    func ends(down: Int) -> Bool { down == 0 }
}
