/// `swipe`: a straight stroke of `min-fingers`…`max-fingers` fingers (those landing within
/// `settle-ms` of the first), recognized while it moves: `min-distance-mm` covered within one of
/// `directions` (give or take `angle-tolerance-deg`). With one or two fingers it must be quick —
/// covered within `max-duration-ms` at `min-velocity-mm-s` or faster, and a stroke slower than
/// twice that keeps its direction for `hold-distance-mm` more before it is decided; with three or
/// more, `multi-finger-max-duration-ms` and `multi-finger-min-velocity-mm-s` apply instead (by
/// default distance and direction alone, as libinput and Touchégg decide multi-finger swipes).
/// Discrete.
public struct SwipeParameters: Hashable, Sendable {
    public var minFingers: Int = 1
    public var maxFingers: Int = 5
    public var directions: Set<Direction> = Set(Direction.allCases)
    public var minDistance = Millimeters(20)
    public var minVelocity = Millimeters(150)
    public var maxDuration: TimeSpan = .milliseconds(600)
    public var angleTolerance: Double = 22.5
    public var settle: TimeSpan = .milliseconds(150)
    /// How much farther than `minDistance` a stroke slower than twice its speed limit must keep
    /// its direction before it is decided.
    public var holdDistance = Millimeters(10)
    public var multiFingerMinVelocity = Millimeters(0)
    public var multiFingerMaxDuration: TimeSpan = .milliseconds(2000)
    /// The least displacement over path of the stretch that covers `minDistance` (a semicircle is
    /// 0.64 as long as its arc; a jittery straight line is above 0.95).
    public var minStraightness: Double = 0.8
    public init() {}
}

extension SwipeParameters: DescribedParameters {
    static var descriptors: [ParameterDescriptor<Self>] {
        [
            .minFingers(\.minFingers, "fewest fingers"),
            .maxFingers(\.maxFingers, atLeast: \.minFingers, "most fingers"),
            .choices("directions", \.directions, noun: "direction", "directions recognized (8, diagonals included)"),
            .millimetres("min-distance-mm", \.minDistance, "how far the fingers move to be a swipe"),
            .millimetres(
                "min-velocity-mm-s", \.minVelocity, unit: "mm/s", allowZero: true,
                "slowest average speed over that distance (1 or 2 fingers)"),
            .milliseconds("max-duration-ms", \.maxDuration, "longest time to cover that distance (1 or 2 fingers)"),
            .number(
                "angle-tolerance-deg", \.angleTolerance, unit: "°", accepts: "degrees above 0 and at most 45",
                "how far the stroke's angle may be from its direction", where: { $0 > 0 && $0 <= 45 }),
            .settle(\.settle),
            .millimetres(
                "hold-distance-mm", \.holdDistance, allowZero: true,
                "how much farther a stroke slower than twice min-velocity-mm-s keeps its direction before it is decided"
            ),
            .millimetres(
                "multi-finger-min-velocity-mm-s", \.multiFingerMinVelocity, unit: "mm/s", allowZero: true,
                inherits: "min-velocity-mm-s",
                "slowest average speed over that distance with 3 fingers or more (written alone, min-velocity-mm-s counts)"
            ),
            .milliseconds(
                "multi-finger-max-duration-ms", \.multiFingerMaxDuration, inherits: "max-duration-ms",
                "longest time to cover that distance with 3 fingers or more (written alone, max-duration-ms counts)"),
            .ratio(
                "min-straightness", \.minStraightness,
                "how straight that distance is covered: displacement over path (a half circle is 0.64)"),
        ]
    }
}

