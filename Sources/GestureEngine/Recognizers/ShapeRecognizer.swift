/// `shape`: a stroke of `min-fingers`…`max-fingers` fingers (one by default; several draw with
/// their centroid) matched against templates (discrete; the custom recognizer of UIKit's
/// "Implementing a custom gesture recognizer" tutorial, see ``ShapeMatcher``). Reports the
/// template's name and score.
///
/// - The built-in **circle** is recognized while the stroke moves, as soon as its last loop — the
///   shortest end of the stroke that turns a full 360° — spans `min-size-mm`, passes the
///   geometric test of ``CircleCheck`` (an ellipse fits it; mapped through that ellipse it goes
///   round its centre, is round, without corners and not a spiral) and, so mapped, scores
///   `min-score` against the circle templates. So a circle is found where it was drawn, inside a
///   longer stroke too (a lead-in, more loops), either way round, from any start; a stroke that
///   goes on stays one circle. At the lift the last loop is checked again, as the last loop of
///   what turned out to be the whole stroke, and so is the whole stroke, which may be a loop left
///   open (`circle-min-turn-deg`), as people draw them.
/// - **Templates of points** are matched when the last finger lifts, over the whole stroke: the
///   best one scoring `min-score` wins (several templates may share a name).
/// - A recognizer whose templates are only the circle gives up early on a **straight run**: the
///   last `circle-straight-run-mm` of path stays within `circle-straight-run-deviation-mm` of its
///   chord, which no loop has (the flattest part of a 150 × 60 mm ellipse bows 6.6 mm over
///   100 mm; the real circles of the fixtures at least 3.3 mm, their swipes and drags at most
///   0.9 mm). A swipe that waits for the circle to fail (R4) is then released while the stroke
///   still moves.
///
/// | state \ input | fingers land | fingers move | a finger lifts, others stay | the last finger lifts | deadline (landing window closes) |
/// |---|---|---|---|---|---|
/// | tracking | once the count is committed, after a lift, or more than `max-fingers` → fail | record the point; a loop passes → **recognize**; a straight run (circle only) → fail | follow | the last loop or the whole stroke passes, or a template matches → **recognize**, else fail | more than `max-fingers` → fail, fewer than `min-fingers` once committed → fail; a loop passes → **recognize** |
/// | done | ignored | ignored | ignored | ignored | — |
///
/// The stroke is kept as points ``step`` apart with the turn and path length up to each; the
/// buffer holds ``capacity`` points and drops every other one when full, so a long stroke never
/// allocates.
struct ShapeRecognizer: Recognizer {
    enum State { case tracking, done }

    static let capacity = 512
    /// Points closer than this (mm) to the last kept one are not kept: finger jitter of a few
    /// tenths of a millimetre would otherwise turn the heading at every frame.
    static let step = 2.0

    /// What the recognizer matches against (templates prepared once, at configuration time).
    struct Configuration: Sendable {
        var templates: [ShapeMatcher.Template]
        var minScore: Double
        var minSize: Millimeters
        var minFingers: Int
        var maxFingers: Int
        var settle: TimeSpan
        var circle: CircleCheck.Limits
        var straightRun: Millimeters
        var straightRunDeviation: Millimeters
        /// Whether the built-in circle is among the templates, and whether anything else is.
        var hasCircle: Bool
        var hasPoints: Bool

        init(_ p: ShapeParameters) {
            var templates: [ShapeMatcher.Template] = []
            for template in p.templates {
                switch template {
                case .builtIn(let shape): templates += ShapeMatcher.templates(for: shape)
                case .points(let name, let points):
                    templates.append(ShapeMatcher.template(name: name, points: points.map { Vec2(x: $0.x, y: $0.y) }))
                }
            }
            self.templates = templates
            minScore = p.minScore
            minSize = p.minSize
            minFingers = p.minFingers
            maxFingers = p.maxFingers
            settle = p.settle
            circle = CircleCheck.Limits(p)
            straightRun = p.circleStraightRun
            straightRunDeviation = p.circleStraightRunDeviation
            hasCircle = templates.contains { $0.builtIn == .circle }
            hasPoints = templates.contains { $0.builtIn == nil }
        }
    }

