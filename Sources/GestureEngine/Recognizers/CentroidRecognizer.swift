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
/// | tracking | the kind's `refuses(landing:)` → fail; then as on a move | the kind's `track`: fail, begin → active: **begin** (once the count settled, for a kind that settles it), or wait | as on a move | as on a move |
/// | active | followed (up to the kind's finger limit: the arena gives it no more, R1) | **change** | the kind's `ends` → done: **end**; else followed | the kind's `ends` → done: **end** |
/// | done | ignored | ignored | ignored | ignored |
///
/// A kind may wait for its finger count to settle (``FingerSettling``, pan): it then begins only
/// once the count settled and reports the settled count; its only timer is the landing window.
/// Each kind's file has its own table.
struct CentroidRecognizer<Gesture: CentroidGesture>: Recognizer, Sendable {
    enum State { case tracking, active, done }

    let scale: MeasuringScale
    private(set) var state = State.tracking
    private(set) var gesture: Gesture
    private var started = false
    private var fingers = 0
    /// The most fingers down at once while tracking (for a failure's reason).
    private var peak = 0
    /// The kind's finger-count settling, if it waits for one, and whether the last frame would
    /// have begun the gesture had the count settled (the landing window closing begins it then).
    private var settling: FingerSettling?
    private var readyToBegin = false
    private var tracker = CentroidTracker()
    /// The translation (x, y) and the kind's measure (z).
    private var velocity = VelocityTracker()

    var parameters: Gesture.Parameters { gesture.parameters }

    init(_ parameters: Gesture.Parameters, scale: MeasuringScale) {
        self.scale = scale
        gesture = Gesture(parameters, scale: scale)
        settling = gesture.fingerSettling()
    }

    var deadline: Timestamp? { state == .tracking ? settling?.deadline : nil }

    mutating func update(_ input: RecognizerInput, _ touches: borrowing TouchTable) -> Proposal {
        if state == .done { return .none }
        if state == .tracking && input.added != 0, let refusal = gesture.refuses(landing: input.added, touches) {
            return fail(refusal)
        }
        if !started {
            started = true
            tracker.start(input.live | input.lifted, touches)
        }
        let measure = gesture.measure(input.live, touches)
        tracker.update(input.live, touches)
        let t = tracker.translation
        velocity.add(input.time, x: t.dx, y: t.dy, z: measure)
        let down = input.live.count
        if down > peak { peak = down }
        if var landing = settling {
            landing.update(down: down, lifted: input.lifted != 0, moved: scale.mm(t).length, at: input.time)
            if landing.isSettled { fingers = landing.currentFingers }
            settling = landing
        } else if down > 0 {
            fingers = down
        }
        switch state {
        case .tracking:
            let wasReady = readyToBegin
            readyToBegin = false
            switch gesture.track(input, down: down, peak: peak, translation: t) {
            case .wait: return .none
            case .fail(let failure):
                // It would have begun had the count settled: that is why it did not.
                if wasReady, let landing = settling, input.live == 0 {
                    return fail(landing.liftedBeforeSettling(at: input.time))
                }
                return fail(failure)
            case .begin:
                if let landing = settling, !landing.isSettled {
                    readyToBegin = true
                    return .none
                }
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

    /// The landing window closed: the count is settled, and a gesture that was only waiting for
    /// that begins.
    mutating func timerFired(at time: Timestamp, _ touches: borrowing TouchTable) -> Proposal {
        guard var landing = settling else { return .none }
        landing.timerFired(at: time)
        settling = landing
        guard state == .tracking, readyToBegin, landing.isSettled else { return .none }
        readyToBegin = false
        fingers = landing.currentFingers
        state = .active
        return .begin(snapshot(at: time, touches))
    }

    func snapshot(at time: Timestamp, _ touches: borrowing TouchTable) -> Report {
        var r = Report(time: time, fingers: fingers, position: tracker.centroid)
        r.translation = tracker.translation
        let v = velocity.velocity(at: time)
        r.velocity = SurfaceVector(dx: v.x, dy: v.y)
        gesture.annotate(&r, measureVelocity: v.z)
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
        fingers = 0
        peak = 0
        readyToBegin = false
        settling?.reset()
        tracker.reset()
        velocity.reset()
        gesture.reset()
    }
}

/// What a tracking centroid gesture does with a frame.
enum TrackingDecision {
    case wait, begin
    case fail(Failure)

    /// The failures of ``fingerRange(_:down:peak:minFingers:maxFingers:reached:shortfall:)``
    /// besides the kind's shortfall.
    static let fingerRangeFailures: [(check: FailureCheck, key: ParameterKey?)] = [
        (.tooManyFingers, .maxFingers), (.tooFewFingers, .minFingers),
    ]

    /// The rule of the kinds with a finger range (pan, pinch, rotate): more than `maxFingers`
    /// fingers, or none, fail; a move with at least `minFingers` down that has `reached` the
    /// kind's threshold begins; anything else waits. When the last finger lifts first, the
    /// reason is the `shortfall` of the kind's measure, or too few fingers (`peak` were down at
    /// most) when the measure was reached.
    static func fingerRange(
        _ input: RecognizerInput, down: Int, peak: Int, minFingers: Int, maxFingers: Int,
        reached: @autoclosure () -> Bool, shortfall: @autoclosure () -> Failure
    ) -> TrackingDecision {
        if down > maxFingers {
            return .fail(.tooManyFingers(down, most: maxFingers))
        }
        if down == 0 {
            let short = shortfall()
            guard short.measured >= short.limit, peak < minFingers else { return .fail(short) }
            return .fail(.tooFewFingers(peak, least: minFingers))
        }
        return input.moved != 0 && down >= minFingers && reached() ? .begin : .wait
    }
}

/// The kind's own part of a ``CentroidRecognizer``.
protocol CentroidGesture: Sendable {
    associatedtype Parameters
    var parameters: Parameters { get }
    init(_ parameters: Parameters, scale: MeasuringScale)

    /// Touches landing while tracking (before they are followed): the reason they fail the
    /// gesture, or nil.
    mutating func refuses(landing added: UInt64, _ touches: borrowing TouchTable) -> Failure?

    /// The kind's own measure of the fingers down (a scale, an angle), sampled with the
    /// translation so the report has its velocity.
    mutating func measure(_ live: UInt64, _ touches: borrowing TouchTable) -> Double

    /// While tracking: fail, begin, or wait, with `down` fingers down (`peak` at most so far) and
    /// the centroid's translation so far.
    func track(_ input: RecognizerInput, down: Int, peak: Int, translation: SurfaceVector) -> TrackingDecision

    /// Whether an active gesture ends with `down` fingers down.
    func ends(down: Int) -> Bool

    /// How the kind waits for its finger count to settle before it begins, or nil: it takes the
    /// fingers as they come.
    func fingerSettling() -> FingerSettling?

    /// The kind's fields of a report; `measureVelocity` is the measure's change per second.
    func annotate(_ report: inout Report, measureVelocity: Double)

    /// Back to the start, keeping any buffers.
    mutating func reset()
}

extension CentroidGesture {
    mutating func refuses(landing added: UInt64, _ touches: borrowing TouchTable) -> Failure? { nil }
    mutating func measure(_ live: UInt64, _ touches: borrowing TouchTable) -> Double { 0 }
    func annotate(_ report: inout Report, measureVelocity: Double) {}
    func fingerSettling() -> FingerSettling? { nil }
    mutating func reset() {}
}
