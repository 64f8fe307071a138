/// The geometric test of the built-in `circle`, beside its $1 template score. A $1 score alone
/// cannot tell a circle from a square or a triangle once the stroke is scaled into a square, so
/// the loop must also *be* round. Ellipses count as circles drawn askew: an ellipse is fitted to
/// the loop (least squares on the conic `Ax² + Bxy + Cy² + Dx + Ey = 1`) and the loop is mapped
/// through it onto a unit circle, which makes any ellipse round and leaves a square square and a
/// triangle triangular.
///
/// People's circles start with a hook and end past or short of their start, inside or outside it
/// (docs/RECOGNIZERS.md, "People's strokes"). With r the distance from the ellipse's centre of
/// ``sampleCount`` points evenly spaced along the mapped loop and θ how far round the centre each
/// is, each measure against its key of `shape` (``Limits``):
///
/// - **not flat**: the short axis of the ellipse is at least `circle-min-axis-ratio` of the long one;
/// - **turn**: the loop goes round the centre (θ at its end) at least `circle-min-turn-deg` for a
///   stroke lifted as a whole, `circle-loop-turn-deg` for a loop that is part of a longer stroke or
///   not yet lifted (a lead-in and an open arc is a question mark);
/// - **roundness**: r varies by at most `circle-max-spread` of its mean (coefficient of variation
///   about the straight line that fits r along the loop: a steady growth or shrinking is the
///   spiral check's);
/// - **no corners**: the 3rd to 5th harmonics of r over the angle stay below `circle-max-corners`
///   of its mean (a triangle shows in the 3rd, a square in the 4th, a star in the 5th);
/// - **not a spiral**: r at the two ends differs by at most `circle-max-spiral` of the mean — or
///   `circle-max-overshoot` for a stroke lifted after going round at most
///   `circle-overshoot-turn-deg`: one loop whose end overshoots its start is no spiral.
///
/// Works in buffers reserved once: checking a loop does not allocate.
struct CircleCheck {
    static let sampleCount = 64

    /// The limits, from the recognizer's parameters.
    struct Limits: Hashable, Sendable {
        var minAxisRatio: Double
        var maxSpread: Double
        var maxCorners: Double
        /// Degrees.
        var minTurn: Double
        var loopTurn: Double
        var maxSpiral: Double
        var maxOvershoot: Double
        /// Degrees.
        var overshootTurn: Double

        init(_ p: ShapeParameters) {
            minAxisRatio = p.circleMinAxisRatio
            maxSpread = p.circleMaxSpread
            maxCorners = p.circleMaxCorners
            minTurn = p.circleMinTurn
            loopTurn = p.circleLoopTurn
            maxSpiral = p.circleMaxSpiral
            maxOvershoot = p.circleMaxOvershoot
            overshootTurn = p.circleOvershootTurn
        }
    }

    /// Which part of a stroke is checked.
    enum Candidate {
        /// The last loop (360° of heading) while the stroke moves: it must close, and a spiral
        /// may still be coming.
        case moving
        /// At the lift, the last loop of a longer stroke; `single`: the whole stroke went round
        /// at most `circle-overshoot-turn-deg`.
        case lastLoop(single: Bool)
        /// At the lift, the whole stroke.
        case whole(single: Bool)
    }

    /// What was measured of one loop.
    struct Measures {
        /// Short over long axis of the fitted ellipse.
        var axisRatio: Double
        /// Degrees the loop goes round the ellipse's centre.
        var turn: Double
        /// Coefficient of variation of r about its line along the loop.
        var spread: Double
        /// The largest of the 3rd, 4th and 5th harmonics of r, over the mean.
        var corners: Double
        /// Difference of r at the ends over the mean.
        var endRadii: Double

        /// The first check the loop fails as `candidate`, if any.
        func failure(as candidate: Candidate, _ limits: Limits) -> Failure? {
            if axisRatio < limits.minAxisRatio {
                return Failure(.flat, .circleMinAxisRatio, measured: axisRatio, limit: limits.minAxisRatio)
            }
            let (turnKey, minTurn): (ParameterKey, Double) =
                switch candidate {
                case .whole: (.circleMinTurn, limits.minTurn)
                case .moving, .lastLoop: (.circleLoopTurn, limits.loopTurn)
                }
            if turn < minTurn { return Failure(.turnTooSmall, turnKey, measured: turn, limit: minTurn) }
            if spread > limits.maxSpread {
                return Failure(.notRound, .circleMaxSpread, measured: spread, limit: limits.maxSpread)
            }
            if corners > limits.maxCorners {
                return Failure(.corners, .circleMaxCorners, measured: corners, limit: limits.maxCorners)
            }
            let (endKey, maxEnds): (ParameterKey, Double) =
                switch candidate {
                case .lastLoop(single: true), .whole(single: true): (.circleMaxOvershoot, limits.maxOvershoot)
                case .moving, .lastLoop(single: false), .whole(single: false): (.circleMaxSpiral, limits.maxSpiral)
                }
            if endRadii > maxEnds { return Failure(.spiral, endKey, measured: endRadii, limit: maxEnds) }
            return nil
        }
    }

