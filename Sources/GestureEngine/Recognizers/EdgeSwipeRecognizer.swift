/// `edge-swipe`: `fingers` fingers that land within `band-mm` of one of `edges` and move
/// `min-distance-mm` away from it, more across the edge than along it
/// (UIScreenEdgePanGestureRecognizer). Continuous; reports the edge.
///
/// | state \ input | fingers land | fingers move | a finger lifts, others stay | the last finger lifts |
/// |---|---|---|---|---|
/// | tracking | outside the band of the edge the first finger chose, or more than `fingers` → fail | inward ≥ min-distance and inward > along → active: **begin**; along ≥ min-distance and along > inward → fail | fail | fail |
/// | active | followed | **change** | followed | → done: **end** |
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
    mutating func accepts(landing added: UInt64, _ touches: borrowing TouchTable) -> Bool {
        for slot in SlotBits(added) {
            guard let e = nearestEdge(touches.starts[slot]), edge == nil || edge == e else { return false }
            edge = e
        }
        return true
    }

    func track(_ input: RecognizerInput, down: Int, translation: SurfaceVector) -> TrackingDecision {
        if down > parameters.fingers || input.lifted != 0 { return .fail }
        guard down == parameters.fingers, input.moved != 0, let edge else { return .wait }
        let d = scale.mm(translation)
        let inward: Double
        let along: Double
        switch edge {
        case .left: (inward, along) = (d.x, abs(d.y))
        case .right: (inward, along) = (-d.x, abs(d.y))
        case .top: (inward, along) = (d.y, abs(d.x))
        case .bottom: (inward, along) = (-d.y, abs(d.x))
        }
        if inward >= parameters.minDistance.value && inward > along { return .begin }
        if along >= parameters.minDistance.value && along > inward { return .fail }
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
            let distance: Double
            switch candidate {
            case .left: distance = p.x * scale.width
            case .right: distance = (1 - p.x) * scale.width
            case .top: distance = p.y * scale.height
            case .bottom: distance = (1 - p.y) * scale.height
            }
            if distance <= bestDistance {
                bestDistance = distance
                best = candidate
            }
        }
        return best
    }
}
