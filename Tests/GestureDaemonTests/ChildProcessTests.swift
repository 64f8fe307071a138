import Glibc
import TestSupport
import Testing

/// The tests' own fixture ends what it starts (TestSupport's `Reaper`; docs/TESTING.md, "Nothing
/// left running"): a program starts with no signal blocked or ignored, whatever the test process
/// blocks, and whatever is still running of it when its test lets go of it is killed, its process
/// group with it.
@Suite("the tests' child processes", .timeLimit(.minutes(10)))
struct ChildProcessTests {
    @Test("a child starts with no signal blocked or ignored, in a process group of its own")
    func cleanSignals() async throws {
        // What code under test does to the test process: SIGTERM blocked on this thread, SIGUSR2
        // (which no test uses) ignored process-wide.
        var block = sigset_t()
        sigemptyset(&block)
        sigaddset(&block, SIGTERM)
        var before = sigset_t()
        pthread_sigmask(SIG_BLOCK, &block, &before)
        let disposition = signal(SIGUSR2, SIG_IGN)
        let child: ChildProcess
        do {
            defer {
                pthread_sigmask(SIG_SETMASK, &before, nil)
                signal(SIGUSR2, disposition)
            }
            child = try ChildProcess(["cat", "/proc/self/status", "/proc/self/stat"])
        }
        #expect(try await child.waitForExit() == 0)
        let lines = child.lines
        func mask(_ name: String) -> UInt64? {
            lines.first { $0.hasPrefix(name + ":\t") }.flatMap { UInt64($0.dropFirst(name.count + 2), radix: 16) }
        }
        #expect(mask("SigBlk") == 0, "\(lines.filter { $0.hasPrefix("Sig") })")
        // The signals 1…31 (glibc keeps 32 and 33 for itself and lets nobody reset them).
        #expect(mask("SigIgn").map { $0 & 0x7fff_ffff } == 0, "\(lines.filter { $0.hasPrefix("Sig") })")
        // /proc/PID/stat: pid (comm) state ppid pgrp …
        let stat = try #require(lines.last?.split(separator: " "))
        #expect(stat.count > 4 && stat[4] == stat[0], "its process group is its own: \(stat.prefix(5))")
    }

    @Test("a program still running when its test lets go of it is killed, with what it started")
    func reaped() async throws {
        let output: Observed<ChildProcess.Output>
        do {
            // A shell that ignores SIGTERM and a child of its own that holds the output pipe: the
            // output ends only when both are gone.
            let child = try ChildProcess(["sh", "-c", "trap '' TERM; sleep 3600 & echo started; wait"])
            try await child.waitForLines(1)
            output = child.output
        }
        try await output.wait(for: "the shell and its sleep to be killed", within: .seconds(60)) {
            $0.status != nil && $0.ended
        }
        #expect(output.value.status == SIGKILL)
    }
}
