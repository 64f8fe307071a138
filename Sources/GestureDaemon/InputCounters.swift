import GestureEngine
import GestureMetrics
import TouchInput

/// What the frame path counts for the metrics (docs/FLEET.md): plain integers the input thread
/// owns and nobody else touches. A scrape or a `status` request asks the input thread for a
/// ``MetricsSnapshot`` through its request queue, and it copies these into one between two
/// frames; so counting takes no lock and no atomic, and a reader never makes the frame path wait.
struct InputCounters {
    /// Frames and contacts that landed: counted every frame, so plain fields rather than ``counts``.
    var frames: UInt64 = 0
    var touches: UInt64 = 0
    /// What else the frame path counts: a kiosk's day, screen reads (``Counter``).
    var counts = Counts()
    /// The newest frame's arrival (monotonic µs) of each panel open now, and of any panel.
    private(set) var lastTouch: [(device: DeviceID, time: Int64)] = []
    private(set) var lastTouchAnywhere: Int64?

    /// Counts a frame of `device` that arrived at `time` (monotonic µs).
    @inline(__always)
    mutating func count(_ frame: TouchFrame, arrival time: Int64) {
        frames &+= 1
        for touch in frame.touches where touch.phase == .began { touches &+= 1 }
        lastTouchAnywhere = time
        // A scan of the panels open (a few): cheaper than hashing.
        for i in lastTouch.indices where lastTouch[i].device == frame.device {
            lastTouch[i].time = time
            return
        }
        lastTouch.append((frame.device, time))
    }

    /// The panel is gone: it has no last touch any more.
    mutating func forget(_ device: DeviceID) {
        lastTouch.removeAll { $0.device == device }
    }
}

/// What the input loop counts beside the frame path: client definitions, reloads, and the
/// frame-to-line latency, sampled. The input thread's own, like ``InputCounters``.
struct LoopCounters {
    /// Definitions accepted and refused, reloads that succeeded and failed (``Counter``).
    var counts = Counts()
    /// When the running configuration was loaded (monotonic µs).
    var configurationLoaded: Int64
    /// When the last reload failed (monotonic µs) and why, while none has succeeded since.
    var lastReloadFailure: (time: Int64, reason: String)?
    var frameToLine = Histogram()
    /// Batches handed to the server after frames; one in ``latencySampling`` is timed.
    private var publications: UInt64 = 0
    /// One clock read per this many publications: a clock read can be a system call (a VM's
    /// clock source), which the frame path otherwise makes once in ten wake-ups at most.
    static let latencySampling: UInt64 = 8

    init(configurationLoaded: Int64) {
        self.configurationLoaded = configurationLoaded
    }

    /// A batch went out after frames that arrived from `since` on (monotonic µs); `clock` reads
    /// the monotonic clock, called only for a sampled batch.
    @inline(__always)
    mutating func published(since: Int64, clock: () -> Int64) {
        publications &+= 1
        guard publications % Self.latencySampling == 0 else { return }
        frameToLine.record(microseconds: clock() - since)
    }
}
