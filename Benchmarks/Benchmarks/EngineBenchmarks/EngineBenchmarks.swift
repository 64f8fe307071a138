import Benchmark
import GestureEngine

// Frames through the whole default recognizer set, in steady state: the engine, its buffers and
// the caller's event buffer are warmed up by the benchmark's warm-up iterations, then each
// measured iteration processes one frame of a repeating gesture (touches landing, moving for
// a second at 120 Hz, lifting, a pause long enough for every timer to run out). Results are per
// frame; see docs/PERFORMANCE.md.

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

    // The same with explanations on, as while a client subscribes to them.
    for fingers in [1, 2, 10] {
        let feed = FrameFeed(fingers: fingers, explains: true)
        Benchmark("Engine: \(fingers)-touch frame, default set, explaining") { benchmark in
            for _ in benchmark.scaledIterations { feed.step() }
            blackHole(feed.emitted)
        }
    }
}
