import GestureProtocol

/// `ping`: answered `pong` once the daemon has handled everything queued before it — and, in
/// the daemon, once its connection's earlier `define`s run — so that `pong` says the whole
/// daemon keeps up, not only the socket server. A server without a daemon answers at once.
public struct Ping: KeylessRequest {
    public static let name = "ping"

    public init() {}

    public func perform(for asker: Asker, reply: RequestReply) {
        guard let daemon = asker.daemon else { return asker.session.value.answerNow(.pong(id: reply.id)) }
        // The daemon says it is done (`ok`); the client is answered `pong`.
        let pong = RequestReply(id: reply.id) { _ in reply.answer(.message(.pong(id: reply.id))) }
        daemon.perform(DaemonJob(request: self, asker: asker, reply: pong))
    }
}
