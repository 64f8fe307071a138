import GestureEngine
import GestureMetrics
import GestureProtocol

/// One connection, for the life of the server (never reused). Its definitions are owned by
/// ``owner``, and gestures of recognizers with that owner go to this connection only.
public struct ClientID: Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt64

    public init(_ rawValue: UInt64) { self.rawValue = rawValue }

    /// The engine owner of this connection's definitions.
    public var owner: Owner { .client(rawValue) }

    public var description: String { "client:\(rawValue)" }
}

/// What the server needs from the daemon: the engine behind the socket.
///
/// Every method is called on the server thread (the daemon's input thread), in the order things happened on the
/// socket, and must return at once: hand the work to the thread that owns the engine (a queue
/// plus an eventfd) and process it there in the same order. That order matters: a `define`
/// arrives before the disconnect of its connection, so removing a client's definitions on
/// disconnect also removes what it defined last.
public protocol GestureServerDelegate: AnyObject, Sendable {
    /// A connection was accepted (for `when: client-connected`: count it).
    func clientConnected(_ client: ClientID)

    /// A connection closed: remove its definitions (`removeDefinitions(of: client.owner…)`) and
    /// stop counting it.
    func clientDisconnected(_ client: ClientID)

    /// A connection asks to replace its definitions with `request.definitions`. Apply them with
    /// owner `request.client.owner` (removing what it defined before), then call
    /// ``DefinitionRequest/reply(_:)`` from any thread, exactly once. After a success, also
    /// publish ``Publication/recognizers(_:)`` so that `hello` lists the new recognizers.
    func define(_ request: DefinitionRequest)

    /// A connection's `ping`: call ``PingRequest/reply()`` once everything queued before it has
    /// been handled, from the thread that owns the engine, so that `pong` says the whole
    /// daemon keeps up, not only the socket server. The default replies at once.
    func ping(_ request: PingRequest)

    /// A connection's `status`: call ``StatusRequest/reply(configuration:panels:metrics:)`` once,
    /// from any thread, with what the daemon knows of itself (the server adds its clients). The
    /// reply is encoded off the server thread. The default answers `unavailable`.
    func status(_ request: StatusRequest)

    /// A connection asks to record a panel (docs/PROTOCOL.md, "record"): decide whether its user
    /// may read the panel, then publish ``Publication/recording(_:client:)`` `started`, call
    /// ``RecordRequest/started()`` and publish the panel's raw events, or
    /// ``RecordRequest/refuse(_:)``. The default refuses (`unavailable`).
    func record(_ request: RecordRequest)

    /// A request of a declared type (``RequestType``) for the daemon to perform on the thread
    /// that owns the engine, in the order of the others; it answers through ``DaemonJob/reply``.
    /// The default answers `unavailable`: a delegate that performs none.
    func perform(_ job: DaemonJob)
}

extension GestureServerDelegate {
    public func ping(_ request: PingRequest) { request.reply() }
    public func status(_ request: StatusRequest) { request.unavailable() }

    public func record(_ request: RecordRequest) {
        request.refuse(ErrorMessage(code: .unavailable, message: "this daemon records no panel"))
    }

    public func perform(_ job: DaemonJob) {
        job.reply.refuse(
            ErrorMessage(code: .unavailable, message: "this daemon performs no \(type(of: job.request).name)"))
    }
}

/// A `status` waiting for the daemon's part of the answer.
public struct StatusRequest: Sendable {
    public let client: ClientID
    let complete: @Sendable (Result<StatusMessage, ErrorMessage>) -> Void

    /// Sends the `status` with the daemon's part of it (the server adds its clients). Callable
    /// from any thread; it only hands the values over: the reply is made and encoded on the
    /// server's request thread (``RequestDecoder``). Dropped if the connection has closed.
    public func reply(
        configuration: StatusMessage.Configuration, panels: [StatusMessage.Panel], metrics: MetricsSnapshot
    ) {
        complete(.success(StatusMessage(configuration: configuration, panels: panels, clients: [], metrics: metrics)))
    }

    /// Answers `unavailable`: nothing behind the server keeps a status.
    public func unavailable() {
        complete(.failure(ErrorMessage(code: .unavailable, message: "this server keeps no status")))
    }
}

/// A `ping` waiting for the engine's thread to get to it.
public struct PingRequest: Sendable {
    public let client: ClientID
    let complete: @Sendable () -> Void

    /// Sends the `pong`. Callable from any thread; dropped if the connection has closed.
    public func reply() { complete() }
}

/// A `define` waiting for the engine's verdict.
public struct DefinitionRequest: Sendable {
    /// The connection asking; own the definitions as `client.owner`.
    public let client: ClientID
    /// Structurally valid (decoded with the configuration's own rules); references to other
    /// recognizers and regions, and name clashes, are for the engine to check.
    public let definitions: Definitions
    let complete: @Sendable (Result<Void, SpecError>) -> Void

    /// Answers the client: `ok`, or an `invalid-definition` error built from the engine's error
    /// (its path relative to the `define` object: `recognizers`, index, key…). Callable from any
    /// thread; a reply for a connection that has closed meanwhile is dropped.
    public func reply(_ result: Result<Void, SpecError>) {
        complete(result)
    }
}
