/// `edge-swipe`: `fingers` fingers that land within `band-mm` of one of `edges` and move
/// `min-distance-mm` away from it, more across the edge than along it
/// (UIScreenEdgePanGestureRecognizer). Continuous; reports the edge.
///
/// | state \ input | fingers land | fingers move | a finger lifts, others stay | the last finger lifts |
/// |---|---|---|---|---|
/// | tracking | outside the band of the edge the first finger chose, or more than `fingers` → fail | inward ≥ min-distance and inward > along → active: **begin**; along ≥ min-distance and along > inward → fail | fail | fail |
/// | active | followed | **change** | followed | → done: **end** |
/// | done | ignored | ignored | ignored | ignored |
///
/// No timers.
struct EdgeSwipeRecognizer: Recognizer {
    enum State { case tracking, active, done }

    let parameters: EdgeSwipeParameters
    let scale: MeasuringScale
    private(set) var state = State.tracking
    var deadline: Timestamp? { nil }
    private var edge: Edge?
    private var started = false
    private var fingers = 0
    private var tracker = CentroidTracker()
    private var velocity = VelocityTracker()

    init(_ parameters: EdgeSwipeParameters, scale: MeasuringScale) {
        self.parameters = parameters
        self.scale = scale
    }

    mutating func update(_ input: RecognizerInput, _ touches: borrowing TouchTable) -> Proposal {
        if state == .done { return .none }
        if state == .tracking {
            for slot in SlotBits(input.added) {
                guard let e = nearestEdge(touches.starts[slot]), edge == nil || edge == e else { return fail() }
                edge = e
            }
        }
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
            if down > parameters.fingers || input.lifted != 0 { return fail() }
            guard down == parameters.fingers, input.moved != 0, let edge else { return .none }
            let d = scale.mm(t)
            let inward: Double
            let along: Double
            switch edge {
            case .left: (inward, along) = (d.x, abs(d.y))
            case .right: (inward, along) = (-d.x, abs(d.y))
            case .top: (inward, along) = (d.y, abs(d.x))
            case .bottom: (inward, along) = (-d.y, abs(d.x))
            }
            if inward >= parameters.minDistance.value && inward > along {
                state = .active
                return .begin(snapshot(at: input.time, touches))
            }
            if along >= parameters.minDistance.value && along > inward { return fail() }
            return .none
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

    /// The allowed edge whose band holds `p` (the nearest one in a corner).
    private func nearestEdge(_ p: SurfacePoint) -> Edge? {
        var best: Edge?
        var bestDistance = parameters.band.value
        for candidate in Edge.allCases where parameters.edges.contains(candidate) {
            let distance: Double
            switch candidate {
            case .left: distance = p.x * scale.width
            case .right: distance = (1 - p.x) * scale.width
            case .top: distance = p.y * scale.height
            case .bottom: distance = (1 - p.y) * scale.height
            }
            if distance <= bestDistance {
                bestDistance = distance
                best = candidate
            }
        }
        return best
    }

    mutating func timerFired(at time: Timestamp, _ touches: borrowing TouchTable) -> Proposal { .none }

    func snapshot(at time: Timestamp, _ touches: borrowing TouchTable) -> Report {
        var r = Report(time: time, fingers: fingers, position: tracker.centroid)
        r.translation = tracker.translation
        let v = velocity.velocity(at: time)
        r.velocity = SurfaceVector(dx: v.x, dy: v.y)
        r.edge = edge
        return r
    }

    private mutating func fail() -> Proposal {
        state = .done
        return .fail
    }

    /// Back to the start, keeping the velocity buffer (a reset must not allocate).
    mutating func reset() {
        state = .tracking
        edge = nil
        started = false
        fingers = 0
        tracker.reset()
        velocity.reset()
    }
}
