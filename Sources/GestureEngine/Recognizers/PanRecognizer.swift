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
/// No timers.
struct PanRecognizer: Recognizer {
    enum State { case tracking, active, done }

    let parameters: PanParameters
    let scale: MeasuringScale
    private(set) var state = State.tracking
    var deadline: Timestamp? { nil }
    private var started = false
    private var fingers = 0
    private var tracker = CentroidTracker()
    private var velocity = VelocityTracker()

    init(_ parameters: PanParameters, scale: MeasuringScale) {
        self.parameters = parameters
        self.scale = scale
    }

    mutating func update(_ input: RecognizerInput, _ touches: borrowing TouchTable) -> Proposal {
        if state == .done { return .none }
        if !started {
            started = true
            tracker.start(input.live | input.lifted, touches)
        }
        tracker.update(input.live, touches)
        let t = tracker.translation
        velocity.add(input.time, x: t.dx, y: t.dy)
        let down = input.live.count
        if down > 0 { fingers = down }
        switch state {
        case .tracking:
            if down > parameters.maxFingers || down == 0 { return fail() }
            guard input.moved != 0, down >= parameters.minFingers,
                scale.mm(t).length >= parameters.startDistance.value
            else { return .none }
            state = .active
            return .begin(snapshot(at: input.time, touches))
        case .active:
            if down == 0 {
                state = .done
                return .end(snapshot(at: input.time, touches))
            }
            return input.moved != 0 ? .change(snapshot(at: input.time, touches)) : .none
        case .done:
            return .none
        }
    }

    mutating func timerFired(at time: Timestamp, _ touches: borrowing TouchTable) -> Proposal { .none }

    func snapshot(at time: Timestamp, _ touches: borrowing TouchTable) -> Report {
        var r = Report(time: time, fingers: fingers, position: tracker.centroid)
        r.translation = tracker.translation
        let v = velocity.velocity(at: time)
        r.velocity = SurfaceVector(dx: v.x, dy: v.y)
        return r
    }

    private mutating func fail() -> Proposal {
        state = .done
        return .fail
    }

    /// Back to the start, keeping the velocity buffer (a reset must not allocate).
    mutating func reset() {
        state = .tracking
        started = false
        fingers = 0
        tracker.reset()
        velocity.reset()
    }
}