/// `swipe`: a straight stroke of `min-fingers`…`max-fingers` fingers, recognized while it moves
/// (discrete, like UISwipeGestureRecognizer): lifting is not required, and a stroke that slows
/// down or stops before the lift still counts.
///
/// The stroke is the translation of the fingers' centroid, carried over without jumps when
/// fingers land or lift (``CentroidTracker``). The fingers are the settled count
/// (``FingerSettling``: fingers landing within `settle-ms` of the first are one gesture). Once the
/// count has settled within `min`…`max`, the swipe is recognized at the first frame at which the
/// stroke's **stretch** — from the most recent earlier point at least `min-distance-mm` behind —
/// passes:
/// - it was covered within the time limit (the limit applies to covering the distance, so a
///   finger that rested first, or a long stroke, is measured on its quick part);
/// - at an average speed of at least the speed limit;
/// - straight (its length at least `min-straightness` of the path);
/// - within `angle-tolerance-deg` of an allowed direction (the nearest one is reported).
///
/// The limits depend on the fingers: one or two fingers must be quick
/// (`max-duration-ms`, `min-velocity-mm-s`), so that a pan is no swipe; three or more are decided
/// by distance and direction (`multi-finger-max-duration-ms`, `multi-finger-min-velocity-mm-s`,
/// none by default), as libinput and Touchégg decide multi-finger swipes.
///
/// **Main motion.** A stroke whose recent motion (back one ring spacing or more, 20–40 ms) goes
/// the stretch's way at twice the speed limit or faster is being flicked: decided there. Otherwise
/// the stretch may be a landing hook (people's strokes start with one: a finger lands, slides
/// 20 mm one way at a few hundred mm/s, then flicks another way) or a slow start: it is decided
/// only once the stroke has kept its direction for `hold-distance-mm` more, that is on the stretch
/// back to the most recent point `min-distance-mm` + `hold-distance-mm` behind, which must pass
/// the same checks — or at the lift, when no more stroke is coming. A hook that turns before it
/// is that long cannot pass: the stretch around its turn is not straight. Either way the newest
/// frame must go the direction decided on: just after a hook's turn the stretch across it points
/// between the hook and the flick, while the newest frame already goes the flick's way.
///
/// A stroke that keeps going after it was recognized stays **one** swipe: the recognizer is done
/// until every finger has lifted (R2), however far or often the stroke turns afterwards.
///
/// | state \ input | fingers land | fingers move | a finger lifts, others stay | the last finger lifts | deadline (landing window closes) |
/// |---|---|---|---|---|---|
/// | tracking | once the count is committed, after a lift, or more than `max-fingers` → fail | settled, the stretch passes and is a flick, or the longer stretch passes, and the newest frame goes its direction → **recognize** | follow (commits the count) | the stretch passes → **recognize**, else fail | more than `max-fingers` → fail, fewer than `min-fingers` once committed → fail; as on a move → **recognize** |
/// | done | ignored | ignored | ignored | ignored | — |
///
/// The machine is ``StrokeRecognizer``; this is the kind's part.
typealias SwipeRecognizer = StrokeRecognizer<Swipe>

struct Swipe: StrokeGesture {
    /// Fingers from which a stroke is a multi-finger swipe (libinput: two fingers scroll, three
    /// and more swipe).
    static let multiFinger = 3
    /// A stretch this many times the speed limit is a flick, decided without waiting for
    /// `hold-distance-mm`.
    static let flick = 2.0

    let parameters: SwipeParameters
    /// The stroke's recent part for one or two fingers (`max-duration-ms`) and for three and more
    /// (`multi-finger-max-duration-ms`).
    private var window: StrokeWindow
    private var multiFingerWindow: StrokeWindow
    private var velocity = VelocityTracker()
    /// The translation at the frame before (mm) and the step from it to this frame's.
    private var previousTranslation = Vec2.zero
    private var frameStep = Vec2.zero
    /// cos(`angle-tolerance-deg`).
    private let toleranceCosine: Double

    init(_ parameters: SwipeParameters, scale: MeasuringScale) {
        self.parameters = parameters
        toleranceCosine = cosSin(parameters.angleTolerance * Double.pi / 180).cos
        window = StrokeWindow(span: parameters.maxDuration)
        multiFingerWindow = StrokeWindow(span: parameters.multiFingerMaxDuration)
    }

    var minFingers: Int { parameters.minFingers }
    var maxFingers: Int { parameters.maxFingers }
    var settle: TimeSpan { parameters.settle }

    /// Whether `fingers` make a multi-finger swipe.
    private static func isMultiFinger(_ fingers: Int) -> Bool { fingers >= multiFinger }