    /// The last loop measured, once measured: resampled and mapped through its ellipse onto a
    /// circle (the loop "seen straight", which the circle templates are matched against).
    private(set) var loop: [Vec2] = []
    /// The 5 × 6 augmented normal equations of the conic fit.
    private var system: [Double] = Array(repeating: 0, count: 30)

    init() { loop.reserveCapacity(Self.sampleCount) }

    /// Measures `points[range]` (millimetres); nil when no ellipse fits it.
    mutating func measure(_ points: borrowing [Vec2], _ range: Range<Int>) -> Measures? {
        guard resamplePath(points, range, count: Self.sampleCount, into: &loop) else { return nil }
        let n = Double(loop.count)

        // Centre on the centroid and scale to unit RMS radius, so the fit is well conditioned.
        var c = Vec2.zero
        for p in loop { c = c + p }
        c = c * (1 / n)
        var squares = 0.0
        for p in loop { squares += (p - c).x * (p - c).x + (p - c).y * (p - c).y }
        guard squares > 0 else { return nil }
        let unit = 1 / (squares / n).squareRoot()
        for i in loop.indices { loop[i] = (loop[i] - c) * unit }

        guard let (a, b, cc, d, e) = fitConic() else { return nil }
        // Centre of the conic: [2A B; B 2C] · centre = −(D, E).
        let det = 4 * a * cc - b * b
        guard det > 0, a > 0 else { return nil }
        let center = Vec2(x: (-2 * cc * d + b * e) / det, y: (b * d - 2 * a * e) / det)
        let k = 1 + a * center.x * center.x + b * center.x * center.y + cc * center.y * center.y
        guard k > 0 else { return nil }
        // Axes: eigenvalues and eigenvectors of [A B/2; B/2 C].
        let mean = (a + cc) / 2
        let root = (((a - cc) / 2) * ((a - cc) / 2) + b * b / 4).squareRoot()
        let large = mean + root
        let small = mean - root
        guard small > 0 else { return nil }
        var ux = b / 2
        var uy = large - a
        if abs(ux) + abs(uy) < 1e-12 {
            ux = large - cc
            uy = b / 2
        }
        if abs(ux) + abs(uy) < 1e-12 {
            ux = 1
            uy = 0
        }
        let norm = (ux * ux + uy * uy).squareRoot()
        ux /= norm
        uy /= norm
        let sLarge = (large / k).squareRoot()
        let sSmall = (small / k).squareRoot()

        // Onto the unit circle. How far round the centre the loop goes: the angle from its first
        // point to its last plus a full turn for each crossing of the negative x axis (the cut of
        // atan2), either way — the sum of its steps without an atan2 for each. And r at each point
        // against the point's index (the points are evenly spaced along the loop), summed for
        // their least-squares line.
        var crossings = 0
        var (sumI, sumII, sumR, sumRR, sumIR) = (0.0, 0.0, 0.0, 0.0, 0.0)
        for i in loop.indices {
            let q = loop[i] - center
            loop[i] = Vec2(x: (q.x * ux + q.y * uy) * sLarge, y: (-q.x * uy + q.y * ux) * sSmall)
            if i > 0 {
                let (p, r) = (loop[i - 1], loop[i])
                if (p.y >= 0) != (r.y >= 0) && p.x - p.y * (r.x - p.x) / (r.y - p.y) < 0 {
                    crossings += p.y >= 0 ? 1 : -1
                }
            }
            let r = loop[i].length
            let t = Double(i)
            sumI += t
            sumII += t * t
            sumR += r
            sumRR += r * r
            sumIR += t * r
        }
        let first = loop[0]
        let last = loop[loop.count - 1]
        let theta =
            atan2Approx(last.y, last.x) - atan2Approx(first.y, first.x) + 2 * Double.pi * Double(crossings)
        let meanRadius = sumR / n
        guard meanRadius > 0 else { return nil }
        // The spread of r about its least-squares line along the loop.
        let varianceI = max(0, sumII / n - (sumI / n) * (sumI / n))
        let varianceR = max(0, sumRR / n - meanRadius * meanRadius)
        let covariance = sumIR / n - (sumI / n) * meanRadius
        let residual = varianceI > 0 ? max(0, varianceR - covariance * covariance / varianceI) : varianceR
        // Harmonics 3…5 of r over the angle (powers of e^{iθ}).
        var h3 = Vec2.zero
        var h4 = Vec2.zero
        var h5 = Vec2.zero
        for p in loop {
            let r = p.length
            guard r > 0 else { continue }
            let e1 = Vec2(x: p.x / r, y: p.y / r)
            let e2 = e1.times(e1)
            let e4 = e2.times(e2)
            let dr = r - meanRadius
            h3 = h3 + e2.times(e1) * dr
            h4 = h4 + e4 * dr
            h5 = h5 + e4.times(e1) * dr
        }
        return Measures(
            axisRatio: (small / large).squareRoot(), turn: abs(theta) * 180 / Double.pi,
            spread: residual.squareRoot() / meanRadius,
            corners: 2 * max(h3.length, h4.length, h5.length) / n / meanRadius,
            endRadii: abs(loop[loop.count - 1].length - loop[0].length) / meanRadius)
    }

