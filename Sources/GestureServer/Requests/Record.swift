import GestureProtocol

/// `record` (docs/PROTOCOL.md): starts recording a panel's raw events to this connection. The
/// daemon decides who may record what (the panel's permissions, ``PositionAccess``); the server
/// refuses a page on its head (the rule refuses every page: it has no credentials to check).
public struct Record: FieldsRequest {
    public static let name = "record"
    public static var bare: Record? { Record(RecordOptions()) }

    public let options: RecordOptions

    public init(_ options: RecordOptions) { self.options = options }

    public static func refusal(_ asker: Asker) -> ErrorMessage? {
        guard asker.isPage,
            case .refused(let code, let reason) = asker.session.value.core.positions.decide(.page, sees: .panel(nil))
        else { return nil }
        return ErrorMessage(code: code, message: reason)
    }

    public func perform(for asker: Asker, reply: RequestReply) {
        guard let daemon = asker.daemon else {
            return asker.session.value.answerNow(
                .error(ErrorMessage(code: .unavailable, message: "this daemon records no panel", id: reply.id)))
        }
        daemon.perform(DaemonJob(request: self, asker: asker, reply: reply))
    }
}
