/// `long-press`: `fingers` fingers held `min-duration-ms` without moving more than `slop-mm`
/// before it begins. Continuous (like UILongPressGestureRecognizer): began, changed as the
/// fingers move, ended when they lift.
public struct LongPressParameters: Hashable, Sendable {
    public var fingers: Int = 1
    public var minDuration: TimeSpan = .milliseconds(500)
    public var slop = Millimeters(3)
    public init() {}
}

extension LongPressParameters: DescribedParameters {
    static var descriptors: [ParameterDescriptor<Self>] {
        [
            .fingers("fingers", \.fingers, "fingers held"),
            .milliseconds("min-duration-ms", \.minDuration, "how long they are held before it begins"),
            .millimetres("slop-mm", \.slop, "how far a finger may move before it begins"),
        ]
    }
}

/// `long-press`: `fingers` fingers held for `min-duration-ms` without moving more than `slop-mm`
/// (UILongPressGestureRecognizer). Continuous: began when the time is up, changed as the fingers
/// move, ended when fewer than `fingers` remain.
///
/// | state \ input | fingers land | a finger moves | a finger lifts | deadline |
/// |---|---|---|---|---|
/// | waiting (< fingers down) | more than `fingers` → fail; exactly → pressing (deadline = now + min-duration) | > slop → fail | fail | — |
/// | pressing | more than `fingers` → fail | > slop → fail | fail | → active: **begin** |
/// | active | followed, up to `fingers` (R1) | **change** | fewer than `fingers` left → done: **end** | — |
/// | done | ignored | ignored | ignored | — |
struct LongPressRecognizer: FinishingRecognizer {
    enum State { case waiting, pressing, active, done }

    let parameters: LongPressParameters
    let scale: MeasuringScale
    static var finished: State { .done }
    var state = State.waiting
    var deadline: Timestamp?
    private var mask: UInt64 = 0
    private var tracker = CentroidTracker()
    private var velocity = VelocityTracker()

    init(_ parameters: LongPressParameters, scale: MeasuringScale) {
        self.parameters = parameters
        self.scale = scale
    }

    mutating func update(_ input: RecognizerInput, _ touches: borrowing TouchTable) -> Proposal {
        switch state {
        case .done:
            return .none
        case .waiting, .pressing:
            mask |= input.added
            let down = input.live.count
            if down > parameters.fingers {
                return fail(.tooManyFingers, .fingers, Double(down), Double(parameters.fingers))
            }
            if input.lifted != 0 {
                // Pressed since the last of its fingers landed.
                let pressed = (input.time - touches.latestStart(mask)).milliseconds
                return fail(.liftedTooSoon, .minDuration, pressed, parameters.minDuration.milliseconds)
            }
            if let moved = failIfMoved(input.moved & mask, beyond: parameters.slop, touches) { return moved }
            if state == .waiting && down == parameters.fingers {
                // Pressing since the last finger landed.
                state = .pressing
                deadline = touches.latestStart(input.live) + parameters.minDuration
            }
            return .none
        case .active:
            mask |= input.added
            tracker.update(input.live, touches)
            let t = tracker.translation
            velocity.add(input.time, x: t.dx, y: t.dy)
            if input.live.count < parameters.fingers {
                state = .done
                return .end(snapshot(at: input.time, touches))
            }
            return input.moved != 0 ? .change(snapshot(at: input.time, touches)) : .none
        }
    }

    mutating func timerFired(at time: Timestamp, _ touches: borrowing TouchTable) -> Proposal {
        guard state == .pressing else {
            deadline = nil
            return .none
        }
        state = .active
        deadline = nil
        tracker.start(mask & touches.live, touches)
        velocity.add(time, x: 0, y: 0)
        return .begin(snapshot(at: time, touches))
    }

    func snapshot(at time: Timestamp, _ touches: borrowing TouchTable) -> Report {
        var r = Report(
            time: time, fingers: state == .active ? (mask & touches.live).count : parameters.fingers,
            position: tracker.centroid)
        if state == .pressing || state == .waiting { r.position = touches.centroid(mask) }
        r.translation = tracker.translation
        let v = velocity.velocity(at: time)
        r.velocity = SurfaceVector(dx: v.x, dy: v.y)
        return r
    }

    /// Back to the start, keeping the velocity buffer (a reset must not allocate).
    mutating func reset() {
        state = .waiting
        deadline = nil
        mask = 0
        tracker.reset()
        velocity.reset()
    }
}

extension GestureKind {
    /// `long-press` (``LongPressParameters``).
    public static var longPress: GestureKind { GestureKind(LongPressKind.self) }
}

extension RecognizerParameters {
    /// The parameters of a long press recognizer.
    public static func longPress(_ parameters: LongPressParameters) -> RecognizerParameters {
        RecognizerParameters(LongPressKind.self, parameters)
    }
}

/// `long-press` in the engine's list of kinds (``RegisteredKinds``).
enum LongPressKind: KindDefinition {
    typealias Parameters = LongPressParameters
    typealias Machine = LongPressRecognizer
    static let name = "long-press"
    static let isContinuous = true
    static func mostFingers(_ parameters: LongPressParameters) -> Int { parameters.fingers }
}

extension LongPressKind {
    /// The checks a long press fails with and the key each names (the registry's table).
    static let failures: [(check: FailureCheck, key: ParameterKey?)] = [
        (.tooManyFingers, .fingers), (.liftedTooSoon, .minDuration), (.moved, .slop),
    ]
}
