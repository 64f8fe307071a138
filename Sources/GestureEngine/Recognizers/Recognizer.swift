/// The recognizer protocol: every kind is a value-type state machine that turns its own touches
/// into proposals. It never decides what is emitted: the arena (``DeviceArena``) applies the
/// arbitration rules R2–R8 to each proposal. Kinds are stored as concrete types, one array per
/// kind, and called through generics or a `switch`: no existentials on the per-frame path.
///
/// docs/RECOGNIZERS.md has each kind's transition table (state × input).
protocol Recognizer {
    associatedtype Parameters
    init(_ parameters: Parameters, scale: MeasuringScale)

    /// One frame's changes to this recognizer's touches.
    mutating func update(_ input: RecognizerInput, _ touches: borrowing TouchTable) -> Proposal

    /// The recognizer's deadline has come (R7). Only called when ``deadline`` is not nil and
    /// not later than `time`; the recognizer must move or clear its deadline.
    mutating func timerFired(at time: Timestamp, _ touches: borrowing TouchTable) -> Proposal

    /// When the recognizer wants ``timerFired(at:_:)`` called, if at all.
    var deadline: Timestamp? { get }

    /// The gesture as it stands, for a `cancelled` report (R5, R9).
    func snapshot(at time: Timestamp, _ touches: borrowing TouchTable) -> Report

    /// Back to `possible` with no touches (R2).
    mutating func reset()

    /// The whole reason for a failure the machine just proposed, measured from its state before
    /// it resets. Called only while explanations are on: a kind whose reason takes measuring
    /// (swipe, shape at the lift) proposes the check it saw first and measures the rest here, off
    /// the frame path of an engine that does not explain.
    mutating func explain(_ failure: Failure, _ touches: borrowing TouchTable) -> Failure
}

extension Recognizer {
    mutating func explain(_ failure: Failure, _ touches: borrowing TouchTable) -> Failure { failure }
}

/// A machine with one final state and one deadline, whose checks fail it at once (tap's and
/// long-press's, among others): failing is the same for each, and so are the checks they share —
/// fingers that must hold still within `slop-mm`, a timer that ran out.
protocol FinishingRecognizer: Recognizer {
    associatedtype State
    /// The final state: the machine ignores input until the arena resets it (R2).
    static var finished: State { get }
    var parameters: Parameters { get }
    var scale: MeasuringScale { get }
    var state: State { get set }
    var deadline: Timestamp? { get set }
}

extension FinishingRecognizer {
    /// Finished, no timer, proposing the failure of `check`: what was measured, the limit and the
    /// key it comes from (nil: a fixed limit).
    mutating func fail(
        _ check: FailureCheck, _ key: ParameterKey?, _ measured: Double, _ limit: Double
    ) -> Proposal {
        state = Self.finished
        deadline = nil
        return .fail(Failure(check, key, measured: measured, limit: limit))
    }

    /// The failure of fingers that must hold still: a touch of `changed` (those that moved or
    /// lifted in this frame) farther than `slop` (`slop-mm`) from where it landed; nil if none is.
    mutating func failIfMoved(
        _ changed: UInt64, beyond slop: Millimeters, _ touches: borrowing TouchTable
    ) -> Proposal? {
        guard changed != 0 else { return nil }
        let travel = touches.maxTravel(changed, scale)
        return travel > slop.value ? fail(.moved, .slop, travel, slop.value) : nil
    }

    /// The failure of the timer that ran out at `time`: `limit` (the value of `key`) had passed,
    /// and the timer fired this late besides.
    mutating func failTimedOut(
        _ check: FailureCheck, _ key: ParameterKey, _ limit: TimeSpan, at time: Timestamp
    ) -> Proposal {
        let late = (time - (deadline ?? time)).milliseconds
        return fail(check, key, limit.milliseconds + late, limit.milliseconds)
    }

    /// Back to the start: a machine without buffers starts over.
    mutating func reset() { self = Self(parameters, scale: scale) }
}

