import Benchmark
import GestureEngine
import Glibc
import VirtualDevices

// The passthrough forwarding path on the host (docs/PERFORMANCE.md, "Passthrough"): what the input
// thread does per frame for a mirrored panel once the engine has produced its view events —
// encode them as the mirror's evdev frame (MirrorEncoder) and write it with one write(2).
// This host has no uinput, so the write goes to a pipe that is drained in the same iteration:
// the numbers include a write(2) and a read(2) of the frame's bytes, not the kernel's input core
// (evdev handlers, reader wake-ups), which the VM measurement covers.

/// A repeating cycle of view events of a kiosk-10 panel: N fingers land, move for one second at
/// 120 Hz, lift.
final class ViewFeed: @unchecked Sendable {
    private var encoder: MirrorEncoder
    private let cycle: [[ViewTouchEvent]]
    private var index = 0
    private var events: [RawEvent] = []
    private let pipe: Int32?
    private var writer: EventWriter?
    private var sink = [UInt8](repeating: 0, count: 1 << 16)
    private(set) var written = 0

    init(fingers: Int, writing: Bool) {
        let panel = DeviceProfile.kiosk10.capabilities()
        encoder = MirrorEncoder(source: panel, touchProtocol: .slots(count: 10))
        var frames: [[ViewTouchEvent]] = []
        var time: Int64 = 1_000_000
        func frame(_ step: Int, _ phase: TouchPhase) -> [ViewTouchEvent] {
            (0..<fingers).map { i in
                let x = Int32(4000 + i * 2500 + step * 100)
                let y = Int32(16000 + (step * 37 + i * 11) % 200)
                let touch = Touch(
                    id: TouchID(UInt32(i + 1)), phase: phase,
                    position: SurfacePoint(x: Double(x) / 32767, y: Double(y) / 32767),
                    raw: RawContact(position: DevicePoint(x: x, y: y), touchMajor: 8, pressure: 100))
                return ViewTouchEvent(
                    device: DeviceID(1), region: "root", touch: touch, time: Timestamp(microseconds: time))
            }
        }
        frames.append(frame(0, .began))
        for step in 1...120 {
            time += 8_333
            frames.append(frame(step, .moved))
        }
        time += 8_333
        frames.append(frame(120, .ended))
        cycle = frames
        events.reserveCapacity(256)
        if writing {
            var fds: [Int32] = [0, 0]
            precondition(Glibc.pipe(&fds) == 0)
            pipe = fds[0]
            writer = EventWriter(fileDescriptor: fds[1])
        } else {
            pipe = nil
        }
    }

    /// Encodes (and writes) the next frame of the cycle.
    @inline(__always) func step() {
        for view in cycle[index] { encoder.encode(view.touch, at: view.time, into: &events) }
        encoder.finish(into: &events)
        if let pipe {
            try! writer!.write(events)
            written &+= sink.withUnsafeMutableBytes { Glibc.read(pipe, $0.baseAddress, $0.count) }
        } else {
            written &+= events.count
        }
        events.removeAll(keepingCapacity: true)
        index = index + 1 == cycle.count ? 0 : index + 1
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        warmupIterations: 2_000,
        maxDuration: .seconds(5),
        maxIterations: 200_000
    )

    for fingers in [1, 10] {
        let encode = ViewFeed(fingers: fingers, writing: false)
        Benchmark("Passthrough: encode a \(fingers)-touch frame") { benchmark in
            for _ in benchmark.scaledIterations { encode.step() }
            blackHole(encode.written)
        }
        let write = ViewFeed(fingers: fingers, writing: true)
        Benchmark("Passthrough: encode + write(2) a \(fingers)-touch frame to a pipe (+ read(2))") { benchmark in
            for _ in benchmark.scaledIterations { write.step() }
            blackHole(write.written)
        }
    }
}
