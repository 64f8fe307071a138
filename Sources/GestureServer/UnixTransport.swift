import CLinuxSupport
import GestureLogging
import GestureProtocol
import Logging
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The server thread's loop: one epoll set holding the Unix socket's listener, its connections,
/// a timerfd for close deadlines and the ``Mailbox``'s eventfd. ``service(timeoutMilliseconds:)``
/// handles what is ready. The daemon's input loop watches ``descriptor`` (an epoll fd is
/// readable while its set has something ready) and calls it on its own thread, so a frame is
/// read, recognized and written to every client by one thread in one wake-up; a
/// server on its own (tests, library users) runs the same loop on a thread of its own.
///
/// Not SwiftNIO: NIO cannot watch the evdev fds without reading them itself (libevdev must), so
/// a NIO server costs the input thread a hop and a second thread a wake-up per frame; measured
/// in docs/performance-history.md ("one wake-up per frame"). SwiftNIO still serves the WebSocket endpoint.
final class ServerLoop {
    private enum Token {
        static let mailbox: UInt64 = 0
        static let timer: UInt64 = 1
        static let listener: UInt64 = 2
        static let firstConnection: UInt64 = 16
    }

    /// The epoll fd; readable while something is ready.
    let descriptor: Int32
    let mailbox: Mailbox
    private let timer: Int32
    /// Set once the server is built (the core needs the mailbox first).
    var core: ServerCore!
    private var listener: Int32 = -1
    /// The listener is out of the epoll set while the process has no descriptor to accept with;
    /// it is back when a connection closes, or after ``acceptRetryNanoseconds`` in any case (a
    /// descriptor may be freed anywhere: by a WebSocket connection, a device, …).
    private var acceptPaused = false
    static let acceptRetryNanoseconds: Int64 = 100_000_000
    private var connections: [UInt64: UnixConnection] = [:]
    private var nextToken = Token.firstConnection
    /// When each closing connection is closed at the latest, and (under ``Token/listener``)
    /// when accepting is tried again (CLOCK_MONOTONIC ns).
    private var deadlines: [UInt64: Int64] = [:]
    private var armed: Int64 = 0
    private var ready = [gestured_epoll_event](repeating: gestured_epoll_event(), count: 64)

    init(mailbox: Mailbox) throws(ServerError) {
        self.mailbox = mailbox
        descriptor = gestured_epoll_create()
        guard descriptor >= 0 else { throw ServerError("epoll_create1: \(errnoDescription())") }
        timer = gestured_timerfd()
        guard timer >= 0 else {
            close(descriptor)
            throw ServerError("timerfd_create: \(errnoDescription())")
        }
        guard gestured_epoll_add(descriptor, mailbox.fileDescriptor, GESTURED_EPOLLIN, Token.mailbox) == 0,
            gestured_epoll_add(descriptor, timer, GESTURED_EPOLLIN, Token.timer) == 0
        else {
            close(timer)
            close(descriptor)
            throw ServerError("epoll_ctl: \(errnoDescription())")
        }
    }

    deinit {
        closeListener()
        for connection in connections.values { close(connection.fd) }
        close(timer)
        close(descriptor)
    }

    // MARK: Listening

    /// Accepts connections from `fd`, a listening stream socket (made non-blocking here).
    func listen(on fd: Int32) throws(ServerError) {
        guard gestured_set_nonblocking(fd) == 0,
            gestured_epoll_add(descriptor, fd, GESTURED_EPOLLIN, Token.listener) == 0
        else { throw ServerError("cannot watch the listening socket: \(errnoDescription())") }
        listener = fd
    }

    /// Stops accepting (shutdown); the socket file is the caller's.
    func closeListener() {
        guard listener >= 0 else { return }
        close(listener)
        listener = -1
    }

    // MARK: The loop