    private func minVelocity(_ fingers: Int) -> Double {
        Self.isMultiFinger(fingers) ? parameters.multiFingerMinVelocity.value : parameters.minVelocity.value
    }

    mutating func follow(_ stroke: Stroke, at time: Timestamp) -> Bool {
        let mm = stroke.moved
        frameStep = mm - previousTranslation
        previousTranslation = mm
        window.add(time, mm)
        // The multi-finger window only while the stroke may be one: before the count has
        // settled, or with three fingers or more (a late finger joining a settled count starts
        // the window again from where the hand still rests, within 8 mm of its start).
        if parameters.maxFingers >= Self.multiFinger && (Self.isMultiFinger(stroke.fingers) || !stroke.isSettled) {
            multiFingerWindow.add(time, mm)
        }
        velocity.add(time, x: stroke.translation.dx, y: stroke.translation.dy)
        return true
    }

    /// The checks: recognize, or wait for more stroke (or, when the last finger `lifted`, for
    /// nothing more).
    mutating func decide(_ stroke: Stroke, at time: Timestamp, lifted: Bool) -> StrokeDecision {
        let fingers = stroke.fingers
        let distance = parameters.minDistance.value
        let slowest = minVelocity(fingers)
        guard let (d, elapsed) = covered(distance, fingers: fingers),
            d.length >= slowest * elapsed.seconds, var direction = direction(of: d)
        else { return .wait }
        let hold = parameters.holdDistance.value
        if !lifted && hold > 0 {
            if !isFlick(along: d, limit: slowest, fingers: fingers) {
                // Not clearly flicked: the stroke's main motion must keep this way for
                // hold-distance-mm more.
                guard
                    let (longer, time) = covered(distance + hold, fingers: fingers),
                    longer.length >= slowest * time.seconds, let held = self.direction(of: longer)
                else { return .wait }
                direction = held
            }
            // And its newest frame goes that way: a stretch across the turn after a hook is not
            // the main motion yet.
            guard goes(frameStep, direction) else { return .wait }
        }
        var r = Report(time: window.newestTime, fingers: fingers, position: stroke.centroid)
        r.translation = stroke.translation
        let v = velocity.velocity(at: window.newestTime)
        r.velocity = SurfaceVector(dx: v.x, dy: v.y)
        r.direction = direction
        return .recognize(r)
    }

    /// The checks did not pass by the lift. The stroke's length is the first reason;
    /// ``explain(_:_:)`` measures the others when asked.
    mutating func lifted(_ stroke: Stroke, at time: Timestamp) -> StrokeVerdict {
        .fail(
            Failure(.strokeTooShort, .minDistance, measured: stroke.moved.length, limit: parameters.minDistance.value))
    }

    /// Whether the stroke is flicked along `d`: its recent motion (one ring spacing or more) goes
    /// that way (within `angle-tolerance-deg`) at ``flick`` times the speed limit `limit` or faster.
    private func isFlick(along d: Vec2, limit: Double, fingers: Int) -> Bool {
        guard let (step, time) = Self.isMultiFinger(fingers) ? multiFingerWindow.recentStep : window.recentStep
        else { return false }
        let length = step.length
        guard length > 0, length >= Self.flick * limit * time.seconds else { return false }
        let cos = (step.x * d.x + step.y * d.y) / (length * d.length)
        return cos >= toleranceCosine
    }

    /// Whether `step` goes within `angle-tolerance-deg` of `direction` (a step of 0 goes nowhere).
    private func goes(_ step: Vec2, _ direction: Direction) -> Bool {
        let (cos, sin) = cosSin(direction.degrees * Double.pi / 180)
        let length = step.length
        return length > 0 && step.x * cos + step.y * sin >= toleranceCosine * length
    }

    /// The stretch back to the most recent point `distance` behind, in the window of the finger
    /// count, if it is straight.
    private func covered(_ distance: Double, fingers: Int) -> (Vec2, TimeSpan)? {
        Self.isMultiFinger(fingers)
            ? multiFingerWindow.covered(distance, straightness: parameters.minStraightness)
            : window.covered(distance, straightness: parameters.minStraightness)
    }

