import GestureEngine
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

    /// A request (``RequestType``) for the daemon to perform on the thread that owns the engine,
    /// in the order of the others: a `define` to compile and install (after a success, also
    /// publish ``Publication/recognizers(_:)`` so that `hello` lists the new recognizers), a
    /// `ping` to answer once everything before it is handled, `status`'s part of the daemon, a
    /// `record`, a type the daemon declares. It answers through ``DaemonJob/reply``, once, from
    /// any thread. The default answers `unavailable`: a delegate that performs none.
    func perform(_ job: DaemonJob)
}

extension GestureServerDelegate {
    public func perform(_ job: DaemonJob) {
        job.reply.refuse(
            ErrorMessage(code: .unavailable, message: "this daemon performs no \(type(of: job.request).name)"))
    }
}
