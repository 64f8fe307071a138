import Foundation
import GestureEngine
import GestureProtocol
import Glibc
import TestSupport
import Testing

extension EndToEndTests {
    /// The socket side through the real daemon: a slow client, socket activation, a daemon
    /// without root.
    @Suite("clients and the socket", .timeLimit(.minutes(3)))
    struct Clients {
        /// An end-to-end behaviour check, not a benchmark: a client that never reads must not
        /// hold up another. A fan-out blocked on the stalled client would leave the fast one with
        /// nothing for seconds (until the server gives up on the slow client), so the check is the
        /// fast client's longest silence between two pan messages, with the stalled client and
        /// without. Its latency (reception time minus the kernel time of the input, both
        /// CLOCK_MONOTONIC) is printed, not bounded: on a VM that runs ~10× slower than the host on
        /// a shared machine, a backlog makes both runs seconds late (p90 3.9 s without and 4.7 s
        /// with, at host load 20), while the silences stay short unless the fan-out blocks.
        @Test("a client that never reads does not delay a fast one")
        func slowClient() async throws {
            try await EndToEndFixture.run { fixture in
                let daemon = try await fixture.startDaemon()
                let fast = try await fixture.subscribe(Subscription(kinds: [.pan]))
                // Five fingers (the pan's most) for 4 s: some 2000 touch messages (~550 kB), more
                // than the kernel's socket buffer and the server's write buffer take for a client
                // that never reads.
                let pan = "pan from=0.1,0.5 to=0.9,0.5 fingers=5 duration=4s"
                let panel = try await fixture.panel(steps: [pan, "pause", pan])
                try await fast.device(named: panel.name)
                panel.play()
                try await fast.waitFor("the first pan to end", where: Self.isPanEnd)
                try await panel.waitForPause()

                // Subscribed to everything, reading nothing, with the smallest receive buffer.
                let slow = try RawClient(fixture.socket, receiveBuffer: 1)
                try slow.send(#"{"type":"subscribe","id":1,"touches":true}"# + "\n")
                panel.play()
                try await fast.waitFor("the second pan to end", count: 2, where: Self.isPanEnd)

                let received = fast.received
                let split = received.firstIndex { Self.isPanEnd($0.message) }!
                let quiet = Self.latencies(received[...split])
                let stalled = Self.latencies(received[(split + 1)...])
                print(
                    "slow client: fast client's latency without \(Self.describe(quiet)), with \(Self.describe(stalled))"
                )
                #expect(stalled.count > 50 && quiet.count > 50)
                // A blocked fan-out goes silent for the 5 s the server gives a client that does not
                // read before closing it; a starved VM pauses both runs alike, for a second or so.
                let silence = (
                    quiet: Self.longestSilence(received[...split]),
                    stalled: Self.longestSilence(received[(split + 1)...])
                )
                print(
                    "slow client: the fast client's longest silence without \(silence.quiet) µs, with \(silence.stalled) µs"
                )
                #expect(
                    silence.stalled < silence.quiet + 2_000_000,
                    "silent for \(silence.stalled) µs with the stalled client, \(silence.quiet) µs without")

                // The slow client was really behind: its backlog shows gaps in `seq` (the server
                // coalesced its `moved` touches and `changed` pans), or it was dropped (`overflow`).
                let lines = try await slow.readAll(until: {
                    $0.contains(#""state":"ended""#) || $0.contains(#""code":"overflow""#)
                })
                let seqs = lines.compactMap { line -> UInt64? in
                    switch try? JSONDecoder().decode(ServerMessage.self, from: Data(line.utf8)) {
                    case .gesture(let g): g.seq
                    case .touch(let t): t.seq
                    default: nil
                    }
                }
                let overflowed = lines.contains { $0.contains(#""code":"overflow""#) }
                let gaps = zip(seqs, seqs.dropFirst()).count { $1 != $0 + 1 }
                print("slow client: \(seqs.count) messages read, \(gaps) gaps in seq, overflow: \(overflowed)")
                #expect(overflowed || gaps > 0, "the slow client was never behind: \(seqs.count) messages, no gap")
                try await panel.unplug()
                try await fixture.finish(daemon)
            }
        }

        static func isPanEnd(_ message: ServerMessage) -> Bool {
            if case .gesture(let g) = message { g.name == "pan" && g.state == .ended } else { false }
        }

        /// The pan messages with their reception times, in order.
        static func pans(_ received: ArraySlice<Subscriber.Received>) -> [(at: Int64, gesture: GestureMessage)] {
            received.compactMap { r in
                if case .gesture(let g) = r.message, g.name == "pan" { (r.at, g) } else { nil }
            }
        }

        /// Reception time minus kernel time of every pan message, µs.
        static func latencies(_ received: ArraySlice<Subscriber.Received>) -> [Int64] {
            pans(received).map { $0.at - $0.gesture.time.microseconds }
        }

        /// The longest time between two pan messages, by reception time, µs.
        static func longestSilence(_ received: ArraySlice<Subscriber.Received>) -> Int64 {
            let times = pans(received).map(\.at)
            return zip(times, times.dropFirst()).map { $1 - $0 }.max() ?? 0
        }

        static func percentile(_ p: Int, _ values: [Int64]) -> Int64 {
            let sorted = values.sorted()
            return sorted[min(sorted.count - 1, sorted.count * p / 100)]
        }

        static func describe(_ latencies: [Int64]) -> String {
            guard !latencies.isEmpty else { return "(none)" }
            return "median \(percentile(50, latencies)) µs, p90 \(percentile(90, latencies)) µs, "
                + "max \(latencies.max()!) µs over \(latencies.count)"
        }

        @Test("socket activation: the daemon serves a listening socket passed as fd 3 (LISTEN_FDS, LISTEN_PID)")
        func socketActivation() async throws {
            try await EndToEndFixture.run { fixture in
                try fixture.writeConfiguration()
                let listening = try RawClient.listen(at: fixture.socket)
                defer { close(listening) }
                // LISTEN_PID must be the daemon's own pid: a shell sets it to its $$ and execs.
                let daemon = try ChildProcess(
                    [
                        "/bin/sh", "-c", #"LISTEN_PID=$$ LISTEN_FDS=1 exec "$0" "$@""#, fixture.gestured, "run",
                        "--config",
                        fixture.configPath, "--socket", fixture.directory + "/not-this-one.sock",
                    ],
                    passing: [listening])
                defer { daemon.send(SIGKILL) }
                try await daemon.output.wait(for: "the daemon to be ready", within: EndToEndFixture.patience) {
                    $0.status != nil || $0.lines.contains { $0.contains(" ready ") }
                }
                #expect(
                    daemon.lines.contains { $0.contains("listening") && $0.contains("inherited") }, "\(daemon.lines)")
                let client = try await fixture.subscribe(Subscription(kinds: [.tap]))
                #expect(!FileManager.default.fileExists(atPath: fixture.directory + "/not-this-one.sock"))
                let panel = try await fixture.panel(steps: ["tap at=0.5,0.5"])
                let device = try await client.device(named: panel.name)
                panel.play()
                let tap = try await client.gesture("a tap through the inherited socket") { $0.name == "tap" }
                #expect(tap.device == device.label)
                try await panel.unplug()

                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit(within: EndToEndFixture.patience) == 0, "\(daemon.lines)")
                // The socket is systemd's: the daemon leaves it bound, and it still takes
                // connections (queued until the next activation).
                #expect(FileManager.default.fileExists(atPath: fixture.socket))
                #expect(throws: Never.self) { try RawClient(fixture.socket, receiveBuffer: nil).close() }
            }
        }

        static var user: String? { ProcessInfo.processInfo.environment["GESTURED_E2E_USER"] }
        static var udevd: Bool { access("/run/udev/control", F_OK) == 0 }

        @Test(
            "a daemon run as a user of group input opens panels once udev has set their permissions",
            .enabled(if: user != nil, "set GESTURED_E2E_USER to a user in group input (the VM does)"),
            .enabled(if: udevd, "needs udevd to give event nodes to group input"))
        func nonRoot() async throws {
            let user = try #require(Self.user)
            try await EndToEndFixture.run { fixture in
                // The user must be able to create the socket and read the configuration.
                chmod(fixture.directory, 0o1777)
                try fixture.writeConfiguration()
                let before = try await fixture.panel("before", steps: ["tap at=0.2,0.2"])
                // su as busybox and util-linux both take it: the whole command in -c, quoted.
                let daemon = try await fixture.startDaemon(command: { run in
                    ["su", "-s", "/bin/sh", "-c", "exec " + run.map { "'\($0)'" }.joined(separator: " "), user]
                })
                var info = stat()
                // The daemon made its socket: it runs as the user.
                let uid = try #require(getpwnam(user)).pointee.pw_uid
                #expect(stat(fixture.socket, &info) == 0 && info.st_uid == uid && uid != 0)
                let client = try await fixture.subscribe(Subscription(kinds: [.tap]))
                let after = try await fixture.panel("after", steps: ["tap at=0.8,0.8"])
                for panel in [before, after] {
                    let device = try await client.device(named: panel.name)
                    // udev's rules made the node the group's (root:input 0660), which let the daemon open it.
                    #expect(stat(panel.devnode, &info) == 0)
                    #expect(
                        info.st_mode & 0o777 == 0o660
                            && getgrgid(info.st_gid).map { String(cString: $0.pointee.gr_name) } == "input")
                    panel.play()
                    try await client.gesture("a tap on \(panel.name)") { $0.name == "tap" && $0.device == device.label }
                    try await panel.unplug()
                }
                // The panel plugged in while it ran was opened at the first try: the daemon hears of
                // it from udev, after the rules, not from the kernel before them. (The one present at
                // start may have been probed before udev was done with it, and opened when udev was.)
                #expect(!daemon.lines.contains { $0.contains("cannot use touchscreen") && $0.contains(after.name) })
                try await fixture.finish(daemon)
            }
        }
    }
}

