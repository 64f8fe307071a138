import CLinuxSupport
import GestureEngine
import GestureLogging
import GestureProtocol
import Logging
import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The socket server of protocol v1 (docs/PROTOCOL.md): accepts connections on a Unix stream
/// socket (and a WebSocket endpoint, if configured), answers their requests, and fans out what
/// the daemon publishes to every subscriber, without ever letting one client slow down the
/// daemon or another client.
///
/// Threads: everything the server decides happens on one thread, the *server thread*. The
/// daemon makes its input thread that thread (``startOnThisThread()``, then ``service()`` when
/// ``descriptor`` is readable): a frame is then read, recognized and written to the Unix
/// clients in one wake-up of one thread, with no hop. Otherwise ``start()`` runs the
/// server on a thread of its own. Every public method is thread-safe; from another thread,
/// ``publish(_:)`` costs one ``Mailbox`` post per batch. The WebSocket endpoint's I/O runs on a
/// SwiftNIO event loop, reached in one hop per batch only when a WebSocket client wants it.
/// The server thread decodes nothing a client sends: it reads each request's head, and a
/// thread of the server's own decodes the rest (``RequestDecoder``); it reads each connection
/// within a budget a turn, and not while the connection cannot take a request
/// (docs/PROTOCOL.md §9). Requests that need the engine go to the ``GestureServerDelegate``, on
/// the server thread.
///
/// ```swift
/// let server = GestureServer(configuration: .init(listener: .path(path), daemonVersion: "0.1.0"),
///                            delegate: daemon, logger: logger)
/// try await server.start()
/// var mapping = WireMapping()
/// let interest = server.interest(newerThan: 0) ?? Interest()
/// server.publish(events.compactMap { mapping.publication(of: $0, device: devices[$0.device], for: interest) })
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
        /// Who may see where fingers are (raw touches; ``setPositions(_:)`` replaces it).
        public var positions: PositionAccess

        public init(
            listener: Listener, daemonVersion: String, socketMode: UInt32? = 0o660, socketGroup: String? = nil,
            limits: ServerLimits = ServerLimits(), closeTimeout: TimeAmount = .seconds(5),
            shutdownTimeout: TimeAmount = .milliseconds(250), webSocket: WebSocketEndpoint? = nil,
            positions: PositionAccess = PositionAccess()
        ) {
            self.positions = positions
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
    /// The process's one SwiftNIO event loop (`nio-loop`: the WebSocket endpoint, the daemon's
    /// metrics endpoint and timers) and its one worker (`worker`: requests decoded, `status`
    /// answers made, screen files read), which every part of the daemon shares (CONTRIBUTING.md,
    /// "Threads"). Both sleep while there is nothing to do.
    public let eventLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    public let worker = NIOThreadPool(numberOfThreads: 1)
    private let logger: Logger
    /// Repeated warnings (refused handshakes and connections, accept failures), per cause.
    private let throttle = LogThrottle()
    private let interestBoard = InterestBoard()
    private let mailbox: Mailbox?
    private let loop: ServerThreadBound<ServerLoop?>
    private let state = Mutex(State())
    /// Readable once the server has stopped (``shutdownBlocking()`` waits on it).
    private let finished = gestured_eventfd()
    private let boundWebSocketPort = Mutex<Int?>(nil)
    /// WebSocket connections the endpoint's gate refused (on SwiftNIO's thread).
    private let refusedByGate = RefusedConnections()

    private struct State {
        /// The thread the core lives on, once started.
        var serverThread: pthread_t?
        /// The thread ``start()`` made (nil when the caller's thread serves).
        var ownThread: pthread_t?
        var webSocketListener: (any Channel)?
        /// The socket file this server created, removed at shutdown (nil: inherited, or not bound).
        var createdSocket: CreatedSocket?
        var stopRequested = false
        var stopped = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    /// The port the WebSocket endpoint listens on, once started (the one picked when the
    /// configuration asked for port 0); nil without an endpoint.
    public var webSocketPort: Int? { boundWebSocketPort.withLock { $0 } }

    deinit { close(finished) }

    /// A server that is not listening yet; call ``start()`` (or ``startOnThisThread()``), and
    /// ``shutdown()`` in the end. It serves its own request types (``ServerRequests``) and `requests`
    /// (``RequestType``: the daemon's).
    public init(
        configuration: Configuration, delegate: (any GestureServerDelegate)?, requests: [any RequestType.Type] = [],
        logger: Logger
    ) {
        precondition(configuration.limits.maxLineBytes > 0, "maxLineBytes must be positive")
        precondition(configuration.limits.maxQueuedMessages > 0, "maxQueuedMessages must be positive")
        self.configuration = configuration
        self.logger = logger
        _ = eventLoops.next().submit { gestured_name_thread("nio-loop") }
        worker.start()
        worker.submit { _ in _ = gestured_name_thread("worker") }
        do {
            let mailbox = try Mailbox()
            let loop = try ServerLoop(mailbox: mailbox)
            loop.core = ServerCore(
                configuration: configuration, delegate: delegate, requests: requests, mailbox: mailbox,
                interest: interestBoard, logger: logger, throttle: throttle, decoder: RequestDecoder(pool: worker))
            self.mailbox = mailbox
            self.loop = ServerThreadBound(loop)
        } catch {
            // Out of descriptors: ``start()`` says so.
            logger.error("cannot set up the server: \(error)")
            mailbox = nil
            loop = ServerThreadBound(nil)
        }
    }

    /// The server loop's epoll fd: a caller that serves from its own loop (``startOnThisThread()``)
    /// watches it for EPOLLIN and calls ``service()``; -1 if the server could not be set up.
    public var descriptor: Int32 { loop.value?.descriptor ?? -1 }

    /// Binds (or adopts) the socket and serves from a thread of its own; returns once clients
    /// can connect.
    public func start() async throws(ServerError) {
        let webSocket = try listen()
        if let webSocket {
            do {
                try adoptWebSocket(await webSocket.get())
            } catch {
                abandonStart()
                throw ServerError.wrapping(error)
            }
        }
        let thread = try Self.spawn { [self] in self.runOwnThread() }
        state.withLock { $0.ownThread = thread }
    }

    /// Binds (or adopts) the socket; the calling thread becomes the server thread: it must call
    /// ``service()`` whenever ``descriptor`` is readable, and ``shutdownBlocking()`` in the end.
    /// ``publish(_:)`` on this thread writes to the clients at once. The daemon keeps Swift
    /// concurrency (and the libdispatch thread pool, whose monitor wakes a process every
    /// second) out of its process this way.
    public func startOnThisThread() throws(ServerError) {
        if let webSocket = try listen() {
            do {
                try adoptWebSocket(webSocket.wait())
            } catch {
                abandonStart()
                throw ServerError.wrapping(error)
            }
        }
        state.withLock { $0.serverThread = pthread_self() }
    }

    /// Binds or adopts the Unix socket into the loop, and starts binding the WebSocket endpoint
    /// (its listening channel, to hand to ``adoptWebSocket(_:)``) when there is one.
    private func listen() throws(ServerError) -> EventLoopFuture<any Channel>? {
        guard let loop = loop.value, let mailbox else { throw ServerError("cannot set up the server: \(errnoDescription())") }
        let listening: Int32
        let created: CreatedSocket?
        switch configuration.listener {
        case .path(let path):
            (listening, created) = try bindUnixListener(
                at: path, mode: configuration.socketMode, group: configuration.socketGroup)
            logger.info("listening", metadata: ["socket": "\(path)"])
        case .inherited(let descriptor):
            try adoptUnixListener(descriptor)
            (listening, created) = (descriptor, nil)
            logger.info("listening on an inherited socket", metadata: ["fd": "\(descriptor)"])
        }
        do throws(ServerError) {
            try loop.listen(on: listening)
        } catch {
            close(listening)
            if let created { SocketFile.remove(created) }
            throw error
        }
        state.withLock { $0.createdSocket = created }
        guard let endpoint = configuration.webSocket else { return nil }
        let core = ServerThreadBound(loop.core!)
        return WebSocketListener.bind(
            endpoint, group: eventLoops, mailbox: mailbox,
            session: { link, endpoint in
                link.session = ClientSession(
                    core: core.value, link: link,
                    transport: .webSocket(
                        origin: link.origin, peer: link.peer, allowsDefine: endpoint.allowsDefine,
                        allowsStatus: endpoint.allowsStatus))
            },
            limits: configuration.limits, closeTimeout: configuration.closeTimeout, logger: logger, throttle: throttle,
            refused: refusedByGate)
    }

    private func adoptWebSocket(_ channel: any Channel) {
        state.withLock { $0.webSocketListener = channel }
        boundWebSocketPort.withLock { $0 = channel.localAddress?.port }
    }

    /// The WebSocket endpoint could not start: give the Unix socket back.
    private func abandonStart() {
        loop.value?.closeListener()
        if let created = state.withLock({ $0.createdSocket }) { SocketFile.remove(created) }
        state.withLock { $0.createdSocket = nil }
    }

    /// Handles what is ready on ``descriptor``, on the server thread (``startOnThisThread()``).
    public func service() {
        loop.value?.service(timeoutMilliseconds: 0)
    }

    /// What the open connections want, when it changed since version `seen` (0 at first): the
    /// publisher decides on it who takes each publication (``Interest/decided(_:)``,
    /// ``WireMapping``), and drops what no one takes before ``publish(_:)``. Thread-safe; one
    /// atomic load when nothing changed.
    public func interest(newerThan seen: UInt64) -> Interest? {
        interestBoard.read(newerThan: seen)
    }

    /// Sends a batch to the clients, in order: at once on the server thread, else in one
    /// ``Mailbox`` post. Each message goes to its ``Audience`` (and to a connection whose
    /// subscription changed since it was decided, when it now takes it), encoded once, only if
    /// some client takes it.
    public func publish(_ batch: [Publication]) {
        var batch = batch
        publish(draining: &batch)
    }

    /// ``publish(_:)``, emptying `batch` and keeping its storage for the next one: on the server
    /// thread (the daemon's input thread, every frame) each publication is moved out of it, not
    /// copied, without the closure a mailbox post needs.
    public func publish(draining batch: inout [Publication]) {
        guard !batch.isEmpty else { return }
        switch route() {
        case .here(let core): core.publish(draining: &batch)
        case .mailbox(let mailbox, let core):
            let posted = batch
            mailbox.post {
                var posted = posted
                core.value.publish(draining: &posted)
            }
            batch.removeAll(keepingCapacity: true)
        case .nowhere: batch.removeAll(keepingCapacity: true)
        }
    }

    /// What the server has counted (``ServerStatistics``), on the server thread (the daemon's
    /// input thread); nil on another thread, or once stopped.
    public func statistics() -> ServerStatistics? {
        guard case .here(let core) = route() else { return nil }
        return core.statistics(refusedByGate: refusedByGate.value)
    }

    /// What `status` reports has changed (the daemon reloaded its configuration, or failed to):
    /// no `status` request from now on is answered from a status the daemon made before
    /// (``StatusShare``).
    public func statusChanged() {
        onServerThread { core in core.statusChanged() }
    }

    /// Replaces who may see where fingers are (a reload): connections subscribed to raw touches
    /// that may no longer see them lose them, with an `error` `permission-denied`.
    public func setPositions(_ access: PositionAccess) {
        onServerThread { core in core.setPositions(access) }
    }

    /// Tells `client` that a reload took some of its definitions (a `dropped` message), and
    /// stops counting them against the limits.
    public func dropped(_ message: DroppedMessage, client: ClientID) {
        onServerThread { core in core.dropped(message, client: client) }
    }

    /// How work for the core gets to it from the calling thread.
    private enum Route {
        /// This is the server thread: call the core.
        case here(ServerCore)
        /// Another thread: post to the server thread.
        case mailbox(Mailbox, ServerThreadBound<ServerCore>)
        /// The server has stopped (or not started): nothing runs.
        case nowhere
    }

    private func route() -> Route {
        guard let loop = loop.value, let mailbox else { return .nowhere }
        let (here, running) = state.withLock { state -> (Bool, Bool) in
            let here = state.serverThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
            return (here, (state.serverThread != nil || state.ownThread != nil) && !state.stopped)
        }
        guard running else { return .nowhere }
        return here ? .here(loop.core!) : .mailbox(mailbox, ServerThreadBound(loop.core!))
    }

    /// Runs `work` on the server thread: now if this is it, else through the mailbox. Nothing
    /// runs once the server stopped (or before it started).
    private func onServerThread(_ work: @escaping @Sendable (ServerCore) -> Void) {
        switch route() {
        case .here(let core): work(core)
        case .mailbox(let mailbox, let core): mailbox.post { work(core.value) }
        case .nowhere: break
        }
    }

    /// Stops accepting, sends every client `error` `shutdown`, closes every connection (waiting
    /// at most the shutdown timeout for clients that do not read, also for connections that were
    /// already being closed), removes the socket file it created (only that file: never one it
    /// found there, nor one another process put there since), and stops its threads. Later
    /// calls do nothing.
    public func shutdown() async {
        enum Plan { case done, here, wait(first: Bool) }
        let plan = state.withLock { state -> Plan in
            if state.stopped { return .done }
            guard state.ownThread != nil else { return .here }
            defer { state.stopRequested = true }
            return .wait(first: !state.stopRequested)
        }
        switch plan {
        case .done:
            return
        case .here:
            // Never started, or serving from a caller's loop: stop here.
            shutdownBlocking()
        case .wait(let first):
            await withCheckedContinuation { continuation in
                let done = state.withLock { state in
                    if state.stopped { return true }
                    state.waiting.append(continuation)
                    return false
                }
                if done { continuation.resume() }
                if first { requestStop() }
            }
        }
    }

    /// ``shutdown()`` for a caller that is not async: on the server thread after
    /// ``startOnThisThread()``, or anywhere with a thread of the server's own.
    public func shutdownBlocking() {
        let (own, first) = state.withLock { state -> (Bool, Bool) in
            defer { state.stopRequested = true }
            return (state.ownThread != nil, !state.stopRequested && !state.stopped)
        }
        if own {
            if first { requestStop() }
            // The thread signals the eventfd as its last step (it is detached: nothing to join).
            while !state.withLock({ $0.stopped }) { _ = gestured_wait_readable(finished, -1) }
            return
        }
        guard first else { return }
        drainAndStop()
    }

    /// Wakes the server's own thread, which sees ``State/stopRequested``.
    private func requestStop() {
        mailbox?.post {}
    }

    /// The server's own thread: serves until asked to stop, then drains.
    private func runOwnThread() {
        guard let loop = loop.value else { return }
        state.withLock { $0.serverThread = pthread_self() }
        while !state.withLock({ $0.stopRequested }) { loop.service(timeoutMilliseconds: -1) }
        drainAndStop()
    }

    /// On the server thread: tells every client, closes, waits for them at most the shutdown
    /// timeout (the loop's timerfd closes those that do not read), then lets go of everything.
    private func drainAndStop() {
        let (webSocket, created) = state.withLock { ($0.webSocketListener, $0.createdSocket) }
        if let loop = loop.value {
            loop.closeListener()
            if let created { SocketFile.remove(created) }
            try? webSocket?.close().wait()
            loop.core.shutdown()
            while !loop.core.isDrained { loop.service(timeoutMilliseconds: -1) }
            // Refused connections still saying why, and any that never admitted.
            loop.closeAll()
            loop.core.decoder.shutDown()
        }
        do {
            try eventLoops.syncShutdownGracefully()
        } catch {
            logger.error("the SwiftNIO event loop did not stop cleanly", metadata: ["error": "\(error)"])
        }
        let waiting = state.withLock { state in
            state.stopped = true
            state.createdSocket = nil
            defer { state.waiting = [] }
            return state.waiting
        }
        logger.info("server stopped")
        _ = gestured_eventfd_signal(finished)
        for continuation in waiting { continuation.resume() }
    }

    /// Starts a thread running `body`.
    private static func spawn(_ body: @escaping @Sendable () -> Void) throws(ServerError) -> pthread_t {
        final class Box: Sendable {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        let box = Unmanaged.passRetained(Box(body))
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { argument in
                Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue().body()
                return nil
            }, box.toOpaque())
        guard result == 0 else {
            box.release()
            throw ServerError("cannot start the server's thread: \(errnoDescription(result))")
        }
        // Nothing joins it: shutdown waits for its last step instead.
        pthread_detach(thread)
        return thread
    }
}