    /// Handles what is ready, waiting at most `timeoutMilliseconds` for something (-1: until
    /// something is, 0: not at all).
    func service(timeoutMilliseconds: Int32) {
        let count = gestured_epoll_wait(descriptor, &ready, Int32(ready.count), timeoutMilliseconds)
        guard count > 0 else { return }
        core.beginTurn()
        for i in 0..<Int(count) {
            let event = ready[i]
            switch event.token {
            case Token.mailbox:
                for job in mailbox.take() { job.run() }
            case Token.timer:
                expire()
            case Token.listener:
                acceptAll()
            default:
                connections[event.token]?.handle(event.events)
            }
        }
    }

    private func acceptAll() {
        // Bounded per wake-up, so a flood of connections cannot starve the frames.
        for _ in 0..<64 where listener >= 0 {
            let fd = gestured_accept(listener)
            if fd < 0 {
                switch errno {
                case EINTR, ECONNABORTED:
                    continue
                case EAGAIN, EWOULDBLOCK:
                    return
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    // The connection waits in the backlog. Level-triggered, the listener would
                    // wake the loop at once, again and again: out of the set until a connection
                    // closes or the retry is due.
                    core.throttle.log(
                        .error, "cannot accept a connection, retrying shortly", cause: "unix.accept-failed",
                        metadata: [
                            "error": "\(errnoDescription())", "retry-ms": "\(Self.acceptRetryNanoseconds / 1_000_000)",
                        ],
                        to: core.logger)
                    _ = gestured_epoll_remove(descriptor, listener)
                    acceptPaused = true
                    deadlines[Token.listener] = gestured_monotonic_us() * 1000 + Self.acceptRetryNanoseconds
                    rearm()
                    return
                default:
                    core.throttle.log(
                        .error, "accept failed", cause: "unix.accept-failed",
                        metadata: ["error": "\(errnoDescription())"], to: core.logger)
                    return
                }
            }
            let token = nextToken
            nextToken += 1
            let connection = UnixConnection(fd: fd, token: token, loop: self, maxLineBytes: core.limits.maxLineBytes)
            guard gestured_epoll_add(descriptor, fd, UnixConnection.readEvents, token) == 0 else {
                core.logger.error("cannot watch a connection", metadata: ["error": "\(errnoDescription())"])
                close(fd)
                continue
            }
            connections[token] = connection
            connection.start(
                ClientSession(core: core, link: connection, transport: .unixSocket(user: connection.credentials?.uid)))
        }
    }

    // MARK: Connections

    func watch(_ connection: UnixConnection, events: UInt32) {
        _ = gestured_epoll_modify(descriptor, connection.fd, events, connection.token)
    }

    /// The connection closed its fd: forget it, and resume accepting if that had paused.
    func remove(_ connection: UnixConnection) {
        connections[connection.token] = nil
        if deadlines.removeValue(forKey: connection.token) != nil { rearm() }
        resumeAccepting()
    }

    /// Puts the listener back in the epoll set, if out of descriptors had taken it out.
    private func resumeAccepting() {
        guard acceptPaused, listener >= 0 else { return }
        acceptPaused = false
        if deadlines.removeValue(forKey: Token.listener) != nil { rearm() }
        _ = gestured_epoll_add(descriptor, listener, GESTURED_EPOLLIN, Token.listener)
    }

    /// Closes `connection` at `deadline` at the latest (an earlier one already set stands).
    func closeNoLater(_ connection: UnixConnection, than deadline: NIODeadline) {
        // NIODeadline and the timerfd may not share an epoch: carry over what remains.
        let remaining = (deadline - NIODeadline.now()).nanoseconds
        let at = gestured_monotonic_us() * 1000 + max(remaining, 1)
        if let current = deadlines[connection.token], current <= at { return }
        deadlines[connection.token] = at
        rearm()
    }

    private func rearm() {
        let earliest = deadlines.values.min() ?? 0
        guard earliest != armed else { return }
        armed = earliest
        _ = gestured_timerfd_arm(timer, earliest)
    }

    private func expire() {
        _ = gestured_eventfd_drain(timer)  // an 8-byte counter, like an eventfd's
        armed = 0
        let now = gestured_monotonic_us() * 1000
        for (token, deadline) in deadlines where deadline <= now {
            deadlines[token] = nil
            if token == Token.listener {
                resumeAccepting()
            } else {
                connections[token]?.closeNow()
            }
        }
        rearm()
    }

