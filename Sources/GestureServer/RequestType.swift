import GestureEngine
import GestureProtocol

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A request type declared in a file of its own (CONTRIBUTING.md, "Adding a request type"): its
/// spelling and decoding, what refuses it before it is decoded and where it is decoded, and how
/// it is performed and answered (each member says on which thread). The server's own types
/// (``ServerRequests``) come first; a daemon adds its own (``GestureServer/init(configuration:delegate:requests:logger:)``:
/// the daemon's are `DaemonRequests.all`), and the server looks each line's up by spelling
/// (``RequestTable``). Requests are not on the frame path: the list is of existentials.
public protocol RequestType: Hashable, Sendable {
    /// Its spelling: the `type` of its lines.
    static var name: String { get }
    /// The keys it takes beside `type` and `id` (any other is `invalid-message`). None unless
    /// it says.
    static var keys: [String] { get }
    /// Decodes it from the request object on the request thread; every problem an
    /// ``ErrorMessage`` with its code and JSON pointer.
    init(from object: KeyedDecodingContainer<AnyCodingKey>, id: RequestID?) throws(ErrorMessage)
    /// What a line of nothing but `type` and `id` asks, performed without decoding the line; nil
    /// (the default) when every line of it is decoded.
    static var bare: Self? { get }
    /// Why `asker` may not make it, decided on the line's head before anything is decoded (who
    /// asks: its uid and groups, a page, what the connection is doing); nil (the default) when it
    /// may. The server sets the error's `id`.
    static func refusal(_ asker: Asker) -> ErrorMessage?
    /// Why it may not be made, decided on the request thread once it is decoded (what it asks
    /// against the limits of its connection and of all together: a `define`); nil (the default)
    /// when it may. The server sets the error's `id`.
    func admit(_ rules: AdmissionRules) -> ErrorMessage?
    /// Performs it, on the server thread, and answers through `reply` exactly once: at once, or
    /// from the thread it handed the work to (the daemon's input thread: ``GestureServerDelegate/perform(_:)``).
    /// Until it answers, it counts among the connection's requests waiting for the daemon
    /// (``ClientSession/maxRequestsInFlight``).
    func perform(for asker: Asker, reply: RequestReply)
}

extension RequestType {
    public static var keys: [String] { [] }
    public static var bare: Self? { nil }
    public static func refusal(_ asker: Asker) -> ErrorMessage? { nil }
    public func admit(_ rules: AdmissionRules) -> ErrorMessage? { nil }
}

/// A request of nothing but `type` and `id` (`ping`, `status`, `panels`…): it takes no key, and
/// its bare line is performed without decoding.
public protocol KeylessRequest: RequestType {
    init()
}

extension KeylessRequest {
    public init(from object: KeyedDecodingContainer<AnyCodingKey>, id: RequestID?) throws(ErrorMessage) { self.init() }
    public static var bare: Self? { Self() }
}

/// A request whose keys are one ``RequestFields`` value (`subscribe`, `define`, `record`): its
/// keys and its decoding are that value's.
public protocol FieldsRequest: RequestType {
    associatedtype Fields: RequestFields
    init(_ fields: Fields)
}

extension FieldsRequest {
    public static var keys: [String] { Fields.Keys.allCases.map(\.rawValue) }

    public init(from object: KeyedDecodingContainer<AnyCodingKey>, id: RequestID?) throws(ErrorMessage) {
        self.init(try Fields(from: object, id: id))
    }
}

/// Who asks for a request: what its refusals and its performing may look at.
public struct Asker: Sendable {
    public let client: ClientID
    /// Who the client is, as the kernel says (the Unix socket); nil on the WebSocket endpoint or
    /// when the kernel would not say.
    public let peer: PeerCredentials?
    /// A page on the WebSocket endpoint (any page an allowed origin serves).
    public let isPage: Bool
    /// The daemon behind the server; nil for a server without one.
    public let daemon: (any GestureServerDelegate)?
    /// Its connection, for the server's own types (its subscription, its pending `define`);
    /// touched on the server thread only.
    let session: ServerThreadBound<ClientSession>
}

