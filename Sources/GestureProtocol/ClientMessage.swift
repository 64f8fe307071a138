import GestureEngine

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One request from a client: `subscribe`, `unsubscribe`, `define`, `ping`, `status` or
/// `record`, with an optional `id` that the reply (`ok`, `pong`, `status`, `recording` or
/// `error`) echoes. The server decodes requests off its thread (``parse(_:types:)``, with these
/// types and the ones the daemon declares in files of their own: `stop-recording`); what it can
/// tell from a line's ``RequestHead`` it answers without.
///
/// The server decodes requests strictly (an unknown key is an error, not ignored: a typo in a
/// filter name must not silently subscribe to everything) and answers every bad line with an
/// ``ErrorMessage`` whose code says what was wrong.
public struct ClientMessage: Hashable, Sendable {
    public enum Body: Hashable, Sendable {
        /// Replaces the connection's subscription.
        case subscribe(Subscription)
        /// Drops the connection's subscription: no more `gesture` or `touch` messages.
        case unsubscribe
        /// Replaces everything this connection defined before with these definitions.
        case define(Definitions)
        case ping
        /// Asks for the daemon's ``StatusMessage``.
        case status
        /// Starts recording a panel's raw events to this connection.
        case record(RecordOptions)
    }

    public var id: RequestID?
    public var body: Body

    public init(_ body: Body, id: RequestID? = nil) {
        self.body = body
        self.id = id
    }

    /// The `type` key of this request.
    public var type: String {
        switch body {
        case .subscribe: "subscribe"
        case .unsubscribe: "unsubscribe"
        case .define: "define"
        case .ping: "ping"
        case .status: "status"
        case .record: "record"
        }
    }

    /// Every type of this enum (adding one: CONTRIBUTING.md, "Adding a request type").
    public static let requestTypes: [RequestDecoding<Body>] = [
        // Always decoded: a `define` is admitted (its limits checked) where it is decoded.
        RequestDecoding(
            name: "define", keys: Definitions.Keys.allCases.map(\.rawValue),
            decode: { object, id throws(ErrorMessage) in .define(try Definitions(from: object, id: id)) }, bare: nil),
        RequestDecoding(name: "ping", keys: [], decode: { _, _ in .ping }, bare: .ping),
        RequestDecoding(name: "status", keys: [], decode: { _, _ in .status }, bare: .status),
        RequestDecoding(
            name: "record", keys: RecordOptions.Keys.allCases.map(\.rawValue),
            decode: { object, id throws(ErrorMessage) in .record(try RecordOptions(from: object, id: id)) },
            bare: .record(RecordOptions())),
        RequestDecoding(
            name: "subscribe", keys: Subscription.Keys.allCases.map(\.rawValue),
            decode: { object, id throws(ErrorMessage) in .subscribe(try Subscription(from: object, id: id)) },
            bare: .subscribe(Subscription())),
        RequestDecoding(name: "unsubscribe", keys: [], decode: { _, _ in .unsubscribe }, bare: .unsubscribe),
    ]

    /// The request a line of nothing but `type` and `id` holds (``RequestHead/isWhole``), for the
    /// types the server answers without decoding; nil for the others (and for unknown types).
    public init?(bare head: RequestHead) {
        guard let body = RequestDecoding.bare(head, among: Self.requestTypes) else { return nil }
        self.init(body, id: head.id)
    }

    /// The error for a line that is not UTF-8.
    public static let notUTF8 = ErrorMessage(code: .invalidUTF8, message: "the line is not valid UTF-8")

    /// Decodes one line (without its `\n`) as one of this enum's types. Every failure is an error
    /// message ready to send (``parse(_:types:)``).
    public static func parse(_ line: some Collection<UInt8>) -> Result<ClientMessage, ErrorMessage> {
        parse(line, types: requestTypes).map { ClientMessage($0.body, id: $0.id) }
    }

    /// Decodes one line (without its `\n`) as one of `types`. Every failure is an error message
    /// ready to send: `invalid-utf8`, `invalid-json`, `invalid-message`, `unknown-type`,
    /// `invalid-filter` or `invalid-definition`.
    public static func parse<Body: Sendable>(
        _ line: some Collection<UInt8>, types: [RequestDecoding<Body>]
    ) -> Result<(body: Body, id: RequestID?), ErrorMessage> {
        guard String(validating: line, as: UTF8.self) != nil else {
            return .failure(notUTF8)
        }
        switch StrictJSON.check(line) {
        case .syntax(let problem, let offset)?:
            return .failure(
                ErrorMessage(
                    code: .invalidJSON, message: "the line is not valid JSON: \(problem) at byte \(offset + 1)"))
        case .value(let problem, let path)?:
            return .failure(ErrorMessage(code: .invalidMessage, message: problem, path: ErrorMessage.pointer(path)))
        case nil:
            break
        }
        let decoder = JSONDecoder()
        decoder.userInfo[RequestDecoding<Body>.typesKey] = types
        do {
            let line = try decoder.decode(DecodedLine<Body>.self, from: Data(line))
            return .success((line.body, line.id))
        } catch let error as ErrorMessage {
            return .failure(error)
        } catch {
            // Only the parser throws anything else (`init(from:)` converts its own errors), and
            // StrictJSON has already refused what it would.
            return .failure(ErrorMessage(code: .invalidJSON, message: "the line is not valid JSON"))
        }
    }
}

