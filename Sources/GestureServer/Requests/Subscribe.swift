import GestureProtocol

/// `subscribe` (docs/PROTOCOL.md): replaces the connection's subscription, answered at once on
/// the server thread. Raw touches only for who may see where fingers are (``PositionAccess``).
public struct Subscribe: FieldsRequest {
    public static let name = "subscribe"
    public static var bare: Subscribe? { Subscribe(Subscription()) }

    public let filters: Subscription

    public init(_ filters: Subscription) { self.filters = filters }

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
