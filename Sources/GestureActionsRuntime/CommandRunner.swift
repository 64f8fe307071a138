import GestureActions
import GestureLogging
import Glibc
import Logging
import NIOCore
import Subprocess
import Synchronization
import SystemPackage

/// Starts the commands of `run` and `shell` actions, never waiting for them: the gesture that
/// started one is acted on, and the next gesture too, while it runs.
///
/// Each command is started directly (argv, no shell, unless the rule says `shell`) in a process
/// group of its own, with the client's environment plus the gesture's (``GestureEnvironment``),
/// and its standard output and error going to the journal line by line under its label. Its
/// life is bounded by `commands.timeout-ms`, and so is that of every process it leaves in its
/// group (a shell's `sleep 1000 &`): when the command's first process has ended, the command
/// still counts as running while its group has processes, and at the timeout the whole group is
/// stopped (SIGTERM, SIGKILL ``killGrace`` later) — as it is when `gestured actions` stops. A
/// process that leaves the group (`setsid`, a daemon) is not followed (docs/ACTIONS.md). At most
/// `commands.max-running` run at once, and a command that would be one more is not started.
///
/// The journal gets every end (its exit status, its signal, the timeout, or why it could not
/// start), at most ``outputLinesPerRun`` lines of a run's output and ``outputLinesPerMinute`` of
/// one command's a minute (the end says how many were not logged), each line cut at
/// ``CommandOutput/lineBytes``, and refusals ("command not started") at most a few a minute of each
/// command, the next one let through saying how many were left out (``LogThrottle``).
public final class CommandRunner: Sendable {
    /// How long a stopped command's group has between SIGTERM and SIGKILL.
    public static let killGrace = Duration.seconds(2)
    /// Lines of one run's output logged; the others are counted.
    public static let outputLinesPerRun = 50
    /// Lines of one command's output logged in a minute, its runs together.
    public static let outputLinesPerMinute = 200
    /// How often a group whose first process has ended is looked at for processes left in it.
    static let groupPoll = Duration.milliseconds(50)

    private let logger: Logger
    private let output: LogThrottle
    private let refusals: LogThrottle
    private let state = Mutex(State())

    private struct State {
        var running = 0
        var tasks: [Int: Task<Void, Never>] = [:]
        var nextID = 0
    }

    /// `output` and `refusals` rate-limit the journal lines of commands' output and of commands
    /// not started, each command a cause of its own.
    public init(
        logger: Logger,
        output: LogThrottle = LogThrottle(LogRateLimit(burst: outputLinesPerMinute, interval: .seconds(60))),
        refusals: LogThrottle = LogThrottle(LogRateLimit(burst: 5, interval: .seconds(60)))
    ) {
        self.logger = logger
        self.output = output
        self.refusals = refusals
    }

    /// Commands running now.
    public var running: Int { state.withLock { $0.running } }

    /// Starts `command` unless `settings.maxRunning` are running; returns whether it started.
    @discardableResult
    public func start(_ command: Command, environment: [String: String], settings: CommandSettings) -> Bool {
        let started: Bool = state.withLock { s in
            guard s.running < settings.maxRunning else { return false }
            s.running += 1
            s.nextID += 1
            let id = s.nextID
            // Created under the lock, so it is in the table before it can remove itself.
            s.tasks[id] = Task.detached { [self] in
                await execute(command, environment: environment, timeout: .milliseconds(settings.timeoutMS))
                state.withLock { s in
                    s.running -= 1
                    s.tasks[id] = nil
                }
            }
            return true
        }
        if !started {
            refusals.log(
                .warning, "command not started: \(settings.maxRunning) commands are running (commands.max-running)",
                cause: command.label,
                metadata: ["command": "\(command.label)", "gesture": "\(environment["GESTURED_NAME"] ?? environment["GESTURED_EVENT"] ?? "?")"],
                to: logger)
        }
        return started
    }

