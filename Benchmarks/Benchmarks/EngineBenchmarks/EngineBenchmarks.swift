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
        engine = try! GestureEngine(configuration: .default)
        let device = DeviceDescriptor(
            id: DeviceID(1), label: "bench", name: "bench",
            geometry: SurfaceGeometry(physicalSize: PhysicalSize(width: Millimeters(344), height: Millimeters(194))))
        engine.addDevice(device)
        var frames: [TouchFrame] = []
        let interval: Int64 = 8_333
        let moves = 120
        // Fingers on a circle about the centre that spreads and turns (a pinch-rotate for two
        // fingers; every recognizer of the default set gets to work on it).
        func positions(_ step: Int) -> [SurfacePoint] {
            let t = Double(step) / Double(moves)
            return (0..<fingers).map { i in
                let angle = Double(i) / Double(fingers) * 6.283 + t * 0.8
                let radius = 0.05 + 0.06 * t
                // A cheap cos/sin for fixed test data (no Foundation here either).
                let c = 1 - angle * angle / 2 + angle * angle * angle * angle / 24
                let s = angle - angle * angle * angle / 6 + angle * angle * angle * angle * angle / 120
                return SurfacePoint(x: 0.5 + radius * c / 1.8 + t * 0.05, y: 0.5 + radius * s)
            }
        }
        func frame(_ step: Int, _ phase: TouchPhase, at time: Int64) -> TouchFrame {
            let p = positions(step)
            return TouchFrame(
                device: device.id, time: Timestamp(microseconds: time),
                touches: (0..<fingers).map { Touch(id: TouchID(UInt32($0 + 1)), phase: phase, position: p[$0]) })
        }
        var time: Int64 = 1_000_000
        frames.append(frame(0, .began, at: time))
        for step in 1...moves {
            time += interval
            frames.append(frame(step, .moved, at: time))
        }
        time += interval
        frames.append(frame(moves, .ended, at: time))
        cycle = frames
        period = time - 1_000_000 + 700_000
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
