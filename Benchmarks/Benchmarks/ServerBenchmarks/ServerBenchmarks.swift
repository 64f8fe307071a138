// Socket latency, end to end: from a touch frame entering the engine to the lines read by every
// client, through real Unix sockets. One iteration does what the daemon's input thread does with
// one frame — `engine.process`, each event turned into a `Publication` (`Publication(event,
// device:seq:)`), one `server.publish(batch)` — and then waits until each connected client has read
// all of that frame's lines. Two gestures long under way, so every frame reports `changed`: a
// one-finger pan (one `gesture` line per frame) and a two-finger pinch that also turns and drifts
// (`pan`, `pinch` and `rotate`: three lines per frame). An iteration's wall-clock time is the
// latency of the *slowest* client's *last* line of the frame, so the percentiles reported are at
// least the per-client, per-line ones (docs/PERFORMANCE.md).

import Benchmark
import GestureEngine
import GestureProtocol
import GestureServer
import Logging

#if canImport(Glibc)
import Glibc
#endif

let benchmarks: @Sendable () -> Void = {
    // Where the time of a line goes: the server encodes each published message once
    // (GestureProtocol's LineEncoder, which writes `gesture` and `touch` by hand), shared by every
    // client that wants it; Foundation's JSONEncoder, which it replaced for these, for comparison.
    let encodeConfiguration = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds, warmupIterations: 100,
        maxDuration: .seconds(3), maxIterations: 20_000)
    Benchmark("encode one gesture line (pinch changed), LineEncoder", configuration: encodeConfiguration) {
        benchmark in
        var encoder = LineEncoder()
        let message = ServerMessage.gesture(sampleGesture)
        for _ in benchmark.scaledIterations { blackHole(try! encoder.encode(message).count) }
    }
    Benchmark("encode one gesture line (pinch changed), JSONEncoder", configuration: encodeConfiguration) {
        benchmark in
        let encoder = GestureProtocol.makeEncoder()
        let message = ServerMessage.gesture(sampleGesture)
        for _ in benchmark.scaledIterations { blackHole(try! encoder.encode(message)) }
    }

    // The machine's floor, with no code of ours: one thread wakes another through a pipe and
    // sleeps until it answers — the two thread wake-ups every frame → line iteration also has (the
    // server's event loop, then the reading client). On a shared VM this depends on whether the
    // two threads share a CPU (docs/PERFORMANCE.md).
    Benchmark(
        "baseline: thread ping-pong over pipes",
        configuration: .init(
            metrics: [.wallClock], timeUnits: .microseconds, warmupIterations: 200, maxDuration: .seconds(5),
            maxIterations: 20_000)
    ) { _, pingPong in
        pingPong.roundTrip()
    } setup: {
        try PingPong()
    }

    for fingers in [1, 2] {
        for clients in [1, 100] {
            let gesture = fingers == 1 ? "pan, 1 line" : "pinch+rotate+pan, 3 lines"
            Benchmark(
                "frame → lines read (\(gesture)), \(clients) client\(clients == 1 ? "" : "s")",
                configuration: .init(
                    metrics: [.wallClock],
                    timeUnits: .microseconds,
                    warmupIterations: 200,
                    maxDuration: .seconds(10),
                    maxIterations: clients == 1 ? 20_000 : 5_000
                )
            ) { _, rig in
                rig.frameToLines()
            } setup: {
                try await Rig(clients: clients, fingers: fingers)
            } teardown: {
                // The rig of this benchmark is the last one made.
                await Rig.current?.stop()
            }
        }
    }
}

