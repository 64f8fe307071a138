/// The discrete kinds that follow one stroke — swipe, shape — share this machine, the way the
/// continuous kinds share ``CentroidRecognizer``: the states, the stroke as the translation of
/// the fingers' centroid carried over without jumps when fingers land or lift
/// (``CentroidTracker``), the finger count settled over the landing window (``FingerSettling``)
/// and its failures (a late landing, more than `max-fingers`, fewer than `min-fingers` once the
/// count is committed), the timer, the report of a cancelled gesture and the reset. The kind (a
/// ``StrokeGesture`` value, composed in, so each kind is still one concrete value type and the
/// compiler specialises the machine for it) keeps its own record of the stroke and decides on it
/// while it moves and at the lift.
///
/// | state \ input | fingers land | fingers move | a finger lifts, others stay | the last finger lifts | deadline (landing window closes) |
/// |---|---|---|---|---|---|
/// | tracking | once the count is committed, or after a lift → fail; then as on a move | more than `max-fingers` → fail; the kind's `follow`; settled, and it followed something new: fewer than `min-fingers` once committed → fail, else the kind's `decide`: **recognize**, fail or wait | as on a move (commits the count) | as on a move; nothing decided: the kind's `lifted`: **recognize** or fail | fewer than `min-fingers` once committed → fail, else the kind's `decide` |
/// | done | ignored | ignored | ignored | ignored | — |
///
/// Each kind's file has its own table.
struct StrokeRecognizer<Gesture: StrokeGesture>: Recognizer, Sendable {
    enum State { case tracking, done }

    let scale: MeasuringScale
    private(set) var state = State.tracking
    private(set) var gesture: Gesture
    private var started = false
    private var anyLifted = false
    private var settling: FingerSettling
    private var tracker = CentroidTracker()

    var parameters: Gesture.Parameters { gesture.parameters }

    init(_ parameters: Gesture.Parameters, scale: MeasuringScale) {
        self.scale = scale
        gesture = Gesture(parameters, scale: scale)
        settling = FingerSettling(window: gesture.settle, maxFingers: gesture.maxFingers)
    }

    var deadline: Timestamp? { state == .tracking ? settling.deadline : nil }

    /// The stroke as it stands, for the kind (`moved`: its translation in millimetres).
    private func stroke(_ moved: Vec2) -> Stroke {
        Stroke(
            fingers: settling.fingers, isSettled: settling.isSettled, centroid: tracker.centroid,
            translation: tracker.translation, moved: moved)
    }

    private var stroke: Stroke { stroke(scale.mm(tracker.translation)) }

    mutating func update(_ input: RecognizerInput, _ touches: borrowing TouchTable) -> Proposal {
        guard state == .tracking else { return .none }
        if !started {
            started = true
            tracker.start(input.live | input.lifted, touches)
            gesture.start(at: scale.mm(tracker.centroid))
        }
        if input.added != 0 && (anyLifted || settling.isCommitted) {
            return fail(settling.lateLanding(at: input.time, afterLift: anyLifted))
        }
        if input.lifted != 0 { anyLifted = true }
        tracker.update(input.live, touches)
        let moved = scale.mm(tracker.translation)
        settling.update(down: input.live.count, lifted: input.lifted != 0, moved: moved.length, at: input.time)
        if settling.fingers > gesture.maxFingers {
            return fail(.tooManyFingers(settling.fingers, most: gesture.maxFingers))
        }
        let stroke = self.stroke(moved)
        if gesture.follow(stroke, at: input.time) {
            let proposal = decide(stroke, at: input.time, lifted: input.live == 0)
            if case .none = proposal {} else { return proposal }
        }
        guard input.live == 0 else { return .none }
        // The last finger lifted and nothing was decided: no more stroke is coming.
        state = .done
        switch gesture.lifted(stroke, at: input.time) {
        case .recognize(let report): return .recognize(report)
        case .fail(let failure): return .fail(failure)
        }
    }

    /// The landing window closed: the count is settled.
    mutating func timerFired(at time: Timestamp, _ touches: borrowing TouchTable) -> Proposal {
        settling.timerFired(at: time)
        return decide(stroke, at: time, lifted: false)
    }

