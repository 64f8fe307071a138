import GestureEngine

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One request line as a client writes it (the Swift client, `gestured actions`, `gestured
/// mqtt`): its `type`, an optional `id` that the reply echoes, and the keys of its type
/// (``RequestFields``: a subscription, definitions, record options). The server reads request
/// lines against the request types it declares, a file each (``parse(_:read:)``, with the
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

    /// Decodes one line (without its `\n`): UTF-8, strict JSON, then its request object as
    /// `read` makes it (the server's table of request types). Every failure is an error message
    /// ready to send: `invalid-utf8`, `invalid-json`, or `read`'s own.
    public static func parse<Body: Sendable>(
        _ line: some Collection<UInt8>, read: @escaping @Sendable (any Decoder) throws -> Body
    ) -> Result<Body, ErrorMessage> {
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
        decoder.userInfo[DecodedLine<Body>.readKey] = read
        do {
            return .success(try decoder.decode(DecodedLine<Body>.self, from: Data(line)).body)
        } catch let error as ErrorMessage {
            return .failure(error)
        } catch {
            // Only the parser throws anything else (`read` converts its own errors), and
            // StrictJSON has already refused what it would.
            return .failure(ErrorMessage(code: .invalidJSON, message: "the line is not valid JSON"))
        }
    }
}

/// A request line as ``ClientMessage/parse(_:read:)``'s `read` makes it (the decoder's `userInfo`).
private struct DecodedLine<Body: Sendable>: Decodable {
    static var readKey: CodingUserInfoKey { CodingUserInfoKey(rawValue: "gestured.readRequest")! }
    var body: Body

    init(from decoder: any Decoder) throws {
        guard let read = decoder.userInfo[Self.readKey] as? @Sendable (any Decoder) throws -> Body else {
            preconditionFailure("a request line decoded without ClientMessage.parse")
        }
        body = try read(decoder)
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
