import GestureEngine

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One request line as a client writes it (the Swift client, `gestured actions`, `gestured
/// mqtt`): its `type`, an optional `id` that the reply echoes, and the keys of its type
/// (``RequestFields``: a subscription, definitions, record options). The server reads request
/// lines against the request types it declares, a file each (``parse(_:types:)``, with the
/// server's table), strictly: an unknown key is an error, not ignored — a typo in a filter name
/// must not silently subscribe to everything — and every bad line gets an ``ErrorMessage`` whose
/// code says what was wrong.
public struct ClientMessage: Encodable, Sendable {
    public var type: String
    public var id: RequestID?
    public var fields: (any RequestFields)?

    public init(_ type: String, id: RequestID? = nil, fields: (any RequestFields)? = nil) {
        self.type = type
        self.id = id
        self.fields = fields
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: AnyCodingKey.self)
        try c.encode(type, forKey: AnyCodingKey(stringValue: "type"))
        try c.encodeIfPresent(id, forKey: AnyCodingKey(stringValue: "id"))
        try fields?.encode(into: &c)
    }

    /// The error for a line that is not UTF-8.
    public static let notUTF8 = ErrorMessage(code: .invalidUTF8, message: "the line is not valid UTF-8")

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

/// The keys a request type takes beside `type` and `id`, as one value: read from the request
/// object by the server (every problem an ``ErrorMessage`` with its code and JSON pointer),
/// written by clients.
public protocol RequestFields: Hashable, Sendable {
    associatedtype Keys: RawRepresentable<String>, CaseIterable
    init(from object: KeyedDecodingContainer<AnyCodingKey>, id: RequestID?) throws(ErrorMessage)
    func encode(into c: inout KeyedEncodingContainer<AnyCodingKey>) throws
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

extension ClientMessage {
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
}
