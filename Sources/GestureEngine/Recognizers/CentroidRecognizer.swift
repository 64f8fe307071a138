/// The continuous kinds that follow their fingers' centroid — pan, edge-swipe, pinch, rotate —
/// share this machine, the way Flutter's drag recognizers share `DragGestureRecognizer`: the
/// states, the centroid followed without jumps as fingers land and lift (``CentroidTracker``), its
/// velocity, the finger count, the active branch (changed or ended), the report and the reset.
/// The kind (a ``CentroidGesture`` value, composed in, so each kind is still one concrete value
/// type and the compiler specialises the machine for it) says when tracking fails, begins or
/// waits, when an active gesture ends, and adds its own measure (a scale, an angle) and fields.
///
/// | state \ input | fingers land | fingers move | a finger lifts, others stay | the last finger lifts |
/// |---|---|---|---|---|
/// | tracking | the kind's `accepts(landing:)` false → fail; then as on a move | the kind's `track`: fail, begin → active: **begin**, or wait | as on a move | as on a move |
/// | active | followed | **change** | the kind's `ends` → done: **end**; else followed | the kind's `ends` → done: **end** |
/// | done | ignored | ignored | ignored | ignored |
///
/// No timers. Each kind's file has its own table.
struct CentroidRecognizer<Gesture: CentroidGesture>: Recognizer, Sendable {
    enum State { case tracking, active, done }

    let scale: MeasuringScale
    private(set) var state = State.tracking
    private(set) var gesture: Gesture
    var deadline: Timestamp? { nil }
    private var started = false
    private var fingers = 0
    private var tracker = CentroidTracker()
    /// The translation (x, y) and the kind's measure (z).
    private var velocity = VelocityTracker()

    var parameters: Gesture.Parameters { gesture.parameters }

    init(_ parameters: Gesture.Parameters, scale: MeasuringScale) {
        self.scale = scale
        gesture = Gesture(parameters, scale: scale)
    }

    mutating func update(_ input: RecognizerInput, _ touches: borrowing TouchTable) -> Proposal {
        if state == .done { return .none }
        if state == .tracking && input.added != 0 && !gesture.accepts(landing: input.added, touches) { return fail() }
        if !started {
            started = true
            tracker.start(input.live | input.lifted, touches)
        }
        let measure = gesture.measure(input.live, touches)
        tracker.update(input.live, touches)
        let t = tracker.translation
        velocity.add(input.time, x: t.dx, y: t.dy, z: measure)
        let down = input.live.count
        if down > 0 { fingers = down }
        switch state {
        case .tracking:
            switch gesture.track(input, down: down, translation: t) {
            case .wait: return .none
            case .fail: return fail()
            case .begin:
                state = .active
                return .begin(snapshot(at: input.time, touches))
            }
        case .active:
            if gesture.ends(down: down) {
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
        gesture.annotate(&r, measureVelocity: v.z)
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
        tracker.reset()
        velocity.reset()
        gesture.reset()
    }
}

/// What a tracking centroid gesture does with a frame.
enum TrackingDecision {
    case wait, begin, fail

    /// The rule of the kinds with a finger range (pan, pinch, rotate): more than `maxFingers`
    /// fingers, or none, fail; a move with at least `minFingers` down that has `reached` the
    /// kind's threshold begins; anything else waits.
    static func fingerRange(
        _ input: RecognizerInput, down: Int, minFingers: Int, maxFingers: Int, reached: @autoclosure () -> Bool
    ) -> TrackingDecision {
        if down > maxFingers || down == 0 { return .fail }
        return input.moved != 0 && down >= minFingers && reached() ? .begin : .wait
    }
}

/// The kind's own part of a ``CentroidRecognizer``.
protocol CentroidGesture: Sendable {
    associatedtype Parameters
    var parameters: Parameters { get }
    init(_ parameters: Parameters, scale: MeasuringScale)

    /// Touches landing while tracking (before they are followed); false fails the gesture.
    mutating func accepts(landing added: UInt64, _ touches: borrowing TouchTable) -> Bool

    /// The kind's own measure of the fingers down (a scale, an angle), sampled with the
    /// translation so the report has its velocity.
    mutating func measure(_ live: UInt64, _ touches: borrowing TouchTable) -> Double

    /// While tracking: fail, begin, or wait, with `down` fingers down and the centroid's
    /// translation so far.
    func track(_ input: RecognizerInput, down: Int, translation: SurfaceVector) -> TrackingDecision

    /// Whether an active gesture ends with `down` fingers down.
    func ends(down: Int) -> Bool

    /// The kind's fields of a report; `measureVelocity` is the measure's change per second.
    func annotate(_ report: inout Report, measureVelocity: Double)

    /// Back to the start, keeping any buffers.
    mutating func reset()
}

extension CentroidGesture {
    mutating func accepts(landing added: UInt64, _ touches: borrowing TouchTable) -> Bool { true }
    mutating func measure(_ live: UInt64, _ touches: borrowing TouchTable) -> Double { 0 }
    func annotate(_ report: inout Report, measureVelocity: Double) {}
    mutating func reset() {}
}
