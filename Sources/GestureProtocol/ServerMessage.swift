import GestureEngine

/// Every message the server sends, told apart by its `type` key.
public enum ServerMessage: Hashable, Sendable {
    case hello(HelloMessage)
    case gesture(GestureMessage)
    case touch(TouchMessage)
    case device(DeviceMessage)
    case error(ErrorMessage)
    /// A reload took some of this connection's definitions.
    case dropped(DroppedMessage)
    /// Why a recognizer failed, waits, or was blocked or cancelled (subscribers with `explain`).
    case explain(ExplainMessage)
    /// A recording of a panel started or stopped (the answers to `record` and `stop-recording`).
    case recording(RecordingMessage)
    /// Raw events of a panel being recorded, to the connections recording it.
    case raw(RawMessage)
    /// A request succeeded; echoes its `id` (absent when the request had none).
    case ok(id: RequestID?)
    /// The answer to `ping`; echoes its `id`.
    case pong(id: RequestID?)
    /// The answer to `status`; echoes its `id`.
    case status(StatusMessage)
    /// A touch woke a panel's screen and reaches nobody (to every connection).
    case wake(WakeMessage)
    /// Nobody touched a panel for its idle time (to every connection).
    case idle(IdleMessage)
    /// A touch landed on an idle panel (to every connection).
    case active(ActiveMessage)
    /// What the stage before a panel's arena did to a contact (subscribers with `explain`).
    case contact(ContactMessage)

    /// The message types described by a table of fields (``WireMessage``): WireFieldTests checks
    /// each one's table against docs/protocol.schema.json.
    static var tabledTypes: [any WireMessage.Type] {
        [
            GestureMessage.self, TouchMessage.self, WakeMessage.self, IdleMessage.self, ActiveMessage.self,
            ContactMessage.self, RawMessage.self,
        ]
    }

    /// The `type` key of this message.
    public var type: String { parts.type }

    /// Its `type` key and the message it carries (nil for `ok` and `pong`: an `id` alone).
    private var parts: (type: String, message: (any Encodable)?) {
        switch self {
        case .hello(let m): (HelloMessage.type, m)
        case .gesture(let m): (GestureMessage.type, m)
        case .touch(let m): (TouchMessage.type, m)
        case .device(let m): (DeviceMessage.type, m)
        case .error(let m): (ErrorMessage.type, m)
        case .dropped(let m): (DroppedMessage.type, m)
        case .explain(let m): (ExplainMessage.type, m)
        case .recording(let m): (RecordingMessage.type, m)
        case .raw(let m): (RawMessage.type, m)
        case .ok: ("ok", nil)
        case .pong: ("pong", nil)
        case .status(let m): (StatusMessage.type, m)
        case .wake(let m): (WakeMessage.type, m)
        case .idle(let m): (IdleMessage.type, m)
        case .active(let m): (ActiveMessage.type, m)
        case .contact(let m): (ContactMessage.type, m)
        }
    }
}

extension ServerMessage: Codable {
    enum CodingKeys: String, CodingKey { case type, id }

    /// Every `type` the server sends and how a message of it is read: the one list decoding goes
    /// by, and so what a client knows (``types``).
    private static let readers: [String: @Sendable (any Decoder) throws -> ServerMessage] = [
        HelloMessage.type: { .hello(try HelloMessage(from: $0)) },
        GestureMessage.type: { .gesture(try GestureMessage(from: $0)) },
        TouchMessage.type: { .touch(try TouchMessage(from: $0)) },
        DeviceMessage.type: { .device(try DeviceMessage(from: $0)) },
        ErrorMessage.type: { .error(try ErrorMessage(from: $0)) },
        DroppedMessage.type: { .dropped(try DroppedMessage(from: $0)) },
        ExplainMessage.type: { .explain(try ExplainMessage(from: $0)) },
        RecordingMessage.type: { .recording(try RecordingMessage(from: $0)) },
        RawMessage.type: { .raw(try RawMessage(from: $0)) },
        "ok": { .ok(id: try $0.container(keyedBy: CodingKeys.self).decodeIfPresent(RequestID.self, forKey: .id)) },
        "pong": { .pong(id: try $0.container(keyedBy: CodingKeys.self).decodeIfPresent(RequestID.self, forKey: .id)) },
        StatusMessage.type: { .status(try StatusMessage(from: $0)) },
        WakeMessage.type: { .wake(try WakeMessage(from: $0)) },
        IdleMessage.type: { .idle(try IdleMessage(from: $0)) },
        ActiveMessage.type: { .active(try ActiveMessage(from: $0)) },
        ContactMessage.type: { .contact(try ContactMessage(from: $0)) },
    ]

    /// Every message type of this protocol version. A line of another type comes from a newer
    /// server (a client may skip it); a line of one of these that does not decode is broken.
    public static let types: Set<String> = Set(readers.keys)

    /// Lenient where the server is strict: unknown keys are ignored, so a client keeps working
    /// when a newer server adds some. An unknown `type` is a decoding error the caller may skip.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let type = try c.decode(String.self, forKey: .type)
        guard let read = Self.readers[type] else {
            throw c.corrupted(.type, "unknown server message type '\(type)'")
        }
        self = try read(decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .ok(let id), .pong(let id):
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(type, forKey: .type)
            try c.encodeIfPresent(id, forKey: .id)
        default:
            try parts.message?.encode(to: encoder)
        }
    }
}