    let parameters: Configuration
    let scale: MeasuringScale
    private(set) var state = State.tracking
    private var started = false
    private var anyLifted = false
    private var settling: FingerSettling
    private var tracker = CentroidTracker()
    /// Where the stroke started (mm); a point is `origin` + the tracker's translation.
    private var origin = Vec2.zero
    private var points: [Vec2] = []
    /// Turn (radians, positive clockwise on the surface) and path length (mm) up to each point.
    private var turns: [Double] = []
    private var paths: [Double] = []
    private var heading = 0.0
    private var matcher = ShapeMatcher()
    private var circle = CircleCheck()

    init(_ parameters: Configuration, scale: MeasuringScale) {
        self.parameters = parameters
        self.scale = scale
        settling = FingerSettling(window: parameters.settle, maxFingers: parameters.maxFingers)
        points.reserveCapacity(Self.capacity)
        turns.reserveCapacity(Self.capacity)
        paths.reserveCapacity(Self.capacity)
    }

    var deadline: Timestamp? { state == .tracking ? settling.deadline : nil }

    mutating func update(_ input: RecognizerInput, _ touches: borrowing TouchTable) -> Proposal {
        guard state == .tracking else { return .none }
        if !started {
            started = true
            tracker.start(input.live | input.lifted, touches)
            origin = scale.mm(tracker.centroid)
            keep(origin)
        }
        if input.added != 0 && (anyLifted || settling.isCommitted) {
            return fail(settling.lateLanding(at: input.time, afterLift: anyLifted))
        }
        if input.lifted != 0 { anyLifted = true }
        tracker.update(input.live, touches)
        let moved = scale.mm(tracker.translation)
        settling.update(down: input.live.count, lifted: input.lifted != 0, moved: moved.length, at: input.time)
        if settling.fingers > parameters.maxFingers {
            return fail(
                Failure(
                    .tooManyFingers, .maxFingers, measured: Double(settling.fingers),
                    limit: Double(parameters.maxFingers)))
        }

        let p = origin + moved
        if (p - points[points.count - 1]).length >= Self.step {
            keep(p)
            if settling.isSettled {
                let proposal = loopOrRun(at: input.time, touches)
                if case .none = proposal {} else { return proposal }
            }
        }
        guard input.live == 0 else { return .none }
        return decideAtLift(at: input.time, touches)
    }

    mutating func timerFired(at time: Timestamp, _ touches: borrowing TouchTable) -> Proposal {
        settling.timerFired(at: time)
        return loopOrRun(at: time, touches)
    }

    /// Once the count has settled: a closed loop recognizes the circle, a straight run gives up
    /// (circle only), a count outside `min`…`max` fails.
    private mutating func loopOrRun(at time: Timestamp, _ touches: borrowing TouchTable) -> Proposal {
        // Too few fingers: final once the count is committed; until then another may still land.
        guard settling.fingers >= parameters.minFingers else { return settling.isCommitted ? fail(tooFewFingers) : .none }
        guard parameters.hasCircle else { return .none }
        if let report = circleReport(at: time, lifted: false) {
            state = .done
            return .recognize(report)
        }
        if !parameters.hasPoints, let deviation = straightRunDeviation() {
            return fail(
                Failure(
                    .straightRun, .circleStraightRunDeviation, measured: deviation,
                    limit: parameters.straightRunDeviation.value))
        }
        return .none
    }

    /// The report for the stroke if it ends in a circle: while it moves, its last loop (the
    /// last full 360° of heading); at the lift, the whole stroke, then the last loop of it.
    private mutating func circleReport(at time: Timestamp, lifted: Bool) -> Report? {
        let start = lastLoopStart()
        let isLoop = abs(turns[points.count - 1] - turns[start]) >= 2 * Double.pi
        guard lifted else {
            return isLoop ? circleReport(at: time, start..<points.count, as: .moving) : nil
        }
        // Every candidate lies within the whole stroke: nothing to measure when it is too small.
        guard let (low, high) = bounds(points.indices), max(high.x - low.x, high.y - low.y) >= parameters.minSize.value,
            let whole = circle.measure(points, points.indices)
        else { return nil }
        let single = whole.turn <= parameters.circle.overshootTurn
        if whole.failure(as: .whole(single: single), parameters.circle) == nil,
            let report = circleReport(at: time, low: low, high: high)
        {
            return report
        }
        guard isLoop && start > 0 else { return nil }
        return circleReport(at: time, start..<points.count, as: .lastLoop(single: single))
    }