    /// The allowed direction nearest to `d` (millimetres, y down), if within the tolerance.
    private func direction(of d: Vec2) -> Direction? {
        let (best, off) = nearestDirection(of: d)
        return off <= parameters.angleTolerance ? best : nil
    }

    /// The allowed direction nearest to `d` and how many degrees it is off.
    private func nearestDirection(of d: Vec2) -> (Direction?, Double) {
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
        return (best, bestOff)
    }

    /// A stroke long enough that failed at the lift: which check of the last moment stopped it —
    /// covering the distance in time, straightness, speed, direction — in that order.
    mutating func explain(_ failure: Failure, _ stroke: Stroke) -> Failure {
        let distance = parameters.minDistance.value
        guard failure.check == .strokeTooShort, failure.measured >= distance else { return failure }
        let multi = Self.isMultiFinger(stroke.fingers)
        let reach =
            multi
            ? multiFingerWindow.shortfall(distance, straightness: parameters.minStraightness)
            : window.shortfall(distance, straightness: parameters.minStraightness)
        switch reach {
        case .notCovered(let covered):
            return Failure(
                multi ? .multiFingerTooSlowToCover : .tooSlowToCover, .minDistance, measured: covered, limit: distance)
        case .notStraight(let ratio):
            return Failure(.notStraight, .minStraightness, measured: ratio, limit: parameters.minStraightness)
        case .covered(let d, let elapsed):
            let speed = d.length / max(elapsed.seconds, 1e-6)
            let slowest = minVelocity(stroke.fingers)
            if speed < slowest {
                return Failure(
                    .tooSlow, multi ? .multiFingerMinVelocity : .minVelocity, measured: speed, limit: slowest)
            }
            return Failure(
                .offDirection, .angleTolerance, measured: nearestDirection(of: d).1, limit: parameters.angleTolerance)
        }
    }

    func annotate(_ report: inout Report, _ stroke: Stroke) {
        report.translation = stroke.translation
    }

    /// Back to the start, keeping the buffers (a reset must not allocate).
    mutating func reset() {
        window.reset()
        multiFingerWindow.reset()
        velocity.reset()
        previousTranslation = .zero
        frameStep = .zero
    }
}

/// The recent part of a stroke: its translation (millimetres) and path length at up to
/// ``capacity`` earlier moments within `span`, in a ring allocated once. Samples closer together
/// than `span` / ``capacity`` replace the newest, so the ring always reaches back `span` (at that
/// resolution) whatever the frame rate.
private struct StrokeWindow {
    static let capacity = 32
    private static let mask = capacity - 1

    private struct Sample {
        var time: Timestamp
        var position: Vec2
        /// Path length of the stroke up to this sample.
        var path: Double
    }

    let span: TimeSpan
    private let spacing: Int64
    private var samples = [Sample](
        repeating: Sample(time: Timestamp(microseconds: 0), position: .zero, path: 0), count: StrokeWindow.capacity)
    private var head = 0
    private var count = 0

    init(span: TimeSpan) {
        self.span = span
        spacing = span.microseconds / Int64(Self.capacity - 1)
    }

    var newestTime: Timestamp { samples[head].time }

    /// The stroke's recent motion: the displacement from the most recent sample at least one ring
    /// spacing before the newest (or the oldest) and the time it took. A speed over a spacing or
    /// more holds when single frames come early or late (a frame's step at 230 mm/s, 2 ms late,
    /// reads 290 mm/s).
    var recentStep: (Vec2, TimeSpan)? {
        guard count > 1 else { return nil }
        let newest = samples[head]
        var previous = samples[(head &- 1) & Self.mask]
        if count > 2 && (newest.time - previous.time).microseconds < spacing {
            previous = samples[(head &- 2) & Self.mask]
        }
        return (newest.position - previous.position, newest.time - previous.time)
    }

