/// `shape`: a stroke of `min-fingers`…`max-fingers` fingers (those landing within `settle-ms` of
/// the first) matched against `templates`: the built-in circle while the stroke moves, templates
/// of points when it lifts; recognized with the template's name when its score reaches
/// `min-score` and the shape spans `min-size-mm`. The `circle-…` limits are the built-in circle's
/// geometric check (docs/RECOGNIZERS.md, "The circle's geometric check"). Discrete.
public struct ShapeParameters: Hashable, Sendable {
    public var templates: [ShapeTemplate] = [.builtIn(.circle)]
    public var minScore: Double = 0.8
    public var minSize = Millimeters(20)
    public var minFingers: Int = 1
    public var maxFingers: Int = 1
    public var settle: TimeSpan = .milliseconds(150)
    /// Degrees a stroke lifted as a whole must go round its centre.
    public var circleMinTurn: Double = 285
    /// Degrees a loop of a longer or unfinished stroke must go round its centre.
    public var circleLoopTurn: Double = 330
    /// Coefficient of variation of the radius (ratio).
    public var circleMaxSpread: Double = 0.08
    /// The 3rd–5th harmonic of the radius over its mean (ratio).
    public var circleMaxCorners: Double = 0.1
    /// Difference of the end radii over the mean radius (ratio), for a loop of a longer or
    /// unfinished stroke.
    public var circleMaxSpiral: Double = 0.15
    /// The same for a stroke lifted after going round at most `circleOvershootTurn` degrees.
    public var circleMaxOvershoot: Double = 0.5
    public var circleOvershootTurn: Double = 540
    /// Short over long axis of the fitted ellipse (ratio).
    public var circleMinAxisRatio: Double = 0.3
    public var circleStraightRun = Millimeters(100)
    public var circleStraightRunDeviation = Millimeters(1.5)
    public init() {}
}

extension ShapeParameters: DescribedParameters {
    static var descriptors: [ParameterDescriptor<Self>] {
        [
            .value(
                "templates", unit: "list", accepts: "at least one template",
                "built-in shapes by name, or `{name, points: [[x, y], …]}`", read: { $0.templates },
                write: { $0.templates = $1 }, spell: { $0.map(\.name).joined(separator: ", ") },
                check: { templates, _ in ShapeTemplate.problem(in: templates) }),
            .number(
                "min-score", \.minScore, unit: "score", accepts: "a score from 0 to 1",
                "lowest match score recognized (1 = the template exactly)", where: { (0...1).contains($0) }),
            .millimetres("min-size-mm", \.minSize, "smallest stroke (the longer side of its bounding box)"),
            .minFingers(\.minFingers, "fewest fingers"),
            .maxFingers(\.maxFingers, atLeast: \.minFingers, "most fingers"),
            .settle(\.settle),
            .degrees(
                "circle-min-turn-deg", \.circleMinTurn, upTo: 360,
                "circle: how far round its centre a stroke lifted as a whole goes (a loop left open)"),
            .degrees(
                "circle-loop-turn-deg", \.circleLoopTurn, upTo: 360,
                "circle: how far round its centre a loop goes while the stroke moves, or at the end of a longer stroke"),
            .ratio("circle-max-spread", \.circleMaxSpread, "circle: how much the radius may vary (of its mean)"),
            .ratio(
                "circle-max-corners", \.circleMaxCorners,
                "circle: how strong a 3rd–5th harmonic of the radius may be (triangles, squares, stars)"),
            .ratio(
                "circle-max-spiral", \.circleMaxSpiral,
                "circle: how much the radius at a loop's ends may differ (of its mean)"),
            .ratio(
                "circle-max-overshoot", \.circleMaxOvershoot,
                "circle: the same, for a stroke lifted after going round at most circle-overshoot-turn-deg"),
            .degrees(
                "circle-overshoot-turn-deg", \.circleOvershootTurn, upTo: 3600,
                "circle: how far round a stroke may go and still end past its start by circle-max-overshoot"),
            .ratio(
                "circle-min-axis-ratio", \.circleMinAxisRatio,
                "circle: the least short over long axis of its ellipse (lines and flat zigzags are none)"),
            .millimetres(
                "circle-straight-run-mm", \.circleStraightRun,
                "circle alone: path that, staying within circle-straight-run-deviation-mm of its chord, gives up"),
            .millimetres(
                "circle-straight-run-deviation-mm", \.circleStraightRunDeviation,
                "circle alone: how near its chord that path stays"),
        ]
    }
}