    /// The report for the loop ``circle`` measured last (spanning `low`…`high`) if it scores
    /// `min-score` against the circle templates.
    private mutating func circleReport(at time: Timestamp, low: Vec2, high: Vec2) -> Report? {
        guard
            let (index, score) = matcher.match(
                circle.loop, circle.loop.indices, against: parameters.templates, builtIn: true),
            score >= parameters.minScore
        else { return nil }
        return report(at: time, shape: index, score: score, low: low, high: high)
    }

    /// The report for `points[range]` as `candidate` if it is a circle.
    private mutating func circleReport(
        at time: Timestamp, _ range: Range<Int>, as candidate: CircleCheck.Candidate
    ) -> Report? {
        guard let (low, high) = bounds(range), max(high.x - low.x, high.y - low.y) >= parameters.minSize.value,
            let measures = circle.measure(points, range), measures.failure(as: candidate, parameters.circle) == nil
        else { return nil }
        return circleReport(at: time, low: low, high: high)
    }

    /// Where the last loop starts: the shortest end of the stroke that turns 360° (the whole
    /// stroke when it turned less).
    private func lastLoopStart() -> Int {
        let last = points.count - 1
        var start = last
        while start > 0 && abs(turns[last] - turns[start]) < 2 * Double.pi { start -= 1 }
        return start
    }

    /// Degrees the whole stroke went round the centre of its ellipse (0 when none fits).
    private mutating func wholeTurn() -> Double { circle.measure(points, points.indices)?.turn ?? 0 }

    /// How far the last `circle-straight-run-mm` of the stroke strays from its chord (mm), when
    /// that is within `circle-straight-run-deviation-mm`; nil when it strays farther or the
    /// stroke is shorter.
    private func straightRunDeviation() -> Double? {
        let last = points.count - 1
        let run = parameters.straightRun.value
        var s = last
        while s > 0 && paths[last] - paths[s] < run { s -= 1 }
        guard paths[last] - paths[s] >= run else { return nil }
        let chord = points[last] - points[s]
        let length = chord.length
        guard length > 0 else { return nil }
        let limit = parameters.straightRunDeviation.value * length
        var farthest = 0.0
        for i in s...last {
            let d = points[i] - points[s]
            let off = abs(d.x * chord.y - d.y * chord.x)
            if off > limit { return nil }
            farthest = max(farthest, off)
        }
        return farthest / length
    }

    /// The last finger lifted: a circle that did not close, then the whole stroke against the
    /// templates of points.
    private mutating func decideAtLift(at time: Timestamp, _ touches: borrowing TouchTable) -> Proposal {
        state = .done
        guard settling.fingers >= parameters.minFingers else { return .fail(tooFewFingers) }
        if parameters.hasCircle, let report = circleReport(at: time, lifted: true) { return .recognize(report) }
        guard parameters.hasPoints,
            let (low, high) = bounds(points.indices), max(high.x - low.x, high.y - low.y) >= parameters.minSize.value,
            let (index, score) = matcher.match(points, points.indices, against: parameters.templates, builtIn: false),
            score >= parameters.minScore
        else {
            // No template matched; ``explain(_:_:)`` measures which check stopped it when asked.
            return .fail(Failure(.scoreTooLow, .minScore, measured: 0, limit: parameters.minScore))
        }
        return .recognize(report(at: time, shape: index, score: score, low: low, high: high))
    }

    private var tooFewFingers: Failure {
        Failure(
            .tooFewFingers, .minFingers, measured: Double(settling.fingers), limit: Double(parameters.minFingers))
    }

