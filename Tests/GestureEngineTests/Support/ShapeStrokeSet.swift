import Foundation
import TestSupport

/// A generated set of hand-drawn shapes for measuring the built-in `circle` (docs/RECOGNIZERS.md,
/// "The circle on generated strokes"). Deterministic: the same seed gives the same strokes.
///
/// Each stroke is one shape drawn the way people draw it: any size from 20 to 150 mm, any
/// orientation, either way round, from any start; a slow wobble of the hand (up to 2.5 % of the
/// size, one to three waves along the stroke) and sensor noise (σ 0.05–0.4 mm per sample); 0.35
/// to 1.6 s for a circle's length (spirals 0.8–2.5 s), evenly or with the bell-shaped speed of a
/// deliberate movement; sampled at 60, 90, 120 or 125 Hz. Circles turn 320°–400°, ellipses have
/// axes 0.45–0.9 apart; squares, rectangles (0.4–0.75) and triangles have corners rounded by up to
/// 15 % and may run past their start; stars are five-pointed, drawn in one line; spirals turn two
/// to three times, growing from 15 % to full size (inwards or outwards).
struct ShapeStrokeSet {
    enum Kind: String, CaseIterable, Sendable {
        case circle, ellipse, square, rectangle, triangle, star, arrow, check
        case questionMark = "question mark"
        case spiral
        case halfCircle = "half circle"

        var isCircle: Bool { self == .circle || self == .ellipse }
    }

    /// One stroke: samples (time since the landing, position in mm about the origin).
    struct Stroke {
        var kind: Kind
        var size: Double
        var samples: [(time: Double, x: Double, y: Double)]
    }

    var random: SplitMix64

    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    mutating func uniform(_ low: Double, _ high: Double) -> Double {
        low + (high - low) * Double(random.next() >> 11) / Double(1 << 53)
    }

    mutating func gaussian() -> Double {
        let u = max(1e-12, uniform(0, 1))
        let v = uniform(0, 1)
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }

    mutating func stroke(_ kind: Kind) -> Stroke {
        var path = shape(kind)
        let size = uniform(20, 150)
        if uniform(0, 1) < 0.5 { path = path.map { ($0.0, -$0.1) } }  // the other way round
        if uniform(0, 1) < 0.5 { path.reverse() }
        let angle = uniform(0, 2 * .pi)
        path = path.map { ($0.0 * cos(angle) - $0.1 * sin(angle), $0.0 * sin(angle) + $0.1 * cos(angle)) }
        let xs = path.map(\.0)
        let ys = path.map(\.1)
        let extent = max(xs.max()! - xs.min()!, ys.max()! - ys.min()!)
        path = path.map { ($0.0 / extent * size, $0.1 / extent * size) }

        // Arc length, then the hand's wobble across the path.
        var along = [0.0]
        for i in 1..<path.count { along.append(along[i - 1] + hypot(path[i].0 - path[i - 1].0, path[i].1 - path[i - 1].1)) }
        let length = along[along.count - 1]
        let amplitude = uniform(0, 0.025) * size
        let waves = uniform(1, 3)
        let phase = uniform(0, 2 * .pi)
        var wobbled: [(Double, Double)] = []
        for i in path.indices {
            let a = path[max(0, i - 1)]
            let b = path[min(path.count - 1, i + 1)]
            let d = hypot(b.0 - a.0, b.1 - a.1)
            let normal = d > 0 ? (-(b.1 - a.1) / d, (b.0 - a.0) / d) : (0, 0)
            let offset = amplitude * sin(2 * .pi * waves * along[i] / length + phase)
            wobbled.append((path[i].0 + normal.0 * offset, path[i].1 + normal.1 * offset))
        }

        let rate = [60.0, 90, 120, 125][Int(random.next() % 4)]
        let noise = uniform(0.05, 0.4)
        let duration =
            kind == .spiral ? uniform(0.8, 2.5) : uniform(0.35, 1.6) * (length / (Double.pi * size)).squareRoot()
        let bell = uniform(0, 1) < 0.5
        let frames = max(3, Int(duration * rate))
        var samples: [(Double, Double, Double)] = []
        var segment = 0
        for f in 0..<frames {
            let u = Double(f) / Double(frames - 1)
            let progress = bell ? u * u * u * (10 - 15 * u + 6 * u * u) : u
            let target = progress * length
            while segment < along.count - 2 && along[segment + 1] < target { segment += 1 }
            let span = along[segment + 1] - along[segment]
            let t = span > 0 ? (target - along[segment]) / span : 0
            let p = wobbled[segment]
            let q = wobbled[segment + 1]
            samples.append(
                (
                    Double(f) / rate, p.0 + (q.0 - p.0) * t + noise * gaussian(),
                    p.1 + (q.1 - p.1) * t + noise * gaussian()
                ))
        }
        return Stroke(kind: kind, size: size, samples: samples.map { (time: $0.0, x: $0.1, y: $0.2) })
    }

