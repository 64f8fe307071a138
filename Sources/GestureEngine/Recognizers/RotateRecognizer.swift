/// `rotate`: `min-fingers`…`max-fingers` fingers turning about their centroid by
/// `min-rotation-deg` (UIRotationGestureRecognizer). Continuous; reports radians since the first
/// finger landed (positive clockwise on the surface) and radians per second.
///
/// The rotation is accumulated frame by frame as the mean change of each touch's angle about the
/// centroid (in millimetres, so a non-square panel does not skew it); touches within
/// ``minRadius`` of the centroid have no meaningful angle and are left out. When fingers land or
/// lift the angles are re-measured and the rotation carries on.
///
/// | state \ input | fingers land | fingers move | a finger lifts, others stay | the last finger lifts |
/// |---|---|---|---|---|
/// | tracking | more than `max-fingers` → fail | \|rotation\| ≥ min-rotation with `min`…`max` fingers → active: **begin** | follow the rest | fail |
/// | active | followed | **change** | fewer than `min-fingers` left → done: **end** | → done: **end** |
/// | done | ignored | ignored | ignored | ignored |
///
/// No timers.
struct RotateRecognizer: Recognizer {
    enum State { case tracking, active, done }

    static let minRadius = 1.0

    let parameters: RotateParameters
    let scale: MeasuringScale
    private let minRotation: Double
    private(set) var state = State.tracking
    var deadline: Timestamp? { nil }
    private var started = false
    private var fingers = 0
    private var mask: UInt64 = 0
    /// Touches whose previous angle is known, and the angles, by slot.
    private var angleKnown: UInt64 = 0
    private var angles: [Double]
    private var rotation = 0.0
    private var tracker = CentroidTracker()
    /// The translation (x, y) and the rotation (z).
    private var velocity = VelocityTracker()

    init(_ parameters: RotateParameters, scale: MeasuringScale) {
        self.parameters = parameters
        self.scale = scale
        minRotation = parameters.minRotation * Double.pi / 180
        angles = Array(repeating: 0, count: TouchTable.capacity)
    }

    private mutating func measure(_ live: UInt64, _ touches: borrowing TouchTable) {
        let c = scale.mm(touches.centroid(live))
        let sameSet = live == mask
        var sum = 0.0
        var n = 0
        var known: UInt64 = 0
        for slot in SlotBits(live) {
            let v = scale.mm(touches.positions[slot]) - c
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
    }

    mutating func update(_ input: RecognizerInput, _ touches: borrowing TouchTable) -> Proposal {
        if state == .done { return .none }
        if !started {
            started = true
            tracker.start(input.live | input.lifted, touches)
        }
        let live = input.live
        if live != 0 { measure(live, touches) }
        tracker.update(live, touches)
        let t = tracker.translation
        velocity.add(input.time, x: t.dx, y: t.dy, z: rotation)
        let down = live.count
        if down > 0 { fingers = down }
        switch state {
        case .tracking:
            if down > parameters.maxFingers || down == 0 { return fail() }
            guard input.moved != 0, down >= parameters.minFingers, abs(rotation) >= minRotation else { return .none }
            state = .active
            return .begin(snapshot(at: input.time, touches))
        case .active:
            if down < parameters.minFingers {
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
        r.rotation = rotation
        r.rotationVelocity = v.z
        return r
    }

    private mutating func fail() -> Proposal {
        state = .done
        return .fail
    }

    /// Back to the start, keeping the buffers (a reset must not allocate).
    mutating func reset() {
        state = .tracking
        started = false
        fingers = 0
        mask = 0
        angleKnown = 0
        rotation = 0
        tracker.reset()
        velocity.reset()
    }
}
