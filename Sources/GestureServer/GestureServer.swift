import GestureEngine
import GestureProtocol
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// The socket server of protocol v1 (docs/PROTOCOL.md): accepts connections on a Unix stream
/// socket, answers their requests, and fans out what the daemon publishes to every subscriber,
/// without ever letting one client slow down the daemon or another client.
///
/// Threads: the server runs on its own single SwiftNIO event loop. Every public method is
/// thread-safe and returns at once; ``publish(_:)`` costs the caller one hop to the loop per
/// batch. Requests that need the engine go to the ``GestureServerDelegate``, on the loop.
///
/// ```swift
/// let server = GestureServer(configuration: .init(listener: .path(path), daemonVersion: "0.1.0"),
///                            delegate: daemon, logger: logger)
/// try await server.start()
/// server.publish(events.map { Publication($0, device: devices[$0.device], seq: nextSeq()) })
/// await server.shutdown()
/// ```
public final class GestureServer: Sendable {
    public struct Configuration: Sendable {
        public var listener: Listener
        /// The daemon's version, announced in `hello`.
        public var daemonVersion: String
        /// Applied to a socket the server binds itself (not to an inherited one).
        public var socketMode: UInt32?
        /// A group name or gid given the socket file (so its members may connect with mode 0660).
        public var socketGroup: String?
        public var limits: ServerLimits
        /// How long a connection being closed (`overflow`, `too-many-clients`, `shutdown`) may
        /// take to read its last message before it is closed anyway.
        public var closeTimeout: TimeAmount
        /// How long a connection may take to read its `shutdown` error when the server stops
        /// (``shutdown()``) before it is closed anyway: a stop is prompt whatever the clients do,
        /// and one that reads gets the line in far less.
        public var shutdownTimeout: TimeAmount
        /// Also serve the protocol over a WebSocket, for browsers (nil: the Unix socket only).
        public var webSocket: WebSocketEndpoint?

        public init(
            listener: Listener, daemonVersion: String, socketMode: UInt32? = 0o660, socketGroup: String? = nil,
            limits: ServerLimits = ServerLimits(), closeTimeout: TimeAmount = .seconds(5),
            shutdownTimeout: TimeAmount = .milliseconds(250), webSocket: WebSocketEndpoint? = nil
        ) {
            self.listener = listener
            self.daemonVersion = daemonVersion
            self.socketMode = socketMode
            self.socketGroup = socketGroup
            self.limits = limits
            self.closeTimeout = closeTimeout
            self.shutdownTimeout = shutdownTimeout
            self.webSocket = webSocket
        }
    }

    public let configuration: Configuration
    private let logger: Logger
    private let group: MultiThreadedEventLoopGroup
    private let eventLoop: any EventLoop
    private let core: NIOLoopBoundBox<ServerCore>
    private let interestBoard = InterestBoard()
    /// Set by `shutdown`; held while hopping so nothing is scheduled on a loop that has stopped.
    private let stopped = Mutex<Bool>(false)
    private let boundWebSocketPort = Mutex<Int?>(nil)

    /// The port the WebSocket endpoint listens on, once started (the one picked when the
    /// configuration asked for port 0); nil without an endpoint.
    public var webSocketPort: Int? { boundWebSocketPort.withLock { $0 } }

    /// A server that is not listening yet; call ``start()``, and ``shutdown()`` in the end.
    public init(configuration: Configuration, delegate: (any GestureServerDelegate)?, logger: Logger) {
        precondition(configuration.limits.maxLineBytes > 0, "maxLineBytes must be positive")
        precondition(configuration.limits.maxQueuedMessages > 0, "maxQueuedMessages must be positive")
        self.configuration = configuration
        self.logger = logger
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        eventLoop = group.next()
        core = NIOLoopBoundBox.makeBoxSendingValue(
            ServerCore(configuration: configuration, delegate: delegate, interest: interestBoard, logger: logger),
            as: ServerCore.self, eventLoop: eventLoop)
    }

    /// Binds (or adopts) the socket; returns once clients can connect.
    public func start() async throws(ServerError) {
        do {
            try await listen().get()
        } catch {
            throw ServerError.wrapping(error)
        }
    }

    /// ``start()`` for a caller that is not async: the daemon keeps Swift concurrency (and the
    /// libdispatch thread pool, whose monitor wakes a process every second) out of its process.
    /// Must not be called on an event loop.
    public func startBlocking() throws(ServerError) {
        do {
            try listen().wait()
        } catch {
            throw ServerError.wrapping(error)
        }
    }

