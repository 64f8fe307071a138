import Benchmark
import GestureEngine

// Frames through the whole default recognizer set, in steady state: the engine, its buffers and
// the caller's event buffer are warmed up by the benchmark's warm-up iterations, then each
// measured iteration processes one frame of a repeating gesture (touches landing, moving for
// a second at 120 Hz, lifting, a pause long enough for every timer to run out). Results are per
// frame; see docs/PERFORMANCE.md.

/// A repeating gesture cycle fed frame by frame into one engine.
final class FrameFeed: @unchecked Sendable {
    private var engine: GestureEngine
    private let cycle: [TouchFrame]
    private let period: Int64
    private var index = 0
    private var lap: Int64 = 0
    private var events: [EngineEvent] = []
    private(set) var emitted = 0

    init(fingers: Int) {
        let workload = FrameCycle(fingers: fingers)
        engine = try! GestureEngine(configuration: .default)
        engine.addDevice(workload.device)
        cycle = workload.frames
        period = workload.period
        events.reserveCapacity(256)
    }

    /// Processes the next frame of the cycle.
    @inline(__always) func step() {
        var frame = cycle[index]
        frame.time = Timestamp(microseconds: frame.time.microseconds + lap * period)
        engine.process(frame, into: &events)
        emitted &+= events.count
        events.removeAll(keepingCapacity: true)
        index += 1
        if index == cycle.count {
            index = 0
            lap += 1
        }
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .throughput],
        warmupIterations: 2_000,
        maxDuration: .seconds(5),
        maxIterations: 200_000
    )

    for fingers in [1, 2, 10] {
        let feed = FrameFeed(fingers: fingers)
        Benchmark("Engine: \(fingers)-touch frame, default set") { benchmark in
            for _ in benchmark.scaledIterations { feed.step() }
            blackHole(feed.emitted)
        }
    }
}
