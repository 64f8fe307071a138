/// Velocity of a two-dimensional value over the last ``horizon`` of samples, like Android's
/// VelocityTracker (whose horizon is 100 ms): the change from the oldest sample within the
/// horizon to the newest, per second. A finger that stopped before lifting has velocity zero.
/// A ring of ``size`` samples allocated once, so sampling never allocates; the oldest sample
/// within the horizon of the newest is kept up to date as samples arrive, so the usual query
/// (at the newest sample's time) costs a subtraction.
///
/// A sample has a third value, `z`, for a quantity sampled at the same times as a translation
/// (a pinch's scale, a rotation's angle): one ring and one window for both, where two trackers
/// would do the same bookkeeping twice.
struct VelocityTracker {
    /// Android VelocityTracker's HORIZON.
    static let horizon = TimeSpan.milliseconds(100)
    /// A power of two (ring indices are masked): 16 samples cover 100 ms up to 150 Hz.
    private static let size = 16
    private static let mask = size - 1

    private struct Sample {
        var time: Int64
        var x: Double
        var y: Double
        var z: Double
    }

    private var samples = [Sample](repeating: Sample(time: 0, x: 0, y: 0, z: 0), count: VelocityTracker.size)
    private var head = 0
    private var count = 0
    /// How many samples back from `head` the oldest one within the horizon of `head` is.
    private var span = 0

    mutating func add(_ time: Timestamp, x: Double, y: Double, z: Double = 0) {
        head = (head &+ 1) & Self.mask
        samples[head] = Sample(time: time.microseconds, x: x, y: y, z: z)
        if count < Self.size { count &+= 1 }
        span = Swift.min(span &+ 1, count &- 1)
        let cutoff = time.microseconds &- Self.horizon.microseconds
        while span > 0 && samples[(head &- span) & Self.mask].time < cutoff { span &-= 1 }
    }

    /// Units of the samples per second, as of `time`.
    func velocity(at time: Timestamp) -> (x: Double, y: Double, z: Double) {
        guard count > 0 else { return (0, 0, 0) }
        let newest = samples[head]
        var back = span
        if time.microseconds != newest.time {
            // Asked later than the last sample (a timer, a cancel): narrow the window.
            let cutoff = time.microseconds &- Self.horizon.microseconds
            guard newest.time >= cutoff else { return (0, 0, 0) }
            while back > 0 && samples[(head &- back) & Self.mask].time < cutoff { back &-= 1 }
        }
        // With only one sample in the window, measure from the one just before it, so a finger
        // that moved once in a slow frame still has a velocity.
        if back == 0, count > 1 { back = 1 }
        let first = samples[(head &- back) & Self.mask]
        let dt = Double(newest.time &- first.time) / 1_000_000
        guard dt > 0 else { return (0, 0, 0) }
        return ((newest.x - first.x) / dt, (newest.y - first.y) / dt, (newest.z - first.z) / dt)
    }

    mutating func reset() {
        head = 0
        count = 0
        span = 0
    }
}