    /// Does not start `command`: the report that would start it has a value no daemon sends.
    public func refuse(_ command: Command, _ refusal: GestureEnvironment.Refusal, gesture: String) {
        refusals.log(
            .warning, "command not started: the report's \(refusal): not the daemon's, not passed to a command",
            cause: command.label, metadata: ["command": "\(command.label)", "gesture": "\(gesture)"], to: logger)
    }

    /// Stops every running command and whatever it left in its group (as at a timeout), and
    /// waits for them to end.
    public func stopAll() async {
        let tasks = state.withLock { $0.tasks.values }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }

    private enum Outcome: Sendable {
        case finished(TerminationStatus)
        case timedOut
    }

    private func execute(_ command: Command, environment: [String: String], timeout: Duration) async {
        var metadata: Logger.Metadata = ["command": "\(command.label)"]
        if let name = environment["GESTURED_NAME"] { metadata["gesture"] = "\(name)" }
        if let event = environment["GESTURED_EVENT"] { metadata["event"] = "\(event)" }
        let program = command.arguments[0]
        let executable: Executable = program.contains("/") ? .path(FilePath(program)) : .name(program)
        var options = PlatformOptions()
        // A group of its own, so that stopping it stops what it started (a shell's children).
        options.processGroupID = 0
        options.teardownSequence = [
            .gracefulShutDown(toProcessGroup: true, allowedDurationToNextStep: Self.killGrace)
        ]
        var variables: [Environment.Key: String?] = [:]
        for (key, value) in environment { variables[Environment.Key(stringLiteral: key)] = value }
        let started = ContinuousClock.now
        let deadline = started + timeout
        let group = CommandGroup()
        let log = OutputLog(
            limit: output, cause: command.label, logger: logger, metadata: metadata, perRun: Self.outputLinesPerRun)
        let (platformOptions, added) = (options, variables)
        var ending: String
        var level = Logger.Level.warning
        do {
            let outcome = try await withThrowingTaskGroup(of: Outcome.self) { tasks in
                tasks.addTask {
                    let result = try await run(
                        executable, arguments: Arguments(Array(command.arguments.dropFirst())),
                        environment: .inherit.updating(added), platformOptions: platformOptions, input: .none,
                        output: .sequence, error: .combinedWithOutput
                    ) { execution in
                        group.started(execution.processIdentifier.value)
                        log.started(execution.processIdentifier.value)
                        var reader = CommandOutput()
                        for try await buffer in execution.standardOutput {
                            buffer.withUnsafeBytes { bytes in reader.take(bytes, log.line) }
                        }
                        reader.finish(log.line)
                    }
                    return .finished(result.terminationStatus)
                }
                tasks.addTask {
                    try await Task.sleep(until: deadline)
                    return .timedOut
                }
                let first: Result<Outcome, any Error>
                do {
                    first = .success(try await tasks.next()!)
                } catch {
                    first = .failure(error)
                }
                // Whatever else than the command's end came first (its timeout, gestured actions
                // stopping, a failure), the whole group goes, so that its output ends and the
                // command's task with it.
                if case .success(.finished) = first {} else { await group.stop(grace: Self.killGrace) }
                tasks.cancelAll()
                return try first.get()
            }
            switch outcome {
            case .finished(let status):
                // What the command left in its group lives until the timeout at most.
                if try await group.waitUntilEmpty(by: deadline) {
                    switch status {
                    case .exited(0):
                        ending = "command finished"
                        level = .debug
                    case .exited(let code): ending = "command exited with status \(code)"
                    case .signaled(let signal): ending = "command killed by signal \(signal)"
                    }
                } else {
                    await group.stop(grace: Self.killGrace)
                    ending =
                        "command timed out after \(milliseconds(timeout)) ms (commands.timeout-ms): "
                        + "its first process ended (\(status)), the processes it left in its group were stopped"
                }
            case .timedOut:
                ending = "command timed out after \(milliseconds(timeout)) ms (commands.timeout-ms): stopped"
            }
        } catch is CancellationError {
            await group.stop(grace: Self.killGrace)
            ending = "command stopped: gestured actions is stopping"
            level = .notice
        } catch {
            await group.stop(grace: Self.killGrace)
            ending =
                group.hasStarted ? "command's output could not be read: \(error)" : "command could not start: \(error)"
        }
        metadata["duration-ms"] = "\(milliseconds(ContinuousClock.now - started))"
        let unlogged = log.unlogged
        if unlogged > 0 {
            metadata["output-lines-not-logged"] = "\(unlogged)"
            // The end of a run whose output was cut is worth a line at the default level.
            level = max(level, .info)
        }
        logger.log(level: level, "\(ending)", metadata: metadata)
    }
}