    /// Least squares for `Ax² + Bxy + Cy² + Dx + Ey = 1` over ``loop``: the normal equations,
    /// solved by Gaussian elimination with partial pivoting. Nil when they are singular.
    private mutating func fitConic() -> (Double, Double, Double, Double, Double)? {
        // Sums of the monomials of x and y up to degree 4.
        var (x4, x3y, x2y2, xy3, y4) = (0.0, 0.0, 0.0, 0.0, 0.0)
        var (x3, x2y, xy2, y3) = (0.0, 0.0, 0.0, 0.0)
        var (x2, xy, y2, x1, y1) = (0.0, 0.0, 0.0, 0.0, 0.0)
        for p in loop {
            let (x, y) = (p.x, p.y)
            let (xx, yy, xyp) = (x * x, y * y, x * y)
            x4 += xx * xx
            x3y += xx * xyp
            x2y2 += xx * yy
            xy3 += xyp * yy
            y4 += yy * yy
            x3 += xx * x
            x2y += xx * y
            xy2 += x * yy
            y3 += yy * y
            x2 += xx
            xy += xyp
            y2 += yy
            x1 += x
            y1 += y
        }
        // Normal equations: row i is Σ mᵢ·(x², xy, y², x, y) | Σ mᵢ for the monomial mᵢ.
        let sums = (x4, x3y, x2y2, xy3, y4, x3, x2y, xy2, y3, x2, xy, y2, x1, y1)
        fill(0, sums.0, sums.1, sums.2, sums.5, sums.6, sums.9)
        fill(1, sums.1, sums.2, sums.3, sums.6, sums.7, sums.10)
        fill(2, sums.2, sums.3, sums.4, sums.7, sums.8, sums.11)
        fill(3, sums.5, sums.6, sums.7, sums.9, sums.10, sums.12)
        fill(4, sums.6, sums.7, sums.8, sums.10, sums.11, sums.13)
        for col in 0..<5 {
            var pivot = col
            for r in (col + 1)..<5 where abs(system[r * 6 + col]) > abs(system[pivot * 6 + col]) { pivot = r }
            guard abs(system[pivot * 6 + col]) > 1e-12 else { return nil }
            if pivot != col {
                for j in 0..<6 { system.swapAt(col * 6 + j, pivot * 6 + j) }
            }
            for r in 0..<5 where r != col {
                let f = system[r * 6 + col] / system[col * 6 + col]
                guard f != 0 else { continue }
                for j in col..<6 { system[r * 6 + j] -= f * system[col * 6 + j] }
            }
        }
        return (
            system[5] / system[0], system[11] / system[7], system[17] / system[14], system[23] / system[21],
            system[29] / system[28]
        )
    }

    private mutating func fill(
        _ row: Int, _ a: Double, _ b: Double, _ c: Double, _ d: Double, _ e: Double, _ rhs: Double
    ) {
        system[row * 6] = a
        system[row * 6 + 1] = b
        system[row * 6 + 2] = c
        system[row * 6 + 3] = d
        system[row * 6 + 4] = e
        system[row * 6 + 5] = rhs
    }
}

extension Vec2 {
    /// The complex product (rotations and powers of unit vectors).
    @inline(__always) fileprivate func times(_ o: Vec2) -> Vec2 { Vec2(x: x * o.x - y * o.y, y: x * o.y + y * o.x) }
}

extension CircleCheck {
    /// The circle's checks and the key of each limit (the shape kind's built-in circle).
    static let failures: [(check: FailureCheck, key: ParameterKey?)] = [
        (.flat, .circleMinAxisRatio), (.turnTooSmall, .circleMinTurn), (.turnTooSmall, .circleLoopTurn),
        (.notRound, .circleMaxSpread), (.corners, .circleMaxCorners), (.spiral, .circleMaxOvershoot),
        (.spiral, .circleMaxSpiral),
    ]
}