/// How one request type is read from a line: its spelling, the keys it takes beside `type` and
/// `id` (any other is `invalid-message`), how its body is decoded from the request object (every
/// problem an ``ErrorMessage`` with its code and JSON pointer), and its body when the line holds
/// nothing but `type` and `id` — for a type whose bare form the server answers without decoding;
/// nil for one that is always decoded.
public struct RequestDecoding<Body: Sendable>: Sendable {
    public let name: String
    public let keys: [String]
    public let decode: @Sendable (KeyedDecodingContainer<AnyCodingKey>, RequestID?) throws(ErrorMessage) -> Body
    public let bare: Body?

    public init(
        name: String, keys: [String],
        decode: @escaping @Sendable (KeyedDecodingContainer<AnyCodingKey>, RequestID?) throws(ErrorMessage) -> Body,
        bare: Body?
    ) {
        self.name = name
        self.keys = keys
        self.decode = decode
        self.bare = bare
    }

    /// The same type, its bodies turned into another's.
    public func map<Other: Sendable>(_ transform: @escaping @Sendable (Body) -> Other) -> RequestDecoding<Other> {
        let decode = self.decode
        return RequestDecoding<Other>(
            name: name, keys: keys, decode: { object, id throws(ErrorMessage) in transform(try decode(object, id)) },
            bare: bare.map(transform))
    }

    /// The body a line of nothing but `type` and `id` holds (``RequestHead/isWhole``), for a
    /// type of `types` answered without decoding; nil for the others (and for unknown types).
    public static func bare(_ head: RequestHead, among types: [RequestDecoding]) -> Body? {
        guard head.isWhole else { return nil }
        return types.first(where: { $0.name == head.type })?.bare
    }

    /// Where ``ClientMessage/parse(_:types:)`` hands the table to the decoder.
    static var typesKey: CodingUserInfoKey { CodingUserInfoKey(rawValue: "gestured.requestTypes")! }
}

/// A request line read against a table of types (the decoder's `userInfo`).
private struct DecodedLine<Body: Sendable>: Decodable {
    var body: Body
    var id: RequestID?

    init(from decoder: any Decoder) throws {
        let types = decoder.userInfo[RequestDecoding<Body>.typesKey] as? [RequestDecoding<Body>] ?? []
        (body, id) = try ClientMessage.read(from: decoder, types: types)
    }
}

extension ClientMessage: Codable {
    public init(from decoder: any Decoder) throws {
        (body, id) = try Self.read(from: decoder, types: Self.requestTypes)
    }

    /// The request object of `decoder` as one of `types`: its `id`, its `type`, no key the type
    /// does not take, and its body.
    static func read<Body: Sendable>(
        from decoder: any Decoder, types: [RequestDecoding<Body>]
    ) throws(ErrorMessage) -> (Body, RequestID?) {
        let object: KeyedDecodingContainer<AnyCodingKey>
        do {
            object = try decoder.container(keyedBy: AnyCodingKey.self)
        } catch {
            throw ErrorMessage(code: .invalidMessage, message: "a request must be a JSON object")
        }
        let id: RequestID?
        let idKey = AnyCodingKey(stringValue: "id")
        if object.contains(idKey) {
            do {
                id = try object.decode(RequestID.self, forKey: idKey)
            } catch {
                throw ErrorMessage(code: .invalidMessage, message: "'id' must be a string or an integer", path: "/id")
            }
        } else {
            id = nil
        }
        let typeKey = AnyCodingKey(stringValue: "type")
        guard object.contains(typeKey) else {
            throw ErrorMessage(code: .invalidMessage, message: "a request needs a 'type'", id: id)
        }
        guard let type = try? object.decode(String.self, forKey: typeKey) else {
            throw ErrorMessage(code: .invalidMessage, message: "'type' must be a string", id: id, path: "/type")
        }
        guard let requestType = types.first(where: { $0.name == type }) else {
            let names = types.map(\.name).sorted()
            throw ErrorMessage(
                code: .unknownType,
                message: "unknown request type '\(type)' (expected one of: \(names.joined(separator: ", ")))",
                id: id, path: "/type")
        }
        let allowed = Set(["type", "id"] + requestType.keys)
        for key in object.allKeys.sorted(by: { $0.stringValue < $1.stringValue })
        where !allowed.contains(key.stringValue) {
            throw ErrorMessage(
                code: .invalidMessage,
                message:
                    "unknown key '\(key.stringValue)' in a \(type) request (expected one of: \(allowed.sorted().joined(separator: ", ")))",
                id: id, path: ErrorMessage.pointer([.key(key.stringValue)]))
        }
        return (try requestType.decode(object, id), id)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: AnyCodingKey.self)
        try c.encode(type, forKey: AnyCodingKey(stringValue: "type"))
        try c.encodeIfPresent(id, forKey: AnyCodingKey(stringValue: "id"))
        switch body {
        case .subscribe(let subscription): try subscription.encode(into: &c)
        case .define(let definitions): try definitions.encode(into: &c)
        case .record(let options): try options.encode(into: &c)
        case .unsubscribe, .ping, .status: break
        }
    }
}