    /// Closes every connection at once (the last step of a shutdown, or a failed start).
    func closeAll() {
        for connection in connections.values.sorted(by: { $0.token < $1.token }) { connection.closeNow() }
    }
}

/// One client of the Unix socket: its fd, the bytes read and the requests framed from them not
/// yet taken by the session, the bytes written and not yet taken by the kernel. Output goes out
/// in one `send` per flush (the session flushes once per published batch); what the kernel does
/// not take waits here, and EPOLLOUT resumes it. Like a SwiftNIO channel, it turns unwritable
/// above 64 KiB waiting and writable again below 32 KiB, and the session's ``OutboundQueue``
/// does the rest.
///
/// Input is read only while the session asks for it (``setReading(_:)``: EPOLLIN is in the
/// epoll set then, and only then), at most ``ClientSession/readBudgetBytes`` a turn, and not
/// while requests read before are still waiting for the session.
///
/// Closing with a last message (``close(after:deadline:)``): once it is written, the server
/// shuts down its sending side, reads and discards what the client still sends until the
/// client closes, and closes then (or at the deadline). Closing with unread input would make
/// the kernel reset the connection, and a reset can destroy what the client has not read yet:
/// the last message.
final class UnixConnection: SessionLink {
    static let readEvents = GESTURED_EPOLLIN | GESTURED_EPOLLRDHUP
    static let highWater = 64 * 1024
    static let lowWater = 32 * 1024
    /// Read this much per `read(2)`, as many times as the read budget allows in a turn.
    private static let readSize = 4096

    let fd: Int32
    let token: UInt64
    /// The peer's credentials (SO_PEERCRED, as they were at connect), nil if the kernel would not
    /// say; ``credentialsError`` then says why.
    let credentials: gestured_ucred?
    private let credentialsError: Int32
    private unowned let loop: ServerLoop
    private var session: ClientSession?
    private var decoder: LineFrameDecoder
    private var inbound = ByteBuffer()
    /// Requests read and framed, not yet taken by the session.
    private var frames = CircularBuffer<LineFrame>()
    private var outbound = ByteBuffer()
    private var unwritable = false
    private var watchingWrites = false
    /// EPOLLIN is in the set: the session takes more.
    private var reading = true
    /// The peer shut down its sending side (it may still read: it gets everything until it closes).
    private var inputClosed = false
    private var closeWhenSent = false
    /// The last message is out and the sending side shut down: input is read and discarded
    /// until the client closes.
    private var draining = false
    private var isClosed = false

    init(fd: Int32, token: UInt64, loop: ServerLoop, maxLineBytes: Int) {
        self.fd = fd
        self.token = token
        self.loop = loop
        decoder = LineFrameDecoder(maxLength: maxLineBytes)
        var credentials = gestured_ucred()
        var size = socklen_t(MemoryLayout<gestured_ucred>.size)
        if getsockopt(fd, GESTURED_SOL_SOCKET, GESTURED_SO_PEERCRED, &credentials, &size) == 0 {
            (self.credentials, credentialsError) = (credentials, 0)
        } else {
            (self.credentials, credentialsError) = (nil, errno)
        }
    }

    func start(_ session: ClientSession) {
        self.session = session
        session.start()
    }

    // MARK: Readiness

    func handle(_ events: UInt32) {
        if (reading || draining) && !inputClosed,
            events & (GESTURED_EPOLLIN | GESTURED_EPOLLRDHUP | GESTURED_EPOLLHUP | GESTURED_EPOLLERR) != 0
        {
            readAvailable()
        }
        if !isClosed, events & GESTURED_EPOLLOUT != 0 { flush() }
        // Both directions are gone (the client closed): nothing can be delivered any more.
        if !isClosed, events & (GESTURED_EPOLLHUP | GESTURED_EPOLLERR) != 0 { return closeNow() }
        if !isClosed, !draining, !frames.isEmpty { session?.pump() }
    }

