/// `press-and-tap`: one finger holds still (the press) and a second finger taps beside it —
/// Windows' touch gesture of that name, its right click. The tap lands at least `min-duration-ms`
/// after the press (sooner, the two are one two-finger landing) and within `max-tap-distance-mm`
/// of the pressing finger, and lifts within `max-duration-ms` while the press stays down; neither
/// finger moves more than `slop-mm`. Discrete: recognized as the tap lifts, at the pressing
/// finger's position (where a right click belongs).
public struct PressAndTapParameters: Hashable, Sendable {
    public var minDuration: TimeSpan = .milliseconds(150)
    public var maxDuration: TimeSpan = .milliseconds(500)
    public var slop = Millimeters(5)
    public var maxTapDistance = Millimeters(60)
    public init() {}
}

extension PressAndTapParameters: DescribedParameters {
    static var descriptors: [ParameterDescriptor<Self>] {
        [
            .milliseconds("min-duration-ms", \.minDuration, "how long the press is down before the tap lands"),
            .milliseconds("max-duration-ms", \.maxDuration, "the longest the tapping finger stays down"),
            .millimetres("slop-mm", \.slop, "how far either finger may move"),
            .millimetres("max-tap-distance-mm", \.maxTapDistance, "how far from the press the tap may land"),
        ]
    }
}

/// The machine. `press` and `tap` are the two fingers' slots.
///
/// | state \ input | a finger lands | a finger moves > slop | a finger lifts | deadline |
/// |---|---|---|---|---|
/// | idle | → pressing (the lowest slot is the press; others landing with it are taps, below) | — | — | — |
/// | pressing | more than one → fail; sooner than min-duration after the press → fail; farther than max-tap-distance from it → fail; else → tapping (deadline = landing + max-duration) | fail | fail (the press lifted) | — |
/// | tapping | fail (a third finger) | fail | the press → fail; the tap → done: **recognize** | fail (held too long) |
/// | done | ignored | ignored | ignored | — |
struct PressAndTapRecognizer: FinishingRecognizer {
    enum State { case idle, pressing, tapping, done }

    let parameters: PressAndTapParameters
    let scale: MeasuringScale
    static var finished: State { .done }
    var state = State.idle
    var deadline: Timestamp?
    private var press: UInt64 = 0
    private var tap: UInt64 = 0

    init(_ parameters: PressAndTapParameters, scale: MeasuringScale) {
        self.parameters = parameters
        self.scale = scale
    }

    mutating func update(_ input: RecognizerInput, _ touches: borrowing TouchTable) -> Proposal {
        switch state {
        case .done:
            return .none
        case .idle:
            guard input.added != 0 else { return .none }
            press = input.added & (~input.added &+ 1)
            state = .pressing
        case .pressing, .tapping:
            break
        }
        let mine = press | tap
        if let moved = failIfMoved((input.moved | input.lifted) & mine, beyond: parameters.slop, touches) {
            return moved
        }
        if input.lifted & press != 0 { return fail(.pressLifted, nil, 0, 0) }
        let landed = input.added & ~mine
        if landed != 0 {
            guard state == .pressing && landed.count == 1 else {
                return fail(.thirdFinger, nil, Double((mine | landed).count), 2)
            }
            let slot = landed.trailingZeroBitCount
            let pressSlot = press.trailingZeroBitCount
            let after = (touches.startTimes[slot] - touches.startTimes[pressSlot]).milliseconds
            if after < parameters.minDuration.milliseconds {
                return fail(.tappedTooSoon, .minDuration, after, parameters.minDuration.milliseconds)
            }
            let distance = scale.mm(touches.starts[slot] - touches.position(pressSlot)).length
            if distance > parameters.maxTapDistance.value {
                return fail(.tapFarFromPress, .maxTapDistance, distance, parameters.maxTapDistance.value)
            }
            tap = landed
            state = .tapping
            deadline = touches.startTimes[slot] + parameters.maxDuration
        }
        guard state == .tapping && input.lifted & tap != 0 else { return .none }
        state = .done
        deadline = nil
        return .recognize(snapshot(at: input.time, touches))
    }

    /// The tap stayed down `max-duration-ms`.
    mutating func timerFired(at time: Timestamp, _ touches: borrowing TouchTable) -> Proposal {
        failTimedOut(.heldTooLong, .maxDuration, parameters.maxDuration, at: time)
    }

    func snapshot(at time: Timestamp, _ touches: borrowing TouchTable) -> Report {
        Report(time: time, fingers: (press | tap).count, position: touches.centroid(press))
    }
}

extension GestureKind {
    /// `press-and-tap` (``PressAndTapParameters``).
    public static var pressAndTap: GestureKind { GestureKind(PressAndTapKind.self) }
}

extension RecognizerParameters {
    /// The parameters of a press-and-tap recognizer.
    public static func pressAndTap(_ parameters: PressAndTapParameters) -> RecognizerParameters {
        RecognizerParameters(PressAndTapKind.self, parameters)
    }
}

/// `press-and-tap` in the engine's list of kinds (``RegisteredKinds``).
enum PressAndTapKind: KindDefinition {
    typealias Parameters = PressAndTapParameters
    typealias Machine = PressAndTapRecognizer
    static let name = "press-and-tap"
    static let isContinuous = false
    static func mostFingers(_: PressAndTapParameters) -> Int { 2 }
}

extension PressAndTapKind {
    /// The checks a press-and-tap fails with and the key each names (the registry's table).
    static let failures: [(check: FailureCheck, key: ParameterKey?)] = [
        (.moved, .slop), (.pressLifted, nil), (.thirdFinger, nil), (.tappedTooSoon, .minDuration),
        (.tapFarFromPress, .maxTapDistance), (.heldTooLong, .maxDuration),
    ]
}

extension FailureCheck {
    /// A press-and-tap's second finger landed sooner than `min-duration-ms` after the press (ms):
    /// the two landed together.
    public static var tappedTooSoon: FailureCheck {
        FailureCheck("tapped-too-soon", sentence: "the tap landed {m} ms after the press < {key} {l}")
    }
    /// A press-and-tap's second finger landed farther than `max-tap-distance-mm` from the press
    /// (mm).
    public static var tapFarFromPress: FailureCheck {
        FailureCheck("tap-far-from-press", sentence: "the tap landed {m} mm from the press > {key} {l}")
    }
    /// A third finger landed on a press-and-tap (count, fixed 2).
    public static var thirdFinger: FailureCheck {
        FailureCheck("third-finger", sentence: "{fingers} down > {l} (fixed)")
    }
    /// The pressing finger lifted before the tap.
    public static var pressLifted: FailureCheck {
        FailureCheck("press-lifted", sentence: "the pressing finger lifted before the tap")
    }
}