/// A shape to match: a built-in one by name, or a named list of points (any scale; only the
/// shape and the drawing order matter).
public enum ShapeTemplate: Hashable, Sendable {
    case builtIn(BuiltInShape)
    case points(name: String, points: [SurfacePoint])

    public var name: String {
        switch self {
        case .builtIn(let shape): shape.rawValue
        case .points(let name, _): name
        }
    }
}

/// Templates that ship with the engine.
public enum BuiltInShape: String, Hashable, Sendable, CaseIterable, Codable {
    case circle
}

extension ShapeTemplate: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable { case name, points }

    /// A string names a built-in template; a mapping `{name, points: [[x, y], …]}` defines one.
    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let name = try? single.decode(String.self) {
            guard let shape = BuiltInShape(rawValue: name) else {
                let known = BuiltInShape.allCases.map(\.rawValue).joined(separator: ", ")
                throw DecodingError.dataCorruptedError(
                    in: single, debugDescription: "unknown built-in shape '\(name)' (known: \(known))")
            }
            self = .builtIn(shape)
            return
        }
        let c = try decoder.strictContainer(keyedBy: CodingKeys.self, in: "a shape template")
        let name = try c.decode(String.self, forKey: .name)
        guard RegionSpec.isValidName(name) else {
            throw c.corrupted(.name, RegionSpec.nameExpectation)
        }
        let pairs = try c.decode([[Double]].self, forKey: .points)
        let points = pairs.map { $0.count == 2 ? SurfacePoint(x: $0[0], y: $0[1]) : SurfacePoint(x: .nan, y: .nan) }
        if let message = Self.pointsProblem(points) {
            throw c.corrupted(.points, message)
        }
        self = .points(name: name, points: points)
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .builtIn(let shape):
            var c = encoder.singleValueContainer()
            try c.encode(shape.rawValue)
        case .points(let name, let points):
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(name, forKey: .name)
            try c.encode(points.map { [$0.x, $0.y] }, forKey: .points)
        }
    }

    /// A drawn template's points: 3 to 1000 of them, each a pair of finite numbers (a point that
    /// is not a pair arrives here as not finite), not all in one place.
    static func pointsProblem(_ points: [SurfacePoint]) -> String? {
        guard (3...1000).contains(points.count), points.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else {
            return "expected 3 to 1000 points, each [x, y]"
        }
        let xs = points.map(\.x)
        let ys = points.map(\.y)
        let extent = max(xs.max()! - xs.min()!, ys.max()! - ys.min()!)
        return extent > 0 ? nil : "the points of a template must not all be the same"
    }

    /// The rules of a template list: at least one, drawn ones well formed. Several may share a
    /// name: more examples of one gesture match better (the $1 paper, Wobbrock et al. 2007,
    /// measures accuracy rising with the number of templates per gesture).
    static func problem(in templates: [ShapeTemplate]) -> ParameterProblem? {
        guard !templates.isEmpty else { return ParameterProblem(message: "expected at least one template") }
        for (i, template) in templates.enumerated() {
            guard case .points(let name, let points) = template else { continue }
            if !RegionSpec.isValidName(name) {
                return ParameterProblem(path: [.index(i), .key("name")], message: RegionSpec.nameExpectation)
            }
            if let message = pointsProblem(points) {
                return ParameterProblem(path: [.index(i), .key("points")], message: message)
            }
        }
        return nil
    }
}

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
///
/// The machine is ``StrokeRecognizer``; this is the kind's part.
typealias ShapeRecognizer = StrokeRecognizer<Shape>

