import GestureProtocol
import GestureServer
import Glibc
import Logging

/// What `gestured run` was asked to do.
public struct DaemonOptions: Sendable {
    /// The configuration file; nil runs the built-in configuration.
    public var configPath: String?
    /// Overrides the configuration's socket path (ignored under socket activation).
    public var socketPath: String?
    /// A recording to play in place of devices.
    public var replay: ReplayOptions?
    public var environment: [String: String]

    public init(configPath: String?, socketPath: String?, replay: ReplayOptions?, environment: [String: String]) {
        self.configPath = configPath
        self.socketPath = socketPath
        self.replay = replay
        self.environment = environment
    }
}

/// The daemon's lifecycle: configuration, socket, devices, READY, the input loop, and an orderly
/// stop (gestures cancelled, clients told, socket removed) on SIGTERM or SIGINT.
///
/// Synchronous on purpose: the input loop runs on the calling thread and serves the Unix socket
/// from the same epoll loop (one wake-up per frame), so the process never starts Swift
/// concurrency's thread pool — on Linux its libdispatch workqueue monitor would wake an idle
/// daemon every second. Beside it run one SwiftNIO event loop and one worker, and the compiler
/// once something is compiled (CONTRIBUTING.md, "Threads").
public enum Daemon {
    /// Runs until SIGTERM or SIGINT, on the calling thread. Throws only when it cannot start.
    public static func run(_ options: DaemonOptions) throws(DaemonError) {
        let loaded: LoadedConfiguration
        if let path = options.configPath {
            do {
                loaded = try ConfigurationLoader.loadSet(contentsOf: path)
            } catch {
                throw DaemonError("\(error)")
            }
        } else {
            loaded = LoadedConfiguration(configuration: .builtIn, files: [])
        }
        let configuration = loaded.configuration
        let logger = Logger(label: "gestured") { label in
            JournalLogHandler(
                label: label, level: configuration.logLevel.loggerLevel, environment: options.environment)
        }
        for ignored in loaded.ignored { logger.warning("\(ignored)") }
        let budget = DescriptorBudget(configuration)
        switch budget.ensure() {
        case .enough(raisedFrom: nil): break
        case .enough(raisedFrom: let was?):
            logger.debug("descriptor limit raised", metadata: ["from": "\(was)", "to": "\(budget.needed)"])
        case .short(let limit):
            logger.warning(
                """
                the descriptor limit is below what the connection limits can need: connections beyond it wait \
                until others close (docs/DEPLOYMENT.md, "Descriptors")
                """,
                metadata: ["limit": "\(limit)", "needed": "\(budget.needed)"])
        }
        let notifier = SystemdNotifier(environment: options.environment)
        let inherited: SystemdSockets?
        do {
            inherited = try SystemdSockets.systemdActivated(environment: options.environment, processID: getpid())
        } catch {
            throw DaemonError("\(error)")
        }
        if inherited?.webSocket != nil && configuration.websocket == nil {
            throw DaemonError(
                "systemd passed a WebSocket socket (named 'websocket', gestured-websocket.socket) but the configuration has no 'websocket' section: add one (docs/CONFIGURATION.md) or disable gestured-websocket.socket"
            )
        }
        let listener = inherited?.unix.map(Listener.inherited) ?? .path(options.socketPath ?? configuration.socket.path)
        // Programs the daemon might start must not think the socket is theirs.
        for variable in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] { unsetenv(variable) }

        let requests = try RequestQueue()
        let server = GestureServer(
            configuration: .init(
                listener: listener, daemonVersion: gesturedVersion, socketMode: configuration.socket.mode,
                socketGroup: configuration.socket.group,
                limits: ServerLimits(
                    maxClients: configuration.socket.maxClients,
                    maxClientsPerPeer: configuration.socket.maxClientsPerUser),
                webSocket: configuration.websocket.map { WebSocketEndpoint($0, inheritedSocket: inherited?.webSocket) },
                positions: configuration.positionAccess(daemonUser: geteuid())),
            delegate: requests, requests: DaemonRequests.all, logger: logger)
        let loop: InputLoop
        do {
            loop = try InputLoop(
                configuration: configuration, dropIns: Array(loaded.files.dropFirst()), configPath: options.configPath,
                replay: options.replay, server: server, requests: requests, notifier: notifier, logger: logger)
            try server.startOnThisThread()
        } catch let error as DaemonError {
            server.shutdownBlocking()
            throw error
        } catch {
            server.shutdownBlocking()
            throw DaemonError("\(error)")
        }
        let metrics: MetricsEndpoint?
        do {
            metrics = try inherited?.metrics.map { fd throws(DaemonError) in
                try MetricsEndpoint(descriptor: fd, loop: server.eventLoops.next(), requests: requests, logger: logger)
            }
        } catch {
            server.shutdownBlocking()
            throw error
        }
        let status = loop.start()
        notifier.ready(status: status)
        var metadata: Logger.Metadata = ["status": "\(status)", "version": "\(gesturedVersion)"]
        if !loaded.files.isEmpty { metadata["configuration"] = "\(loaded.files.joined(separator: ","))" }
        logger.info("ready", metadata: metadata)

        loop.run()
        metrics?.shutdown()
        server.shutdownBlocking()
        logger.info("stopped")
    }
}

extension WebSocketEndpoint {
    /// The endpoint the configuration's `websocket` describes, on systemd's socket if it passed one.
    init(_ configuration: WebSocketConfiguration, inheritedSocket: Int32?) {
        self.init(
            host: configuration.host, port: configuration.port, allowedOrigins: configuration.allowedOrigins,
            allowsDefine: configuration.allowDefine, allowsStatus: configuration.allowStatus,
            maxClients: configuration.maxClients,
            maxClientsPerPeer: configuration.maxClientsPerPeer,
            pingInterval: .milliseconds(configuration.pingIntervalMS), inheritedSocket: inheritedSocket)
    }
}