/// What a decoded request is admitted against on the request thread (``RequestType/admit(_:)``).
public struct AdmissionRules: Sendable {
    let client: ClientID
    let transport: ClientSession.Transport
    let hasDaemon: Bool
    let limits: ServerLimits
    let ledger: DefinitionLedger
}

/// A declared request handed to the daemon (``GestureServerDelegate/perform(_:)``), to perform on
/// its input thread.
public struct DaemonJob: Sendable {
    public let request: any RequestType
    public let asker: Asker
    public let reply: RequestReply

    public init(request: any RequestType, asker: Asker, reply: RequestReply) {
        self.request = request
        self.asker = asker
        self.reply = reply
    }
}

/// The answer to one request, given once from any thread.
public struct RequestReply: Sendable {
    /// The request's `id`, which the answer echoes.
    public let id: RequestID?
    let answer: @Sendable (Answer) -> Void

    enum Answer: Sendable {
        /// A message the server thread encodes and writes (`ok`, `error`, `pong`).
        case message(ServerMessage)
        /// A reply of the request's own, encoded on the request thread and written as it is.
        case reply(any Encodable & Sendable)
        /// The answer went out through the publisher (a `recording` message).
        case published
    }

    /// Answers `ok` (for some types, only that the daemon is done: `ping` answers `pong`).
    public func ok() { answer(.message(.ok(id: id))) }

    /// Answers `error` (its `id` set to the request's).
    public func refuse(_ error: ErrorMessage) {
        var error = error
        error.id = id
        answer(.message(.error(error)))
    }

    /// The answer was published to the connection (a message of the daemon's, with the `id`).
    public func published() { answer(.published) }

    /// Answers with a message of the request's own, encoded off the server thread (keys sorted,
    /// as every line: ``GestureProtocol/makeEncoder()``).
    public func send(_ message: some Encodable & Sendable) { answer(.reply(message)) }
}

/// What the server reads request lines against: its own types (``ServerRequests``) and the
/// daemon's, by spelling.
struct RequestTable: Sendable {
    private let byName: [String: any RequestType.Type]

    init(declared: [any RequestType.Type]) {
        byName = Dictionary((ServerRequests.all + declared).map { ($0.name, $0) }) { first, _ in
            preconditionFailure("two request types share the spelling '\(first.name)'")
        }
    }

    /// Why `asker` may not make a request of this spelling, if its type says.
    func refusal(_ type: String, _ asker: Asker) -> ErrorMessage? {
        byName[type]?.refusal(asker)
    }

    /// What a line of nothing but `type` and `id` (``RequestHead/isWhole``) asks, for a type
    /// answered without decoding; nil for the others (and for unknown types).
    func bare(_ head: RequestHead) -> (any RequestType)? {
        guard head.isWhole else { return nil }
        return byName[head.type]?.bare
    }

    /// Decodes one line (without its `\n`) as one of its types (``ClientMessage/parse(_:read:)``):
    /// every failure an error message ready to send, `unknown-type` and the type's own among them.
    func parse(_ line: some Collection<UInt8>) -> Result<(any RequestType, RequestID?), ErrorMessage> {
        ClientMessage.parse(line) { decoder in try read(from: decoder) }
    }

    /// The request object of `decoder`: its `id`, its `type`, no key the type does not take, and
    /// the request.
    private func read(from decoder: any Decoder) throws(ErrorMessage) -> (any RequestType, RequestID?) {
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
        guard let requestType = byName[type] else {
            let names = byName.keys.sorted().joined(separator: ", ")
            throw ErrorMessage(
                code: .unknownType, message: "unknown request type '\(type)' (expected one of: \(names))", id: id,
                path: "/type")
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
        return (try requestType.init(from: object, id: id), id)
    }
}
