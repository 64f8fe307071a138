import Foundation
import GestureActions
import GestureActionsRuntime
import GestureClient
import GestureLogging
import GestureServer
import Glibc
import Logging
import NIOCore
import Synchronization
import TestSupport
import Testing

/// The fields of /proc/`pid`/stat after the command's name (state, ppid, pgrp, …); nil when
/// there is no such process.
private func statFields(_ pid: pid_t) -> [Substring]? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
    else { return nil }
    return stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
}

/// Whether `pid` is a process that still runs (a zombie has ended: it only waits to be reaped).
func isRunning(_ pid: pid_t) -> Bool {
    guard let state = statFields(pid)?.first else { return false }
    return state != "Z"
}

/// The processes that still run in process group `group`.
func processes(inGroup group: pid_t) -> [pid_t] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { pid_t($0) }.filter { pid in
        guard let fields = statFields(pid), fields.count > 2 else { return false }
        return fields[0] != "Z" && pid_t(fields[2]) == group
    }
}

/// A clock for a ``LogThrottle``, moved by the test.
final class TestClock: Sendable {
    private let now = Mutex(NIODeadline.uptimeNanoseconds(1_000_000_000))
    var read: @Sendable () -> NIODeadline { { self.now.withLock { $0 } } }
    func advance(_ amount: TimeAmount) { now.withLock { $0 = $0 + amount } }
}

/// What a command may do to the journal and to the processes of the machine: its output and the
/// refusals rate-limited, its background jobs stopped with it.
@Suite("commands: their processes and their journal lines, bounded", .serialized, .timeLimit(.minutes(10)))
struct CommandBoundsTests {
    // MARK: Processes (a command's group)

