/// `edge-swipe`: `fingers` fingers landing within `band-mm` of one of `edges` and moving
/// `min-distance-mm` away from it. Continuous, like UIScreenEdgePanGestureRecognizer.
public struct EdgeSwipeParameters: Hashable, Sendable {
    public var edges: Set<Edge> = Set(Edge.allCases)
    public var fingers: Int = 1
    public var band = Millimeters(8)
    public var minDistance = Millimeters(10)
    public init() {}
}

extension EdgeSwipeParameters: DescribedParameters {
    static var descriptors: [ParameterDescriptor<Self>] {
        [
            .choices("edges", \.edges, noun: "edge", "edges it starts from"),
            .fingers("fingers", \.fingers, "fingers"),
            .millimetres("band-mm", \.band, "how near an edge the fingers must land"),
            .millimetres("min-distance-mm", \.minDistance, "how far they move away from it before it begins"),
        ]
    }
}

/// `edge-swipe`: `fingers` fingers that land within `band-mm` of one of `edges` and move
/// `min-distance-mm` away from it, more across the edge than along it
/// (UIScreenEdgePanGestureRecognizer). Continuous; reports the edge.
///
/// | state \ input | fingers land | fingers move | a finger lifts, others stay | the last finger lifts |
/// |---|---|---|---|---|
/// | tracking | outside the band of the edge the first finger chose, or more than `fingers` → fail | inward ≥ min-distance and inward > along → active: **begin**; along ≥ min-distance and along > inward → fail | fail | fail |
/// | active | followed, up to `fingers` (R1) | **change** | followed | → done: **end** |
/// | done | ignored | ignored | ignored | ignored |
///
/// No timers. The machine is ``CentroidRecognizer``; this is the kind's part.
typealias EdgeSwipeRecognizer = CentroidRecognizer<EdgeSwipe>

struct EdgeSwipe: CentroidGesture {
    let parameters: EdgeSwipeParameters
    let scale: MeasuringScale
    /// The edge the first finger landed at.
    private var edge: Edge?

    init(_ parameters: EdgeSwipeParameters, scale: MeasuringScale) {
        self.parameters = parameters
        self.scale = scale
    }

    /// Every finger lands in the band of the same edge.
    mutating func refuses(landing added: UInt64, _ touches: borrowing TouchTable) -> Failure? {
        for slot in SlotBits(added) {
            guard let e = nearestEdge(touches.starts[slot]) else {
                return Failure(
                    .outsideBand, .band, measured: distanceToAllowedEdge(touches.starts[slot]),
                    limit: parameters.band.value)
            }
            guard edge == nil || edge == e else { return Failure(.otherEdge, nil, measured: 0, limit: 0) }
            edge = e
        }
        return nil
    }

    func track(_ input: RecognizerInput, down: Int, peak: Int, translation: SurfaceVector) -> TrackingDecision {
        if down > parameters.fingers {
            return .fail(
                Failure(.tooManyFingers, .fingers, measured: Double(down), limit: Double(parameters.fingers)))
        }
        let distance = parameters.minDistance.value
        if input.lifted != 0 {
            let inward = edge.map { motion(translation, from: $0).inward } ?? 0
            return .fail(Failure(.liftedBeforeEdgeSwipe, .minDistance, measured: max(0, inward), limit: distance))
        }
        guard down == parameters.fingers, input.moved != 0, let edge else { return .wait }
        let (inward, along) = motion(translation, from: edge)
        if inward >= distance && inward > along { return .begin }
        if along >= distance && along > inward {
            return .fail(Failure(.alongEdge, .minDistance, measured: along, limit: distance))
        }
        return .wait
    }

    func ends(down: Int) -> Bool { down == 0 }

    func annotate(_ report: inout Report, measureVelocity: Double) { report.edge = edge }

    mutating func reset() { edge = nil }

    /// The allowed edge whose band holds `p` (the nearest one in a corner).
    private func nearestEdge(_ p: SurfacePoint) -> Edge? {
        var best: Edge?
        var bestDistance = parameters.band.value
        for candidate in Edge.allCases where parameters.edges.contains(candidate) {
            let distance = self.distance(p, to: candidate)
            if distance <= bestDistance {
                bestDistance = distance
                best = candidate
            }
        }
        return best
    }

    /// Millimetres moved away from `edge` and along it.
    private func motion(_ translation: SurfaceVector, from edge: Edge) -> (inward: Double, along: Double) {
        let d = scale.mm(translation)
        switch edge {
        case .left: return (d.x, abs(d.y))
        case .right: return (-d.x, abs(d.y))
        case .top: return (d.y, abs(d.x))
        case .bottom: return (-d.y, abs(d.x))
        }
    }

    /// Millimetres from `p` to the nearest allowed edge (a loop: a `map` would allocate on the
    /// frame path).
    private func distanceToAllowedEdge(_ p: SurfacePoint) -> Double {
        var nearest = Double.infinity
        for edge in Edge.allCases where parameters.edges.contains(edge) { nearest = min(nearest, distance(p, to: edge)) }
        return nearest
    }

    private func distance(_ p: SurfacePoint, to edge: Edge) -> Double {
        switch edge {
        case .left: p.x * scale.width
        case .right: (1 - p.x) * scale.width
        case .top: p.y * scale.height
        case .bottom: (1 - p.y) * scale.height
        }
    }
}

extension GestureKind {
    /// `edge-swipe` (``EdgeSwipeParameters``).
    public static var edgeSwipe: GestureKind { GestureKind(EdgeSwipeKind.self) }
}

extension RecognizerParameters {
    /// The parameters of an edge swipe recognizer.
    public static func edgeSwipe(_ parameters: EdgeSwipeParameters) -> RecognizerParameters {
        RecognizerParameters(EdgeSwipeKind.self, parameters)
    }
}

/// `edge-swipe` in the engine's list of kinds (``RegisteredKinds``).
enum EdgeSwipeKind: KindDefinition {
    typealias Parameters = EdgeSwipeParameters
    typealias Machine = EdgeSwipeRecognizer
    static let name = "edge-swipe"
    static let isContinuous = true
    static func mostFingers(_ parameters: EdgeSwipeParameters) -> Int { parameters.fingers }

    /// `band-mm` along each of its edges, in ``Edge``'s order.
    static func edgeBands(_ parameters: EdgeSwipeParameters) -> [EdgeBand] {
        Edge.allCases.filter { parameters.edges.contains($0) }.map {
            EdgeBand(edge: $0, width: parameters.band, key: .band)
        }
    }
}

extension EdgeSwipeKind {
    /// The checks an edge swipe fails with and the key each names (the registry's table).
    static let failures: [(check: FailureCheck, key: ParameterKey?)] = [
        (.outsideBand, .band), (.otherEdge, nil), (.tooManyFingers, .fingers), (.liftedBeforeEdgeSwipe, .minDistance),
        (.alongEdge, .minDistance),
    ]
}
