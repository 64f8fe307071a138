/// Template matching of one-finger strokes with the $1 unistroke recognizer (Wobbrock, Wilson
/// and Li, UIST 2007): resample the stroke to ``sampleCount`` equidistant points, rotate it so the
/// line from its centroid to its first point is at angle zero, scale it into a square, move its
/// centroid to the origin, then find the rotation within ±45° that brings it closest to each
/// template (golden-section search). Score = 1 − distance / (half the square's diagonal).
///
/// Strokes that are nearly one-dimensional (a line) are scaled uniformly, as $N does, so that a
/// straight swipe is not stretched into a blob. All work happens in buffers reserved up front:
/// matching at a lift does not allocate.
struct ShapeMatcher {
    static let sampleCount = 64
    static let squareSize = 250.0
    /// Below this ratio of the short to the long side a stroke counts as one-dimensional ($N's
    /// `OneDThreshold`).
    static let oneDimensionalRatio = 0.25
    static let searchRange = 45.0 * Double.pi / 180
    static let searchPrecision = 2.0 * Double.pi / 180
    static let halfDiagonal = 0.5 * (2 * squareSize * squareSize).squareRoot()

    /// A template ready to compare against.
    struct Template: Hashable, Sendable {
        var name: String
        var points: [Vec2]
        /// Set for the built-in shape's own templates (the circle's geometric test applies).
        var builtIn: BuiltInShape? = nil
    }

    private var resampled: [Vec2] = []

    init() { resampled.reserveCapacity(Self.sampleCount + 1) }

    /// Prepares a template from its defining points (any scale, any position).
    static func template(name: String, points: [Vec2], builtIn: BuiltInShape? = nil) -> Template {
        var matcher = ShapeMatcher()
        matcher.normalize(points, points.indices)
        return Template(name: name, points: matcher.resampled, builtIn: builtIn)
    }

    /// The built-in templates: a circle drawn either way round, both named after the shape.
    static func templates(for shape: BuiltInShape) -> [Template] {
        switch shape {
        case .circle:
            let n = 64
            var clockwise: [Vec2] = []
            for i in 0...n {
                let (c, s) = cosSin(2 * Double.pi * Double(i) / Double(n))
                clockwise.append(Vec2(x: c, y: s))
            }
            return [
                template(name: shape.rawValue, points: clockwise, builtIn: shape),
                template(name: shape.rawValue, points: clockwise.reversed(), builtIn: shape),
            ]
        }
    }

    /// The best template for `stroke[range]` among those that are (`builtIn` true) or are not
    /// (false) built-in shapes, and its score (0…1); nil when the stroke is degenerate or no
    /// template qualifies.
    mutating func match(
        _ stroke: borrowing [Vec2], _ range: Range<Int>, against templates: borrowing [Template], builtIn: Bool
    ) -> (index: Int, score: Double)? {
        guard normalize(stroke, range) else { return nil }
        var best = -1
        var bestDistance = Double.infinity
        for i in templates.indices where (templates[i].builtIn != nil) == builtIn {
            let d = distanceAtBestAngle(templates[i].points)
            if d < bestDistance {
                bestDistance = d
                best = i
            }
        }
        guard best >= 0 else { return nil }
        return (best, 1 - bestDistance / Self.halfDiagonal)
    }