    @inline(__always) mutating func add(_ time: Timestamp, _ position: Vec2) {
        guard count > 0 else {
            samples[head] = Sample(time: time, position: position, path: 0)
            count = 1
            return
        }
        let newest = samples[head]
        let sample = Sample(time: time, position: position, path: newest.path + (position - newest.position).length)
        // Keep the newest sample only if it is far enough from the one before it.
        let previous = samples[(head &- 1) & Self.mask]
        if count > 1 && (newest.time - previous.time).microseconds < spacing {
            samples[head] = sample
        } else {
            head = (head &+ 1) & Self.mask
            samples[head] = sample
            if count < Self.capacity { count &+= 1 }
        }
    }

    /// The displacement from the most recent earlier sample within `span` that lies at least
    /// `distance` behind the newest, and the time between them — if the path between them is
    /// straight enough (displacement ≥ `straightness` × path). Nil when no such sample exists.
    func covered(_ distance: Double, straightness: Double) -> (Vec2, TimeSpan)? {
        let newest = samples[head]
        let cutoff = newest.time + TimeSpan(microseconds: -span.microseconds)
        // The stroke cannot have covered more than the path it travelled in the window.
        var oldest = count - 1
        while oldest > 0 && samples[(head &- oldest) & Self.mask].time < cutoff { oldest -= 1 }
        guard oldest > 0, newest.path - samples[(head &- oldest) & Self.mask].path >= distance else { return nil }
        let squared = distance * distance
        for back in 1...oldest {
            let s = samples[(head &- back) & Self.mask]
            let d = newest.position - s.position
            guard d.x * d.x + d.y * d.y >= squared else { continue }
            guard d.length >= straightness * (newest.path - s.path) else { return nil }
            return (d, newest.time - s.time)
        }
        return nil
    }

    /// What ``covered(_:straightness:)`` found at the newest sample, in full.
    enum Reach {
        /// The displacement and the time it took.
        case covered(Vec2, TimeSpan)
        /// No earlier sample within `span` is `distance` behind; the farthest is this many mm.
        case notCovered(Double)
        /// The stretch that covered it is only this straight (displacement over path).
        case notStraight(Double)
    }

    /// How the stroke's last moment measures against `distance` and `straightness`, for an
    /// explanation (``covered(_:straightness:)`` is the frame path's yes or no).
    func shortfall(_ distance: Double, straightness: Double) -> Reach {
        let newest = samples[head]
        let cutoff = newest.time + TimeSpan(microseconds: -span.microseconds)
        var farthest = 0.0
        var back = 1
        while back < count {
            let s = samples[(head &- back) & Self.mask]
            guard s.time >= cutoff else { break }
            let d = newest.position - s.position
            if d.length >= distance {
                let path = newest.path - s.path
                let ratio = path > 0 ? d.length / path : 1
                return ratio >= straightness ? .covered(d, newest.time - s.time) : .notStraight(ratio)
            }
            farthest = max(farthest, d.length)
            back += 1
        }
        return .notCovered(farthest)
    }

    mutating func reset() {
        head = 0
        count = 0
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

extension GestureKind {
    /// `swipe` (``SwipeParameters``).
    public static var swipe: GestureKind { GestureKind(SwipeKind.self) }
}

extension RecognizerParameters {
    /// The parameters of a swipe recognizer.
    public static func swipe(_ parameters: SwipeParameters) -> RecognizerParameters {
        RecognizerParameters(SwipeKind.self, parameters)
    }
}

/// `swipe` in the engine's list of kinds (``RegisteredKinds``).
enum SwipeKind: KindDefinition {
    typealias Parameters = SwipeParameters
    typealias Machine = SwipeRecognizer
    static let name = "swipe"
    static let isContinuous = false
    static func mostFingers(_ parameters: SwipeParameters) -> Int { parameters.maxFingers }
}

extension SwipeKind {
    /// The checks a swipe fails with and the key each names (the registry's table).
    static let failures: [(check: FailureCheck, key: ParameterKey?)] =
        [
            (.tooManyFingers, .maxFingers), (.tooFewFingers, .minFingers), (.strokeTooShort, .minDistance),
            (.tooSlowToCover, .minDistance), (.multiFingerTooSlowToCover, .minDistance),
            (.notStraight, .minStraightness), (.tooSlow, .minVelocity), (.tooSlow, .multiFingerMinVelocity),
            (.offDirection, .angleTolerance),
        ] + FingerSettling.failures
}
