import GestureEngine
import GestureProtocol

/// `record` (docs/PROTOCOL.md): starts recording a panel's raw events to this connection. The
/// daemon decides who may record what (the panel's permissions, ``PositionAccess``); the server
/// refuses a page on its head (the rule refuses every page: it has no credentials to check).
public struct Record: RequestType {
    public static let name = "record"
    public static var keys: [String] { RecordOptions.keyNames }
    public static var bare: Record? { Record(options: RecordOptions()) }

    public let options: RecordOptions

    init(options: RecordOptions) { self.options = options }

    public init(from object: KeyedDecodingContainer<AnyCodingKey>, id: RequestID?) throws(ErrorMessage) {
        options = try RecordOptions(from: object, id: id)
    }

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
