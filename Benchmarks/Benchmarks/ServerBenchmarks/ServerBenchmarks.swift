// Socket latency: from `GestureServer.publish` on the publisher's thread to the line read by
// every client, through real Unix sockets. One iteration publishes one `gesture` and waits until
// each connected client has read its line, so an iteration's wall-clock time is the latency of
// the *slowest* client: the percentiles reported are at least the per-client ones.
//
// The lead adds the engine stage in front (frame in → engine → publish) once the engine lands.

import Benchmark
import GestureEngine
import GestureProtocol
import GestureServer
import Logging

#if canImport(Glibc)
import Glibc
#endif

let benchmarks: @Sendable () -> Void = {
    for clients in [1, 100] {
        Benchmark(
            "publish → line read, \(clients) client\(clients == 1 ? "" : "s")",
            configuration: .init(
                metrics: [.wallClock],
                timeUnits: .microseconds,
                warmupIterations: 200,
                maxDuration: .seconds(10),
                maxIterations: clients == 1 ? 20_000 : 5_000
            )
        ) { _, rig in
            rig.publishAndReadOne()
        } setup: {
            try await Rig(clients: clients)
        } teardown: {
            // The rig of this benchmark is the last one made.
            await Rig.current?.stop()
        }
    }
}

/// A server on a temporary socket and `clients` subscribed connections (blocking POSIX sockets,
/// read with poll(2) — the simplest client any language would write).
final class Rig: @unchecked Sendable {
    nonisolated(unsafe) static var current: Rig?

    let directory: String
    let server: GestureServer
    var fds: [Int32] = []
    var seq: UInt64 = 0
    var buffer = [UInt8](repeating: 0, count: 1 << 16)

    init(clients: Int) async throws {
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
        try await server.start()
        for _ in 0..<clients {
            let fd = try Self.connect(path)
            fds.append(fd)
            try readLines(1, from: fd)  // hello
            let subscribe = Array(#"{"type":"subscribe"}"#.utf8) + [UInt8(ascii: "\n")]
            guard write(fd, subscribe, subscribe.count) == subscribe.count else { throw RigError("write failed") }
            try readLines(1, from: fd)  // ok
        }
        Rig.current = self
    }

    /// One iteration: publish a gesture, wait until every client has read its line.
    func publishAndReadOne() {
        seq += 1
        let gesture = GestureMessage(
            seq: seq, name: "pan", kind: .pan, state: .changed, fingers: 2, touches: [7, 8], device: "event5",
            region: "root", timeUS: Int64(seq) * 8000, position: XY(x: 0.4125, y: 0.6375),
            positionMM: XY(x: 141.9, y: 123.675), translation: XY(x: 0.0125, y: -0.003),
            translationMM: XY(x: 4.3, y: -0.582), velocity: XY(x: 0.31, y: -0.08), velocityMM: XY(x: 106.64, y: -15.52))
        server.publish([.gesture(gesture, owner: .configuration)])
        var pending = fds.count
        var done = [Bool](repeating: false, count: fds.count)
        var polls = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        while pending > 0 {
            guard poll(&polls, nfds_t(polls.count), 10_000) > 0 else { fatalError("no line within 10 s") }
            for i in polls.indices where polls[i].revents != 0 && !done[i] {
                let n = read(polls[i].fd, &buffer, buffer.count)
                precondition(n > 0, "the server closed a connection")
                if buffer[n - 1] == UInt8(ascii: "\n") {
                    done[i] = true
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