    /// Binds or adopts the socket and hands the channel to the core; fails with a ``ServerError``.
    private func listen() -> EventLoopFuture<Void> {
        let core = self.core
        let limits = configuration.limits
        let logger = self.logger
        let eventLoop = self.eventLoop
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 128)
            // A client may shut down its sending side after subscribing (`printf … | socat`);
            // it still gets everything until it closes.
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(ByteToMessageHandler(LineFrameDecoder(maxLength: limits.maxLineBytes)))
                    try pipeline.addHandler(ClientSession(core: core.value))
                }
            }
        let bound: EventLoopFuture<(any Channel, CreatedSocket?)>
        switch configuration.listener {
        case .path(let path):
            let temporary: String
            do {
                try SocketFile.prepare(path)
                temporary = try SocketFile.makePrivatePath(beside: path)
            } catch {
                return eventLoop.makeFailedFuture(error)
            }
            let socketMode = configuration.socketMode
            let socketGroup = configuration.socketGroup
            bound = bootstrap.bind(unixDomainSocketPath: temporary)
                .flatMapErrorThrowing { error in
                    SocketFile.discardPrivate(temporary)
                    throw ServerError("cannot listen on \(path): \(error)")
                }
                .flatMap { channel in
                    let created: CreatedSocket
                    do {
                        created = try SocketFile.publish(temporary, at: path, mode: socketMode, group: socketGroup)
                    } catch {
                        return channel.close().flatMapThrowing { throw error }
                    }
                    logger.info("listening", metadata: ["socket": "\(path)"])
                    return eventLoop.makeSucceededFuture((channel, created))
                }
        case .inherited(let descriptor):
            do {
                try SocketFile.setCloseOnExec(descriptor)
            } catch {
                return eventLoop.makeFailedFuture(error)
            }
            bound = bootstrap.withBoundSocket(descriptor)
                .flatMapErrorThrowing { error in
                    throw ServerError("cannot use the inherited socket (fd \(descriptor)): \(error)")
                }
                .map { channel in
                    logger.info("listening on an inherited socket", metadata: ["fd": "\(descriptor)"])
                    return (channel, nil)
                }
        }
        guard let endpoint = configuration.webSocket else {
            return bound.flatMap { channel, created in
                eventLoop.submit { core.value.listening(on: [channel], created: created) }
            }
        }
        let closeTimeout = configuration.closeTimeout
        return bound.flatMap { channel, created in
            WebSocketListener.bind(
                endpoint, group: self.group, core: core, limits: limits, closeTimeout: closeTimeout, logger: logger
            )
            .flatMapError { error in
                // The Unix socket is bound already: give it back before failing.
                channel.close().recover { _ in }.flatMapThrowing {
                    if let created { SocketFile.remove(created) }
                    throw error
                }
            }
            .flatMap { webSocket in
                self.boundWebSocketPort.withLock { $0 = webSocket.localAddress?.port }
                return eventLoop.submit { core.value.listening(on: [channel, webSocket], created: created) }
            }
        }
    }

    /// What the open connections want, when it changed since generation `seen` (0 at first):
    /// a publisher that drops what no one wants (``Interest/wants(_:)``) before ``publish(_:)``
    /// spares the event loop a wake-up for a batch that would send nothing. Thread-safe; one
    /// atomic load when nothing changed.
    public func interest(newerThan seen: UInt64) -> (generation: UInt64, interest: Interest)? {
        interestBoard.read(newerThan: seen)
    }

    /// Sends a batch to the clients, in order. Thread-safe; one hop to the event loop. Each
    /// message is encoded once, only if some client wants it.
    public func publish(_ batch: [Publication]) {
        guard !batch.isEmpty else { return }
        let core = self.core
        stopped.withLock { stopped in
            if !stopped { eventLoop.execute { core.value.publish(batch) } }
        }
    }

    /// Tells `client` that a reload took some of its definitions (a `dropped` message), and
    /// stops counting them against the limits.
    public func dropped(_ message: DroppedMessage, client: ClientID) {
        let core = self.core
        stopped.withLock { stopped in
            if !stopped { eventLoop.execute { core.value.dropped(message, client: client) } }
        }
    }

    /// Stops accepting, sends every client `error` `shutdown`, closes every connection (waiting
    /// at most the shutdown timeout for clients that do not read, also for connections that were
    /// already being closed), removes the socket file it
    /// created (only that file: never one it found there, nor one another process put there
    /// since), and stops the event loop. Later calls do nothing.
    public func shutdown() async {
        guard let closed = closeEverything() else { return }
        try? await closed.get()
        do {
            try await group.shutdownGracefully()
        } catch {
            logger.error("the server's event loop did not stop cleanly", metadata: ["error": "\(error)"])
        }
        logger.info("server stopped")
    }

    /// ``shutdown()`` for a caller that is not async (see ``startBlocking()``).
    public func shutdownBlocking() {
        guard let closed = closeEverything() else { return }
        try? closed.wait()
        do {
            try group.syncShutdownGracefully()
        } catch {
            logger.error("the server's event loop did not stop cleanly", metadata: ["error": "\(error)"])
        }
        logger.info("server stopped")
    }

    /// The first call tells the core to close everything and returns when that is done; later
    /// calls return nil.
    private func closeEverything() -> EventLoopFuture<Void>? {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return nil }
        let core = self.core
        let done = eventLoop.makePromise(of: Void.self)
        eventLoop.execute { core.value.shutdown(done) }
        return done.futureResult
    }
}
