import GestureActions
import GestureClient
import GestureEngine
import GestureProtocol
import Logging
import Synchronization

/// `gestured actions` at run time: a client of the daemon's socket that feeds every `gesture`
/// report to the ``ActionPlanner`` and carries out what comes out: keys and pointer events through
/// the ``ActionPerformer``, commands through the ``CommandRunner``.
///
/// It subscribes to the recognizers its rules name, and nothing else. When the connection ends
/// (the daemon stops or restarts) it forgets the gestures it was following and connects again
/// after a back-off (100 ms doubling to 5 s; ``ReconnectBackoff``). What "no action lost or
/// doubled" means here, precisely: every `gesture` message the daemon wrote to this connection is
/// read (the stream is read to its end before reconnecting) and acted on once; a new connection
/// carries only reports published after the daemon accepted it (the daemon replays nothing), so
/// nothing is acted on twice; gestures made while no daemon runs are recognized by no one and
/// there is nothing to act on; a continuous gesture cut by the outage gets no more actions (its
/// scrolling stops; keys are tapped, never held, so none stays pressed).
///
/// ``reload(_:)`` (SIGHUP) swaps the configuration: the devices the new one needs are made first,
/// and a configuration whose devices cannot be made is refused, keeping the running one; the
/// subscription follows the new names.
public final class ActionsRunner: Sendable {
    private let daemon: DaemonFollower
    private let performer: any ActionPerformer
    private let commands: CommandRunner
    private let logger: Logger
    private let state: Mutex<State>

    private struct State {
        var loaded: LoadedActions
        var planner: ActionPlanner
        var outputs: [ActionPlanner.Output] = []
        /// The current connection's `hello`, for the warnings after a reload.
        var recognizers: [RecognizerSummary]?
        /// Tells the current connection to subscribe again (a reload changed the names).
        var resubscribe: AsyncStream<Void>.Continuation?
    }

    /// `loaded`'s devices must have been prepared already (``ActionPerformer/prepare(for:)``), so
    /// that a setup problem stops the program before it connects.
    public init(
        loaded: LoadedActions, socket: String, performer: any ActionPerformer, commands: CommandRunner, logger: Logger
    ) {
        daemon = DaemonFollower(socket: socket, logger: logger)
        self.performer = performer
        self.commands = commands
        self.logger = logger
        state = Mutex(State(loaded: loaded, planner: ActionPlanner(loaded.configuration)))
    }

    /// Connects, acts, and reconnects, until the task is cancelled.
    public func run() async {
        await daemon.run(
            trust: { [self] in state.withLock { DaemonTrust(daemonUser: $0.loaded.configuration.daemonUser) } },
            serve: serve
        ) { [self] in
            state.withLock { s in
                s.planner.reset()
                s.recognizers = nil
                s.resubscribe = nil
            }
        }
    }

    /// One connection: subscribe, warn about rules the daemon cannot serve, act on every report.
    /// Returns the server's closing error, if it sent one.
    private func serve(_ client: GestureClient) async throws -> ErrorMessage? {
        let hello = client.hello
        let (resubscriptions, resubscribe) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let (names, warnings) = state.withLock { s in
            s.recognizers = hello.recognizers
            s.resubscribe = resubscribe
            return (s.loaded.configuration.recognizerNames, ActionsCheck.warnings(s.loaded, against: hello.recognizers))
        }
        try await client.subscribe(Subscription(gestures: names))
        daemon.log(
            .info, "connected", cause: "connected",
            metadata: [
                "socket": "\(daemon.socket)", "daemon": "\(hello.daemonVersion)", "client": "\(hello.client)",
                "recognizers": "\(names.sorted().joined(separator: ","))",
            ])
        for warning in warnings { logger.warning("\(warning)") }
        return try await withThrowingTaskGroup(of: ErrorMessage?.self) { group in
            group.addTask { [self] in
                for await _ in resubscriptions {
                    let names = state.withLock { $0.loaded.configuration.recognizerNames }
                    try await client.subscribe(Subscription(gestures: names))
                    logger.info(
                        "subscribed again", metadata: ["recognizers": "\(names.sorted().joined(separator: ","))"])
                }
                return nil
            }
            group.addTask { [self] in
                for try await message in client.messages {
                    switch message {
                    case .gesture(let g):
                        act(on: g)
                    case .error(let error) where error.code.closesConnection:
                        return error
                    case .error(let error):
                        daemon.log(.warning, "the daemon says: \(error)", cause: "daemon-error")
                    case .wake, .idle, .active:
                        act(onPanel: message)
                    case .hello, .touch, .device, .dropped, .explain, .ok, .pong, .status, .contact, .recording, .raw:
                        break
                    }
                }
                return nil
            }
            defer { group.cancelAll() }
            let ending = try await group.next() ?? nil
            return ending
        }
    }

    /// A panel's `wake`, `idle` or `active` through the planner.
    func act(onPanel message: ServerMessage) {
        let (outputs, settings) = state.withLock { s in
            s.outputs.removeAll(keepingCapacity: true)
            s.planner.handle(panel: message, into: &s.outputs)
            return (s.outputs, s.loaded.configuration.commands)
        }
        perform(outputs, settings: settings, name: message.type, about: ["event": "\(message.type)"])
    }

    /// One report through the planner; keys and pointer now, commands started.
    func act(on g: GestureMessage) {
        let (outputs, settings) = state.withLock { s in
            s.outputs.removeAll(keepingCapacity: true)
            s.planner.handle(g, into: &s.outputs)
            return (s.outputs, s.loaded.configuration.commands)
        }
        perform(outputs, settings: settings, name: g.name, about: ["gesture": "\(g.name)", "seq": "\(g.seq)"])
    }

    /// Carries out the planner's outputs: keys and pointer now, commands started; `name` is the
    /// gesture's (or the panel event's) for the journal.
    private func perform(
        _ outputs: [ActionPlanner.Output], settings: CommandSettings, name: String, about: Logger.Metadata
    ) {
        for output in outputs {
            do throws(ActionsError) {
                switch output {
                case .keys(let keys): try performer.tap(keys)
                case .click(let button, let place, let position):
                    try performer.click(button, at: place, position: position)
                case .wheel(let motion, let place, let position):
                    try performer.wheel(motion, at: place, position: position)
                case .run(let command, let environment, _):
                    commands.start(command, environment: environment, settings: settings)
                case .refuse(let command, let refusal, _):
                    commands.refuse(command, refusal, gesture: name)
                }
            } catch {
                logger.error("\(error)", metadata: about)
            }
        }
    }

    /// Takes a new configuration (a SIGHUP after the file was read again): makes its devices,
    /// then swaps it in and subscribes to its names. On error the running configuration stays.
    public func reload(_ loaded: LoadedActions) throws(ActionsError) {
        try performer.prepare(for: loaded.configuration)
        let warnings: [String] = state.withLock { s in
            s.loaded = loaded
            s.planner = ActionPlanner(loaded.configuration)
            s.resubscribe?.yield()
            return s.recognizers.map { ActionsCheck.warnings(loaded, against: $0) } ?? []
        }
        var metadata: Logger.Metadata = ["file": "\(loaded.file)", "rules": "\(loaded.configuration.actions.count)"]
        if loaded.files.count > 1 { metadata["drop-ins"] = "\(loaded.files.dropFirst().joined(separator: ","))" }
        logger.info("actions reloaded", metadata: metadata)
        for warning in warnings { logger.warning("\(warning)") }
    }
}
