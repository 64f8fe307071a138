/// `shape`: a one-finger stroke matched against templates when the finger lifts (discrete; the
/// custom recognizer of UIKit's "Implementing a custom gesture recognizer" tutorial, with $1
/// matching, see ``ShapeMatcher``). Reports the best template's name and score.
///
/// | state \ input | fingers land | the finger moves | the finger lifts |
/// |---|---|---|---|
/// | tracking | a second finger → fail | record the point | stroke spans min-size and best score ≥ min-score → **recognize**, else fail |
/// | done | ignored | ignored | ignored |
///
/// No timers. The stroke buffer holds ``capacity`` points; when it is full every other point is
/// dropped (resampling evens out the density), so a long stroke never allocates.
struct ShapeRecognizer: Recognizer {
    enum State { case tracking, done }

    static let capacity = 512

    /// What the recognizer matches against (templates prepared once, at configuration time).
    struct Configuration: Sendable {
        var templates: [ShapeMatcher.Template]
        var minScore: Double
        var minSize: Millimeters
    }

    let parameters: Configuration
    let scale: MeasuringScale
    private(set) var state = State.tracking
    var deadline: Timestamp? { nil }
    private var slot = -1
    private var points: [Vec2] = []
    private var matcher = ShapeMatcher()

    init(_ parameters: Configuration, scale: MeasuringScale) {
        self.parameters = parameters
        self.scale = scale
        points.reserveCapacity(Self.capacity)
    }

    mutating func update(_ input: RecognizerInput, _ touches: borrowing TouchTable) -> Proposal {
        guard state == .tracking else { return .none }
        if input.added != 0 {
            guard slot < 0, input.added.count == 1 else { return fail() }
            slot = input.added.trailingZeroBitCount
        }
        guard slot >= 0 else { return .none }
        if points.count == Self.capacity {
            var kept = 0
            for i in stride(from: 0, to: points.count, by: 2) {
                points[kept] = points[i]
                kept += 1
            }
            points.removeLast(points.count - kept)
        }
        points.append(scale.mm(touches.positions[slot]))
        guard input.live == 0 else { return .none }
        state = .done
        guard let report = decide(at: input.time, touches) else { return .fail }
        return .recognize(report)
    }

    private mutating func decide(at time: Timestamp, _ touches: borrowing TouchTable) -> Report? {
        var minX = Double.infinity
        var minY = Double.infinity
        var maxX = -Double.infinity
        var maxY = -Double.infinity
        for p in points {
            minX = min(minX, p.x)
            maxX = max(maxX, p.x)
            minY = min(minY, p.y)
            maxY = max(maxY, p.y)
        }
        guard max(maxX - minX, maxY - minY) >= parameters.minSize.value,
            let (index, score) = matcher.match(points, against: parameters.templates),
            score >= parameters.minScore
        else { return nil }
        let center = SurfacePoint(x: (minX + maxX) / 2 / scale.width, y: (minY + maxY) / 2 / scale.height)
        var r = Report(time: time, fingers: 1, position: center)
        r.translation = touches.positions[slot] - touches.starts[slot]
        r.shape = index
        r.score = score
        return r
    }

    mutating func timerFired(at time: Timestamp, _ touches: borrowing TouchTable) -> Proposal { .none }

    func snapshot(at time: Timestamp, _ touches: borrowing TouchTable) -> Report {
        Report(time: time, fingers: 1, position: slot >= 0 ? touches.positions[slot] : touches.centroid(0))
    }

    private mutating func fail() -> Proposal {
        state = .done
        return .fail
    }

    mutating func reset() {
        state = .tracking
        slot = -1
        points.removeAll(keepingCapacity: true)
    }
}
