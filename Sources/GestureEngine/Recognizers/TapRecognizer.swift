/// `tap`: `taps` taps of `fingers` fingers, each down at most `max-duration-ms`, taps at most
/// `max-gap-ms` apart and within `max-tap-distance-mm` of the first, no finger moving more than
/// `slop-mm`. Discrete.
public struct TapParameters: Hashable, Sendable {
    public var taps: Int = 1
    public var fingers: Int = 1
    public var maxDuration: TimeSpan = .milliseconds(500)
    public var maxGap: TimeSpan = .milliseconds(300)
    public var slop = Millimeters(3)
    public var maxTapDistance = Millimeters(16)
    public init() {}
}

extension TapParameters: DescribedParameters {
    static var descriptors: [ParameterDescriptor<Self>] {
        [
            .count("taps", \.taps, 1...5, noun: "a tap count", "taps in a row"),
            .fingers("fingers", \.fingers, "fingers of each tap"),
            .milliseconds("max-duration-ms", \.maxDuration, "the longest a tap's fingers stay down"),
            .milliseconds("max-gap-ms", \.maxGap, "the longest pause between taps"),
            .millimetres("slop-mm", \.slop, "how far a finger may move and still tap"),
            .millimetres("max-tap-distance-mm", \.maxTapDistance, "how far a later tap may land from the first"),
        ]
    }
}

/// `tap`: `taps` taps of `fingers` fingers (UITapGestureRecognizer's numberOfTapsRequired and
/// numberOfTouchesRequired). Discrete.
///
/// | state \ input | fingers land | a finger moves > slop | last finger lifts | deadline |
/// |---|---|---|---|---|
/// | idle | → down (deadline = now + max-duration) | — | — | — |
/// | down | more than `fingers` down → fail | fail | peak ≠ `fingers` → fail; last tap → recognize; else → between (deadline = now + max-gap) | fail (held too long) |
/// | between | farther than max-tap-distance from the first tap → fail; else → down | — | — | fail (gap too long) |
/// | done | ignored | ignored | ignored | — |
struct TapRecognizer: FinishingRecognizer {
    enum State { case idle, down, between, done }

    let parameters: TapParameters
    let scale: MeasuringScale
    static var finished: State { .done }
    var state = State.idle
    var deadline: Timestamp?
    /// Taps completed so far.
    private var taps = 0
    /// Touches of the tap in progress and the most that were down at once.
    private var tapMask: UInt64 = 0
    private var peak = 0
    private var firstTapCentroid = Vec2.zero
    private var lastCentroid = SurfacePoint(x: 0, y: 0)

    init(_ parameters: TapParameters, scale: MeasuringScale) {
        self.parameters = parameters
        self.scale = scale
    }

    mutating func update(_ input: RecognizerInput, _ touches: borrowing TouchTable) -> Proposal {
        switch state {
        case .done:
            return .none
        case .idle, .between:
            guard input.added != 0 else { return .none }
            if taps > 0 {
                let landing = scale.mm(touches.centroid(input.added))
                let distance = (landing - firstTapCentroid).length
                if distance > parameters.maxTapDistance.value {
                    return fail(.tapTooFar, .maxTapDistance, distance, parameters.maxTapDistance.value)
                }
            }
            state = .down
            tapMask = 0
            peak = 0
            deadline = touches.earliestStart(input.added) + parameters.maxDuration
            return down(input, touches)
        case .down:
            return down(input, touches)
        }
    }

    private mutating func down(_ input: RecognizerInput, _ touches: borrowing TouchTable) -> Proposal {
        tapMask |= input.added
        // Touches lifting in this frame were down until now (an adopted touch may land and lift
        // before the first update that sees it).
        let down = ((input.live | input.lifted) & tapMask).count
        if down > peak { peak = down }
        if peak > parameters.fingers {
            return fail(.tooManyFingers, .fingers, Double(peak), Double(parameters.fingers))
        }
        if let moved = failIfMoved((input.moved | input.lifted) & tapMask, beyond: parameters.slop, touches) {
            return moved
        }
        guard input.live & tapMask == 0 else { return .none }
        // The last finger of this tap lifted.
        guard peak == parameters.fingers else {
            return fail(.tooFewFingers, .fingers, Double(peak), Double(parameters.fingers))
        }
        taps += 1
        lastCentroid = touches.centroid(tapMask)
        if taps == 1 { firstTapCentroid = scale.mm(lastCentroid) }
        if taps == parameters.taps {
            state = .done
            deadline = nil
            return .recognize(snapshot(at: input.time, touches))
        }
        state = .between
        deadline = input.time + parameters.maxGap
        return .none
    }

    /// The tap was held too long (down) or the next tap did not come (between).
    mutating func timerFired(at time: Timestamp, _ touches: borrowing TouchTable) -> Proposal {
        state == .down
            ? failTimedOut(.heldTooLong, .maxDuration, parameters.maxDuration, at: time)
            : failTimedOut(.gapTooLong, .maxGap, parameters.maxGap, at: time)
    }

    func snapshot(at time: Timestamp, _ touches: borrowing TouchTable) -> Report {
        Report(time: time, fingers: peak, position: lastCentroid)
    }
}

extension GestureKind {
    /// `tap` (``TapParameters``).
    public static var tap: GestureKind { GestureKind(TapKind.self) }
}

extension RecognizerParameters {
    /// The parameters of a tap recognizer.
    public static func tap(_ parameters: TapParameters) -> RecognizerParameters {
        RecognizerParameters(TapKind.self, parameters)
    }
}

/// `tap` in the engine's list of kinds (``RegisteredKinds``).
enum TapKind: KindDefinition {
    typealias Parameters = TapParameters
    typealias Machine = TapRecognizer
    static let name = "tap"
    static let isContinuous = false
    static func mostFingers(_ parameters: TapParameters) -> Int { parameters.fingers }
}

extension TapKind {
    /// The checks a tap fails with and the key each names (the registry's table).
    static let failures: [(check: FailureCheck, key: ParameterKey?)] = [
        (.tooManyFingers, .fingers), (.tooFewFingers, .fingers), (.moved, .slop), (.heldTooLong, .maxDuration),
        (.gapTooLong, .maxGap), (.tapTooFar, .maxTapDistance),
    ]
}
