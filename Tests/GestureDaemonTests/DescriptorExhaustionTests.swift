import Foundation
import Glibc
import TestSupport
import Testing

/// Against the real daemon: with `ulimit -n 64`, 80 plain TCP connections to
/// the WebSocket port made `accept4` fail with EMFILE ~21 000 times a second (a core at 100 %),
/// and once the descriptors were free again the Unix socket stayed deaf for good (it resumed
/// accepting only when a Unix connection closed). Now neither listener spins, and both resume
/// once descriptors are free.
@Suite("descriptor exhaustion", .timeLimit(.minutes(10)))
struct DescriptorExhaustionTests {
    /// The daemon's threads' time on a CPU or waiting for one (/proc/PID/task/*/schedstat), in
    /// nanoseconds: a thread that spins is runnable all the time, however loaded the machine;
    /// an idle one is not.
    static func runnableNanoseconds(_ pid: pid_t) throws -> Int64 {
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
        return tasks.reduce(0) { total, task in
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8)) ?? ""
            let fields = text.split(separator: " ").compactMap {
                Int64($0.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            return total + (fields.count >= 2 ? fields[0] + fields[1] : 0)
        }
    }

    /// How much of `window` the daemon's threads were runnable, together.
    static func runnableShare(_ pid: pid_t, over window: Duration) async throws -> Double {
        let before = try runnableNanoseconds(pid)
        let start = ContinuousClock.now
        try await Task.sleep(for: window)
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Double(try runnableNanoseconds(pid) - before) / 1e9 / seconds
    }

