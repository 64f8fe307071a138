import GestureProtocol

/// `status` (docs/PROTOCOL.md): the daemon's part — its configuration, panels and counters —
/// from one snapshot shared by the requests within 100 ms (``ServerCore/status(for:_:)``), then
/// the clients connected when it was asked, their users' names looked up and the reply encoded
/// on the request thread; the server thread only writes the finished line. A page asks only
/// where the endpoint allows it.
public struct Status: KeylessRequest {
    public static let name = "status"

    public init() {}

    public static func refusal(_ asker: Asker) -> ErrorMessage? {
        // It names the local users of the Unix socket's clients, and any page may ask.
        guard case .webSocket(_, _, _, allowsStatus: false) = asker.session.value.transport else { return nil }
        return ErrorMessage(
            code: .unavailable,
            message: "the WebSocket endpoint does not answer status (websocket.allow-status is false)")
    }

    public func perform(for asker: Asker, reply: RequestReply) {
        let session = asker.session.value
        guard asker.daemon != nil else {
            return session.answerNow(
                .error(ErrorMessage(code: .unavailable, message: "this server keeps no status", id: reply.id)))
        }
        let clients = session.core.clients()
        session.core.status(for: asker) { answer in
            switch answer {
            case .success(var status):
                status.id = reply.id
                reply.send(Reply(status: status, clients: clients))
            case .failure(let error):
                reply.refuse(error)
            }
        }
    }

    /// The reply, made where it is encoded: the clients' users' names are looked up there.
    struct Reply: Encodable, Sendable {
        let status: StatusMessage
        let clients: [ConnectedClient]

        func encode(to encoder: any Encoder) throws {
            var status = status
            status.clients = clients.map(\.status)
            try status.encode(to: encoder)
        }
    }
}
