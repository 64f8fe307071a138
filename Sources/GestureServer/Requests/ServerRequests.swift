/// The request types the server itself declares, one line each, before any a daemon adds
/// (adding one: CONTRIBUTING.md, "Adding a request type"): those that change the connection's
/// own state on the server thread (`subscribe`, `unsubscribe`, `define`) or that a server answers
/// without a daemon (`ping`, `status`, `record`: `pong`, or `unavailable`). The daemon performs
/// their part on its input thread (`GestureDaemon`'s `InputThreadRequest` conformances).
enum ServerRequests {
    static let all: [any RequestType.Type] = [
        Subscribe.self, Unsubscribe.self, Define.self, Ping.self, Status.self, Record.self,
    ]
}