    /// Once the count has settled: too few fingers fail once the count is committed (until then
    /// another may still land), else the kind decides (`lifted`: in the frame its last finger
    /// lifted).
    private mutating func decide(_ stroke: Stroke, at time: Timestamp, lifted: Bool) -> Proposal {
        guard settling.isSettled else { return .none }
        guard settling.fingers >= gesture.minFingers else {
            guard settling.isCommitted else { return .none }
            return fail(.tooFewFingers(settling.fingers, least: gesture.minFingers))
        }
        switch gesture.decide(stroke, at: time, lifted: lifted) {
        case .wait: return .none
        case .recognize(let report):
            state = .done
            return .recognize(report)
        case .fail(let failure): return fail(failure)
        }
    }

    mutating func explain(_ failure: Failure, _ touches: borrowing TouchTable) -> Failure {
        gesture.explain(failure, stroke)
    }

    func snapshot(at time: Timestamp, _ touches: borrowing TouchTable) -> Report {
        var r = Report(time: time, fingers: settling.fingers, position: tracker.centroid)
        gesture.annotate(&r, stroke)
        return r
    }

    private mutating func fail(_ failure: Failure) -> Proposal {
        state = .done
        return .fail(failure)
    }

    /// Back to the start, keeping the buffers (a reset must not allocate).
    mutating func reset() {
        state = .tracking
        started = false
        anyLifted = false
        settling.reset()
        tracker.reset()
        gesture.reset()
    }
}

/// The stroke as a ``StrokeRecognizer`` follows it, handed to its kind.
struct Stroke {
    /// The gesture's finger count (``FingerSettling/fingers``) and whether it stands.
    var fingers: Int
    var isSettled: Bool
    /// Where the fingers' centroid is, and its translation since the stroke started (surface
    /// units).
    var centroid: SurfacePoint
    var translation: SurfaceVector
    /// The translation in millimetres.
    var moved: Vec2
}

/// What a stroke kind decides while its stroke goes on.
enum StrokeDecision {
    case wait
    case recognize(Report)
    case fail(Failure)
}

/// What a stroke kind decides when its last finger lifts: there is no more to wait for.
enum StrokeVerdict {
    case recognize(Report)
    case fail(Failure)
}

/// The kind's own part of a ``StrokeRecognizer``.
protocol StrokeGesture: Sendable {
    associatedtype Parameters
    var parameters: Parameters { get }
    init(_ parameters: Parameters, scale: MeasuringScale)

    /// `min-fingers`, `max-fingers` and `settle-ms`.
    var minFingers: Int { get }
    var maxFingers: Int { get }
    var settle: TimeSpan { get }

    /// The first frame: the stroke starts at `origin` (mm).
    mutating func start(at origin: Vec2)

    /// One frame of the stroke (every frame, from the first): record it. Whether it brought
    /// something new to decide on.
    mutating func follow(_ stroke: Stroke, at time: Timestamp) -> Bool

    /// With the count settled at `min-fingers` or more: recognize, fail, or wait for more stroke
    /// (`lifted`: this frame's last finger lifted; ``lifted(_:at:)`` follows a wait).
    mutating func decide(_ stroke: Stroke, at time: Timestamp, lifted: Bool) -> StrokeDecision

    /// The last finger lifted and nothing was decided.
    mutating func lifted(_ stroke: Stroke, at time: Timestamp) -> StrokeVerdict

    /// The whole reason for a failure the kind proposed (``Recognizer/explain(_:_:)``).
    mutating func explain(_ failure: Failure, _ stroke: Stroke) -> Failure

    /// The kind's fields of the report of a cancelled gesture.
    func annotate(_ report: inout Report, _ stroke: Stroke)

    /// Back to the start, keeping any buffers.
    mutating func reset()
}

extension StrokeGesture {
    mutating func start(at origin: Vec2) {}
    mutating func explain(_ failure: Failure, _ stroke: Stroke) -> Failure { failure }
    func annotate(_ report: inout Report, _ stroke: Stroke) {}
}