/// A bare socket client in the test's own hands: it reads only when asked.
final class RawClient: Sendable {
    let fd: Int32

    /// Connects to `path`; `receiveBuffer` sets SO_RCVBUF (the kernel rounds it up to its minimum).
    init(_ path: String, receiveBuffer: Int32?) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw FixtureError("socket: \(String(cString: strerror(errno)))") }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = Self.address(path)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw FixtureError("connect \(path): \(reason)")
        }
    }

    deinit { Glibc.close(fd) }

    func close() { shutdown(fd, Int32(SHUT_RDWR)) }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        guard write(fd, bytes, bytes.count) == bytes.count else {
            throw FixtureError("write: \(String(cString: strerror(errno)))")
        }
    }

    /// Reads lines until one satisfies `last`, the connection ends, or the deadline passes.
    func readAll(
        until last: @escaping @Sendable (String) -> Bool, within: Duration = EndToEndFixture.patience
    ) async throws -> [String] {
        let fd = fd
        let deadline = monotonicMicroseconds() + Int64(within.components.seconds) * 1_000_000
        return try await Task.detached {
            var lines: [String] = []
            var partial: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while monotonicMicroseconds() < deadline {
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&p, 1, 1000) >= 0 else { throw FixtureError("poll failed") }
                guard p.revents != 0 else { continue }
                let n = read(fd, &buffer, buffer.count)
                if n <= 0 { return lines }
                for byte in buffer[..<n] {
                    if byte == UInt8(ascii: "\n") {
                        let line = String(decoding: partial, as: UTF8.self)
                        lines.append(line)
                        partial.removeAll()
                        if last(line) { return lines }
                    } else {
                        partial.append(byte)
                    }
                }
            }
            throw FixtureError("timed out reading the slow client's backlog (\(lines.count) lines read)")
        }.value
    }

    static func address(_ path: String) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.enumerated() { raw[i] = byte }
        }
        return address
    }

    /// A listening socket bound at `path`, as systemd makes it for a `.socket` unit.
    static func listen(at path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = address(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard fd >= 0, bound == 0, Glibc.listen(fd, 16) == 0 else {
            throw FixtureError("cannot listen on \(path): \(String(cString: strerror(errno)))")
        }
        return fd
    }
}