/// A `pinch` `changed` as the daemon publishes it, from the two-finger stream.
let sampleGesture: GestureMessage = {
    var engine = try! GestureEngine(configuration: .default)
    var stream = GestureStream(fingers: 2)
    engine.addDevice(stream.device)
    var events: [EngineEvent] = []
    var found: GestureMessage?
    for _ in 0..<200 {
        events.removeAll()
        engine.process(stream.next(), into: &events)
        for case .gesture(let g) in events where g.name == "pinch" && g.state == .changed {
            if case .gesture(let message, _) = Publication(.gesture(g), device: stream.device, seq: 1) {
                found = message
            }
        }
    }
    return found!
}()

/// Gestures that never end on a 344 × 194 mm panel, frame after frame at 120 Hz. One finger goes
/// round a wide circle (about 80 mm/s): `pan` of the default set is active. Two fingers turn about
/// their centre while their spread swells and shrinks and the centre drifts on a slow circle:
/// `pan`, `pinch` and `rotate` are active.
struct GestureStream {
    let device = DeviceDescriptor(
        id: DeviceID(1), label: "event5", name: "bench",
        geometry: SurfaceGeometry(physicalSize: PhysicalSize(width: Millimeters(344), height: Millimeters(194))))
    let fingers: Int
    private var step = 0

    init(fingers: Int) { self.fingers = fingers }

    /// The recognizers active once the gesture is under way: one `changed` line each per frame.
    var active: Set<String> { fingers == 1 ? ["pan"] : ["pan", "pinch", "rotate"] }

    mutating func next() -> TouchFrame {
        defer { step += 1 }
        let k = Double(step)
        let phase: TouchPhase = step == 0 ? .began : .moved
        var touches: [Touch] = []
        if fingers == 1 {
            let angle = k * 0.01
            touches.append(
                Touch(
                    id: TouchID(1), phase: phase,
                    position: SurfacePoint(x: 0.5 + 0.2 * cos(angle), y: 0.5 + 0.2 * sin(angle))))
        } else {
            let turn = k * 0.02
            let spread = 0.08 + 0.03 * sin(k * 0.05)
            let cx = 0.5 + 0.05 * cos(k * 0.01)
            let cy = 0.5 + 0.05 * sin(k * 0.01)
            touches.append(
                Touch(
                    id: TouchID(1), phase: phase,
                    position: SurfacePoint(x: cx + spread * cos(turn), y: cy + spread * sin(turn))))
            touches.append(
                Touch(
                    id: TouchID(2), phase: phase,
                    position: SurfacePoint(x: cx - spread * cos(turn), y: cy - spread * sin(turn))))
        }
        return TouchFrame(
            device: device.id, time: Timestamp(microseconds: 1_000_000 + Int64(step) * 8_333), touches: touches)
    }
}

/// The engine with the default set in front of a server on a temporary socket, and `clients`
/// connections subscribed to every gesture (blocking POSIX sockets read one after the other — the
/// simplest client any language would write).
final class Rig: @unchecked Sendable {
    nonisolated(unsafe) static var current: Rig?

    let directory: String
    let server: GestureServer
    var engine: GestureEngine
    var stream: GestureStream
    var events: [EngineEvent] = []
    var fds: [Int32] = []
    var seq: UInt64 = 0
    var buffer = [UInt8](repeating: 0, count: 1 << 16)

