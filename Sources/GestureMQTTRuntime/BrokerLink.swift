import CLinuxSupport
import GestureLogging
import GestureMQTT
import Glibc
import Logging
import Synchronization

/// The broker's side of `gestured mqtt`: a thread of its own that owns the libmosquitto
/// client and the connection, with one `poll` over the connection's socket and a wake-up eventfd
/// (the daemon's side rings it when something waits). Its states:
///
/// | state | event | next |
/// |---|---|---|
/// | waiting (until a time) | the time | connecting: a fresh client (TLS, credentials, will), TCP connect started; a setup error: waiting (back-off) |
/// | connecting (since a time) | CONNACK accepted | connected: subscribe, what waits is sent |
/// | connecting | CONNACK refused, an error, a close | waiting (back-off), the reason logged |
/// | connecting | `connect-timeout-s` passed | waiting (back-off): "accepted the connection and did not answer" |
/// | connected | an error, a close, a missed PINGRESP | waiting (back-off); what was in flight waits again |
/// | any | stop | connected: availability `offline` published, then DISCONNECT; then the thread ends |
///
/// The back-off is one second, doubling to `reconnect-max-s`, and back to one second once a
/// connection is accepted. The first failure of an outage, and each failure whose reason
/// changed, is a warning in the journal; repeats of the same reason are debug lines (and a
/// broker that stays away costs one attempt per back-off, nothing in between).
final class BrokerLink: Sendable {
    private let settings: BrokerSettings
    private let password: String?
    private let session: SharedSession
    private let wakeup: Int32
    private let logger: Logger
    private let clientID: String
    private let will: OutgoingMessage
    /// Carries out an inbound message's rule (on this thread; it must return at once).
    private let run: @Sendable (_ rule: String, _ topic: String, _ payload: String) -> Void
    private let refusals = LogThrottle(LogRateLimit(burst: 5, interval: .seconds(60)))
    private let stopRequested = Atomic<Bool>(false)
    private let finished: Int32

    init(
        settings: BrokerSettings, password: String?, session: SharedSession, logger: Logger,
        run: @escaping @Sendable (String, String, String) -> Void
    ) throws(BrokerError) {
        self.settings = settings
        self.password = password
        self.session = session
        self.logger = logger
        self.run = run
        (clientID, will) = session.state.withLock { ($0.clientID, $0.will) }
        wakeup = gestured_eventfd()
        finished = gestured_eventfd()
        guard wakeup >= 0, finished >= 0 else { throw BrokerError("eventfd: \(String(cString: strerror(errno)))") }
    }

    /// Something waits to be published (or the link should stop): the thread looks.
    func wake() { _ = gestured_eventfd_signal(wakeup) }