    /// The shape about the origin, about one unit across, densely sampled in drawing order.
    private mutating func shape(_ kind: Kind) -> [(Double, Double)] {
        switch kind {
        case .circle, .ellipse:
            let ratio = kind == .circle ? 1 : uniform(0.45, 0.9)
            let turn = uniform(320, 400) * .pi / 180
            let start = uniform(0, 2 * .pi)
            return (0..<400).map { i in
                let a = start + turn * Double(i) / 399
                return (0.5 * cos(a), 0.5 * ratio * sin(a))
            }
        case .square, .rectangle:
            let ratio = kind == .square ? 1 : uniform(0.4, 0.75)
            var corners = [(0.5, 0.5 * ratio), (-0.5, 0.5 * ratio), (-0.5, -0.5 * ratio), (0.5, -0.5 * ratio)]
            let k = Int(random.next() % 4)
            corners = Array(corners[k...] + corners[..<k])
            let from = corners[3]
            let to = corners[0]
            let f = uniform(0, 0.8)
            let start = (from.0 + (to.0 - from.0) * f, from.1 + (to.1 - from.1) * f)
            let past = uniform(0, 0.3)
            let end = (start.0 + (to.0 - start.0) * past, start.1 + (to.1 - start.1) * past)
            return polyline([start] + corners + [end], rounding: uniform(0, 0.15))
        case .triangle:
            var vertices: [(Double, Double)] = (0..<3).map { i in
                let a = (90 + 120 * Double(i) + uniform(-12, 12)) * .pi / 180
                return (0.55 * cos(a), 0.55 * sin(a))
            }
            let k = Int(random.next() % 3)
            vertices = Array(vertices[k...] + vertices[..<k])
            let past = uniform(0, 0.25)
            let end = (
                vertices[0].0 + (vertices[1].0 - vertices[0].0) * past,
                vertices[0].1 + (vertices[1].1 - vertices[0].1) * past
            )
            return polyline(vertices + [vertices[0], end], rounding: uniform(0, 0.12))
        case .star:
            let points: [(Double, Double)] = (0..<6).map { i in
                let a = (-90 + 144 * Double(i) + uniform(-6, 6)) * .pi / 180
                return (0.5 * cos(a), 0.5 * sin(a))
            }
            return polyline(points, rounding: uniform(0, 0.06))
        case .arrow:
            let head = uniform(0.2, 0.35)
            let a = uniform(25, 40) * .pi / 180
            let tip = (0.5, 0.0)
            return polyline(
                [(-0.5, 0), tip, (0.5 - head * cos(a), head * sin(a)), tip, (0.5 - head * cos(a), -head * sin(a))],
                rounding: 0)
        case .check:
            return polyline(
                [(-0.3, -0.1), (-0.05, 0.25 * uniform(0.8, 1.2)), (0.5, -0.55 * uniform(0.8, 1.2))],
                rounding: uniform(0, 0.2))
        case .questionMark:
            let from = Double.pi * uniform(0.9, 1.1)
            let turn = -Double.pi * uniform(1.3, 1.6)
            var points: [(Double, Double)] = (0..<300).map { i in
                let a = from + turn * Double(i) / 299
                return (0.3 * cos(a), -0.2 + 0.3 * sin(a))
            }
            let end = points[points.count - 1]
            points += (1...100).map { i in (end.0, end.1 + 0.45 * Double(i) / 100) }
            return points
        case .spiral:
            let turns = uniform(2, 3)
            let start = uniform(0, 2 * .pi)
            let outward = uniform(0, 1) < 0.5
            return (0..<600).map { i in
                let t = Double(i) / 599
                let a = start + 2 * .pi * turns * t
                let r = 0.5 * (0.15 + 0.85 * (outward ? t : 1 - t))
                return (r * cos(a), r * sin(a))
            }
        case .halfCircle:
            let turn = uniform(150, 210) * .pi / 180
            let start = uniform(0, 2 * .pi)
            return (0..<300).map { i in
                let a = start + turn * Double(i) / 299
                return (0.5 * cos(a), 0.5 * sin(a))
            }
        }
    }

    /// Straight lines through `corners`, each inner corner rounded by a quadratic curve over
    /// `rounding` of its shorter side.
    private func polyline(_ corners: [(Double, Double)], rounding: Double) -> [(Double, Double)] {
        var points = [corners[0]]
        for i in 1..<(corners.count - 1) where rounding > 0 {
            let (a, b, c) = (corners[i - 1], corners[i], corners[i + 1])
            let ab = hypot(a.0 - b.0, a.1 - b.1)
            let cb = hypot(c.0 - b.0, c.1 - b.1)
            let r = rounding * min(ab, cb)
            let p0 = (b.0 + (a.0 - b.0) / ab * r, b.1 + (a.1 - b.1) / ab * r)
            let p2 = (b.0 + (c.0 - b.0) / cb * r, b.1 + (c.1 - b.1) / cb * r)
            for k in 0...8 {
                let t = Double(k) / 8
                points.append(
                    (
                        (1 - t) * (1 - t) * p0.0 + 2 * (1 - t) * t * b.0 + t * t * p2.0,
                        (1 - t) * (1 - t) * p0.1 + 2 * (1 - t) * t * b.1 + t * t * p2.1
                    ))
            }
        }
        if rounding <= 0 { points += corners.dropFirst().dropLast() }
        points.append(corners[corners.count - 1])
        // Dense, evenly spaced samples along the polyline.
        var along = [0.0]
        for i in 1..<points.count {
            along.append(along[i - 1] + hypot(points[i].0 - points[i - 1].0, points[i].1 - points[i - 1].1))
        }
        let total = along[along.count - 1]
        var dense: [(Double, Double)] = []
        var j = 0
        for k in 0..<400 {
            let target = total * Double(k) / 399
            while j < along.count - 2 && along[j + 1] < target { j += 1 }
            let span = along[j + 1] - along[j]
            let t = span > 0 ? (target - along[j]) / span : 0
            dense.append(
                (points[j].0 + (points[j + 1].0 - points[j].0) * t, points[j].1 + (points[j + 1].1 - points[j].1) * t))
        }
        return dense
    }
}
