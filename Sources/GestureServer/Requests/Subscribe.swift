import GestureEngine
import GestureProtocol

/// `subscribe` (docs/PROTOCOL.md): replaces the connection's subscription, answered at once on
/// the server thread. Raw touches only for who may see where fingers are (``PositionAccess``).
public struct Subscribe: RequestType {
    public static let name = "subscribe"
    public static var keys: [String] { Subscription.keyNames }
    public static var bare: Subscribe? { Subscribe(filters: Subscription()) }

    public let filters: Subscription

    init(filters: Subscription) { self.filters = filters }

    public init(from object: KeyedDecodingContainer<AnyCodingKey>, id: RequestID?) throws(ErrorMessage) {
        filters = try Subscription(from: object, id: id)
    }

    public func perform(for asker: Asker, reply: RequestReply) {
        asker.session.value.subscribe(filters, id: reply.id)
    }
}

/// `unsubscribe`: drops the connection's subscription (no more `gesture` or `touch` messages),
/// answered at once.
public struct Unsubscribe: KeylessRequest {
    public static let name = "unsubscribe"

    public init() {}

    public func perform(for asker: Asker, reply: RequestReply) {
        asker.session.value.subscribe(nil, id: reply.id)
    }
}
