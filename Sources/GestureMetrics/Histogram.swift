/// A histogram of durations in microseconds over fixed buckets: what the input thread records
/// (``record(microseconds:)`` costs a scan of a dozen bounds and two additions, no allocation) and
/// what a snapshot carries.
public struct Histogram: Sendable, Hashable {
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

extension Histogram: Codable {
    enum CodingKeys: String, CodingKey {
        case counts
        case sumMicroseconds = "sum_us"
    }

    /// Refuses counts that do not match the buckets (one a bound, and one above them all): what
    /// the exposition writes assumes them.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let counts = try c.decode([UInt64].self, forKey: .counts)
        guard counts.count == Self.bounds.count + 1 else {
            throw DecodingError.dataCorruptedError(
                forKey: .counts, in: c,
                debugDescription: "\(counts.count) bucket counts, expected \(Self.bounds.count + 1)")
        }
        self.counts = counts
        sumMicroseconds = try c.decode(UInt64.self, forKey: .sumMicroseconds)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(counts, forKey: .counts)
        try c.encode(sumMicroseconds, forKey: .sumMicroseconds)
    }
}
