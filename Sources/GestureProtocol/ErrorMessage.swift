import GestureEngine

/// `error`: a request could not be carried out, or the server is about to close the connection.
///
/// ```json
/// {"type":"error","code":"invalid-definition","id":3,"path":"/recognizers/0/slop-mm",
///  "message":"recognizers[0].slop-mm: expected millimetres from 0.01 to 10000"}
/// ```
/// `id` echoes the request's id when the request had a readable one; `path` is a JSON pointer
/// into the request when the error is about one value in it. The connection stays open except
/// after the codes whose ``ErrorCode/closesConnection`` is true.
public struct ErrorMessage: Error, Hashable, Sendable, CustomStringConvertible, TypedMessage {
    public static let type = "error"
    /// Its `type` key (``MessageType``).
    var messageType = MessageType<ErrorMessage>()

    public var code: ErrorCode
    public var message: String
    public var id: RequestID?
    public var path: String?

    public init(code: ErrorCode, message: String, id: RequestID? = nil, path: String? = nil) {
        self.code = code
        self.message = message
        self.id = id
        self.path = path
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

extension ErrorMessage: Codable {
    enum CodingKeys: String, CodingKey { case messageType = "type", code, message, id, path }
}

/// The `code` of an `error` message. A struct rather than an enum so that a client keeps
/// working when a newer server adds codes.
public struct ErrorCode: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A line longer than ``ServerLimits/maxLineBytes``; it was skipped up to its newline.
    public static let lineTooLong = ErrorCode(rawValue: "line-too-long")
    /// A line that is not UTF-8.
    public static let invalidUTF8 = ErrorCode(rawValue: "invalid-utf8")
    /// A line that is not JSON.
    public static let invalidJSON = ErrorCode(rawValue: "invalid-json")
    /// JSON, but not a request: not an object, no `type`, an unknown key, a value of the wrong type.
    public static let invalidMessage = ErrorCode(rawValue: "invalid-message")
    /// A `type` that is not a request of this protocol version.
    public static let unknownType = ErrorCode(rawValue: "unknown-type")
    /// A `subscribe` whose filters cannot be used (unknown kind or state, bad name, wrong type).
    public static let invalidFilter = ErrorCode(rawValue: "invalid-filter")
    /// A `define` the configuration's validation refuses (same rules and messages as the file).
    public static let invalidDefinition = ErrorCode(rawValue: "invalid-definition")
    /// A `define` while this connection's previous one is still being applied, or a `record`
    /// while the connection records already.
    public static let busy = ErrorCode(rawValue: "busy")
    /// A `define` that would take the definitions of all connections together past
    /// ``ServerLimits/maxClientDefinitions`` or ``ServerLimits/maxClientTemplates``.
    public static let tooManyRecognizers = ErrorCode(rawValue: "too-many-recognizers")
    /// This daemon does not accept `define` (it runs without an engine behind the socket).
    public static let unavailable = ErrorCode(rawValue: "unavailable")
    /// A `record` of a panel the connection's user may not read (docs/PROTOCOL.md, "record").
    public static let permissionDenied = ErrorCode(rawValue: "permission-denied")
    /// A `record` naming no panel the daemon has open (or none, when it has several).
    public static let noSuchDevice = ErrorCode(rawValue: "no-such-device")
    /// The server has ``ServerLimits/maxClients`` connections already; it closes this one.
    public static let tooManyClients = ErrorCode(rawValue: "too-many-clients")
    /// The client read too slowly and its queue overflowed; the server closes the connection.
    public static let overflow = ErrorCode(rawValue: "overflow")
    /// The daemon is stopping; the server closes the connection.
    public static let shutdown = ErrorCode(rawValue: "shutdown")

    /// Whether the server closes the connection after sending this error.
    public var closesConnection: Bool { self == .tooManyClients || self == .overflow || self == .shutdown }

    public var description: String { rawValue }
}
