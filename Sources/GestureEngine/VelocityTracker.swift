/// Velocity of a two-dimensional value over the last ``horizon`` of samples, like Android's
/// VelocityTracker (whose horizon is 100 ms): the change from the oldest sample within the
/// horizon to the newest, per second. A finger that stopped before lifting has velocity zero.
/// Fixed storage, so sampling never allocates.
struct VelocityTracker {
    /// Android VelocityTracker's HORIZON.
    static let horizon = TimeSpan.milliseconds(100)
    private static let size = 16

    private var times = InlineArray<16, Int64>(repeating: 0)
    private var xs = InlineArray<16, Double>(repeating: 0)
    private var ys = InlineArray<16, Double>(repeating: 0)
    private var head = 0
    private var count = 0

    mutating func add(_ time: Timestamp, x: Double, y: Double) {
        head = (head + 1) % Self.size
        times[head] = time.microseconds
        xs[head] = x
        ys[head] = y
        if count < Self.size { count += 1 }
    }

    /// Units of the samples per second, as of `time`.
    func velocity(at time: Timestamp) -> (x: Double, y: Double) {
        guard count > 0 else { return (0, 0) }
        let cutoff = time.microseconds - Self.horizon.microseconds
        let newest = head
        guard times[newest] >= cutoff else { return (0, 0) }
        var oldest = newest
        var i = 1
        while i < count {
            let j = (head - i + Self.size) % Self.size
            if times[j] < cutoff { break }
            oldest = j
            i += 1
        }
        // With only one sample in the window, measure from the one just before it, so a finger
        // that moved once in a slow frame still has a velocity.
        if oldest == newest, count > 1 { oldest = (head - 1 + Self.size) % Self.size }
        let dt = Double(times[newest] - times[oldest]) / 1_000_000
        guard dt > 0 else { return (0, 0) }
        return ((xs[newest] - xs[oldest]) / dt, (ys[newest] - ys[oldest]) / dt)
    }

    mutating func reset() {
        head = 0
        count = 0
    }
}
