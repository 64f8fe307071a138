import GestureActions
import GestureActionsRuntime
import GestureClient
import GestureLogging
import GestureMQTT
import GestureProtocol
import Logging
import Synchronization

/// `gestured mqtt` at run time: a client of the daemon's socket whose messages go through the
/// ``MQTTSession`` to the broker (``BrokerLink``, a thread of its own), and whose inbound topics
/// run named rules of the actions file with the actions' own keyboard and command runner.
///
/// The daemon's side connects, subscribes to what the file publishes and hands every message to
/// the session; when the connection ends it says so (availability `offline`) and connects again
/// after a back-off (100 ms doubling to 5 s, ``ReconnectBackoff``), as `gestured actions` does.
/// The two sides meet in the session alone, so a broker that is away, slow or broken never holds
/// up the reading of the socket (the daemon would otherwise cut a client that does not read), and
/// the daemon going away never holds up the broker's connection.
public final class MQTTRunner: Sendable {
    private let loaded: LoadedMQTT
    private let daemon: DaemonFollower
    private let session: SharedSession
    private let link: BrokerLink
    private let logger: Logger
    /// Dropped messages: one journal line a minute, counting the rest.
    private let drops = LogThrottle(LogRateLimit(burst: 1, interval: .seconds(60)))

    /// `performer` must have been prepared for the keys of the rules the inbound topics name.
    public init(
        loaded: LoadedMQTT, socket: String, hostname: String, version: String, password: String?,
        performer: (any ActionPerformer)?, commands: CommandRunner, logger: Logger
    ) throws(BrokerError) {
        self.loaded = loaded
        daemon = DaemonFollower(socket: socket, logger: logger)
        self.logger = logger
        let session = SharedSession(
            MQTTSession(configuration: loaded.configuration, hostname: hostname, version: version))
        self.session = session
        let actions = loaded.actions
        link = try BrokerLink(
            settings: loaded.configuration.broker, password: password, session: session, logger: logger
        ) { rule, topic, payload in
            guard let actions, let found = actions.configuration.rule(named: rule) else { return }
            switch found.action {
            case .keys(let chord, _):
                do {
                    try performer?.tap(chord.names)
                } catch {
                    logger.error("\(error)", metadata: ["rule": "\(rule)"])
                }
            case .run(let command):
                commands.start(
                    command, environment: GestureEnvironment.variables(rule: rule, topic: topic, payload: payload),
                    settings: actions.configuration.commands)
            case .click, .scroll:
                // The loader refuses such a rule for an inbound topic.
                logger.error("the rule '\(rule)' needs a gesture", metadata: ["rule": "\(rule)"])
            }
        }
    }

    /// The topics, client id and what the session holds now (for the start-up line and tests).
    public var topics: Topics { session.state.withLock { $0.topics } }
    public var clientID: String { session.state.withLock { $0.clientID } }

    /// Runs both sides until the task is cancelled; then publishes `offline`, disconnects from the
    /// broker and returns.
    public func run() async {
        do {
            try link.start()
        } catch {
            logger.critical("\(error)")
            return
        }
        await followDaemon()
        await link.stop()
        let metadata: Logger.Metadata = session.state.withLock { s in
            var m: Logger.Metadata = [
                "published": "\(s.published.values.reduce(0, +))", "delivered": "\(s.queue.delivered)",
                "dropped": "\(s.queue.dropped)", "resent": "\(s.queue.resent)", "left": "\(s.queue.count)",
                "inbound-run": "\(s.router.runs)",
            ]
            for (reason, count) in s.router.refused { m["refused-\(reason)"] = "\(count)" }
            return m
        }
        logger.info("stopped", metadata: metadata)
    }

    private func followDaemon() async {
        let daemonUser = loaded.configuration.daemonUser
        await daemon.run(trust: { DaemonTrust(daemonUser: daemonUser) }, serve: serve) { [self] in
            session.state.withLock { $0.daemonDisconnected() }
            link.wake()
        }
        session.state.withLock { $0.daemonDisconnected() }
        link.wake()
    }

    /// One connection: subscribe, publish every message. Returns the server's closing error.
    private func serve(_ client: GestureClient) async throws -> ErrorMessage? {
        let subscription = session.state.withLock { s in
            s.daemonConnected(client.hello)
            return s.subscription
        }
        link.wake()
        try await client.subscribe(subscription)
        daemon.log(
            .info, "connected to the daemon", cause: "connected",
            metadata: [
                "socket": "\(daemon.socket)", "daemon": "\(client.hello.daemonVersion)", "client": "\(client.hello.client)",
            ])
        for try await message in client.messages {
            if case .error(let error) = message {
                if error.code.closesConnection { return error }
                daemon.log(.warning, "the daemon says: \(error)", cause: "daemon-error")
                continue
            }
            let (dropped, total, bounds) = session.state.withLock { s in
                (s.handle(message), s.queue.dropped, s.queue.bounds)
            }
            link.wake()
            if dropped > 0 {
                drops.log(
                    .warning,
                    "the broker is away and the queue is full (queue.max-messages \(bounds.maxMessages), queue.max-bytes \(bounds.maxBytes)): the oldest messages are dropped",
                    cause: "queue", metadata: ["dropped": "\(total)"], to: logger)
            }
        }
        return nil
    }
}
