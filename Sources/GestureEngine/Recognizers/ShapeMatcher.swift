/// Template matching of strokes, two ways.
///
/// **Templates of points** (a user's shapes) are matched the way the $1 unistroke recognizer
/// (Wobbrock, Wilson and Li, UIST 2007) prepares a stroke, with two changes that make one template
/// per gesture hold across people (docs/RECOGNIZERS.md has the table, measured on people's
/// strokes):
///
/// 1. **Proportions kept.** The stroke is resampled to ``pointCount`` equidistant points, rotated so
///    the line from its centroid to its first point is at angle zero (as $1 does) and scaled
///    *uniformly* until its longer side is ``squareSize`` (as the $N recognizer scales its
///    one-dimensional gestures, Anthony and Wobbrock, GI 2010), so a tall triangle is not
///    squashed into the shape of a wide one, nor a curly brace stretched into a square bracket.
/// 2. **Elastic alignment.** Its distance to a template is dynamic time warping (Myers and
///    Rabiner 1981; the $1 paper measures DTW beside $1) within a band of ``band`` points, so a
///    corner drawn a little earlier or later along the stroke still meets the template's corner,
///    at the rotation within ±45° that brings it closest (golden-section search to 2°, as $1).
///
/// A stroke whose principal axes are more than 1 : ``lineRatio`` apart (a line: a swipe or a drag)
/// is compared only with templates as thin, and the others only with templates that are not:
/// scaled with its proportions kept, a line lies close to any thin shape. Score = 1 − mean
/// distance along the warping path / (half the square's diagonal).
///
/// **The built-in circle** is matched with $1 as the paper gives it (``sampleCount`` points,
/// scaled into the square, any rotation) against a drawn circle, after ``CircleCheck`` has mapped
/// the loop through its ellipse: a circle may start anywhere, which $1's rotation to the
/// indicative angle ignores.
///
/// All work happens in buffers reserved up front: matching at a lift does not allocate.
struct ShapeMatcher {
    /// Points of a loop matched against the circle ($1's 64).
    static let sampleCount = 64
    /// Points of a stroke matched against templates of points: enough for the corners of a star
    /// (Protractor uses 16).
    static let pointCount = 32
    /// How far (points) the warping path may stray from the diagonal: 1/8 of the stroke.
    static let band = 4
    /// A stroke whose short principal axis is at most this share of its long one is a line.
    static let lineRatio = 0.1
    static let squareSize = 250.0
    static let searchRange = 45.0 * Double.pi / 180
    static let searchPrecision = 2.0 * Double.pi / 180
    static let halfDiagonal = 0.5 * (2 * squareSize * squareSize).squareRoot()

    /// A template ready to compare against.
    struct Template: Hashable, Sendable {
        var name: String
        var points: [Vec2]
        /// Set for the built-in shape's own templates (the circle's geometric test applies).
        var builtIn: BuiltInShape? = nil
        /// A template of points that is a line (``lineRatio``).
        var isLine = false
    }

    private var resampled: [Vec2] = []
    private var rotated: [Vec2] = []
    /// Two rows of the warping cost and of the path length to each cell.
    private var previous: [Double] = []
    private var current: [Double] = []
    private var previousLength: [Double] = []
    private var currentLength: [Double] = []
    /// Whether the stroke last prepared by ``prepareStroke(_:_:)`` is a line.
    private var strokeIsLine = false

    init() {
        resampled.reserveCapacity(Self.sampleCount + 1)
        rotated.reserveCapacity(Self.pointCount)
        let row = [Double](repeating: 0, count: Self.pointCount + 1)
        previous = row
        current = row
        previousLength = row
        currentLength = row
    }

