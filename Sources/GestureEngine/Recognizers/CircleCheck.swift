/// The geometric test of the built-in `circle`, beside its $1 template score: a $1 score alone
/// cannot tell a circle from a square or a triangle once the stroke is scaled into a square, so
/// the loop must also *be* round. Ellipses count as circles drawn askew: the loop is first
/// mapped onto its principal axes and scaled to unit spread on both (whitened), which turns any
/// ellipse into a circle and leaves squares square and triangles triangular. Then:
///
/// - **radius spread**: the distances from a least-squares circle (Kåsa's fit) vary by at most
///   ``maxSpread`` of their mean (coefficient of variation): a circle drawn by hand stays near
///   0.02–0.06, a whitened square is 0.10, a triangle 0.2;
/// - **even turning**: no eighth of the loop turns more than ``maxEighthTurn`` (a round loop turns
///   45° in every eighth; the corner of a square 90°, of a triangle 120°, of a star 144°);
/// - **closure**: the ends are at most ``maxGap`` of the diameter apart (a loop of 320° leaves a
///   gap of 0.34, a spiral whose radius grows by half in a turn 0.5);
/// - **not a line**: the short principal axis is at least ``minAxisRatio`` of the long one.
///
/// The turn itself (320°–400°) is measured by the caller on the stroke as drawn. Thresholds were
/// tuned on the generated stroke set of the tests (`StrokeSetTests`) and checked on the real
/// recordings of `Tests/TouchInputTests/Fixtures/tablets-indirect-touch` (docs/RECOGNIZERS.md).
/// Works in buffers reserved once: checking a loop does not allocate.
struct CircleCheck {
    static let sampleCount = 64
    static let maxSpread = 0.075
    static let maxEighthTurn = 72.0 * Double.pi / 180
    static let maxGap = 0.42
    static let minAxisRatio = 0.3

    /// What was measured of one loop (whitened space).
    struct Measures {
        var spread: Double
        var eighthTurn: Double
        var gap: Double
        var axisRatio: Double

        var isCircle: Bool {
            axisRatio >= CircleCheck.minAxisRatio && spread <= CircleCheck.maxSpread
                && eighthTurn <= CircleCheck.maxEighthTurn && gap <= CircleCheck.maxGap
        }
    }

    private var loop: [Vec2] = []
    private var headings: [Double] = []

    init() {
        loop.reserveCapacity(Self.sampleCount)
        headings.reserveCapacity(Self.sampleCount)
    }

    /// Measures `points[range]` (millimetres); nil when it has no extent.
    mutating func measure(_ points: borrowing [Vec2], _ range: Range<Int>) -> Measures? {
        guard resamplePath(points, range, count: Self.sampleCount, into: &loop) else { return nil }
        let n = Double(loop.count)

        // Principal axes of the loop's points.
        var c = Vec2.zero
        for p in loop { c = c + p }
        c = c * (1 / n)
        var sxx = 0.0
        var syy = 0.0
        var sxy = 0.0
        for p in loop {
            let d = p - c
            sxx += d.x * d.x
            syy += d.y * d.y
            sxy += d.x * d.y
        }
        let mean = (sxx + syy) / 2
        let diff = (sxx - syy) / 2
        let root = (diff * diff + sxy * sxy).squareRoot()
        let major = mean + root
        let minor = mean - root
        guard major > 0, minor > 0 else { return nil }
        // Unit vector of the major axis (any unit vector when the spread is isotropic).
        var ax = sxy
        var ay = major - sxx
        if abs(ax) + abs(ay) < 1e-12 * major {
            ax = major - syy
            ay = sxy
        }
        if abs(ax) + abs(ay) < 1e-12 * major {
            ax = 1
            ay = 0
        }
        let norm = (ax * ax + ay * ay).squareRoot()
        ax /= norm
        ay /= norm
        let su = 1 / (major / n).squareRoot()
        let sv = 1 / (minor / n).squareRoot()
        for i in loop.indices {
            let d = loop[i] - c
            loop[i] = Vec2(x: (d.x * ax + d.y * ay) * su, y: (-d.x * ay + d.y * ax) * sv)
        }

        let center = Self.kasaCenter(loop)
        var sum = 0.0
        var sumSquares = 0.0
        for p in loop {
            let r = (p - center).length
            sum += r
            sumSquares += r * r
        }
        let meanRadius = sum / n
        guard meanRadius > 0 else { return nil }
        let variance = max(0, sumSquares / n - meanRadius * meanRadius)
        let gap = (loop[loop.count - 1] - loop[0]).length / (2 * meanRadius)
        return Measures(
            spread: variance.squareRoot() / meanRadius, eighthTurn: maxEighthTurn(), gap: gap,
            axisRatio: (minor / major).squareRoot())
    }

    /// The largest turn of any eighth of the loop, from headings over two segments (which
    /// smooths the jitter of single points), unwrapped so that differences are exact turns.
    private mutating func maxEighthTurn() -> Double {
        let n = loop.count
        let window = (n - 1) / 8
        headings.removeAll(keepingCapacity: true)
        for i in 1..<(n - 1) {
            let d = loop[i + 1] - loop[i - 1]
            let h = atan2Approx(d.y, d.x)
            headings.append(headings.isEmpty ? h : headings[headings.count - 1] + wrapAngle(h - headings[headings.count - 1]))
        }
        var worst = 0.0
        var i = window
        while i < headings.count {
            worst = max(worst, abs(headings[i] - headings[i - window]))
            i += 1
        }
        return worst
    }

    /// Kåsa's algebraic circle fit: minimises Σ (x² + y² + Dx + Ey + F)², a linear least-squares
    /// problem (3 × 3 normal equations, solved by Cramer's rule). Returns the centre.
    static func kasaCenter(_ points: borrowing [Vec2]) -> Vec2 {
        var sx = 0.0
        var sy = 0.0
        var sxx = 0.0
        var syy = 0.0
        var sxy = 0.0
        var sz = 0.0
        var sxz = 0.0
        var syz = 0.0
        for i in points.indices {
            let p = points[i]
            let z = p.x * p.x + p.y * p.y
            sx += p.x
            sy += p.y
            sxx += p.x * p.x
            syy += p.y * p.y
            sxy += p.x * p.y
            sz += z
            sxz += p.x * z
            syz += p.y * z
        }
        let n = Double(points.count)
        // | sxx sxy sx |   | D |     | sxz |
        // | sxy syy sy | · | E | = − | syz |
        // | sx  sy  n  |   | F |     | sz  |
        @inline(__always) func det(
            _ a: Double, _ b: Double, _ c: Double, _ d: Double, _ e: Double, _ f: Double, _ g: Double, _ h: Double,
            _ i: Double
        ) -> Double { a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g) }
        let full = det(sxx, sxy, sx, sxy, syy, sy, sx, sy, n)
        guard abs(full) > 1e-12 * max(1, abs(sxx * syy * n)) else { return Vec2(x: sx / n, y: sy / n) }
        let d = det(-sxz, sxy, sx, -syz, syy, sy, -sz, sy, n) / full
        let e = det(sxx, -sxz, sx, sxy, -syz, sy, sx, -sz, n) / full
        return Vec2(x: -d / 2, y: -e / 2)
    }
}
