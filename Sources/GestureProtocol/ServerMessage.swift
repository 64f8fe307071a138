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
    public var type: String {
        switch self {
        case .hello: HelloMessage.type
        case .gesture: GestureMessage.type
        case .touch: TouchMessage.type
        case .device: DeviceMessage.type
        case .error: ErrorMessage.type
        case .dropped: DroppedMessage.type
        case .explain: ExplainMessage.type
        case .recording: RecordingMessage.type
        case .raw: RawMessage.type
        case .ok: "ok"
        case .pong: "pong"
        case .status: StatusMessage.type
        case .wake: WakeMessage.type
        case .idle: IdleMessage.type
        case .active: ActiveMessage.type
        case .contact: ContactMessage.type
        }
    }
}

extension ServerMessage: Codable {
    enum CodingKeys: String, CodingKey { case type, id }

    /// Lenient where the server is strict: unknown keys are ignored, so a client keeps working
    /// when a newer server adds some. An unknown `type` is a decoding error the caller may skip.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let type = try c.decode(String.self, forKey: .type)
        switch type {
        case HelloMessage.type: self = .hello(try HelloMessage(from: decoder))
        case GestureMessage.type: self = .gesture(try GestureMessage(from: decoder))
        case TouchMessage.type: self = .touch(try TouchMessage(from: decoder))
        case DeviceMessage.type: self = .device(try DeviceMessage(from: decoder))
        case ErrorMessage.type: self = .error(try ErrorMessage(from: decoder))
        case DroppedMessage.type: self = .dropped(try DroppedMessage(from: decoder))
        case ExplainMessage.type: self = .explain(try ExplainMessage(from: decoder))
        case RecordingMessage.type: self = .recording(try RecordingMessage(from: decoder))
        case RawMessage.type: self = .raw(try RawMessage(from: decoder))
        case "ok": self = .ok(id: try c.decodeIfPresent(RequestID.self, forKey: .id))
        case "pong": self = .pong(id: try c.decodeIfPresent(RequestID.self, forKey: .id))
        case StatusMessage.type: self = .status(try StatusMessage(from: decoder))
        case WakeMessage.type: self = .wake(try WakeMessage(from: decoder))
        case IdleMessage.type: self = .idle(try IdleMessage(from: decoder))
        case ActiveMessage.type: self = .active(try ActiveMessage(from: decoder))
        case ContactMessage.type: self = .contact(try ContactMessage(from: decoder))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: c, debugDescription: "unknown server message type '\(type)'")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .hello(let m): try m.encode(to: encoder)
        case .gesture(let m): try m.encode(to: encoder)
        case .touch(let m): try m.encode(to: encoder)
        case .device(let m): try m.encode(to: encoder)
        case .error(let m): try m.encode(to: encoder)
        case .dropped(let m): try m.encode(to: encoder)
        case .explain(let m): try m.encode(to: encoder)
        case .status(let m): try m.encode(to: encoder)
        case .wake(let m): try m.encode(to: encoder)
        case .idle(let m): try m.encode(to: encoder)
        case .active(let m): try m.encode(to: encoder)
        case .contact(let m): try m.encode(to: encoder)
        case .recording(let m): try m.encode(to: encoder)
        case .raw(let m): try m.encode(to: encoder)
        case .ok(let id), .pong(let id):
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(type, forKey: .type)
            try c.encodeIfPresent(id, forKey: .id)
        }
    }
}
