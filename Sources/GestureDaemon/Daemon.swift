import Foundation
import GestureProtocol
import GestureServer
import Logging

/// The daemon's version, announced in `hello` and printed by `gestured --version`.
public let gesturedVersion = "0.1.0"

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
public enum Daemon {
    /// Runs until SIGTERM or SIGINT. Throws only when it cannot start.
    public static func run(_ options: DaemonOptions) async throws(DaemonError) {
        let configuration: DaemonConfiguration
        if let path = options.configPath {
            do {
                configuration = try ConfigurationLoader.load(contentsOf: path)
            } catch {
                throw DaemonError("\(error)")
            }
        } else {
            configuration = .builtIn
        }
        let logger = Logger(label: "gestured") { label in
            JournalLogHandler(
                label: label, level: configuration.logLevel.loggerLevel, environment: options.environment)
        }
        let notifier = SystemdNotifier(environment: options.environment)
        let listener: Listener
        do {
            let socketPath = options.socketPath ?? configuration.socket.path
            listener =
                try Listener.systemdActivated(environment: options.environment, processID: getpid())
                ?? .path(socketPath)
        } catch {
            throw DaemonError("\(error)")
        }
        // Programs the daemon might start must not think the socket is theirs.
        for variable in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] { unsetenv(variable) }

        let requests = try RequestQueue()
        let server = GestureServer(
            configuration: .init(
                listener: listener, daemonVersion: gesturedVersion, socketMode: configuration.socket.mode,
                socketGroup: configuration.socket.group,
                limits: ServerLimits(maxClients: configuration.socket.maxClients)),
            delegate: requests, logger: logger)
        let loop: InputLoop
        do {
            loop = try InputLoop(
                configuration: configuration, configPath: options.configPath, server: server, requests: requests,
                notifier: notifier, logger: logger)
            try await server.start()
        } catch let error as DaemonError {
            await server.shutdown()
            throw error
        } catch {
            await server.shutdown()
            throw DaemonError("\(error)")
        }
        let status: String
        do {
            status = try loop.start(options.replay.map(InputLoop.Source.replay) ?? .devices)
        } catch {
            await server.shutdown()
            throw error
        }
        notifier.ready(status: status)
        logger.info("ready", metadata: ["status": "\(status)", "version": "\(gesturedVersion)"])

        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let thread = Thread {
                loop.run()
                done.resume()
            }
            thread.name = "gestured-input"
            thread.start()
        }
        await server.shutdown()
        logger.info("stopped")
    }
}
