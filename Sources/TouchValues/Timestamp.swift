/// A point in kernel time: CLOCK_MONOTONIC in microseconds, as libevdev reports it once
/// `libevdev_set_clock_id(CLOCK_MONOTONIC)` is set, or a recording's own clock during replay.
///
/// The engine never reads a clock: time only moves when a frame arrives or the caller calls
/// `GestureEngine.advance(to:into:)`.
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Microseconds since an arbitrary origin (boot for CLOCK_MONOTONIC).
    public var microseconds: Int64

    @inlinable public init(microseconds: Int64) { self.microseconds = microseconds }

    @inlinable public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.microseconds < rhs.microseconds
    }

    /// This time moved by `span`.
    @inlinable public static func + (lhs: Timestamp, rhs: TimeSpan) -> Timestamp {
        Timestamp(microseconds: lhs.microseconds &+ rhs.microseconds)
    }

    /// The span from `rhs` to `lhs` (negative when `lhs` is earlier).
    @inlinable public static func - (lhs: Timestamp, rhs: Timestamp) -> TimeSpan {
        TimeSpan(microseconds: lhs.microseconds &- rhs.microseconds)
    }

    public var description: String { "\(microseconds)µs" }
}

/// A length of time in microseconds. The engine's own duration type: `Swift.Duration` is 128-bit
/// and costs more on the per-frame path than a plain integer.
public struct TimeSpan: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var microseconds: Int64

    @inlinable public init(microseconds: Int64) { self.microseconds = microseconds }

    @inlinable public static func milliseconds(_ ms: Int64) -> TimeSpan { TimeSpan(microseconds: ms * 1000) }

    @inlinable public static func < (lhs: TimeSpan, rhs: TimeSpan) -> Bool { lhs.microseconds < rhs.microseconds }

    /// The span in seconds, for velocities.
    @inlinable public var seconds: Double { Double(microseconds) / 1_000_000 }

    /// The span in milliseconds, for explanations.
    @inlinable public var milliseconds: Double { Double(microseconds) / 1000 }

    public var description: String { "\(microseconds)µs" }
}
