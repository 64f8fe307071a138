import GestureActions
import GestureClient
import GestureProtocol
import GestureLogging
import Logging
import Synchronization

/// The loop a client program of the daemon runs (`gestured actions`, `gestured mqtt`): connect to
/// its socket, refuse a server that is not the daemon (``DaemonTrust``), serve the connection until
/// it ends, and connect again after a back-off (100 ms doubling to 5 s, ``ReconnectBackoff``),
/// until the task is cancelled.
///
/// What it logs of the daemon — connected, closed, its errors — goes through one ``LogThrottle``
/// keyed by the daemon's uid (``log(_:_:cause:metadata:)``), so a daemon restarting in a loop cannot
/// flood the journal. A failed connection is logged once per outage at warning level (a server
/// refused as not the daemon: error), the attempts after it at debug level.
public final class DaemonFollower: Sendable {
    public let socket: String
    private let logger: Logger
    private let throttle = LogThrottle()
    /// The daemon's uid, once a server answered.
    private let peer = Mutex("?")

    public init(socket: String, logger: Logger) {
        self.socket = socket
        self.logger = logger
    }

    /// Logs a line about the daemon, at most a few a minute of each `cause` of each daemon.
    public func log(_ level: Logger.Level, _ message: Logger.Message, cause: String, metadata: Logger.Metadata = [:]) {
        throttle.log(level, message, cause: cause, peer: peer.withLock { $0 }, metadata: metadata, to: logger)
    }

    /// Follows the daemon until the task is cancelled. `trust` is asked at each connection (a
    /// reload may change `daemon-user`); `serve` returns the server's closing error, if it sent
    /// one; `disconnected` runs after each connection or failed attempt, before the pause.
    public func run(
        trust: @Sendable () -> DaemonTrust,
        serve: (GestureClient) async throws -> ErrorMessage?,
        disconnected: () -> Void
    ) async {
        var backoff = ReconnectBackoff()
        var failures = 0
        let refused = Mutex(false)
        while !Task.isCancelled {
            do {
                let ending = try await GestureClient.connect(
                    to: socket,
                    server: { [self] server in
                        let problem = trust().problem(with: server)
                        refused.withLock { $0 = problem != nil }
                        peer.withLock { $0 = "uid \(server.uid)" }
                        return problem
                    }
                ) { client in
                    backoff.connected()
                    failures = 0
                    return try await serve(client)
                }
                if Task.isCancelled { break }
                log(
                    .warning, "the daemon closed the connection\(ending.map { ": \($0)" } ?? ""); reconnecting",
                    cause: "disconnected")
            } catch let error as GestureClientError {
                failures += 1
                let notTheDaemon = refused.withLock { was in
                    defer { was = false }
                    return was
                }
                let level: Logger.Level = failures > 1 ? .debug : notTheDaemon ? .error : .warning
                logger.log(level: level, "\(error); retrying (back-off up to \(ReconnectBackoff.longest))")
            } catch is CancellationError {
                break
            } catch {
                logger.warning("\(error); reconnecting")
            }
            disconnected()
            do {
                try await Task.sleep(for: backoff.pause())
            } catch {
                break
            }
        }
    }
}