/// A command's output lines on their way to the journal: at most `perRun` of this run, and what
/// the command's share of ``CommandRunner``'s output limit lets through; the rest counted.
private final class OutputLog: Sendable {
    private let limit: LogThrottle
    private let cause: String
    private let logger: Logger
    private let perRun: Int
    private let state: Mutex<(metadata: Logger.Metadata, logged: Int, unlogged: Int)>

    init(limit: LogThrottle, cause: String, logger: Logger, metadata: Logger.Metadata, perRun: Int) {
        (self.limit, self.cause, self.logger, self.perRun) = (limit, cause, logger, perRun)
        state = Mutex((metadata, 0, 0))
    }

    /// The command's first process is `pid` (each line says it).
    func started(_ pid: pid_t) { state.withLock { $0.metadata["pid"] = "\(pid)" } }

    var unlogged: Int { state.withLock { $0.unlogged } }

    func line(_ text: String) {
        let (room, metadata) = state.withLock { ($0.logged < perRun, $0.metadata) }
        let logged = room && limit.log(.info, "\(text)", cause: cause, metadata: metadata, to: logger)
        state.withLock { logged ? ($0.logged += 1) : ($0.unlogged += 1) }
    }
}

/// A running command's process group (its id is its first process's): stopping it whole, and
/// telling when none of its processes is left. A group's id is not handed to another process
/// while any of its processes (a zombie included) is left; once the last is gone, the id could
/// name another group only after the kernel has gone round every other id (it hands them out in
/// turn, up to pid_max), which does not happen between two looks ``CommandRunner/groupPoll``
/// apart — so the id signalled is this command's.
private final class CommandGroup: Sendable {
    private let id = Mutex<pid_t?>(nil)

    func started(_ pid: pid_t) { id.withLock { $0 = pid } }

    var hasStarted: Bool { id.withLock { $0 != nil } }

    /// Whether no process is left in the group (or it never started).
    var isEmpty: Bool {
        guard let group = id.withLock({ $0 }) else { return true }
        return kill(-group, 0) != 0 && errno == ESRCH
    }

    /// Waits until no process is left in the group, or `deadline`; whether none is left.
    func waitUntilEmpty(by deadline: ContinuousClock.Instant) async throws -> Bool {
        while !isEmpty {
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: min(CommandRunner.groupPoll, deadline - ContinuousClock.now))
        }
        return true
    }

    /// SIGTERM to every process of the group, SIGKILL to those left after `grace`. Runs to its
    /// end even when the caller's task is cancelled (gestured actions stopping).
    func stop(grace: Duration) async {
        guard let group = id.withLock({ $0 }), !isEmpty else { return }
        await Task {
            kill(-group, SIGTERM)
            let end = ContinuousClock.now + grace
            while !isEmpty && ContinuousClock.now < end {
                try? await Task.sleep(for: CommandRunner.groupPoll)
            }
            if !isEmpty { kill(-group, SIGKILL) }
        }.value
    }
}

/// Whole milliseconds of a duration.
func milliseconds(_ d: Duration) -> Int64 {
    d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000
}
