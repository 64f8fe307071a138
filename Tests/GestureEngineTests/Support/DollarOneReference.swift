import Foundation

/// The $1 unistroke recognizer exactly as its paper gives it (Wobbrock, Wilson and Li, "Gestures
/// without libraries, toolkits or training", UIST 2007, Appendix A): the yardstick the `shape`
/// recognizer's templates of points are measured against (HumanStrokeTests). Written from the
/// paper's pseudocode, independent of the engine: N = 64, square size 250, rotation to the
/// indicative angle, non-uniform scaling to the square, golden-section search over ±45° to 2°,
/// score = 1 − distance / (½ √(2 · 250²)).
struct DollarOneReference {
    typealias Point = (x: Double, y: Double)

    static let n = 64
    static let size = 250.0
    static let angleRange = 45.0 * Double.pi / 180
    static let anglePrecision = 2.0 * Double.pi / 180
    static let phi = 0.5 * (-1 + 5.0.squareRoot())

    var templates: [(name: String, points: [Point])] = []

    mutating func add(_ name: String, _ points: [Point]) { templates.append((name, Self.normalize(points))) }

    /// Step 4: the template with the least path distance, and the score.
    func recognize(_ points: [Point]) -> (name: String, score: Double) {
        let candidate = Self.normalize(points)
        var best = Double.infinity
        var name = ""
        for t in templates {
            let d = Self.distanceAtBestAngle(candidate, t.points)
            if d < best {
                best = d
                name = t.name
            }
        }
        return (name, 1 - best / (0.5 * (2 * Self.size * Self.size).squareRoot()))
    }

    /// Steps 1–3.
    static func normalize(_ points: [Point]) -> [Point] {
        var p = resample(points, n)
        p = rotate(p, by: -indicativeAngle(p))
        p = scaleToSquare(p)
        return translateToOrigin(p)
    }

    static func resample(_ input: [Point], _ n: Int) -> [Point] {
        var points = input
        let interval = pathLength(points) / Double(n - 1)
        var accumulated = 0.0
        var output = [points[0]]
        var i = 1
        while i < points.count {
            let d = distance(points[i - 1], points[i])
            if accumulated + d >= interval && d > 0 {
                let t = (interval - accumulated) / d
                let q = (
                    x: points[i - 1].x + t * (points[i].x - points[i - 1].x),
                    y: points[i - 1].y + t * (points[i].y - points[i - 1].y)
                )
                output.append(q)
                points.insert(q, at: i)
                accumulated = 0
            } else {
                accumulated += d
            }
            i += 1
        }
        // Rounding can leave the last point out.
        if output.count == n - 1 { output.append(points[points.count - 1]) }
        return Array(output.prefix(n))
    }

    static func indicativeAngle(_ points: [Point]) -> Double {
        let c = centroid(points)
        return atan2(c.y - points[0].y, c.x - points[0].x)
    }

    static func rotate(_ points: [Point], by angle: Double) -> [Point] {
        let c = centroid(points)
        return points.map { p in
            (
                x: (p.x - c.x) * cos(angle) - (p.y - c.y) * sin(angle) + c.x,
                y: (p.x - c.x) * sin(angle) + (p.y - c.y) * cos(angle) + c.y
            )
        }
    }

    static func scaleToSquare(_ points: [Point]) -> [Point] {
        let xs = points.map(\.x)
        let ys = points.map(\.y)
        let width = xs.max()! - xs.min()!
        let height = ys.max()! - ys.min()!
        return points.map { (x: $0.x * size / width, y: $0.y * size / height) }
    }

    static func translateToOrigin(_ points: [Point]) -> [Point] {
        let c = centroid(points)
        return points.map { (x: $0.x - c.x, y: $0.y - c.y) }
    }

    static func distanceAtBestAngle(_ points: [Point], _ template: [Point]) -> Double {
        var a = -angleRange
        var b = angleRange
        var x1 = phi * a + (1 - phi) * b
        var f1 = distanceAtAngle(points, template, x1)
        var x2 = (1 - phi) * a + phi * b
        var f2 = distanceAtAngle(points, template, x2)
        while abs(b - a) > anglePrecision {
            if f1 < f2 {
                b = x2
                x2 = x1
                f2 = f1
                x1 = phi * a + (1 - phi) * b
                f1 = distanceAtAngle(points, template, x1)
            } else {
                a = x1
                x1 = x2
                f1 = f2
                x2 = (1 - phi) * a + phi * b
                f2 = distanceAtAngle(points, template, x2)
            }
        }
        return min(f1, f2)
    }

    static func distanceAtAngle(_ points: [Point], _ template: [Point], _ angle: Double) -> Double {
        pathDistance(rotate(points, by: angle), template)
    }

    static func pathDistance(_ a: [Point], _ b: [Point]) -> Double {
        var d = 0.0
        for i in 0..<min(a.count, b.count) { d += distance(a[i], b[i]) }
        return d / Double(a.count)
    }

    static func centroid(_ points: [Point]) -> Point {
        (
            x: points.reduce(0) { $0 + $1.x } / Double(points.count),
            y: points.reduce(0) { $0 + $1.y } / Double(points.count)
        )
    }

    static func pathLength(_ points: [Point]) -> Double {
        var d = 0.0
        for i in 1..<points.count { d += distance(points[i - 1], points[i]) }
        return d
    }

    static func distance(_ a: Point, _ b: Point) -> Double {
        ((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)).squareRoot()
    }
}
