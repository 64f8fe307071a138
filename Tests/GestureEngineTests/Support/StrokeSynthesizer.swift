import TestSupport

@testable import GestureEngine

extension SplitMix64 {
    /// Uniform in -1…1.
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 52) - 1 }
}

/// How a stroke's progress (0…1) follows time (0…1).
enum StrokeProfile: String, CaseIterable, Sendable {
    /// Constant speed.
    case linear
    /// Accelerates to the end and lifts while fast: a flick or swipe.
    case flick
    /// Minimum-jerk: speeds up and comes to rest, like a deliberate drag.
    case drag
    /// Starts fast and slows to rest.
    case settle

    func progress(_ t: Double) -> Double {
        switch self {
        case .linear: t
        case .flick: t * t
        case .drag: t * t * t * (10 - 15 * t + 6 * t * t)
        case .settle: 1 - (1 - t) * (1 - t)
        }
    }
}

/// One touch's motion during a synthesized stretch of frames.
struct TouchMotion {
    enum Path {
        /// A straight line to `to`.
        case line(to: SurfacePoint)
        /// Round `center` by `radians` (positive clockwise on the surface), the distance to the
        /// center growing by the factor `scale` on the way (1: a circular arc).
        case arc(center: SurfacePoint, radians: Double, scale: Double)
        /// Stays put (only jitter).
        case still
    }

    var id: UInt32
    var path: Path
    var duration: TimeSpan
    var profile: StrokeProfile
}

/// Turns touch motions into frames with real-world timing: a fixed frame rate (touch panels
/// report at 60–120 Hz), a velocity profile with acceleration, and finger jitter (a finger on
/// glass wobbles by a few tenths of a millimetre).
struct StrokeSynthesizer {
    var rate: Double = 120
    var jitter = Millimeters(0.2)
    var random = SplitMix64(seed: 1)

    /// The frames of `motions` from `start` (the positions are the touches' current ones);
    /// returns each frame's time offset and each moving touch's new position.
    mutating func frames(
        _ motions: [TouchMotion], from positions: [UInt32: SurfacePoint], size: PhysicalSize
    ) -> [(offset: TimeSpan, positions: [UInt32: SurfacePoint])] {
        let longest = motions.map(\.duration.microseconds).max() ?? 0
        let interval = 1_000_000 / rate
        let count = max(1, Int((Double(longest) / interval).rounded()))
        var result: [(TimeSpan, [UInt32: SurfacePoint])] = []
        for k in 1...count {
            let offset = k == count ? longest : Int64((Double(k) * interval).rounded())
            var moved: [UInt32: SurfacePoint] = [:]
            for motion in motions {
                guard let origin = positions[motion.id] else { continue }
                let t = min(1, Double(offset) / Double(max(1, motion.duration.microseconds)))
                let s = motion.profile.progress(t)
                var p: SurfacePoint
                switch motion.path {
                case .line(let to):
                    p = SurfacePoint(x: origin.x + (to.x - origin.x) * s, y: origin.y + (to.y - origin.y) * s)
                case .arc(let center, let radians, let scale):
                    p = Self.arcPoint(origin, center, radians * s, 1 + (scale - 1) * s, size)
                case .still:
                    p = origin
                }
                // Jitter: uniform in a disc of radius `jitter`.
                var jx = random.unit()
                var jy = random.unit()
                while jx * jx + jy * jy > 1 {
                    jx = random.unit()
                    jy = random.unit()
                }
                p.x += jx * jitter.value / size.width.value
                p.y += jy * jitter.value / size.height.value
                p.x = min(1, max(0, p.x))
                p.y = min(1, max(0, p.y))
                moved[motion.id] = p
            }
            if offset > (result.last?.0.microseconds ?? 0) || result.isEmpty {
                result.append((TimeSpan(microseconds: offset), moved))
            }
        }
        return result
    }

    /// `origin` turned about `center` by `radians` and moved `factor` times as far from it, in
    /// millimetres so a circle stays round on a non-square panel.
    static func arcPoint(
        _ origin: SurfacePoint, _ center: SurfacePoint, _ radians: Double, _ factor: Double, _ size: PhysicalSize
    ) -> SurfacePoint {
        let w = size.width.value
        let h = size.height.value
        let vx = (origin.x - center.x) * w * factor
        let vy = (origin.y - center.y) * h * factor
        let (c, s) = cosSin(radians)
        return SurfacePoint(x: center.x + (vx * c - vy * s) / w, y: center.y + (vx * s + vy * c) / h)
    }
}
