import GestureActions
import Glibc
import Logging
import Subprocess
import Synchronization
import SystemPackage

/// Starts the commands of `run` and `shell` actions, never waiting for them: the gesture that
/// started one is acted on, and the next gesture too, while it runs.
///
/// Each command is started directly (argv, no shell, unless the rule says `shell`) in a process
/// group of its own, with the client's environment plus the gesture's (``GestureEnvironment``),
/// and its standard output and error going to the journal line by line under its label. It is
/// stopped when it runs longer than `commands.timeout-ms` (SIGTERM to its group, SIGKILL two
/// seconds later); at most `commands.max-running` run at once, and a command that would be one
/// more is not started (the journal says so). Every end is logged: its exit status, its signal,
/// the timeout, or why it could not start.
public final class CommandRunner: Sendable {
    /// How long a stopped command's group has between SIGTERM and SIGKILL.
    public static let killGrace = Duration.seconds(2)
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        var running = 0
        var tasks: [Int: Task<Void, Never>] = [:]
        var nextID = 0
    }

    public init(logger: Logger) {
        self.logger = logger
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
                await Self.execute(
                    command, environment: environment, timeout: .milliseconds(settings.timeoutMS), logger)
                state.withLock { s in
                    s.running -= 1
                    s.tasks[id] = nil
                }
            }
            return true
        }
        if !started {
            logger.warning(
                "command not started: \(settings.maxRunning) commands are running (commands.max-running)",
                metadata: ["command": "\(command.label)", "gesture": "\(environment["GESTURED_NAME"] ?? "?")"])
        }
        return started
    }

    /// Stops every running command (as at a timeout) and waits for them to end.
    public func stopAll() async {
        let tasks = state.withLock { $0.tasks.values }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }

    private enum Outcome: Sendable {
        case finished(TerminationStatus)
        case timedOut
    }

    private static func execute(
        _ command: Command, environment: [String: String], timeout: Duration, _ logger: Logger
    ) async {
        var metadata: Logger.Metadata = ["command": "\(command.label)"]
        if let name = environment["GESTURED_NAME"] { metadata["gesture"] = "\(name)" }
        let program = command.arguments[0]
        let executable: Executable = program.contains("/") ? .path(FilePath(program)) : .name(program)
        var options = PlatformOptions()
        // A group of its own, so that stopping it stops what it started (a shell's children).
        options.processGroupID = 0
        options.teardownSequence = [.gracefulShutDown(toProcessGroup: true, allowedDurationToNextStep: killGrace)]
        var variables: [Environment.Key: String?] = [:]
        for (key, value) in environment { variables[Environment.Key(stringLiteral: key)] = value }
        let started = ContinuousClock.now
        let (platformOptions, added, lineMetadata) = (options, variables, metadata)
        do {
            let outcome = try await withThrowingTaskGroup(of: Outcome.self) { group in
                group.addTask {
                    let result = try await run(
                        executable, arguments: Arguments(Array(command.arguments.dropFirst())),
                        environment: .inherit.updating(added), platformOptions: platformOptions, input: .none,
                        output: .sequence, error: .combinedWithOutput
                    ) { execution in
                        var lines = lineMetadata
                        lines["pid"] = "\(execution.processIdentifier.value)"
                        for try await line in execution.standardOutput.strings() {
                            logger.info("\(line.hasSuffix("\n") ? String(line.dropLast()) : line)", metadata: lines)
                        }
                    }
                    return .finished(result.terminationStatus)
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return .timedOut
                }
                defer { group.cancelAll() }
                return try await group.next()!
            }
            let elapsed = ContinuousClock.now - started
            metadata["duration-ms"] = "\(milliseconds(elapsed))"
            switch outcome {
            case .finished(.exited(0)):
                logger.debug("command finished", metadata: metadata)
            case .finished(.exited(let status)):
                logger.warning("command exited with status \(status)", metadata: metadata)
            case .finished(.signaled(let signal)):
                logger.warning("command killed by signal \(signal)", metadata: metadata)
            case .timedOut:
                logger.warning(
                    "command timed out after \(milliseconds(timeout)) ms (commands.timeout-ms): stopped",
                    metadata: metadata)
            }
        } catch is CancellationError {
            logger.notice("command stopped: gestured actions is stopping", metadata: metadata)
        } catch {
            logger.warning("command could not start: \(error)", metadata: metadata)
        }
    }
}

/// Whole milliseconds of a duration.
func milliseconds(_ d: Duration) -> Int64 {
    d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000
}
