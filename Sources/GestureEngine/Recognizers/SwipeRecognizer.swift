/// `swipe`: a quick, straight stroke of `min-fingers`…`max-fingers` fingers, decided when the
/// last finger lifts (discrete). Reports the finger count (the most that were down at once) and
/// one of eight directions.
///
/// The stroke is the mean displacement of its touches from where each landed (a lifted finger
/// keeps its last position), so fingers that lift one after another do not bend it. Recognized
/// when, at the lift: it is at least `min-distance-mm` long; its release velocity (over the last
/// 100 ms, like Android's fling) is at least `min-velocity-mm-s`; it is straight (its length is at
/// least ``minStraightness`` of the path the mean travelled); and its angle is within
/// `angle-tolerance-deg` of an allowed direction.
///
/// | state \ input | fingers land | fingers move | a finger lifts, others stay | the last finger lifts | deadline (landing + max-duration) |
/// |---|---|---|---|---|---|
/// | tracking | after a lift, or more than `max-fingers` → fail | follow | follow | all checks pass → **recognize**, else fail | fail |
/// | done | ignored | ignored | ignored | ignored | — |
struct SwipeRecognizer: Recognizer {
    enum State { case tracking, done }

    /// A semicircle is 0.64 as long as its arc; a jittery straight line is above 0.95.
    static let minStraightness = 0.8

    let parameters: SwipeParameters
    let scale: MeasuringScale
    private(set) var state = State.tracking
    private(set) var deadline: Timestamp?
    private var started = false
    private var mask: UInt64 = 0
    private var peak = 0
    private var anyLifted = false
    private var displacement = SurfaceVector.zero
    private var pathLength = 0.0
    private var velocity = VelocityTracker()

    init(_ parameters: SwipeParameters, scale: MeasuringScale) {
        self.parameters = parameters
        self.scale = scale
    }

    mutating func update(_ input: RecognizerInput, _ touches: borrowing TouchTable) -> Proposal {
        guard state == .tracking else { return .none }
        if !started {
            started = true
            deadline = touches.earliestStart(input.added | input.live | input.lifted) + parameters.maxDuration
        }
        if input.added != 0 && anyLifted { return fail() }
        mask |= input.added
        let down = input.live.count
        let wereDown = (input.live | input.lifted).count
        if wereDown > peak { peak = wereDown }
        if peak > parameters.maxFingers { return fail() }
        if input.lifted != 0 { anyLifted = true }

        // Mean displacement of every touch of the stroke from where it landed.
        var dx = 0.0
        var dy = 0.0
        for slot in SlotBits(mask) {
            dx += touches.positions[slot].x - touches.starts[slot].x
            dy += touches.positions[slot].y - touches.starts[slot].y
        }
        let n = Double(mask.count)
        let mean = SurfaceVector(dx: dx / n, dy: dy / n)
        pathLength += scale.mm(SurfaceVector(dx: mean.dx - displacement.dx, dy: mean.dy - displacement.dy)).length
        displacement = mean
        velocity.add(input.time, x: mean.dx, y: mean.dy)

        guard down == 0 else { return .none }
        state = .done
        deadline = nil
        guard let report = decide(at: input.time, touches) else { return .fail }
        return .recognize(report)
    }

    /// The checks at the last lift; nil when the stroke is not a swipe.
    private func decide(at time: Timestamp, _ touches: borrowing TouchTable) -> Report? {
        guard peak >= parameters.minFingers else { return nil }
        let d = scale.mm(displacement)
        let distance = d.length
        guard distance >= parameters.minDistance.value, distance >= Self.minStraightness * pathLength else {
            return nil
        }
        let v = velocity.velocity(at: time)
        let vmm = scale.mm(SurfaceVector(dx: v.x, dy: v.y))
        guard vmm.length >= parameters.minVelocity.value else { return nil }
        guard let direction = direction(of: d) else { return nil }
        var r = Report(time: time, fingers: peak, position: touches.centroid(mask))
        r.translation = displacement
        r.velocity = SurfaceVector(dx: v.x, dy: v.y)
        r.direction = direction
        return r
    }

    /// The allowed direction nearest to `d` (millimetres, y down), if within the tolerance.
    private func direction(of d: Vec2) -> Direction? {
        let angle = atan2Approx(d.y, d.x) * 180 / Double.pi
        var best: Direction?
        var bestOff = Double.infinity
        for candidate in Direction.allCases where parameters.directions.contains(candidate) {
            let off = abs(wrapAngle((angle - candidate.degrees) * Double.pi / 180)) * 180 / Double.pi
            if off < bestOff {
                bestOff = off
                best = candidate
            }
        }
        return bestOff <= parameters.angleTolerance ? best : nil
    }

    mutating func timerFired(at time: Timestamp, _ touches: borrowing TouchTable) -> Proposal { fail() }

    func snapshot(at time: Timestamp, _ touches: borrowing TouchTable) -> Report {
        var r = Report(time: time, fingers: peak, position: touches.centroid(mask))
        r.translation = displacement
        return r
    }

    private mutating func fail() -> Proposal {
        state = .done
        deadline = nil
        return .fail
    }

    /// Back to the start, keeping the velocity buffer (a reset must not allocate).
    mutating func reset() {
        state = .tracking
        deadline = nil
        started = false
        mask = 0
        peak = 0
        anyLifted = false
        displacement = .zero
        pathLength = 0
        velocity.reset()
    }
}

extension Direction {
    /// The direction's angle in degrees on the surface: right 0, down 90 (y grows downwards).
    var degrees: Double {
        switch self {
        case .right: 0
        case .downRight: 45
        case .down: 90
        case .downLeft: 135
        case .left: 180
        case .upLeft: -135
        case .up: -90
        case .upRight: -45
        }
    }
}
