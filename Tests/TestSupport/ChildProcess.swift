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
    private let process: Process

    public init(_ arguments: [String], environment: [String: String] = [:]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let output = self.output
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            output.update { o in
                if data.isEmpty {
                    handle.readabilityHandler = nil
                    if !o.partial.isEmpty { o.lines.append(String(decoding: o.partial, as: UTF8.self)) }
                    o.partial = []
                    o.ended = true
                    return
                }
                for byte in data {
                    if byte == UInt8(ascii: "\n") {
                        o.lines.append(String(decoding: o.partial, as: UTF8.self))
                        o.partial = []
                    } else {
                        o.partial.append(byte)
                    }
                }
            }
        }
        process.terminationHandler = { process in
            let status = process.terminationStatus
            output.update { $0.status = status }
        }
        self.process = process
        try process.run()
    }

    public func waitForLines(_ count: Int, within: Duration = .seconds(30)) async throws {
        try await output.wait(for: "\(count) lines of output", within: within) { $0.lines.count >= count }
    }

    /// Waits for the exit and for its output to be read to the end; the exit status.
    public func waitForExit(within: Duration = .seconds(30)) async throws -> Int32 {
        // The exit can be reported before the last output is read: wait for both.
        try await output.wait(for: "the program to exit", within: within) { $0.status != nil && $0.ended }
        return output.value.status!
    }

    public func terminate() {
        if process.isRunning { process.terminate() }
    }

    /// Sends `signal` (SIGHUP, SIGTERM, SIGKILL…) to the program while it runs.
    public func send(_ signal: Int32) {
        if process.isRunning { kill(process.processIdentifier, signal) }
    }

    public var lines: [String] { output.value.lines }
}
