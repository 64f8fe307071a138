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
    // Where the time of a line goes: the server encodes each published message once with
    // Foundation's JSONEncoder (GestureProtocol.makeEncoder), shared by every client that wants it.
    Benchmark(
        "encode one gesture line (pinch changed)",
        configuration: .init(
            metrics: [.wallClock], timeUnits: .microseconds, warmupIterations: 100, maxDuration: .seconds(3),
            maxIterations: 20_000)
    ) { benchmark in
        let encoder = GestureProtocol.makeEncoder()
        let message = ServerMessage.gesture(sampleGesture)
        for _ in benchmark.scaledIterations { blackHole(try! encoder.encode(message)) }
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
/// connections subscribed to every gesture (blocking POSIX sockets read with poll(2) — the
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
    /// Lines each client still has to read in the current iteration.
    var missing: [Int] = []

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
        missing = Array(repeating: 0, count: clients)
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
        var pending = fds.count
        for i in missing.indices { missing[i] = lines }
        var polls = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        while pending > 0 {
            guard poll(&polls, nfds_t(polls.count), 10_000) > 0 else { fatalError("no line within 10 s") }
            for i in polls.indices where polls[i].revents != 0 && missing[i] > 0 {
                let n = read(polls[i].fd, &buffer, buffer.count)
                precondition(n > 0, "the server closed a connection")
                missing[i] -= buffer[0..<n].count { $0 == UInt8(ascii: "\n") }
                precondition(missing[i] >= 0, "a client got more lines than the frame made")
                if missing[i] == 0 {
                    polls[i].events = 0
                    pending -= 1
                }
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
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.enumerated() { raw[i] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard fd >= 0, result == 0 else { throw RigError("cannot connect to \(path)") }
        return fd
    }
}

struct RigError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