    init(clients: Int, fingers: Int) async throws {
        var template = Array("/tmp/gbench.XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw RigError("mkdtemp failed")
        }
        directory = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let path = directory + "/s.sock"
        var logger = Logger(label: "gestured.benchmark")
        logger.logLevel = .critical
        server = GestureServer(
            configuration: .init(
                listener: .path(path), daemonVersion: "benchmark", limits: ServerLimits(maxClients: clients + 8)),
            delegate: nil, logger: logger)
        engine = try GestureEngine(configuration: .default)
        stream = GestureStream(fingers: fingers)
        try await server.start()
        engine.addDevice(stream.device)
        events.reserveCapacity(64)
        // Into the gesture: the fingers land and move until its recognizers have all begun (their
        // `began` lines are not part of the measurement; no client is connected yet).
        var active = Set<String>()
        for _ in 0..<200 {
            engine.process(stream.next(), into: &events)
            for case .gesture(let g) in events where g.state == .began { active.insert(g.name) }
            events.removeAll(keepingCapacity: true)
        }
        guard active == stream.active else { throw RigError("the stream began \(active.sorted())") }
        for _ in 0..<clients {
            let fd = try Self.connect(path)
            fds.append(fd)
            try readLines(1, from: fd)  // hello
            let subscribe = Array(#"{"type":"subscribe","id":1}"#.utf8) + [UInt8(ascii: "\n")]
            guard write(fd, subscribe, subscribe.count) == subscribe.count else { throw RigError("write failed") }
            try readLines(1, from: fd)  // ok
        }
        Rig.current = self
    }

    /// One iteration: the next frame through the engine, its events published as one batch, then
    /// wait until every client has read every line of it.
    func frameToLines() {
        engine.process(stream.next(), into: &events)
        var batch: [Publication] = []
        batch.reserveCapacity(events.count)
        var lines = 0
        for event in events {
            seq += 1
            batch.append(Publication(event, device: stream.device, seq: seq))
            if case .gesture = event { lines += 1 }
        }
        events.removeAll(keepingCapacity: true)
        precondition(
            lines == stream.active.count, "expected \(stream.active.sorted()) to change, got \(lines) gestures")
        server.publish(batch)
        // Each client in turn, blocking until it has read all of the frame's lines. No poll(2)
        // over all the sockets: polling 100 descriptors again for every line that arrives would
        // cost the reader O(clients²) per frame and measure the benchmark's own client instead.
        for fd in fds {
            var missing = lines
            while missing > 0 {
                let n = read(fd, &buffer, buffer.count)
                precondition(n > 0, "the server closed a connection")
                missing -= buffer[0..<n].count { $0 == UInt8(ascii: "\n") }
                precondition(missing >= 0, "a client got more lines than the frame made")
            }
        }
    }

    func stop() async {
        for fd in fds { close(fd) }
        fds = []
        await server.shutdown()
        rmdir(directory)
    }

    private func readLines(_ count: Int, from fd: Int32) throws {
        var seen = 0
        while seen < count {
            let n = read(fd, &buffer, buffer.count)
            guard n > 0 else { throw RigError("the server closed the connection") }
            seen += buffer[0..<n].count { $0 == UInt8(ascii: "\n") }
        }
    }

    private static func connect(_ path: String) throws -> Int32 {
        do throws(UnixSocketConnection.Failure) {
            return try UnixSocketConnection.connect(path)
        } catch {
            throw RigError("cannot connect to \(path): errno \(error.errno)")
        }
    }
}

/// Two pipes and a thread that answers every byte written to the first with a byte on the second.
/// The thread and its pipes live until the benchmark process ends.
final class PingPong: Sendable {
    let ping: (read: Int32, write: Int32)
    let pong: (read: Int32, write: Int32)

    init() throws {
        var a: [Int32] = [0, 0]
        var b: [Int32] = [0, 0]
        guard pipe(&a) == 0, pipe(&b) == 0 else { throw RigError("pipe failed") }
        ping = (a[0], a[1])
        pong = (b[0], b[1])
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        guard
            pthread_create(&thread, nil, { Unmanaged<PingPong>.fromOpaque($0!).takeRetainedValue().echo() }, context)
                == 0
        else { throw RigError("pthread_create failed") }
    }

    private func echo() -> UnsafeMutableRawPointer? {
        var byte: UInt8 = 0
        while read(ping.read, &byte, 1) == 1 {
            guard write(pong.write, &byte, 1) == 1 else { break }
        }
        return nil
    }

    func roundTrip() {
        var byte: UInt8 = 1
        precondition(write(ping.write, &byte, 1) == 1 && read(pong.read, &byte, 1) == 1, "the echo thread is gone")
    }
}

struct RigError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
