// Socket latency, end to end: from a touch frame entering the engine to the lines read by every
// client, through real Unix sockets. One iteration does what the daemon's input thread does with
// one frame — `engine.process`, each event turned into a `Publication` with its audience by the one
// mapping (`WireMapping`, on the interest the server posted), one `server.publish(batch)` — and then
// waits until each connected client has read
// all of that frame's lines. Two gestures long under way, so every frame reports `changed`: a
// one-finger pan (one `gesture` line per frame) and a two-finger pinch that also turns and drifts
// (`pan`, `pinch` and `rotate`: three lines per frame). An iteration's wall-clock time is the
// latency of the *slowest* client's *last* line of the frame, so the percentiles reported are at
// least the per-client, per-line ones (docs/PERFORMANCE.md). The same over the WebSocket endpoint:
// the clients are TCP connections on loopback after the WebSocket handshake, counting
// the text frames they read.

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

    for transport in Transport.allCases {
    for fingers in [1, 2] {
        for clients in [1, 100] {
            let gesture = fingers == 1 ? "pan, 1 line" : "pinch+rotate+pan, 3 lines"
            Benchmark(
                "frame → \(transport.read) (\(gesture)), \(clients) client\(clients == 1 ? "" : "s")",
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
                try await Rig(clients: clients, fingers: fingers, transport: transport)
            } teardown: {
                // The rig of this benchmark is the last one made.
                await Rig.current?.stop()
            }
        }
    }
    }
}

/// How the benchmark's clients reach the server.
enum Transport: CaseIterable {
    case unixSocket
    case webSocket

    var read: String {
        switch self {
        case .unixSocket: "lines read"
        case .webSocket: "WebSocket messages read"
        }
    }
}

/// Counts the messages in what a client reads: lines on the Unix socket, text frames on a
/// WebSocket (unmasked, as a server's; a frame split over reads is kept until it is whole).
struct MessageCounter {
    let transport: Transport
    private var carry: [UInt8] = []

    init(_ transport: Transport) { self.transport = transport }

    mutating func count(_ bytes: ArraySlice<UInt8>) -> Int {
        switch transport {
        case .unixSocket:
            return bytes.count { $0 == UInt8(ascii: "\n") }
        case .webSocket:
            carry += bytes
            var start = 0
            var messages = 0
            while carry.count - start >= 2 {
                let short = Int(carry[start + 1] & 0x7F)
                var header = 2
                var length = short
                if short == 126 {
                    guard carry.count - start >= 4 else { break }
                    length = Int(carry[start + 2]) << 8 | Int(carry[start + 3])
                    header = 4
                } else if short == 127 {
                    guard carry.count - start >= 10 else { break }
                    length = (2..<10).reduce(0) { $0 << 8 | Int(carry[start + $1]) }
                    header = 10
                }
                guard carry.count - start >= header + length else { break }
                if carry[start] & 0x0F == 0x1 { messages += 1 }
                start += header + length
            }
            carry.removeFirst(start)
            return messages
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
            found = GestureMessage(g, deviceLabel: stream.device.label, seq: 1)
        }
    }
    return found!
}()

