import Benchmark
import GestureEngine
import TouchInput
import VirtualDevices

#if canImport(Glibc)
import Glibc
#endif

// Replay throughput (docs/PERFORMANCE.md, "Replay"): an evemu recording of at least one million
// events, generated once from the project's own gesture scripts and contact encoder (a kiosk-10
// panel: taps, a double tap, long presses, pans, pinches, rotations, swipes, edge swipes, circles,
// up to five fingers), replayed per iteration: parsed, assembled into frames and run through the
// engine with the default recognizer set, as `gestured replay` does. Two more benchmarks measure
// the input half alone (parse + assemble) and the parser alone, to show where the time goes.

/// The generated recording's text and event count.
let recording: (bytes: [UInt8], events: Int) = {
    let description = DeviceProfile.kiosk10.capabilities()
    var writer = EvemuWriter(device: description)
    var encoder = ContactEncoder(description: description)!
    let script = try! GestureScript(
        parsing: """
            tap 0.3,0.4
            double-tap 0.6,0.4
            tap fingers=2
            long-press at=0.5,0.5 duration=800ms
            pan from=0.1,0.2 to=0.9,0.7 fingers=3 duration=800ms
            pinch out fingers=2
            rotate fingers=3 angle=-90
            swipe up-left fingers=4
            edge-swipe bottom
            circle
            long-press fingers=5 duration=400ms
            """)
    var raw: [RawEvent] = []
    var events = 0
    var offset: Int64 = 1_700_000_000_000_000
    var seed: UInt64 = 1
    while events < 1_000_000 {
        let timeline = try! script.timeline(seed: seed)
        for step in timeline {
            guard case .frame(let at, let contacts) = step else { continue }
            raw.removeAll(keepingCapacity: true)
            encoder.encode(contacts, into: &raw)
            for r in raw {
                writer.append(
                    InputEvent(
                        time: Timestamp(microseconds: offset + at.microseconds), type: r.type, code: r.code,
                        value: r.value))
            }
            events += raw.count
        }
        offset += timeline.last!.time.microseconds + 1_000_000
        seed += 1
    }
    return (Array(writer.text.utf8), events)
}()

/// One replay of the recording through the engine: what every iteration of the end-to-end
/// benchmark does, and (with `tally`) what the check before the benchmarks uses.
struct EngineReplay {
    private var engine: GestureEngine
    private var events: [EngineEvent] = []
    /// Events the engine emitted (gestures and view touches).
    private(set) var emitted = 0
    /// With a tally (the check only, not the benchmark: building the keys costs more than the
    /// engine), every gesture event is also counted by `name state`, and view touches as `(touch)`.
    private var tally: [String: Int]?

    init(_ source: ReplaySource, tally: Bool = false) {
        engine = try! GestureEngine(configuration: .default)
        engine.addDevice(source.descriptor)
        events.reserveCapacity(256)
        self.tally = tally ? [:] : nil
    }

    /// A replay's clock is the recording's: time moves to each frame (timers due by then fire,
    /// R7), then the frame is processed.
    mutating func run(_ frames: inout TouchFrameBuffer) {
        for frame in frames {
            engine.advance(to: frame.time, into: &events)
            engine.process(frame, into: &events)
            drain()
        }
        frames.removeAll()
    }

    /// The end of the recording: the timers still running (a tap waiting for a double tap) fire.
    mutating func finish() {
        while let deadline = engine.nextDeadline {
            engine.advance(to: deadline, into: &events)
            drain()
        }
    }

    private mutating func drain() {
        emitted &+= events.count
        if tally != nil {
            for event in events {
                switch event {
                case .gesture(let g): tally!["\(g.name) \(g.state.rawValue)", default: 0] += 1
                case .touch: tally!["(touch)", default: 0] += 1
                case .explanation: tally!["(explanation)", default: 0] += 1
                case .panel: tally!["(panel)", default: 0] += 1
                }
            }
        }
        events.removeAll(keepingCapacity: true)
    }

    var counts: [String: Int] { tally ?? [:] }
}

/// Replays the whole recording through the engine.
func replayThroughEngine(tally: Bool = false) -> EngineReplay {
    let parsed = try! EvemuRecording(bytes: recording.bytes)
    var source = try! ReplaySource(recording: parsed, id: DeviceID(1), label: "bench")
    var replay = EngineReplay(source, tally: tally)
    var frames = TouchFrameBuffer()
    while try! source.read(events: 4096, into: &frames) { replay.run(&frames) }
    replay.run(&frames)
    source.finish(into: &frames)
    replay.run(&frames)
    replay.finish()
    precondition(source.eventCount == recording.events)
    return replay
}

/// The engine must really work on this recording: every gesture of the script is recognized.
/// Runs once, before the benchmarks, and lists what the engine reported on stderr.
let engineCheck: Void = {
    let replay = replayThroughEngine(tally: true)
    let counts = replay.counts
    var report = "ReplayBenchmarks: \(recording.events) evdev events → \(replay.emitted) engine events per replay:\n"
    for key in counts.keys.sorted() { report += "  \(key): \(counts[key]!)\n" }
    _ = report.withCString { write(2, $0, strlen($0)) }
    for name in [
        "tap", "double-tap", "two-finger-tap", "long-press", "pan", "pinch", "rotate", "swipe", "edge-swipe", "circle",
    ] {
        precondition(
            counts.keys.contains { $0.hasPrefix(name + " ") }, "the engine recognized no \(name) in the recording")
    }
}()

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
        warmupIterations: 1, maxDuration: .seconds(20), maxIterations: 20)

    _ = engineCheck

    Benchmark("Replay parse+assemble+engine, \(recording.events) events per iteration") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(replayThroughEngine().emitted)
        }
    }

    Benchmark("Replay parse+assemble, \(recording.events) events per iteration") { benchmark in
        for _ in benchmark.scaledIterations {
            let parsed = try! EvemuRecording(bytes: recording.bytes)
            var replay = try! ReplaySource(recording: parsed, id: DeviceID(1), label: "bench")
            var frames = TouchFrameBuffer()
            var touches = 0
            while try! replay.read(events: 4096, into: &frames) {
                for frame in frames { touches &+= frame.touches.count }
                frames.removeAll()
            }
            precondition(replay.eventCount == recording.events)
            blackHole(touches)
        }
    }

    Benchmark("Parse only, \(recording.events) events per iteration") { benchmark in
        for _ in benchmark.scaledIterations {
            var reader = try! EvemuRecording(bytes: recording.bytes).events()
            var sum: Int64 = 0
            while let event = try! reader.next() { sum &+= Int64(event.value) }
            blackHole(sum)
        }
    }
}
