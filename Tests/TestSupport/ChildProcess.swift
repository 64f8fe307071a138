import Foundation

/// A program the tests start, whose output lines arrive as they are printed, and whose end can
/// be waited for with a deadline.
public final class ChildProcess: Sendable {
    public struct Output: Sendable {
        public var lines: [String] = []
        var partial: [UInt8] = []
        public var status: Int32?
        /// Standard output and error were read to their end.
        public var ended = false
    }

    public let output = Observed(Output())
    /// The program's process id (for /proc/PID: its memory, its descriptors; for signals).
    public let processIdentifier: pid_t
    private let arguments: [String]

    /// Starts `arguments` (the first looked up in `PATH`) with the tests' environment and
    /// `environment` on top, and `descriptors` as its fds 3, 4, … (as systemd passes sockets).
    /// Started with `posix_spawn` (``Spawn``), not Foundation's `Process`.
    public init(_ arguments: [String], environment: [String: String] = [:], passing descriptors: [Int32] = []) throws {
        let started = try Spawn.start(
            ["/usr/bin/env"] + arguments, environment: Spawn.environment(environment), passing: descriptors)
        processIdentifier = started.pid
        self.arguments = arguments
        let output = self.output
        // Blocking reads and waitpid, each on a thread of its own until the program ends.
        Thread.detachNewThread {
            let status = Spawn.wait(started.pid)
            output.update { $0.status = status }
        }
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = read(started.output, &buffer, buffer.count)
                if n < 0 && errno == EINTR { continue }
                output.update { o in
                    guard n > 0 else {
                        if !o.partial.isEmpty { o.lines.append(String(decoding: o.partial, as: UTF8.self)) }
                        o.partial = []
                        o.ended = true
                        return
                    }
                    for byte in buffer[0..<n] {
                        if byte == UInt8(ascii: "\n") {
                            o.lines.append(String(decoding: o.partial, as: UTF8.self))
                            o.partial = []
                        } else {
                            o.partial.append(byte)
                        }
                    }
                }
                if n <= 0 { break }
            }
            close(started.output)
        }
    }

    /// A program of this package: `swift build --build-tests` (and `swift test`) puts the
    /// executables next to the test bundle.
    public static func builtExecutable(_ name: String) throws -> String {
        let path = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent(name).path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw SpawnFailure(description: "\(name) is not built at \(path); run `swift build --build-tests` first")
        }
        return path
    }

    public func waitForLines(_ count: Int, within: Duration = .seconds(30)) async throws {
        try await output.wait(for: "\(count) lines of output", within: within) { $0.lines.count >= count }
    }

    /// Waits for the exit and for its output to be read to the end; the exit status.
    public func waitForExit(within: Duration = .seconds(30)) async throws -> Int32 {
        // The exit can be reported before the last output is read: wait for both.
        do {
            try await output.wait(for: "the program to exit", within: within) { $0.status != nil && $0.ended }
        } catch let timeout as TimedOut {
            // Which half is missing, and what the program said last, for the test's report.
            let o = output.value
            throw TimedOut(
                what:
                    "\(timeout.what) (\(arguments.joined(separator: " ")): exit status \(o.status.map(String.init) ?? "none"), "
                    + "output \(o.ended ? "ended" : "still open"), last lines \(o.lines.suffix(5)))")
        }
        return output.value.status!
    }

    /// Its test is over: a program still running then is killed with its process group
    /// (``Reaper``), so that none outlives the test that started it.
    deinit {
        Reaper.end(processIdentifier)
    }

    public func terminate() { send(SIGTERM) }

    /// Sends `signal` (SIGHUP, SIGTERM, SIGKILL…) to the program while it runs (until it is reaped,
    /// so never to another process that got its id).
    public func send(_ signal: Int32) {
        if output.value.status == nil { kill(processIdentifier, signal) }
    }

    public var lines: [String] { output.value.lines }

    /// A line of /proc/PID/status as a number (`VmRSS` in kB, `Threads`…), while it runs.
    public func status(_ field: String) throws -> Int {
        let text = try String(contentsOfFile: "/proc/\(processIdentifier)/status", encoding: .utf8)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
            let value = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first
                .flatMap({ Int($0.filter(\.isNumber)) })
        else { throw NoSuchField(description: "no \(field) in /proc/\(processIdentifier)/status") }
        return value
    }

    /// How many descriptors the program has open, while it runs.
    public func openDescriptors() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/\(processIdentifier)/fd").count
    }
}

/// /proc/PID/status has no such line (or the program has ended).
public struct NoSuchField: Error, CustomStringConvertible {
    public var description: String
}
