import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A program started with `posix_spawn` so that descriptors can be passed to it as fds 3, 4, …
/// (as systemd passes sockets): Foundation's Process, under ``ChildProcess``, closes every
/// descriptor above 2. Its output lines and exit status are observed the same way.
public final class SpawnedProcess: Sendable {
    public struct Transcript: Sendable {
        public var lines: [String] = []
        public var status: Int32?
    }

    public let pid: pid_t
    public let output = Observed(Transcript())
    public var lines: [String] { output.value.lines }

    /// Starts `arguments` (`arguments[0]` a path) with `descriptors` as fds 3, 4, … in that order.
    public init(_ arguments: [String], passing descriptors: [Int32]) throws {
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { throw SpawnFailure(description: "pipe failed") }
        // Only this program may hold the write end, or its output would not end when it exits.
        for end in pipe { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        // Copies above every target first, so that one descriptor's dup2 never overwrites another
        // that is still to be passed (say fd 4 to 3 while 3 goes to 4).
        let sources = descriptors.map { fcntl($0, F_DUPFD_CLOEXEC, 100) }
        defer { for source in sources where source >= 0 { Glibc.close(source) } }
        guard !sources.contains(where: { $0 < 0 }) else {
            Glibc.close(pipe[0])
            Glibc.close(pipe[1])
            throw SpawnFailure(description: "cannot copy the descriptors to pass: \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 2)
        // dup2 clears FD_CLOEXEC on the copy: the program inherits these and nothing else of ours.
        for (index, source) in sources.enumerated() {
            posix_spawn_file_actions_adddup2(&actions, source, 3 + Int32(index))
        }
        posix_spawn_file_actions_addclose(&actions, pipe[0])
        posix_spawn_file_actions_addclose(&actions, pipe[1])
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        let environment = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for e in environment { free(e) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, arguments[0], &actions, nil, argv, environment)
        Glibc.close(pipe[1])
        guard result == 0 else {
            Glibc.close(pipe[0])
            throw SpawnFailure(description: "posix_spawn \(arguments[0]): \(String(cString: strerror(result)))")
        }
        self.pid = pid
        let output = output
        let readEnd = pipe[0]
        // Blocking reads and waitpid, each on a thread of its own until the program ends.
        Thread.detachNewThread {
            var partial: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = read(readEnd, &buffer, buffer.count)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                var complete: [String] = []
                for byte in buffer[..<n] {
                    if byte == UInt8(ascii: "\n") {
                        complete.append(String(decoding: partial, as: UTF8.self))
                        partial.removeAll()
                    } else {
                        partial.append(byte)
                    }
                }
                output.update { $0.lines += complete }
            }
            Glibc.close(readEnd)
        }
        let child = pid
        Thread.detachNewThread {
            var status: Int32 = 0
            while waitpid(child, &status, 0) < 0 && errno == EINTR {}
            // WIFEXITED / WEXITSTATUS, which Swift does not import (macros).
            let code = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
            output.update { $0.status = code }
        }
    }

    public func send(_ signal: Int32) {
        if output.value.status == nil { kill(pid, signal) }
    }

    /// Waits for the exit (its output may still be arriving); the exit status.
    public func waitForExit(within: Duration = .seconds(30)) async throws -> Int32 {
        try await output.wait(for: "the program to exit", within: within) { $0.status != nil }
        return output.value.status!
    }
}

/// A program could not be started.
public struct SpawnFailure: Error, CustomStringConvertible {
    public var description: String
}