/// What one frame changed for one recognizer, as slot masks of its own touches.
struct RecognizerInput {
    var time: Timestamp
    /// Its touches that are down after this frame.
    var live: UInt64
    /// Touches delivered to it in this frame.
    var added: UInt64
    /// Its touches that lifted in this frame (their last position is in the table).
    var lifted: UInt64
    /// Its touches that moved in this frame.
    var moved: UInt64
}

/// What a recognizer would like to happen. The arena decides (R3–R6).
enum Proposal {
    case none
    /// A continuous recognizer would leave `possible` (began).
    case begin(Report)
    /// A discrete recognizer would be recognized.
    case recognize(Report)
    /// An active continuous recognizer changed.
    case change(Report)
    /// An active continuous recognizer ended (its touches lifted).
    case end(Report)
    /// The recognizer cannot match any more, and the check that failed.
    case fail(Failure)
}

/// The numbers of one report; the arena adds names, device, region and millimetres.
///
/// Reports travel by value from a machine through a ``Proposal`` to the arena several times per
/// frame, so they are kept small: the optional numbers are stored as plain values plus one byte
/// saying which are present (as `Double?` each would take 16 bytes). At 112 bytes a copy is a few
/// register moves; at the 168 bytes of the plain layout every copy was a call to `memcpy`.
struct Report {
    var time: Timestamp
    var fingers: Int
    var position: SurfacePoint
    var translation = SurfaceVector.zero
    var velocity = SurfaceVector.zero
    var direction: Direction? = nil
    var edge: Edge? = nil
    private var present: Present = []
    private var storedShape: Int32 = 0
    private var storedScale = 0.0
    private var storedRotation = 0.0
    private var storedScaleVelocity = 0.0
    private var storedRotationVelocity = 0.0
    private var storedScore = 0.0

    private struct Present: OptionSet {
        let rawValue: UInt8
        static let shape = Present(rawValue: 1)
        static let scale = Present(rawValue: 2)
        static let rotation = Present(rawValue: 4)
        static let scaleVelocity = Present(rawValue: 8)
        static let rotationVelocity = Present(rawValue: 16)
        static let score = Present(rawValue: 32)
    }

    init(time: Timestamp, fingers: Int, position: SurfacePoint) {
        self.time = time
        self.fingers = fingers
        self.position = position
    }

    var scale: Double? {
        get { present.contains(.scale) ? storedScale : nil }
        set {
            storedScale = newValue ?? 0
            mark(.scale, newValue != nil)
        }
    }

    var rotation: Double? {
        get { present.contains(.rotation) ? storedRotation : nil }
        set {
            storedRotation = newValue ?? 0
            mark(.rotation, newValue != nil)
        }
    }

    var scaleVelocity: Double? {
        get { present.contains(.scaleVelocity) ? storedScaleVelocity : nil }
        set {
            storedScaleVelocity = newValue ?? 0
            mark(.scaleVelocity, newValue != nil)
        }
    }

    var rotationVelocity: Double? {
        get { present.contains(.rotationVelocity) ? storedRotationVelocity : nil }
        set {
            storedRotationVelocity = newValue ?? 0
            mark(.rotationVelocity, newValue != nil)
        }
    }

    var score: Double? {
        get { present.contains(.score) ? storedScore : nil }
        set {
            storedScore = newValue ?? 0
            mark(.score, newValue != nil)
        }
    }

    /// Index of the matched template in the shape recognizer's configuration (the arena turns it
    /// into the name), so a report holds no reference and copies for free.
    var shape: Int? {
        get { present.contains(.shape) ? Int(storedShape) : nil }
        set {
            storedShape = Int32(newValue ?? 0)
            mark(.shape, newValue != nil)
        }
    }

    @inline(__always) private mutating func mark(_ flag: Present, _ isPresent: Bool) {
        if isPresent { present.insert(flag) } else { present.remove(flag) }
    }
}