    /// One turn's reading: at most ``ClientSession/readBudgetBytes``, framed into requests (or
    /// discarded while draining).
    private func readAvailable() {
        for _ in 0..<(ClientSession.readBudgetBytes / Self.readSize) {
            if inbound.readableBytes == 0 {
                inbound.clear()
            } else if inbound.readerIndex > 0 {
                inbound.discardReadBytes()
            }
            var failure: Int32 = 0
            var count = 0
            var asked = 0
            inbound.writeWithUnsafeMutableBytes(minimumWritableBytes: Self.readSize) { free in
                asked = min(free.count, Self.readSize)
                count = Glibc.read(fd, free.baseAddress, asked)
                if count < 0 { failure = errno }
                return max(count, 0)
            }
            if count > 0 {
                if draining {
                    inbound.clear()
                } else {
                    while let frame = decoder.next(&inbound) { frames.append(frame) }
                }
                // A short read took all there was: spare the read that would say EAGAIN.
                if count < asked { break }
                continue
            }
            if count == 0 {
                // The client closed its side; while draining, that was all it owed.
                if draining { return closeNow() }
                // End of input: a last line without its newline still counts; the connection
                // stays open for writing (`printf … | socat` reads its answers).
                if let frame = decoder.last(&inbound) { frames.append(frame) }
                inputClosed = true
                updateEvents()
                break
            }
            switch failure {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: break
            default: return fail(failure)
            }
            break
        }
    }

    private func updateEvents() {
        var events: UInt32 = (reading || draining) && !inputClosed ? Self.readEvents : 0
        if watchingWrites { events |= GESTURED_EPOLLOUT }
        loop.watch(self, events: events)
    }

    // MARK: SessionLink

    var isWritable: Bool { !unwritable }

    func write(_ line: ByteBuffer) {
        guard !isClosed else { return }
        var line = line
        outbound.writeBuffer(&line)
        if outbound.readableBytes > Self.highWater { unwritable = true }
    }

    func flush() {
        guard !isClosed else { return }
        while outbound.readableBytes > 0 {
            let sent = outbound.withUnsafeReadableBytes { gestured_send(fd, $0.baseAddress, $0.count) }
            if sent > 0 {
                outbound.moveReaderIndex(forwardBy: sent)
                continue
            }
            let failure = errno
            switch failure {
            case EINTR:
                continue
            case EAGAIN, EWOULDBLOCK:
                if !watchingWrites {
                    watchingWrites = true
                    updateEvents()
                }
                // Reclaim what was sent, so a slow reader's buffer does not creep.
                if outbound.readerIndex > Self.highWater { outbound.discardReadBytes() }
                if unwritable, outbound.readableBytes < Self.lowWater { becameWritable() }
                return
            default:
                return fail(failure)
            }
        }
        // Everything is out.
        outbound.clear()
        if outbound.capacity > Self.highWater { outbound = ByteBuffer() }
        if watchingWrites {
            watchingWrites = false
            updateEvents()
        }
        if closeWhenSent { return finishClosing() }
        if unwritable { becameWritable() }
    }

    /// The last message is out: the end of output goes after it, and what the client still sends
    /// is read and discarded until it closes (or the deadline closes it).
    private func finishClosing() {
        guard !draining else { return }
        // Nothing unread can be left behind: close now.
        if inputClosed { return closeNow() }
        guard Glibc.shutdown(fd, Int32(SHUT_WR)) == 0 else { return closeNow() }
        draining = true
        frames.removeAll()
        updateEvents()
    }

    private func becameWritable() {
        unwritable = false
        session?.writable()
    }

    func close(after last: ByteBuffer?, deadline: NIODeadline) {
        guard !isClosed else { return }
        if let last { write(last) }
        closeWhenSent = true
        frames.removeAll()
        if reading {
            reading = false
            updateEvents()
        }
        loop.closeNoLater(self, than: deadline)
        flush()
    }

    func closeNoLater(than deadline: NIODeadline) {
        guard !isClosed else { return }
        loop.closeNoLater(self, than: deadline)
    }