extension StrokeRecognizer where Gesture == Shape {
    /// The templates the shape machine matches against, prepared once (``CompiledSet/shapes``).
    typealias Configuration = Shape.Configuration
}

struct Shape: StrokeGesture {
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
        points.reserveCapacity(Self.capacity)
        turns.reserveCapacity(Self.capacity)
        paths.reserveCapacity(Self.capacity)
    }

    var minFingers: Int { parameters.minFingers }
    var maxFingers: Int { parameters.maxFingers }
    var settle: TimeSpan { parameters.settle }

    mutating func start(at origin: Vec2) {
        self.origin = origin
        keep(origin)
    }

    /// Keeps the stroke's point when it is ``step`` from the last one kept: something new.
    mutating func follow(_ stroke: Stroke, at time: Timestamp) -> Bool {
        let p = origin + stroke.moved
        guard (p - points[points.count - 1]).length >= Self.step else { return false }
        keep(p)
        return true
    }

    /// A closed loop recognizes the circle, a straight run gives up (circle only).
    mutating func decide(_ stroke: Stroke, at time: Timestamp, lifted: Bool) -> StrokeDecision {
        guard parameters.hasCircle else { return .wait }
        if let report = circleReport(stroke, at: time, lifted: false) { return .recognize(report) }
        if !parameters.hasPoints, let deviation = straightRunDeviation() {
            return .fail(
                Failure(
                    .straightRun, .circleStraightRunDeviation, measured: deviation,
                    limit: parameters.straightRunDeviation.value))
        }
        return .wait
    }

    /// The report for the stroke if it ends in a circle: while it moves, its last loop (the
    /// last full 360° of heading); at the lift, the whole stroke, then the last loop of it.
    private mutating func circleReport(_ stroke: Stroke, at time: Timestamp, lifted: Bool) -> Report? {
        let start = lastLoopStart()
        let isLoop = abs(turns[points.count - 1] - turns[start]) >= 2 * Double.pi
        guard lifted else {
            return isLoop ? circleReport(stroke, at: time, start..<points.count, as: .moving) : nil
        }
        // Every candidate lies within the whole stroke: nothing to measure when it is too small.
        guard let (low, high) = bounds(points.indices), max(high.x - low.x, high.y - low.y) >= parameters.minSize.value,
            let whole = circle.measure(points, points.indices)
        else { return nil }
        let single = whole.turn <= parameters.circle.overshootTurn
        if whole.failure(as: .whole(single: single), parameters.circle) == nil,
            let report = circleReport(stroke, at: time, low: low, high: high)
        {
            return report
        }
        guard isLoop && start > 0 else { return nil }
        return circleReport(stroke, at: time, start..<points.count, as: .lastLoop(single: single))
    }

    /// The report for the loop ``circle`` measured last (spanning `low`…`high`) if it scores
    /// `min-score` against the circle templates.
    private mutating func circleReport(_ stroke: Stroke, at time: Timestamp, low: Vec2, high: Vec2) -> Report? {
        guard
            let (index, score) = matcher.match(
                circle.loop, circle.loop.indices, against: parameters.templates, builtIn: true),
            score >= parameters.minScore
        else { return nil }
        return report(stroke, at: time, shape: index, score: score, low: low, high: high)
    }

    /// The report for `points[range]` as `candidate` if it is a circle.
    private mutating func circleReport(
        _ stroke: Stroke, at time: Timestamp, _ range: Range<Int>, as candidate: CircleCheck.Candidate
    ) -> Report? {
        guard let (low, high) = bounds(range), max(high.x - low.x, high.y - low.y) >= parameters.minSize.value,
            let measures = circle.measure(points, range), measures.failure(as: candidate, parameters.circle) == nil
        else { return nil }
        return circleReport(stroke, at: time, low: low, high: high)
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

    /// The last finger lifted: too few fingers fail; else a circle that did not close, then the
    /// whole stroke against the templates of points.
    mutating func lifted(_ stroke: Stroke, at time: Timestamp) -> StrokeVerdict {
        guard stroke.fingers >= parameters.minFingers else {
            return .fail(.tooFewFingers(stroke.fingers, least: parameters.minFingers))
        }
        if parameters.hasCircle, let report = circleReport(stroke, at: time, lifted: true) { return .recognize(report) }
        guard parameters.hasPoints,
            let (low, high) = bounds(points.indices), max(high.x - low.x, high.y - low.y) >= parameters.minSize.value,
            let (index, score) = matcher.match(points, points.indices, against: parameters.templates, builtIn: false),
            score >= parameters.minScore
        else {
            // No template matched; ``explain(_:_:)`` measures which check stopped it when asked.
            return .fail(Failure(.scoreTooLow, .minScore, measured: 0, limit: parameters.minScore))
        }
        return .recognize(report(stroke, at: time, shape: index, score: score, low: low, high: high))
    }

    /// No template matched at the lift: the check that stopped the stroke — for a circle, what
    /// stopped the whole stroke (or, for a stroke that went round more than
    /// `circle-overshoot-turn-deg`, its last loop): its size, its geometry, its score; for
    /// templates of points the size and the score of the whole stroke (those are tried last, so
    /// they give the reason when present).
    mutating func explain(_ failure: Failure, _ stroke: Stroke) -> Failure {
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

    private func report(
        _ stroke: Stroke, at time: Timestamp, shape: Int, score: Double, low: Vec2, high: Vec2
    ) -> Report {
        let center = SurfacePoint(x: (low.x + high.x) / 2 / scale.width, y: (low.y + high.y) / 2 / scale.height)
        var r = Report(time: time, fingers: stroke.fingers, position: center)
        r.translation = stroke.translation
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

    mutating func reset() {
        points.removeAll(keepingCapacity: true)
        turns.removeAll(keepingCapacity: true)
        paths.removeAll(keepingCapacity: true)
    }
}

extension GestureKind {
    /// `shape` (``ShapeParameters``).
    public static var shape: GestureKind { GestureKind(ShapeKind.self) }
}

extension RecognizerParameters {
    /// The parameters of a shape recognizer.
    public static func shape(_ parameters: ShapeParameters) -> RecognizerParameters {
        RecognizerParameters(ShapeKind.self, parameters)
    }
}

/// `shape` in the engine's list of kinds (``RegisteredKinds``).
enum ShapeKind: KindDefinition {
    typealias Parameters = ShapeParameters
    typealias Machine = ShapeRecognizer
    static let name = "shape"
    static let isContinuous = false
    static func mostFingers(_ parameters: ShapeParameters) -> Int { parameters.maxFingers }
    static func templateCount(_ parameters: ShapeParameters) -> Int { parameters.templates.count }

    /// The templates, resampled once per owner's definitions (a built-in shape drawn either way round).
    static func prepare(_ parameters: ShapeParameters) -> (any PreparedParameters)? {
        ShapeRecognizer.Configuration(parameters)
    }

    /// The machine matches against the templates prepared (``CompiledSet/prepared``).
    static func machine(_ r: Int, _ c: CompiledSet, scale: MeasuringScale) -> ShapeRecognizer {
        ShapeRecognizer(c.prepared[r] as! ShapeRecognizer.Configuration, scale: scale)
    }
}

extension ShapeRecognizer.Configuration: PreparedParameters {
    /// A matched template's name is the gesture's `shape`.
    var shapeNames: [String] { templates.map(\.name) }
}

extension ShapeKind {
    /// The checks a shape fails with and the key each names (the registry's table).
    static let failures: [(check: FailureCheck, key: ParameterKey?)] =
        [
            (.tooManyFingers, .maxFingers), (.tooFewFingers, .minFingers),
            (.straightRun, .circleStraightRunDeviation), (.shapeTooSmall, .minSize), (.scoreTooLow, .minScore),
        ] + CircleCheck.failures + FingerSettling.failures
}