    /// Starts the thread.
    func start() throws(BrokerError) {
        final class Box: Sendable {
            let link: BrokerLink
            init(_ link: BrokerLink) { self.link = link }
        }
        let box = Unmanaged.passRetained(Box(self))
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { argument in
                let link = Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue().link
                link.loop()
                _ = gestured_eventfd_signal(link.finished)
                return nil
            }, box.toOpaque())
        guard result == 0 else {
            box.release()
            throw BrokerError("cannot start the broker's thread: \(String(cString: strerror(result)))")
        }
        pthread_detach(thread)
    }

    /// Publishes availability `offline` (when connected, waiting at most `grace` for it), says
    /// DISCONNECT and ends the thread; returns when it has ended.
    func stop(grace: Duration = .seconds(2)) async {
        stopRequested.store(true, ordering: .releasing)
        wake()
        let limit = ContinuousClock.now + grace + .seconds(1)
        while gestured_wait_readable(finished, 0) == 0 && ContinuousClock.now < limit {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    private enum State {
        case waiting(until: Int64)
        case connecting(since: Int64)
        case connected
        /// Stopping: DISCONNECT once `offline` is done or at `deadline`.
        case closing(deadline: Int64)
    }

    /// Milliseconds on the monotonic clock.
    private static func now() -> Int64 { gestured_monotonic_us() / 1000 }

    private func loop() {
        let client: Mosquitto
        do {
            client = try Mosquitto(clientID: clientID)
        } catch {
            logger.critical("\(error)")
            return
        }
        var state = State.waiting(until: Self.now())
        var pause: Int64 = 1000
        var lastFailure: String?
        var outageDropped = 0
        var received = ReceiveGuard()

        /// `cause`: what tells two failures apart for the journal's level (a count in the reason
        /// does not make it a new one).
        func fail(_ reason: String, cause: String? = nil) {
            let wasConnected: Bool
            if case .connected = state { wasConnected = true } else { wasConnected = false }
            let (waiting, dropped) = session.state.withLock { s in
                s.brokerDisconnected()
                return (s.queue.count, s.queue.dropped)
            }
            if wasConnected { outageDropped = dropped }
            let message =
                (wasConnected
                    ? "connection to the broker \(settings.url) lost: "
                    : "cannot connect to the broker \(settings.url): ")
                + reason + "; retrying in \(pause / 1000) s (\(waiting) messages wait)"
            logger.log(level: (cause ?? reason) == lastFailure ? .debug : .warning, "\(message)")
            lastFailure = cause ?? reason
            try? client.reset()
            state = .waiting(until: Self.now() + pause)
            pause = min(pause * 2, Int64(settings.reconnectMaxSeconds) * 1000)
        }

        while true {
            let now = Self.now()
            if stopRequested.load(ordering: .acquiring) {
                switch state {
                case .connected:
                    session.state.withLock { $0.daemonDisconnected() }
                    state = .closing(deadline: now + 2000)
                case .waiting, .connecting:
                    return
                case .closing:
                    break
                }
            }
            switch state {
            case .waiting(let until) where now >= until:
                do {
                    try client.reset()
                    try client.configure(settings, password: password, will: will, window: OutgoingQueue.window)
                    try client.connect(settings.url, keepalive: settings.keepaliveSeconds)
                    received.connecting()
                    state = .connecting(since: now)
                } catch {
                    state = .connecting(since: now)
                    fail("\(error)")
                }
            case .connecting(let since) where now - since >= Int64(settings.connectTimeoutSeconds) * 1000:
                fail(
                    "the broker accepted the connection but did not complete it (TLS handshake, CONNACK) within "
                        + "\(settings.connectTimeoutSeconds) s (broker.connect-timeout-s)")
            case .closing(let deadline):
                let done = session.state.withLock { $0.queue.inFlightCount == 0 && $0.queue.waitingCount == 0 }
                if done || now >= deadline {
                    client.disconnect()
                    _ = client.write()
                    return
                }
            default:
                break
            }
            if case .connected = state { send(client) } else if case .closing = state { send(client) }

            var fds = [pollfd(fd: wakeup, events: Int16(POLLIN), revents: 0)]
            let socket = client.socket
            if socket >= 0 {
                fds.append(
                    pollfd(fd: socket, events: Int16(POLLIN) | (client.wantsWrite ? Int16(POLLOUT) : 0), revents: 0))
            }
            let timeout: Int64
            switch state {
            case .waiting(let until): timeout = until - now
            case .connecting(let since): timeout = min(since + Int64(settings.connectTimeoutSeconds) * 1000 - now, 1000)
            case .connected: timeout = Int64(max(1, settings.keepaliveSeconds / 4)) * 1000
            case .closing(let deadline): timeout = min(deadline - now, 100)
            }
            _ = poll(&fds, nfds_t(fds.count), Int32(clamping: max(0, timeout)))
            if fds[0].revents != 0 { _ = gestured_eventfd_drain(wakeup) }
            var rc: Int32 = 0
            if fds.count > 1 {
                let revents = fds[1].revents
                if revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 { rc = client.read() }
                if rc == 0 && client.socket >= 0 && (revents & Int16(POLLOUT) != 0 || client.wantsWrite) {
                    rc = client.write()
                }
            }
            if rc == 0 && client.socket >= 0 { rc = client.misc() }
            let bytes = client.socket >= 0 ? gestured_tcp_bytes_received(client.socket) : -1
            var refused = false
            events: for event in client.takeEvents() {
                switch event {
                case .connected, .published, .message, .subscribed:
                    if bytes >= 0 { received.packetCompleted(received: bytes) }
                case .disconnected, .log:
                    break
                }
                switch event {
                case .connected(0):
                    if bytes >= 0 { received.connack(received: bytes) }
                    let (subscriptions, waiting, dropped) = session.state.withLock { s in
                        (s.brokerConnected(), s.queue.count, s.queue.dropped)
                    }
                    var subscribed = true
                    for topic in subscriptions {
                        do {
                            try client.subscribe(topic, qos: 0)
                        } catch {
                            subscribed = false
                            logger.error("\(error)")
                        }
                    }
                    state = .connected
                    pause = 1000
                    lastFailure = nil
                    var metadata: Logger.Metadata = [
                        "broker": "\(settings.url)", "client-id": "\(clientID)", "waiting": "\(waiting)",
                    ]
                    if dropped > outageDropped { metadata["dropped"] = "\(dropped - outageDropped)" }
                    if !subscriptions.isEmpty && subscribed {
                        metadata["subscribed"] = "\(subscriptions.joined(separator: ","))"
                    }
                    logger.info("connected to the broker", metadata: metadata)
                case .connected(let refusal):
                    // What follows in this batch is of the connection just dropped.
                    refused = true
                    fail("the broker refused the connection: \(client.describeRefusal(refusal))")
                    break events
                case .disconnected(let code):
                    if case .closing = state { return }
                    if code != 0 && rc == 0 { rc = code }
                case .published(let mid):
                    session.state.withLock { $0.done(token: Int(mid)) }
                case .message(let topic, let length, let payload, let retained):
                    inbound(topic: topic, length: length, payload: payload, retained: retained)
                case .log(let text):
                    refusals.log(.warning, "libmosquitto: \(text)", cause: "library", to: logger)
                case .subscribed:
                    break
                }
            }
            if refused { continue }
            if rc == 0, bytes >= 0, let problem = received.problem(received: bytes) {
                if case .closing = state { return }
                fail(problem, cause: "receive guard")
                continue
            }
            if rc != 0 {
                if case .closing = state { return }
                fail(client.describe(rc))
            } else if client.socket < 0, case .connected = state {
                fail("the connection closed")
            }
        }
    }

    /// Hands the library what waits, within the window.
    private func send(_ client: Mosquitto) {
        while let publication = session.state.withLock({ $0.next() }) {
            switch client.publish(publication) {
            case .success(let mid):
                session.state.withLock { $0.sent(token: Int(mid)) }
            case .failure(let error):
                // The connection is going: it is left to the read or write that says so, and the
                // message waits for the next one.
                logger.debug("not published yet: \(error)", metadata: ["topic": "\(publication.topic)"])
                return
            }
        }
    }

    private func inbound(topic: String, length: Int, payload: [UInt8]?, retained: Bool) {
        let decision = session.state.withLock { s in
            s.inbound(topic: topic, length: length, retained: retained, now: Self.now()) {
                String(decoding: payload ?? [], as: UTF8.self)
            }
        }
        switch decision {
        case .run(let rule, let topic, let payload):
            logger.info("inbound message: running the rule", metadata: ["rule": "\(rule)", "topic": "\(topic)"])
            run(rule, topic, payload)
        case .refused(let refusal):
            let count = session.state.withLock { $0.router.refused[refusal.reason] ?? 0 }
            refusals.log(
                .warning, "inbound message refused: \(refusal); nothing run", cause: refusal.reason,
                metadata: ["topic": "\(MQTTText.loggable(topic))", "refused": "\(count)"], to: logger)
        }
    }
}

/// The session both sides share: the daemon's task feeds it, the broker's thread empties it.
public final class SharedSession: Sendable {
    public let state: Mutex<MQTTSession>
    public init(_ session: sending MQTTSession) { state = Mutex(session) }
}
