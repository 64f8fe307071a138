/// `pan`: `min-fingers`…`max-fingers` fingers whose centroid moves `start-distance-mm`
/// (UIPanGestureRecognizer). Continuous; fingers may land and lift while it runs without the
/// translation jumping. It begins only once the finger count has settled (``FingerSettling``:
/// fingers landing within `settle-ms` of the first are one gesture), so a four-finger pan whose
/// fingers land over 150 ms reports four fingers from its first message; it then reports the
/// fingers down, a change taking effect after ``FingerSettling/switchDelay``.
///
/// | state \ input | fingers land | fingers move | a finger lifts, others stay | the last finger lifts | deadline (landing window closes) |
/// |---|---|---|---|---|---|
/// | tracking | more than `max-fingers` → fail | settled, translation ≥ start-distance with `min`…`max` fingers → active: **begin** | follow the rest | fail | the same check as a move |
/// | active | followed | **change** | followed | → done: **end** | — |
/// | done | ignored | ignored | ignored | ignored | — |
struct PanRecognizer: Recognizer {
    enum State { case tracking, active, done }

    let parameters: PanParameters
    let scale: MeasuringScale
    private(set) var state = State.tracking
    private var started = false
    private var settling: FingerSettling
    private var tracker = CentroidTracker()
    private var velocity = VelocityTracker()

    init(_ parameters: PanParameters, scale: MeasuringScale) {
        self.parameters = parameters
        self.scale = scale
        settling = FingerSettling(window: parameters.settle, maxFingers: parameters.maxFingers)
    }

    var deadline: Timestamp? { state == .tracking ? settling.deadline : nil }

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
        settling.update(down: down, lifted: input.lifted != 0, moved: scale.mm(t).length, at: input.time)
        switch state {
        case .tracking:
            if down > parameters.maxFingers || down == 0 { return fail() }
            return input.moved != 0 ? beginIfReady(at: input.time, touches) : .none
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

    mutating func timerFired(at time: Timestamp, _ touches: borrowing TouchTable) -> Proposal {
        settling.timerFired(at: time)
        return state == .tracking ? beginIfReady(at: time, touches) : .none
    }

    /// Begins once the count has settled within `min`…`max` and the centroid has moved far enough.
    private mutating func beginIfReady(at time: Timestamp, _ touches: borrowing TouchTable) -> Proposal {
        let fingers = settling.currentFingers
        guard settling.isSettled, fingers >= parameters.minFingers, fingers <= parameters.maxFingers,
            scale.mm(tracker.translation).length >= parameters.startDistance.value
        else { return .none }
        state = .active
        return .begin(snapshot(at: time, touches))
    }

    func snapshot(at time: Timestamp, _ touches: borrowing TouchTable) -> Report {
        var r = Report(time: time, fingers: settling.currentFingers, position: tracker.centroid)
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
        settling.reset()
        tracker.reset()
        velocity.reset()
    }
}
