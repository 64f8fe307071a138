/// `pinch`: `min-fingers`…`max-fingers` fingers whose spread (mean distance from their centroid)
/// changes by `min-scale-change` (UIPinchGestureRecognizer). Continuous; reports the scale since
/// the first finger landed and its velocity per second. Fingers may land and lift while it runs:
/// the scale carries on from where it was.
///
/// | state \ input | fingers land | fingers move | a finger lifts, others stay | the last finger lifts |
/// |---|---|---|---|---|
/// | tracking | more than `max-fingers` → fail | \|scale − 1\| ≥ min-scale-change with `min`…`max` fingers → active: **begin** | follow the rest | fail |
/// | active | followed | **change** | fewer than `min-fingers` left → done: **end** | → done: **end** |
/// | done | ignored | ignored | ignored | ignored |
///
/// No timers.
struct PinchRecognizer: Recognizer {
    enum State { case tracking, active, done }

    /// Below this spread (fingers nearly on one spot, or one finger) the ratio means nothing.
    static let minSpread = 1.0

    let parameters: PinchParameters
    let scale: MeasuringScale
    private(set) var state = State.tracking
    var deadline: Timestamp? { nil }
    private var started = false
    private var fingers = 0
    private var mask: UInt64 = 0
    private var baseSpread = 0.0
    private var accumulated = 1.0
    private var currentScale = 1.0
    private var tracker = CentroidTracker()
    /// The translation (x, y) and the scale (z).
    private var velocity = VelocityTracker()

    init(_ parameters: PinchParameters, scale: MeasuringScale) {
        self.parameters = parameters
        self.scale = scale
    }

    /// Mean distance of the touches from their centroid, in millimetres. Static, so that calling
    /// it from `update` does not copy the whole recognizer to lend it out while it is being changed.
    private static func spread(_ mask: UInt64, _ touches: borrowing TouchTable, _ scale: MeasuringScale) -> Double {
        let c = scale.mm(touches.centroid(mask))
        var sum = 0.0
        for slot in SlotBits(mask) { sum += (scale.mm(touches.positions[slot]) - c).length }
        return mask == 0 ? 0 : sum / Double(mask.count)
    }

    mutating func update(_ input: RecognizerInput, _ touches: borrowing TouchTable) -> Proposal {
        if state == .done { return .none }
        if !started {
            started = true
            tracker.start(input.live | input.lifted, touches)
        }
        let live = input.live
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
        tracker.update(live, touches)
        let t = tracker.translation
        velocity.add(input.time, x: t.dx, y: t.dy, z: currentScale)
        let down = live.count
        if down > 0 { fingers = down }
        switch state {
        case .tracking:
            if down > parameters.maxFingers || down == 0 { return fail() }
            guard input.moved != 0, down >= parameters.minFingers,
                abs(currentScale - 1) >= parameters.minScaleChange
            else { return .none }
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
        r.scale = currentScale
        r.scaleVelocity = v.z
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
        mask = 0
        baseSpread = 0
        accumulated = 1
        currentScale = 1
        tracker.reset()
        velocity.reset()
    }
}
