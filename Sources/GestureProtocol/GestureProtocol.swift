import GestureEngine

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Protocol v1 of the gestured socket: newline-delimited JSON over a stream Unix socket.
///
/// docs/PROTOCOL.md is the normative text and docs/protocol.schema.json its machine-readable
/// form. Every message type is defined once, in this module, and shared by the server, the Swift
/// client library and the offline `replay` command.
public enum GestureProtocol {
    /// The version the server announces in `hello`. A client that sees a higher version than it
    /// knows should still work: v1 messages only gain keys, never change the meaning of old ones.
    public static let version = 1

    /// Where the daemon listens unless the configuration or `--socket` says otherwise.
    public static let defaultSocketPath = "/run/gestured/gestured.sock"

    /// The encoder every sender uses. Sorted keys make the same message the same line, so output
    /// can be compared byte for byte (tests, `replay`) and a line is a stable cache key.
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// Encodes one message as one line: its JSON object followed by `\n`.
    public static func encodeLine(_ message: some Encodable, with encoder: JSONEncoder) throws -> Data {
        var data = try encoder.encode(message)
        data.append(0x0A)
        return data
    }
}

/// Two numbers on the wire, `{"x": …, "y": …}`: a point or a vector. Whether it is in surface
/// coordinates (0…1, origin top-left, `y` grows downwards) or in millimetres, the key says
/// (`position` / `position_mm`).
public struct XY: Codable, Hashable, Sendable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public init(_ p: SurfacePoint) { self.init(x: p.x, y: p.y) }
    public init(_ v: SurfaceVector) { self.init(x: v.dx, y: v.dy) }
    public init(_ p: PhysicalPoint) { self.init(x: p.x.value, y: p.y.value) }
    public init(_ v: PhysicalVector) { self.init(x: v.dx.value, y: v.dy.value) }

    /// JSON has no NaN or infinity; a non-finite value would make the whole message unencodable.
    var isFinite: Bool { x.isFinite && y.isFinite }
}

/// How numbers go on the wire in `gesture` and `touch` messages: rounded to six decimal places —
/// a millionth of the surface, a micrometre, a microradian; finer than any touchscreen measures —
/// so that a line carries `0.376080`'s digits, not `0.3760795922727134`'s, and is written with
/// integer arithmetic (``JSONWriter``). Magnitudes from 1e9 on are left as they are.
public enum WireNumber {
    public static func rounded(_ value: Double) -> Double {
        guard value.magnitude < 1e9 else { return value }
        // `(value * 1e6).rounded()` (half away from zero) without its libm call: below 1e15 the
        // truncation is exact, and so is the fraction it leaves.
        let scaled = value * 1e6
        var millionths = Int64(scaled)
        let fraction = scaled - Double(millionths)
        if fraction >= 0.5 {
            millionths += 1
        } else if fraction <= -0.5 {
            millionths -= 1
        }
        // `+ 0` turns a negative zero (a tiny negative value rounded) into zero.
        return Double(millionths) / 1e6 + 0
    }

    public static func rounded(_ value: Double?) -> Double? { value.map(rounded) }

    static func rounded(_ value: XY) -> XY { XY(x: rounded(value.x), y: rounded(value.y)) }

    static func rounded(_ value: XY?) -> XY? { value.map(rounded) }
}

/// A physical size on the wire, `{"width": …, "height": …}` in millimetres.
public struct SizeMM: Codable, Hashable, Sendable {
    public var width: Double
    public var height: Double

    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
}

/// The `id` a client may put on a request, echoed by the reply: a string or an integer.
public enum RequestID: Hashable, Sendable, Codable, CustomStringConvertible {
    case number(Int64)
    case string(String)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let n = try? c.decode(Int64.self) {
            self = .number(n)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "expected a string or an integer")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .number(let n): try c.encode(n)
        case .string(let s): try c.encode(s)
        }
    }

    public var description: String {
        switch self {
        case .number(let n): String(n)
        case .string(let s): "\"\(s)\""
        }
    }
}

/// The spelling of an ``Owner`` on the wire: `configuration` or `client:N`.
enum OwnerSpelling {
    static func string(_ owner: Owner) -> String {
        switch owner {
        case .configuration: "configuration"
        case .client(let id): "client:\(id)"
        }
    }

    static func owner(_ string: String) -> Owner? {
        if string == "configuration" { return .configuration }
        guard string.hasPrefix("client:"), let id = UInt64(string.dropFirst("client:".count)) else { return nil }
        return .client(id)
    }
}

/// A message type whose `type` key is its ``MessageType`` property, its other keys its own
/// properties (its `Codable` made by the compiler).
protocol TypedMessage {
    /// The `type` key's value.
    static var type: String { get }
}

/// The `type` key of a ``TypedMessage``: written as its type, and checked when a message is
/// decoded on its own (outside ``ServerMessage``).
struct MessageType<Message: TypedMessage>: Hashable, Sendable, Codable {
    init() {}

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        let found = try c.decode(String.self)
        guard found == Message.type else {
            throw DecodingError.dataCorruptedError(
                in: c, debugDescription: "expected type '\(Message.type)', found '\(found)'")
        }
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(Message.type)
    }
}

extension KeyedDecodingContainer where Key: CodingKey {
    /// Checks the `type` key of a message decoded on its own (outside ``ServerMessage``).
    func expectType(_ type: String) throws {
        let key = Key(stringValue: "type")!
        let found = try decode(String.self, forKey: key)
        guard found == type else {
            throw corrupted(key, "expected type '\(type)', found '\(found)'")
        }
    }
}