    /// No template matched at the lift: the check that stopped the stroke — for a circle, what
    /// stopped the whole stroke (or, for a stroke that went round more than
    /// `circle-overshoot-turn-deg`, its last loop): its size, its geometry, its score; for
    /// templates of points the size and the score of the whole stroke (those are tried last, so
    /// they give the reason when present).
    mutating func explain(_ failure: Failure, _ touches: borrowing TouchTable) -> Failure {
        guard failure.check == .scoreTooLow, failure.measured == 0 else { return failure }
        let minSize = parameters.minSize.value
        if parameters.hasPoints {
            guard let (low, high) = bounds(points.indices) else { return failure }
            let size = max(high.x - low.x, high.y - low.y)
            if size < minSize { return Failure(.shapeTooSmall, .minSize, measured: size, limit: minSize) }
            let score = matcher.match(points, points.indices, against: parameters.templates, builtIn: false)?.score
            return Failure(.scoreTooLow, .minScore, measured: score ?? 0, limit: parameters.minScore)
        }
        let single = wholeTurn() <= parameters.circle.overshootTurn
        let start = single ? 0 : lastLoopStart()
        let range = start..<points.count
        let candidate: CircleCheck.Candidate = single ? .whole(single: true) : .lastLoop(single: false)
        guard let (low, high) = bounds(range) else { return failure }
        let size = max(high.x - low.x, high.y - low.y)
        if size < minSize { return Failure(.shapeTooSmall, .minSize, measured: size, limit: minSize) }
        guard let measures = circle.measure(points, range) else {
            return Failure(.flat, .circleMinAxisRatio, measured: 0, limit: parameters.circle.minAxisRatio)
        }
        if let geometric = measures.failure(as: candidate, parameters.circle) { return geometric }
        let score = matcher.match(circle.loop, circle.loop.indices, against: parameters.templates, builtIn: true)?.score
        return Failure(.scoreTooLow, .minScore, measured: score ?? 0, limit: parameters.minScore)
    }

    private func report(at time: Timestamp, shape: Int, score: Double, low: Vec2, high: Vec2) -> Report {
        let center = SurfacePoint(x: (low.x + high.x) / 2 / scale.width, y: (low.y + high.y) / 2 / scale.height)
        var r = Report(time: time, fingers: settling.fingers, position: center)
        r.translation = tracker.translation
        r.shape = shape
        r.score = score
        return r
    }

    private func bounds(_ range: Range<Int>) -> (Vec2, Vec2)? {
        guard !range.isEmpty else { return nil }
        var low = points[range.lowerBound]
        var high = low
        for i in range {
            low = Vec2(x: min(low.x, points[i].x), y: min(low.y, points[i].y))
            high = Vec2(x: max(high.x, points[i].x), y: max(high.y, points[i].y))
        }
        return (low, high)
    }

    /// Appends a point with the turn and path up to it; halves the buffer when it is full.
    private mutating func keep(_ p: Vec2) {
        if points.count == Self.capacity { halve() }
        guard let previous = points.last else {
            points.append(p)
            turns.append(0)
            paths.append(0)
            return
        }
        let d = p - previous
        let h = atan2Approx(d.y, d.x)
        let turn = points.count >= 2 ? wrapAngle(h - heading) : 0
        heading = h
        points.append(p)
        turns.append(turns[turns.count - 1] + turn)
        paths.append(paths[paths.count - 1] + d.length)
    }

    /// Drops every other point, keeping the last (the turns and paths stay those of the full
    /// stroke).
    private mutating func halve() {
        let n = points.count
        var kept = 0
        var i = (n - 1) % 2
        while i < n {
            points[kept] = points[i]
            turns[kept] = turns[i]
            paths[kept] = paths[i]
            kept += 1
            i += 2
        }
        points.removeLast(n - kept)
        turns.removeLast(n - kept)
        paths.removeLast(n - kept)
    }

    func snapshot(at time: Timestamp, _ touches: borrowing TouchTable) -> Report {
        Report(time: time, fingers: settling.fingers, position: tracker.centroid)
    }

    private mutating func fail(_ failure: Failure) -> Proposal {
        state = .done
        return .fail(failure)
    }

    mutating func reset() {
        state = .tracking
        started = false
        anyLifted = false
        settling.reset()
        tracker.reset()
        points.removeAll(keepingCapacity: true)
        turns.removeAll(keepingCapacity: true)
        paths.removeAll(keepingCapacity: true)
    }
}

/// `shape` in the engine's list of kinds (``GestureKind/visit(_:_:)``).
enum ShapeKind: KindDefinition {
    static let isContinuous = false
    static func wrap(_ parameters: ShapeParameters) -> RecognizerParameters { .shape(parameters) }
    static func unwrap(_ parameters: RecognizerParameters) -> ShapeParameters? {
        guard case .shape(let p) = parameters else { return nil }
        return p
    }
    static var bank: WritableKeyPath<MachineBanks, [ShapeRecognizer]> { \.shapes }
    static func mostFingers(_ parameters: ShapeParameters) -> Int { parameters.maxFingers }

    /// The templates are prepared once per owner's definitions (``CompiledSet/shapes``).
    static func machine(_ r: Int, _ c: CompiledSet, scale: MeasuringScale) -> ShapeRecognizer {
        ShapeRecognizer(c.shapes[r]!, scale: scale)
    }
}
