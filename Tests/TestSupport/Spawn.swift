import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Starts the programs the tests run with `posix_spawn`, not Foundation's `Process`: in Swift
/// 6.3.1 `Process.run()` now and then dies of a segmentation fault (it copies the whole 256-byte
/// `d_name` of each `/proc/self/fd` entry and reads past the end of a page;
/// swift-corelibs-foundation#5472, fixed after 6.3.1). Both runs of the replay fuzzing with
/// 5 000 inputs met it (2026-11-25), and any suite that starts many programs could.
public enum Spawn {
    /// A started program: its process id and the read end of the pipe its standard output and
    /// standard error both write to.
    public struct Started: Sendable {
        public let pid: pid_t
        public let output: Int32
    }

    /// Starts `arguments` (`arguments[0]` a path) with exactly `environment` and `descriptors` as
    /// its fds 3, 4, … in that order (as systemd passes sockets). The program inherits its standard
    /// output and error (both the pipe) and the passed descriptors, nothing else: not a socket of a
    /// test running alongside, whose peer would then never see it close.
    public static func start(
        _ arguments: [String], environment: [String: String], passing descriptors: [Int32] = []
    ) throws(SpawnFailure) -> Started {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw SpawnFailure(call: "pipe", arguments, errno) }
        // Copies above every target first, so that one descriptor's dup2 never overwrites another
        // that is still to be passed (say fd 4 to 3 while 3 goes to 4).
        let sources = descriptors.map { fcntl($0, F_DUPFD_CLOEXEC, 100) }
        defer { for source in sources where source >= 0 { close(source) } }
        guard !sources.contains(where: { $0 < 0 }) else {
            let error = errno
            close(ends[0])
            close(ends[1])
            throw SpawnFailure(call: "fcntl(F_DUPFD_CLOEXEC)", arguments, error)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 2)
        for (index, source) in sources.enumerated() {
            posix_spawn_file_actions_adddup2(&actions, source, 3 + Int32(index))
        }
        _ = addCloseFrom(&actions, 3 + Int32(sources.count))
        let argv = arguments.map { strdup($0) } + [nil]
        var environment = environment
        environment[runMark] = ProcessInfo.processInfo.environment[runMark]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A child inherits the signals its parent's thread blocks and the ones the process ignores,
        // and code under test in the test process blocks and ignores SIGTERM, SIGINT and SIGHUP
        // (the daemon's signal handling, the actions runtime's `SignalStream`): a child started so
        // would outlive every SIGTERM of its test. It starts as a service manager starts a
        // program — nothing blocked, every signal at its default action — and leads a process
        // group of its own, which the reaper ends as a whole.
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var every = sigset_t()
        sigfillset(&every)
        sigdelset(&every, SIGKILL)
        sigdelset(&every, SIGSTOP)
        posix_spawnattr_setsigdefault(&attributes, &every)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        var pid: pid_t = 0
        let result = Reaper.started {
            let result = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
            return (result, result == 0 ? pid : nil)
        }
        close(ends[1])
        guard result == 0 else {
            close(ends[0])
            throw SpawnFailure(call: "posix_spawn", arguments, result)
        }
        return Started(pid: pid, output: ends[0])
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34), which Swift does not see: its
    /// declaration needs `_GNU_SOURCE`.
    private static let addCloseFrom: @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32 =
        {
            guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else {
                fatalError("glibc without posix_spawn_file_actions_addclosefrom_np (needs 2.34 or later)")
            }
            return unsafeBitCast(
                symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
        }()

    /// The environment of the tests, with `overrides` on top.
    public static func environment(_ overrides: [String: String] = [:]) -> [String: String] {
        ProcessInfo.processInfo.environment.merging(overrides) { $1 }
    }

    /// The mark scripts/host-tests.sh gives a run: every program a test starts carries it in its
    /// environment, whatever environment the test gives it, so that the script finds what a run
    /// left running after it, whoever its parent is by then.
    static let runMark = "GESTURED_TEST_RUN"

    /// Waits for the program to end (blocking) and reaps it: its exit status, or the number of the
    /// signal that ended it.
    public static func wait(_ pid: pid_t) -> Int32 {
        let status = Reaper.reap(pid)
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which are macros C does not export to Swift.
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : signal
    }

    /// Runs a program (`arguments[0]` looked up in `PATH`) to completion: its exit status and
    /// everything it wrote to standard output and error.
    public static func run(
        _ arguments: [String], environment: [String: String] = environment()
    ) throws(SpawnFailure)
        -> (status: Int32, output: [UInt8])
    {
        let started = try start(["/usr/bin/env"] + arguments, environment: environment)
        defer { close(started.output) }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(started.output, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            output += buffer[0..<n]
        }
        return (wait(started.pid), output)
    }
}

/// A program could not be started.
public struct SpawnFailure: Error, CustomStringConvertible {
    public var description: String

    public init(description: String) {
        self.description = description
    }

    init(call: String, _ arguments: [String], _ error: Int32) {
        description = "\(call) failed for \(arguments.joined(separator: " ")): \(String(cString: strerror(error)))"
    }
}
