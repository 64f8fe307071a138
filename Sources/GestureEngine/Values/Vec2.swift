// Internal arithmetic for the recognizers. Thresholds are in millimetres, so every recognizer
// converts surface coordinates into "measuring millimetres" (against the real or the assumed
// panel size, see `SurfaceGeometry.measuringSize`) before it compares anything.

/// A point or displacement in measuring millimetres.
struct Vec2: Hashable, Sendable {
    var x: Double
    var y: Double

    static let zero = Vec2(x: 0, y: 0)

    @inline(__always) static func + (a: Vec2, b: Vec2) -> Vec2 { Vec2(x: a.x + b.x, y: a.y + b.y) }
    @inline(__always) static func - (a: Vec2, b: Vec2) -> Vec2 { Vec2(x: a.x - b.x, y: a.y - b.y) }
    @inline(__always) static func * (a: Vec2, k: Double) -> Vec2 { Vec2(x: a.x * k, y: a.y * k) }
    @inline(__always) var length: Double { (x * x + y * y).squareRoot() }
}

/// Millimetres per surface unit on each axis of one device.
struct MeasuringScale: Hashable, Sendable {
    var width: Double
    var height: Double

    init(_ geometry: SurfaceGeometry) {
        width = geometry.measuringSize.width.value
        height = geometry.measuringSize.height.value
    }

    @inline(__always) func mm(_ p: SurfacePoint) -> Vec2 { Vec2(x: p.x * width, y: p.y * height) }
    @inline(__always) func mm(_ v: SurfaceVector) -> Vec2 { Vec2(x: v.dx * width, y: v.dy * height) }
}

/// Iteration over the set bits of a slot mask, lowest slot first, without allocating.
struct SlotBits: Sequence, IteratorProtocol {
    var mask: UInt64
    @inline(__always) init(_ mask: UInt64) { self.mask = mask }
    @inline(__always) mutating func next() -> Int? {
        guard mask != 0 else { return nil }
        let slot = mask.trailingZeroBitCount
        mask &= mask &- 1
        return slot
    }
}

extension UInt64 {
    /// The mask with only `slot` set.
    @inline(__always) static func bit(_ slot: Int) -> UInt64 { 1 &<< UInt64(slot) }
    /// The number of touches in a slot mask.
    @inline(__always) var count: Int { nonzeroBitCount }
}

/// Wraps an angle difference into -π…π.
@inline(__always) func wrapAngle(_ a: Double) -> Double {
    var a = a
    while a > Double.pi { a -= 2 * Double.pi }
    while a < -Double.pi { a += 2 * Double.pi }
    return a
}

/// atan2 from the standard library alone (the engine imports nothing, not even Glibc).
/// Reduces to t = min/max in 0…1, then to |u| ≤ tan(π/12) with atan(t) = π/6 + atan((√3·t − 1)/(√3 + t)),
/// where the Taylor series up to u²¹ is exact to about 1e-14.
@inline(__always) func atan2Approx(_ y: Double, _ x: Double) -> Double {
    let ax = abs(x)
    let ay = abs(y)
    if ax == 0 && ay == 0 { return 0 }
    let swap = ay > ax
    let t = swap ? ax / ay : ay / ax
    let sqrt3 = 1.7320508075688772
    let reduce = t > 0.2679491924311227
    let u = reduce ? (sqrt3 * t - 1) / (sqrt3 + t) : t
    let u2 = u * u
    var series = 1.0 / 21
    var k = 19
    while k >= 1 {
        series = 1.0 / Double(k) - u2 * series
        k -= 2
    }
    var r = u * series
    if reduce { r += Double.pi / 6 }
    if swap { r = Double.pi / 2 - r }
    if x < 0 { r = Double.pi - r }
    return y < 0 ? -r : r
}

/// cos and sin from the standard library alone, for rotating shape templates (not per frame).
func cosSin(_ angle: Double) -> (cos: Double, sin: Double) {
    // Reduce to -π…π, then Taylor series with enough terms for 1e-12 there.
    let a = wrapAngle(angle)
    let a2 = a * a
    var c = 1.0
    var s = a
    var termC = 1.0
    var termS = a
    for n in 1...12 {
        termC *= -a2 / Double((2 * n - 1) * (2 * n))
        termS *= -a2 / Double((2 * n) * (2 * n + 1))
        c += termC
        s += termS
    }
    return (c, s)
}
