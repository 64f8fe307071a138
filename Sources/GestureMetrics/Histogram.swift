/// A histogram of durations in microseconds over fixed buckets: what the input thread records
/// (``record(microseconds:)`` costs a scan of a dozen bounds and two additions, no allocation) and
/// what a snapshot carries.
public struct Histogram: Sendable, Equatable, Codable {
    /// The buckets' upper bounds (inclusive), µs: 50 µs to 100 ms, roughly ×2 apart — a frame's
    /// line takes tens of microseconds on a kiosk, a stalled input thread milliseconds.
    public static let bounds: [Int64] = [50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000]

    /// Observations per bucket (not cumulative); the last counts those above every bound.
    public private(set) var counts: [UInt64]
    /// The sum of the observations, µs.
    public private(set) var sumMicroseconds: UInt64

    public init() {
        counts = Array(repeating: 0, count: Self.bounds.count + 1)
        sumMicroseconds = 0
    }

    /// How many were observed.
    public var count: UInt64 { counts.reduce(0, &+) }

    /// Counts one observation; a negative one (clocks of different origins) counts as 0.
    public mutating func record(microseconds: Int64) {
        let value = max(0, microseconds)
        var i = 0
        while i < Self.bounds.count && value > Self.bounds[i] { i += 1 }
        counts[i] &+= 1
        sumMicroseconds &+= UInt64(value)
    }
}