    /// Prepares a template of points from its defining points (any scale, any position).
    static func template(name: String, points: [Vec2]) -> Template {
        var matcher = ShapeMatcher()
        matcher.prepareStroke(points, points.indices)
        return Template(name: name, points: matcher.resampled, isLine: matcher.strokeIsLine)
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
            func template(_ points: [Vec2]) -> Template {
                var matcher = ShapeMatcher()
                matcher.prepareLoop(points, points.indices)
                return Template(name: shape.rawValue, points: matcher.resampled, builtIn: shape)
            }
            return [template(clockwise), template(clockwise.reversed())]
        }
    }

    /// The best template for `stroke[range]` among those that are (`builtIn` true) or are not
    /// (false) built-in shapes, and its score (0…1); nil when the stroke is degenerate or no
    /// template qualifies.
    mutating func match(
        _ stroke: borrowing [Vec2], _ range: Range<Int>, against templates: borrowing [Template], builtIn: Bool
    ) -> (index: Int, score: Double)? {
        guard builtIn ? prepareLoop(stroke, range) : prepareStroke(stroke, range) else { return nil }
        var best = -1
        var bestDistance = Double.infinity
        for i in templates.indices where (templates[i].builtIn != nil) == builtIn {
            guard builtIn || templates[i].isLine == strokeIsLine else { continue }
            let d = distanceAtBestAngle(templates[i].points, warped: !builtIn)
            if d < bestDistance {
                bestDistance = d
                best = i
            }
        }
        guard best >= 0 else { return nil }
        return (best, 1 - bestDistance / Self.halfDiagonal)
    }

    /// $1's preparation of a loop: ``sampleCount`` points, rotated to the indicative angle, scaled
    /// into the square, centroid at the origin. False when it has no length or no extent.
    @discardableResult
    private mutating func prepareLoop(_ points: borrowing [Vec2], _ range: Range<Int>) -> Bool {
        guard resamplePath(points, range, count: Self.sampleCount, into: &resampled) else { return false }
        rotateToIndicativeAngle()
        guard let (w, h) = extent(), w > 0, h > 0 else { return false }
        scale(x: Self.squareSize / w, y: Self.squareSize / h)
        return true
    }

    /// A stroke's preparation for templates of points: ``pointCount`` points, whether it is a
    /// line, rotated to the indicative angle, scaled uniformly to the square, centroid at the
    /// origin. False when it has no length.
    @discardableResult
    private mutating func prepareStroke(_ points: borrowing [Vec2], _ range: Range<Int>) -> Bool {
        guard resamplePath(points, range, count: Self.pointCount, into: &resampled) else { return false }
        strokeIsLine = principalAxisRatio() <= Self.lineRatio
        rotateToIndicativeAngle()
        guard let (w, h) = extent(), max(w, h) > 0 else { return false }
        let k = Self.squareSize / max(w, h)
        scale(x: k, y: k)
        return true
    }

    /// The short over the long principal axis of ``resampled`` (square roots of the eigenvalues
    /// of its covariance): 0 for a straight line, 1 for a circle.
    private func principalAxisRatio() -> Double {
        let c = centroid()
        var xx = 0.0
        var yy = 0.0
        var xy = 0.0
        for p in resampled {
            let d = p - c
            xx += d.x * d.x
            yy += d.y * d.y
            xy += d.x * d.y
        }
        let mean = (xx + yy) / 2
        let root = (((xx - yy) / 2) * ((xx - yy) / 2) + xy * xy).squareRoot()
        guard mean + root > 0 else { return 0 }
        return (max(0, mean - root) / (mean + root)).squareRoot()
    }

    /// Rotates ``resampled`` about its centroid so the centroid → first point line is at angle
    /// zero, and moves the centroid to the origin.
    private mutating func rotateToIndicativeAngle() {
        let c = centroid()
        let indicative = atan2Approx(c.y - resampled[0].y, c.x - resampled[0].x)
        let (cos, sin) = cosSin(-indicative)
        for j in resampled.indices {
            let p = resampled[j] - c
            resampled[j] = Vec2(x: p.x * cos - p.y * sin, y: p.x * sin + p.y * cos)
        }
    }

    /// Width and height of ``resampled``'s bounding box.
    private func extent() -> (Double, Double)? {
        guard var low = resampled.first else { return nil }
        var high = low
        for p in resampled {
            low = Vec2(x: min(low.x, p.x), y: min(low.y, p.y))
            high = Vec2(x: max(high.x, p.x), y: max(high.y, p.y))
        }
        return (high.x - low.x, high.y - low.y)
    }

    /// Scales ``resampled`` and moves its centroid to the origin.
    private mutating func scale(x sx: Double, y sy: Double) {
        for j in resampled.indices { resampled[j] = Vec2(x: resampled[j].x * sx, y: resampled[j].y * sy) }
        let c = centroid()
        for j in resampled.indices { resampled[j] = resampled[j] - c }
    }

    private func centroid() -> Vec2 {
        var sum = Vec2.zero
        for p in resampled { sum = sum + p }
        return sum * (1 / Double(resampled.count))
    }

    /// Golden-section search for the rotation of the candidate closest to `template`, by the
    /// point-to-point distance ($1) or the warped one.
    private mutating func distanceAtBestAngle(_ template: borrowing [Vec2], warped: Bool) -> Double {
        let phi = 0.5 * (-1 + 5.0.squareRoot())
        var a = -Self.searchRange
        var b = Self.searchRange
        var x1 = phi * a + (1 - phi) * b
        var f1 = distance(rotatedBy: x1, template, warped: warped)
        var x2 = (1 - phi) * a + phi * b
        var f2 = distance(rotatedBy: x2, template, warped: warped)
        while abs(b - a) > Self.searchPrecision {
            if f1 < f2 {
                b = x2
                x2 = x1
                f2 = f1
                x1 = phi * a + (1 - phi) * b
                f1 = distance(rotatedBy: x1, template, warped: warped)
            } else {
                a = x1
                x1 = x2
                f1 = f2
                x2 = (1 - phi) * a + phi * b
                f2 = distance(rotatedBy: x2, template, warped: warped)
            }
        }
        return min(f1, f2)
    }

    private mutating func distance(rotatedBy angle: Double, _ template: borrowing [Vec2], warped: Bool) -> Double {
        let (cos, sin) = cosSin(angle)
        guard warped else {
            // Mean distance between the rotated candidate and the template, point by point.
            var sum = 0.0
            let n = min(resampled.count, template.count)
            for j in 0..<n {
                let p = resampled[j]
                sum += (Vec2(x: p.x * cos - p.y * sin, y: p.x * sin + p.y * cos) - template[j]).length
            }
            return n > 0 ? sum / Double(n) : Double.infinity
        }
        rotated.removeAll(keepingCapacity: true)
        for p in resampled { rotated.append(Vec2(x: p.x * cos - p.y * sin, y: p.x * sin + p.y * cos)) }
        return warpedDistance(template)
    }

    /// Dynamic time warping of ``rotated`` onto `template` within ``band``: the least total
    /// distance of a monotone path of matched points from both starts to both ends, over the
    /// path's length (so it reads as $1's mean distance). Two rows of the table at a time.
    private mutating func warpedDistance(_ template: borrowing [Vec2]) -> Double {
        let n = min(rotated.count, template.count)
        guard n > 0 else { return Double.infinity }
        for j in 0...n {
            previous[j] = Double.infinity
            previousLength[j] = 0
        }
        previous[0] = 0
        for i in 1...n {
            current[0] = Double.infinity
            currentLength[0] = 0
            for j in 1...n {
                guard abs(i - j) <= Self.band else {
                    current[j] = Double.infinity
                    currentLength[j] = 0
                    continue
                }
                // The cheapest way in: diagonal first on ties (the path stays short).
                var cost = previous[j - 1]
                var length = previousLength[j - 1]
                if previous[j] < cost {
                    cost = previous[j]
                    length = previousLength[j]
                }
                if current[j - 1] < cost {
                    cost = current[j - 1]
                    length = currentLength[j - 1]
                }
                current[j] = cost + (rotated[i - 1] - template[j - 1]).length
                currentLength[j] = length + 1
            }
            swap(&previous, &current)
            swap(&previousLength, &currentLength)
        }
        return previous[n] / previousLength[n]
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