/// Gestures that never end on a 344 × 194 mm panel, frame after frame at 120 Hz. One finger sweeps
/// back and forth along a wide arc (up to about 120 mm/s): `pan` of the default set is active. Two
/// fingers turn about their centre while their spread swells and shrinks and the centre drifts
/// back and forth: `pan`, `pinch` and `rotate` are active. Neither path ever closes a loop: the
/// default `circle` recognizes a drawn circle while it is drawn (and cancels pinch and rotate), which
/// would add and remove lines mid-measurement.
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
            let angle = 1.5 * sin(k * 0.01)
            touches.append(
                Touch(
                    id: TouchID(1), phase: phase,
                    position: SurfacePoint(x: 0.5 + 0.2 * cos(angle), y: 0.5 + 0.2 * sin(angle))))
        } else {
            let turn = k * 0.02
            let spread = 0.08 + 0.03 * sin(k * 0.05)
            let cx = 0.5 + 0.05 * sin(k * 0.01)
            let cy = 0.5
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
    var counters: [MessageCounter] = []
    var mapping = WireMapping()
    /// What the clients take, once they all subscribed.
    var interest = Interest()
    var buffer = [UInt8](repeating: 0, count: 1 << 16)

    init(clients: Int, fingers: Int, transport: Transport) async throws {
        var template = Array("/tmp/gbench.XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw RigError("mkdtemp failed")
        }
        directory = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let path = directory + "/s.sock"
        var logger = Logger(label: "gestured.benchmark")
        logger.logLevel = .critical
        // Every client is this process's user: room for all of them on either transport.
        let places = clients + 8
        server = GestureServer(
            configuration: .init(
                listener: .path(path), daemonVersion: "benchmark",
                limits: ServerLimits(maxClients: places, maxClientsPerPeer: places),
                webSocket: transport == .webSocket
                    ? WebSocketEndpoint(
                        host: "127.0.0.1", port: 0, allowedOrigins: ["http://bench"], maxClients: places,
                        maxClientsPerPeer: places, pingInterval: nil)
                    : nil),
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
            var counter = MessageCounter(transport)
            let fd: Int32
            let subscribe: [UInt8]
            var leftover: [UInt8] = []
            let request = Array(#"{"type":"subscribe","id":1}"#.utf8)
            switch transport {
            case .unixSocket:
                fd = try Self.connect(path)
                subscribe = request + [UInt8(ascii: "\n")]
            case .webSocket:
                fd = try Self.connectWebSocket(port: server.webSocketPort ?? 0, leftover: &leftover, buffer: &buffer)
                // A client's frame is masked; a zero mask leaves the bytes as they are.
                subscribe = [0x81, 0x80 | UInt8(request.count), 0, 0, 0, 0] + request
            }
            fds.append(fd)
            try readMessages(1, from: fd, counter: &counter, already: leftover[...])  // hello
            guard write(fd, subscribe, subscribe.count) == subscribe.count else { throw RigError("write failed") }
            try readMessages(1, from: fd, counter: &counter)  // ok
            counters.append(counter)
        }
        interest = server.interest(newerThan: 0) ?? Interest()
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
            guard let publication = mapping.publication(of: event, device: stream.device, for: interest) else {
                continue
            }
            batch.append(publication)
            if case .gesture = publication { lines += 1 }
        }
        events.removeAll(keepingCapacity: true)
        precondition(
            lines == stream.active.count, "expected \(stream.active.sorted()) to change, got \(lines) gestures")
        server.publish(batch)
        // Each client in turn, blocking until it has read all of the frame's lines. No poll(2)
        // over all the sockets: polling 100 descriptors again for every line that arrives would
        // cost the reader O(clients²) per frame and measure the benchmark's own client instead.
        for (index, fd) in fds.enumerated() {
            var missing = lines
            while missing > 0 {
                let n = read(fd, &buffer, buffer.count)
                precondition(n > 0, "the server closed a connection")
                missing -= counters[index].count(buffer[0..<n])
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

    private func readMessages(
        _ count: Int, from fd: Int32, counter: inout MessageCounter, already: ArraySlice<UInt8> = []
    ) throws {
        var seen = counter.count(already)
        while seen < count {
            let n = read(fd, &buffer, buffer.count)
            guard n > 0 else { throw RigError("the server closed the connection") }
            seen += counter.count(buffer[0..<n])
        }
    }

    /// A blocking TCP connection to the WebSocket endpoint, past its handshake; what was read
    /// after the handshake's answer goes to `leftover`.
    private static func connectWebSocket(
        port: Int, leftover: inout [UInt8], buffer: inout [UInt8]
    ) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RigError("socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw RigError("cannot connect to port \(port)") }
        let handshake = Array(
            ("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nOrigin: http://bench\r\n\r\n")
                .utf8)
        guard write(fd, handshake, handshake.count) == handshake.count else { throw RigError("write failed") }
        var head: [UInt8] = []
        let end = Array("\r\n\r\n".utf8)
        while true {
            let n = read(fd, &buffer, buffer.count)
            guard n > 0 else { throw RigError("no handshake answer") }
            head += buffer[0..<n]
            if let found = head.firstRange(of: end) {
                guard head.starts(with: Array("HTTP/1.1 101".utf8)) else { throw RigError("not upgraded") }
                leftover = Array(head[found.upperBound...])
                return fd
            }
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
