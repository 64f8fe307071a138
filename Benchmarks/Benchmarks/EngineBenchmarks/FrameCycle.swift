import GestureEngine

/// The workload of the engine benchmarks, shared by EngineBenchmarks and the callgrind driver
/// (Benchmarks/Profiling): one 344 × 194 mm device and a repeating cycle of frames — `fingers`
/// touches land, move for a second at 120 Hz on a circle about the centre that spreads and turns
/// (a pinch-rotate for two fingers; every recognizer of the default set gets to work on it), and
/// lift; the next lap starts after a pause long enough for every timer to run out.
struct FrameCycle {
    let device: DeviceDescriptor
    let frames: [TouchFrame]
    /// The time from one lap's first frame to the next lap's.
    let period: Int64

    init(fingers: Int) {
        device = DeviceDescriptor(
            id: DeviceID(1), label: "bench", name: "bench",
            geometry: SurfaceGeometry(physicalSize: PhysicalSize(width: Millimeters(344), height: Millimeters(194))))
        let interval: Int64 = 8_333
        let moves = 120
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
        let id = device.id
        func frame(_ step: Int, _ phase: TouchPhase, at time: Int64) -> TouchFrame {
            let p = positions(step)
            return TouchFrame(
                device: id, time: Timestamp(microseconds: time),
                touches: (0..<fingers).map { Touch(id: TouchID(UInt32($0 + 1)), phase: phase, position: p[$0]) })
        }
        var frames: [TouchFrame] = []
        var time: Int64 = 1_000_000
        frames.append(frame(0, .began, at: time))
        for step in 1...moves {
            time += interval
            frames.append(frame(step, .moved, at: time))
        }
        time += interval
        frames.append(frame(moves, .ended, at: time))
        self.frames = frames
        period = time - 1_000_000 + 700_000
    }
}

/// A repeating ``FrameCycle`` fed frame by frame into one engine with the default set.
final class FrameFeed: @unchecked Sendable {
    private var engine: GestureEngine
    private let cycle: [TouchFrame]
    private let period: Int64
    private var index = 0
    private var lap: Int64 = 0
    private var events: [EngineEvent] = []
    private(set) var emitted = 0
    /// Sees each frame's events before they are cleared (the callgrind driver's digest).
    var inspect: (([EngineEvent]) -> Void)?

    /// `explains`: the engine explains its decisions (``GestureEngine/explains``);
    /// `reportsTouchMoves`: the views are told of moving touches (off in the daemon while no
    /// client takes raw touches).
    init(fingers: Int, explains: Bool = false, reportsTouchMoves: Bool = true) {
        let workload = FrameCycle(fingers: fingers)
        engine = try! GestureEngine(configuration: .default)
        engine.explains = explains
        engine.reportsTouchMoves = reportsTouchMoves
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
        if let inspect { inspect(events) }
        events.removeAll(keepingCapacity: true)
        index += 1
        if index == cycle.count {
            index = 0
            lap += 1
        }
    }
}