    /// Logs who connected (its peer credentials).
    func logConnected(_ id: ClientID, logger: Logger, throttle: LogThrottle) {
        guard let credentials else {
            throttle.log(
                .info, "client connected (no peer credentials)", cause: "connection", peer: logPeer,
                metadata: ["client": "\(id)", "error": "\(errnoDescription(credentialsError))"], to: logger)
            return
        }
        throttle.log(
            .info, "client connected", cause: "connection", peer: logPeer,
            metadata: [
                "client": "\(id)", "pid": "\(credentials.pid)", "uid": "\(credentials.uid)", "gid": "\(credentials.gid)",
            ], to: logger)
    }

    /// Its user: what the journal's rate limit tells peers apart by.
    var logPeer: String { credentials.map { "uid \($0.uid)" } ?? "no credentials" }

    /// A line is skipped up to its newline; the connection goes on.
    func refusedMessageAnswered() {}

    /// Its uid and gid (SO_PEERCRED) and supplementary groups (SO_PEERGROUPS), as they were at
    /// connect; nil when the kernel will not say.
    var peerCredentials: PeerCredentials? {
        guard let credentials, !isClosed else { return nil }
        var groups = [gid_t](repeating: 0, count: 64)
        var count = gestured_peer_groups(fd, &groups, Int32(groups.count))
        if count > groups.count {
            groups = [gid_t](repeating: 0, count: Int(count))
            count = gestured_peer_groups(fd, &groups, Int32(groups.count))
        }
        guard count >= 0, count <= groups.count else { return nil }
        return PeerCredentials(uid: credentials.uid, gid: credentials.gid, groups: Array(groups.prefix(Int(count))))
    }

    func nextFrame() -> LineFrame? {
        frames.popFirst()
    }

    func setReading(_ wanted: Bool) {
        let on = wanted && frames.isEmpty && !closeWhenSent && !isClosed
        guard on != reading else { return }
        reading = on
        updateEvents()
    }

    // MARK: Closing

    private func fail(_ code: Int32) {
        loop.core.logger.debug(
            "connection error, closing", metadata: ["client": "\(token)", "error": "\(errnoDescription(code))"])
        closeNow()
    }

    /// Closes the fd now (whatever is unsent is dropped) and tells the session.
    func closeNow() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(fd)
        loop.remove(self)
        let session = self.session
        self.session = nil
        session?.closed()
    }
}

/// Binds a listening Unix stream socket at `path` the way ``SocketFile`` describes (private
/// directory, group and mode, rename into place); returns the fd and the file it made.
func bindUnixListener(
    at path: String, mode: UInt32?, group: String?
) throws(ServerError) -> (fd: Int32, created: CreatedSocket) {
    try SocketFile.prepare(path)
    let temporary = try SocketFile.makePrivatePath(beside: path)
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else {
        SocketFile.discardPrivate(temporary)
        throw ServerError("cannot listen on \(path): socket: \(errnoDescription())")
    }
    do throws(ServerError) {
        let address: SocketAddress
        do {
            address = try SocketAddress(unixDomainSocketPath: temporary)
        } catch {
            throw ServerError("cannot listen on \(path): \(error)")
        }
        let bound = address.withSockAddr { pointer, size in bind(fd, pointer, socklen_t(size)) }
        guard bound == 0 else { throw ServerError("cannot listen on \(path): bind: \(errnoDescription())") }
        guard Glibc.listen(fd, 128) == 0 else {
            throw ServerError("cannot listen on \(path): listen: \(errnoDescription())")
        }
    } catch {
        close(fd)
        SocketFile.discardPrivate(temporary)
        throw error
    }
    do throws(ServerError) {
        return (fd, try SocketFile.publish(temporary, at: path, mode: mode, group: group))
    } catch {
        close(fd)
        throw error
    }
}

/// Checks a socket systemd passed: a listening stream socket, made close-on-exec.
func adoptUnixListener(_ fd: Int32) throws(ServerError) {
    try SocketFile.setCloseOnExec(fd)
    switch gestured_is_listening_stream(fd) {
    case 1: return
    case 0: throw ServerError("cannot use the inherited socket (fd \(fd)): not a listening stream socket")
    default: throw ServerError("cannot use the inherited socket (fd \(fd)): \(errnoDescription())")
    }
}