    /// `shell: "sleep 1001 >/dev/null 2>&1 &"` with `timeout-ms: 500`: the shell ended at once,
    /// the command was "finished", and its `sleep` lived on (24 of them after 20 s, re-parented
    /// to PID 1, surviving SIGTERM to `actions`). Now what a command leaves in its group is
    /// stopped at its timeout.
    @Test("a command's background job is stopped at the command's timeout")
    func backgroundJobStoppedAtTimeout() async throws {
        // The shell normally ends long before the timeout and its `sleep` is what is left; on a
        // loaded host the timeout can come first and stop the shell too. Either way nothing of
        // the command's group may outlive the timeout line, which is what is checked.
        let text = """
            commands: {timeout-ms: 2000}
            actions:
              - on: swipe
                shell: "sleep 1001 >/dev/null 2>&1 & echo $! > $DIR/job.pid; echo started"

            """
        try await RunnerFixture.with(text) { f in
            let server = try await f.connected()
            server.publish([swipe(1)])
            try await f.log.waitFor("info started")
            let group = try #require(
                f.log.lines.value.first { $0.hasPrefix("info started") }
                    .flatMap { $0.split(separator: " ").first { $0.hasPrefix("pid=") } }
                    .flatMap { pid_t($0.dropFirst(4)) })
            try await f.log.waitFor("command timed out after 2000 ms (commands.timeout-ms)")
            #expect(processes(inGroup: group).isEmpty, "processes of the command's group outlived its timeout")
            if let written = try? String(contentsOfFile: f.directory + "/job.pid", encoding: .utf8),
                let job = pid_t(written.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                #expect(!isRunning(job), "the background sleep \(job) outlived its command's timeout")
            }
            #expect(f.commands.running == 0)
        }
    }

    /// While what a command left in its group runs, the command counts against `max-running`:
    /// background jobs cannot pile up past it.
    @Test("a command whose background job runs still counts against max-running")
    func backgroundJobCounts() async throws {
        let text = """
            commands: {timeout-ms: 100000, max-running: 1}
            actions:
              - on: swipe
                shell: "sleep 1001 >/dev/null 2>&1 & echo $! > $DIR/job$GESTURED_SEQ.pid; echo started"

            """
        try await RunnerFixture.with(text) { f in
            let server = try await f.connected()
            server.publish([swipe(1)])
            try await f.log.waitFor("info started")
            server.publish([swipe(2)])
            try await f.log.waitFor("command not started: 1 commands are running (commands.max-running)")
            #expect(f.commands.running == 1)
            #expect(!FileManager.default.fileExists(atPath: f.directory + "/job2.pid"))
        }
    }

    /// `gestured actions` stopping (SIGTERM, SIGINT; the runner's stopAll) stops every command's
    /// group, background jobs included, and waits for them.
    @Test("stopping gestured actions stops what its commands left running")
    func stopAllStopsGroups() async throws {
        let text = """
            commands: {timeout-ms: 100000}
            actions:
              - on: swipe
                shell: "sleep 1001 >/dev/null 2>&1 & echo $! > $DIR/job.pid; echo started"

            """
        let f = try RunnerFixture(text)
        let server = try await f.connected()
        server.publish([swipe(1)])
        try await f.log.waitFor("info started")
        let job = try #require(
            pid_t(
                try String(contentsOfFile: f.directory + "/job.pid", encoding: .utf8).trimmingCharacters(
                    in: .whitespacesAndNewlines)))
        #expect(isRunning(job))
        await f.stop()
        #expect(!isRunning(job), "the background sleep \(job) outlived gestured actions")
        #expect(f.log.count("command stopped: gestured actions is stopping") == 1)
    }

    // MARK: The journal

    /// `yes` wrote 138 505 lines (18.5 MB) to the journal in 3 s. A run's output is logged up to
    /// its cap; the end of the run says how many lines were not.
    @Test("a run's output is logged up to its cap; its end says how many lines were not")
    func outputCapPerRun() async throws {
        let text = """
            actions:
              - on: swipe
                run: ["/usr/bin/seq", "1", "1000"]

            """
        try await RunnerFixture.with(text) { f in
            let server = try await f.connected()
            server.publish([swipe(1)])
            try await f.log.waitFor("info command finished")
            let lines = f.log.lines.value
            let logged = lines.filter { $0.hasPrefix("info ") && Int($0.dropFirst(5).prefix { $0 != " " }) != nil }
            #expect(logged.count == CommandRunner.outputLinesPerRun)
            #expect(logged.first?.hasPrefix("info 1 ") == true && logged.last?.hasPrefix("info 50 ") == true)
            #expect(
                lines.contains { $0.hasPrefix("info command finished") && $0.contains("output-lines-not-logged=950") })
        }
    }

    /// A line over swift-subprocess's 128 KiB line limit failed the reading, logged as "command
    /// could not start … output exceeded the limit" although the command had run. The line is
    /// logged cut, saying how long it was, and the command's end is its real end.
    @Test("a line of 200 000 bytes is logged cut, and the command's end is what really happened")
    func longLine() async throws {
        let text = """
            actions:
              - on: swipe
                shell: "head -c 200000 /dev/zero | tr '\\\\0' x; echo; echo after"

            """
        try await RunnerFixture.with(text) { f in
            let server = try await f.connected()
            server.publish([swipe(1)])
            try await f.log.waitFor("command finished")
            let lines = f.log.lines.value
            #expect(
                lines.contains {
                    $0.hasPrefix("info " + String(repeating: "x", count: 2048) + "… (cut: the line has 200000 bytes)")
                })
            #expect(lines.contains { $0.hasPrefix("info after ") })
            #expect(f.log.count("could not start") == 0)
        }
    }

    /// The same command's runs share a per-minute share of the journal: past it, their lines are
    /// counted, and the first line let through in the next minute says how many were left out.
    @Test("a command's runs together log at most their share a minute")
    func outputCapPerMinute() async throws {
        let log = LogLines()
        let clock = TestClock()
        let commands = CommandRunner(
            logger: log.logger,
            output: LogThrottle(
                LogRateLimit(burst: CommandRunner.outputLinesPerMinute, interval: .seconds(60)), now: clock.read))
        let command = Command(["/usr/bin/seq", "1", "50"])
        // One after the other; a run's end is logged just before its place is given back.
        let settings = CommandSettings(timeoutMS: 100_000, maxRunning: 8)
        for run in 1...5 {
            #expect(commands.start(command, environment: [:], settings: settings))
            try await log.waitFor("command finished", count: run)
        }
        let numbers = log.lines.value.filter { Int($0.dropFirst(5).prefix { $0 != " " }) != nil }
        #expect(numbers.count == CommandRunner.outputLinesPerMinute)
        #expect(
            log.lines.value.last { $0.contains("command finished") }?.contains("output-lines-not-logged=50") == true)
        clock.advance(.seconds(60))
        #expect(commands.start(command, environment: [:], settings: settings))
        try await log.waitFor("command finished", count: 6)
        #expect(log.lines.value.contains { $0.hasPrefix("info 1 ") && $0.contains("suppressed=50") })
        await commands.stopAll()
    }

    /// 480 "command not started" lines in 20 s: refusals of one command are logged a few a
    /// minute; the next let through says how many were left out.
    @Test("refusals of a command are rate-limited, with the count of those left out")
    func refusalsThrottled() async throws {
        let log = LogLines()
        let clock = TestClock()
        let commands = CommandRunner(
            logger: log.logger, refusals: LogThrottle(LogRateLimit(burst: 5, interval: .seconds(60)), now: clock.read))
        let command = Command(["/bin/sleep", "1000"])
        let settings = CommandSettings(timeoutMS: 100_000, maxRunning: 1)
        #expect(commands.start(command, environment: [:], settings: settings))
        for _ in 0..<20 { #expect(!commands.start(command, environment: [:], settings: settings)) }
        #expect(log.count("command not started") == 5)
        clock.advance(.seconds(60))
        #expect(!commands.start(command, environment: [:], settings: settings))
        #expect(log.count("command not started") == 6)
        #expect(log.lines.value.last?.contains("suppressed=15") == true, "\(log.lines.value.last ?? "")")
        await commands.stopAll()
    }

    /// A report whose values no daemon sends starts no command: the journal says which variable.
    @Test("a report with a value the daemon never sends starts no command, and the journal says why")
    func refusedReport() async throws {
        let text = """
            actions:
              - on: tap
                run: ["/usr/bin/touch", "$DIR/ran"]

            """
        try await RunnerFixture.with(text) { f in
            let server = try await f.connected()
            var report = Report.gesture("tap", .tap, .recognized)
            report.device = "event5\nLD_PRELOAD=/tmp/evil.so"
            server.publish([.gesture(report, owner: .configuration)])
            try await f.log.waitFor("command not started: the report's GESTURED_DEVICE")
            #expect(f.commands.running == 0)
            #expect(!FileManager.default.fileExists(atPath: f.directory + "/ran"))
        }
    }

    // MARK: Which daemon

    @Test("root, this user, gestured and daemon-user are taken for the daemon; anyone else is not")
    func trust() {
        // Uids no user of a test machine has, so that they print as numbers.
        let trust = DaemonTrust(ownUID: 54321, daemonUser: "54322")
        #expect(trust.problem(with: ServerCredentials(pid: 1, uid: 0, gid: 0)) == nil)
        #expect(trust.problem(with: ServerCredentials(pid: 7, uid: 54321, gid: 1000)) == nil)
        #expect(trust.problem(with: ServerCredentials(pid: 7, uid: 54322, gid: 1000)) == nil)
        let refused = trust.problem(with: ServerCredentials(pid: 9, uid: 65534, gid: 65534))
        #expect(
            refused
                == "it is served by uid 65534 (nobody) (pid 9), not by root, gestured, this user (uid 54321) "
                + "or daemon-user 54322: not taken for the daemon (docs/ACTIONS.md, \"Which daemon\")",
            "\(refused ?? "")")
        #expect(DaemonTrust(ownUID: 54321).problem(with: ServerCredentials(pid: 9, uid: 54322, gid: 0)) != nil)
    }

    /// Another user's program listening on `gestured actions`' socket path (a fake daemon in
    /// /tmp) made it run the `admin-menu` command 10 times in 5 s. A daemon run by `nobody` —
    /// a real `gestured run`, replaying taps — is refused before anything is read from it: the
    /// journal says who serves the socket, and no rule acts.
    @Test(
        "a daemon run by another user is refused before anything is read from it",
        .enabled(if: getuid() == 0, "runs the other daemon as nobody (setpriv needs root)"))
    func otherUsersDaemon() async throws {
        let text = """
            actions:
              - on: tap
                run: ["/usr/bin/touch", "$DIR/ran"]

            """
        try await RunnerFixture.with(text) { f in
            #expect(chmod(f.directory, 0o777) == 0)
            let recording = DaemonFixtures.recording
            let fake = try ChildProcess([
                "setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                try ChildProcess.builtExecutable("gestured"), "run", "--socket", f.socket, "--replay", recording,
                "--loop", "--speed", "4",
            ])
            defer { fake.send(SIGKILL) }
            try await fake.output.wait(for: "ready", within: .seconds(30)) {
                $0.lines.contains { $0.contains("ready") }
            }
            f.startRunner()
            try await f.log.waitFor("error cannot connect to \(f.socket): it is served by uid 65534 (nobody)")
            #expect(f.log.count("info connected") == 0)
            #expect(!FileManager.default.fileExists(atPath: f.directory + "/ran"))
        }
    }
}

enum DaemonFixtures {
    /// 11 taps on a WeTab (see Tests/TouchInputTests/Fixtures).
    static let recording = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("TouchInputTests/Fixtures/wetab.event").path
}
