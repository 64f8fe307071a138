import GestureProtocol

/// `define` (docs/PROTOCOL.md): replaces everything the connection defined before. Refused on
/// its head where the connection may not define at all, or not now (its previous one is
/// pending: `busy`); admitted where it is decoded against the limits of one connection and of
/// all together (``DefinitionLedger``); compiled by the daemon on its compiler's thread. While
/// it is pending the connection is not read.
public struct Define: FieldsRequest {
    public static let name = "define"

    /// Structurally valid (decoded with the configuration's own rules); references to other
    /// recognizers and regions, and name clashes, are for the engine to check.
    public let definitions: Definitions

    public init(_ definitions: Definitions) { self.definitions = definitions }

    /// Why a connection may not define at all: no engine behind the server, or a WebSocket
    /// endpoint without `allow-define`.
    static func unavailable(_ transport: ClientSession.Transport, hasDaemon: Bool) -> ErrorMessage? {
        guard hasDaemon else { return ErrorMessage(code: .unavailable, message: "this server does not accept definitions") }
        guard case .webSocket(_, _, allowsDefine: false, _) = transport else { return nil }
        return ErrorMessage(
            code: .unavailable,
            message: "the WebSocket endpoint does not accept definitions (websocket.allow-define is false)")
    }

    public static func refusal(_ asker: Asker) -> ErrorMessage? {
        let session = asker.session.value
        if let unavailable = unavailable(session.transport, hasDaemon: asker.daemon != nil) { return unavailable }
        return session.definePending ? .busy : nil
    }

    /// `unavailable`, `busy`, over the limits of one connection (`invalid-definition`) or of all
    /// together (`too-many-recognizers`), in that order; admitted, its definitions count as
    /// pending in the ledger.
    public func admit(_ rules: AdmissionRules) -> ErrorMessage? {
        if let unavailable = Self.unavailable(rules.transport, hasDaemon: rules.hasDaemon) { return unavailable }
        let (limits, ledger, client) = (rules.limits, rules.ledger, rules.client)
        if ledger.hasPending(client) { return .busy }
        let most = limits.maxDefinitions
        for (key, count) in [("regions", definitions.regions.count), ("recognizers", definitions.recognizers.count)]
        where count > most {
            return ErrorMessage(
                code: .invalidDefinition, message: "\(key): \(count) given, at most \(most) per connection",
                path: "/\(key)")
        }
        if definitions.templateCount > limits.maxTemplates {
            return ErrorMessage(
                code: .invalidDefinition,
                message:
                    "recognizers: \(definitions.templateCount) shape templates given, at most \(limits.maxTemplates) per connection",
                path: "/recognizers")
        }
        switch ledger.admit(definitions, for: client) {
        case .admitted: return nil
        case .busy: return .busy
        case .exceeds(let why): return ErrorMessage(code: .tooManyRecognizers, message: why)
        }
    }

    /// Hands it to the daemon (it was admitted, which only a server with one does); pending until
    /// the daemon answers `ok` or the engine's `invalid-definition` error, which settles its
    /// place in the ledger.
    public func perform(for asker: Asker, reply: RequestReply) {
        let session = asker.session
        session.value.defineHandedOver()
        let (ledger, mailbox, client) = (session.value.core.ledger, session.value.core.mailbox, asker.client)
        let settled = RequestReply(id: reply.id) { answer in
            mailbox.post {
                guard session.value.isOpen else { return }
                let accepted = if case .message(.ok) = answer { true } else { false }
                ledger.settle(client, accepted: accepted)
                session.value.defineAnswered(answer)
            }
        }
        asker.daemon?.perform(DaemonJob(request: self, asker: asker, reply: settled))
    }
}

extension ErrorMessage {
    /// A `define` while the connection's previous one is still being applied.
    static let busy = ErrorMessage(code: .busy, message: "the previous define of this connection is still being applied")
}