    /// A TCP connection to 127.0.0.1:`port` that sends `request` (nothing: a plain one), or nil
    /// when refused.
    static func connectTCP(_ port: Int, sending request: String = "") -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0, request.utf8.count == request.withCString({ send(fd, $0, strlen($0), 0) }) else {
            close(fd)
            return nil
        }
        return fd
    }

    /// The port the daemon's journal says it listens on for WebSockets.
    static func webSocketPort(_ daemon: ChildProcess) throws -> Int {
        let line = try #require(daemon.lines.first { $0.contains("listening for WebSockets") })
        let port = line.split(separator: " ").first { $0.hasPrefix("port=") }.flatMap { Int($0.dropFirst(5)) }
        return try #require(port, "\(line)")
    }

    /// A page's handshake request.
    static let upgrade =
        "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        + "Origin: http://localhost:8080\r\n\r\n"

    /// A page's handshake; prints the status line (or `closed`).
    static let handshake = """
        import socket, sys
        s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
        s.settimeout(60)
        s.sendall(("GET / HTTP/1.1\\r\\nHost: x\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\n"
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\\r\\nSec-WebSocket-Version: 13\\r\\n"
            "Origin: http://localhost:8080\\r\\n\\r\\n").encode())
        print(s.makefile("rb").readline().decode().strip() or "closed", flush=True)
        """

    /// The soft limit under `prlimit --nofile=SOFT:HARD`, read from /proc/PID/limits.
    static func softDescriptorLimit(_ pid: pid_t) throws -> Int? {
        let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
        let line = limits.split(separator: "\n").first { $0.hasPrefix("Max open files") }
        return line?.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).first.flatMap { Int($0) }
    }

    @Test("a soft limit below what the connection limits can need is raised to it, within the hard limit")
    func softLimitRaised() async throws {
        let (directory, socket) = try HostileClientTests.place()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/gestured.yaml"
        try "websocket:\n  listen: \"127.0.0.1:0\"\n  allowed-origins: [\"file://\"]\n".write(
            toFile: config, atomically: true, encoding: .utf8)
        // Default limits: 128 Unix and 32 WebSocket connections, and the reserve of 256.
        let daemon = try await DaemonProcessTests.startDaemon(
            ["--config", config, "--socket", socket, "--replay", DaemonProcessTests.recording],
            limitingDescriptorsTo: nil, softLimit: 64, hardLimit: 4096)
        defer { daemon.send(SIGKILL) }
        #expect(try Self.softDescriptorLimit(daemon.processIdentifier) == 128 + 32 + 256)
        #expect(!daemon.lines.contains { $0.contains("the descriptor limit is below") })
        daemon.send(SIGTERM)
        #expect(try await daemon.waitForExit(within: .seconds(10)) == 0)
    }

    @Test("out of descriptors, neither listener spins, and both serve again once descriptors are free")
    func exhaustion() async throws {
        let (directory, socket) = try HostileClientTests.place()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/gestured.yaml"
        // Limits above what the descriptors allow: what a careless configuration (or the old
        // unit's default) gave, so the process itself runs out.
        // No pings: the pages that hold the descriptors stay as long as the test needs them.
        try """
        socket: {max-clients: 1024, max-clients-per-user: 1024}
        websocket:
          listen: "127.0.0.1:0"
          allowed-origins: ["http://localhost:8080"]
          max-clients: 1024
          max-clients-per-peer: 1024
          ping-interval-ms: 3600000
        """.write(toFile: config, atomically: true, encoding: .utf8)
        // One unpaced pass, then the daemon idles: what is left runnable is the listeners alone,
        // whose share a loaded machine does not inflate as it does a paced replay's wake-ups.
        let daemon = try await DaemonProcessTests.startDaemon(
            ["--config", config, "--socket", socket, "--replay", DaemonProcessTests.recording, "--speed", "max"],
            limitingDescriptorsTo: 64)
        defer { daemon.send(SIGKILL) }
        try await daemon.output.wait(for: "the replay to end") { o in
            o.lines.contains { $0.contains("replay done") }
        }
        #expect(daemon.lines.contains { $0.contains("the descriptor limit is below") }, "no warning at start")
        let port = try Self.webSocketPort(daemon)

        // Take every descriptor the daemon has left (and some it has not): pages, so that the
        // handshake timeout does not give them back while a loaded machine runs the test.
        var held: [Int32] = []
        defer { for fd in held { close(fd) } }
        for _ in 0..<80 { if let fd = Self.connectTCP(port, sending: Self.upgrade) { held.append(fd) } }
        try await daemon.output.wait(for: "accept to fail", within: .seconds(30)) { o in
            o.lines.contains { $0.contains("cannot accept WebSocket connections") }
        }
        // A Unix client arrives while none are left: it waits in the backlog.
        let unix = try ChildProcess(["python3", "-c", DaemonProcessTests.helloProbe, socket])
        defer { unix.send(SIGKILL) }
        try await daemon.output.wait(for: "the Unix socket to fail to accept", within: .seconds(30)) { o in
            o.lines.contains { $0.contains("cannot accept a connection") }
        }
        let share = try await Self.runnableShare(daemon.processIdentifier, over: .seconds(2))
        // A spinning thread is runnable all the time, whatever the load (a share of 1 or more);
        // an idle daemon only while its few wake-ups (the accept retries) wait for a CPU, which
        // grows with the load: 31 % measured with the machine at load 40.
        #expect(share < 0.75, "the daemon was runnable \(Int(share * 100)) % of the time: it spins")

        for fd in held { close(fd) }
        held = []
        // Both listeners take new connections again, the Unix one first of all its waiting one.
        #expect(try await unix.waitForExit(within: .seconds(30)) == 0, "\(unix.lines)")
        #expect(!unix.lines.isEmpty)
        let page = try ChildProcess(["python3", "-c", Self.handshake, "\(port)"])
        #expect(try await page.waitForExit(within: .seconds(30)) == 0)
        #expect(page.lines.first?.hasPrefix("HTTP/1.1 101") == true, "\(page.lines)")
        daemon.send(SIGTERM)
        #expect(try await daemon.waitForExit(within: .seconds(10)) == 0)
    }
}