    /// Resample, rotate, scale and translate `points[range]` into ``resampled``; false when the
    /// stroke has no length.
    @discardableResult
    private mutating func normalize(_ points: borrowing [Vec2], _ range: Range<Int>) -> Bool {
        guard resamplePath(points, range, count: Self.sampleCount, into: &resampled) else { return false }

        // Rotate so the indicative angle (centroid → first point) is zero.
        var c = centroid()
        let indicative = atan2Approx(c.y - resampled[0].y, c.x - resampled[0].x)
        let (cos, sin) = cosSin(-indicative)
        for j in resampled.indices {
            let p = resampled[j] - c
            resampled[j] = Vec2(x: p.x * cos - p.y * sin, y: p.x * sin + p.y * cos)
        }

        // Scale into the square (uniformly when one-dimensional), centroid to the origin.
        var minX = Double.infinity
        var minY = Double.infinity
        var maxX = -Double.infinity
        var maxY = -Double.infinity
        for p in resampled {
            minX = min(minX, p.x)
            maxX = max(maxX, p.x)
            minY = min(minY, p.y)
            maxY = max(maxY, p.y)
        }
        let w = maxX - minX
        let h = maxY - minY
        let long = max(w, h)
        guard long > 0 else { return false }
        let uniform = min(w, h) / long <= Self.oneDimensionalRatio
        let sx = Self.squareSize / (uniform ? long : w)
        let sy = Self.squareSize / (uniform ? long : h)
        for j in resampled.indices { resampled[j] = Vec2(x: resampled[j].x * sx, y: resampled[j].y * sy) }
        c = centroid()
        for j in resampled.indices { resampled[j] = resampled[j] - c }
        return true
    }

    private func centroid() -> Vec2 {
        var sum = Vec2.zero
        for p in resampled { sum = sum + p }
        return sum * (1 / Double(resampled.count))
    }

    /// Golden-section search for the rotation of the candidate closest to `template`.
    private func distanceAtBestAngle(_ template: borrowing [Vec2]) -> Double {
        let phi = 0.5 * (-1 + 5.0.squareRoot())
        var a = -Self.searchRange
        var b = Self.searchRange
        var x1 = phi * a + (1 - phi) * b
        var f1 = distance(rotatedBy: x1, template)
        var x2 = (1 - phi) * a + phi * b
        var f2 = distance(rotatedBy: x2, template)
        while abs(b - a) > Self.searchPrecision {
            if f1 < f2 {
                b = x2
                x2 = x1
                f2 = f1
                x1 = phi * a + (1 - phi) * b
                f1 = distance(rotatedBy: x1, template)
            } else {
                a = x1
                x1 = x2
                f1 = f2
                x2 = (1 - phi) * a + phi * b
                f2 = distance(rotatedBy: x2, template)
            }
        }
        return min(f1, f2)
    }

    /// Mean distance between the candidate rotated by `angle` and the template, point by point.
    private func distance(rotatedBy angle: Double, _ template: borrowing [Vec2]) -> Double {
        let (cos, sin) = cosSin(angle)
        var sum = 0.0
        let n = min(resampled.count, template.count)
        for j in 0..<n {
            let p = resampled[j]
            let q = Vec2(x: p.x * cos - p.y * sin, y: p.x * sin + p.y * cos)
            sum += (q - template[j]).length
        }
        return n > 0 ? sum / Double(n) : Double.infinity
    }
}

/// `points[range]` resampled into `output` as `count` points evenly spaced along its path (the
/// first step of $1; the circle test measures the same way). False when the path has no length.
/// `output` keeps its capacity: resampling does not allocate once it is reserved.
func resamplePath(_ points: borrowing [Vec2], _ range: Range<Int>, count: Int, into output: inout [Vec2]) -> Bool {
    output.removeAll(keepingCapacity: true)
    guard range.count >= 2 else { return false }
    var length = 0.0
    for i in (range.lowerBound + 1)..<range.upperBound { length += (points[i] - points[i - 1]).length }
    guard length > 0 else { return false }
    let interval = length / Double(count - 1)
    var accumulated = 0.0
    var previous = points[range.lowerBound]
    output.append(previous)
    var i = range.lowerBound + 1
    while i < range.upperBound && output.count < count {
        let current = points[i]
        let d = (current - previous).length
        if d > 0 && accumulated + d >= interval {
            let q = previous + (current - previous) * ((interval - accumulated) / d)
            output.append(q)
            previous = q
            accumulated = 0
        } else {
            accumulated += d
            previous = current
            i += 1
        }
    }
    while output.count < count { output.append(points[range.upperBound - 1]) }
    return true
}
