import Benchmark
import GestureEngine
import TouchInput

// Replay throughput (docs/PERFORMANCE.md, "Replay"): an evemu recording of at least one million
// events, generated once from the project's own gesture scripts and contact encoder (a kiosk-10
// panel: taps, pans, pinches, rotations, swipes, up to five fingers), is parsed and assembled into
// frames per iteration. The engine stage is added when the engine is merged.

/// The generated recording's text and event count.
let recording: (bytes: [UInt8], events: Int) = {
    let description = DeviceProfile.kiosk10.deviceDescription()
    var writer = EvemuWriter(device: description)
    var encoder = ContactEncoder(description: description)!
    let script = try! GestureScript(
        parsing: """
            tap fingers=2
            pan from=0.1,0.2 to=0.9,0.7 fingers=3 duration=800ms
            pinch out fingers=2
            rotate fingers=3 angle=-90
            swipe up-left fingers=4
            edge-swipe bottom
            circle turns=2
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

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
        warmupIterations: 1, maxDuration: .seconds(20), maxIterations: 20)

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
