import GestureEngine

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// A message sent for every frame (`gesture`, `touch`, and any message type made the same way) is
// described once, by its table of fields (``WireMessage/fields(_:)``): one line a field, giving
// its key on the wire, where its value comes from (a key path into the message, which holds the
// engine's values), how its numbers are rounded and whether it may be absent. The line writer
// (``LineEncoder``), the Codable encoding and decoding (the Swift client), the rounding on the way
// to the wire (``WireMapping``) and the check against docs/protocol.schema.json all walk the table,
// so a field is its value plus one line (CONTRIBUTING.md, "Adding a field to a message").

/// How a line shows that a field has no value.
enum WireAbsence: Sendable {
    /// The key is left out (a kind's own fields: `direction`, `scale`).
    case omitted
    /// The key is there with `null` (`position_mm` of a device of unknown size), so a client
    /// tells "unknown" from "not sent by this version".
    case null
}

/// How a field's numbers are rounded on their way to the wire (``WireMapping``).
enum WireRounding: Sendable {
    /// As they are: integers, strings, names.
    case exact
    /// To six decimal places (``WireNumber``). A value JSON cannot carry (NaN, infinity) makes an
    /// optional field absent; a field that is always there keeps it, and encoding the message
    /// fails (logged, not sent).
    case sixDecimals
}

/// What walks a message's table (``WireMessage/fields(_:)``), one call a field, in the table's
/// order (which is the order of a line: the keys sorted).
protocol WireFieldVisitor<Message> {
    associatedtype Message
    /// The `type` key, in its place among the others; its value is ``WireMessage/type``.
    mutating func type()
    /// A field every message has.
    mutating func field<Value: WireValue>(
        _ key: StaticString, _ value: WritableKeyPath<Message, Value>, _ rounding: WireRounding)
    /// A field a message may lack, and how a line shows that.
    mutating func field<Value: WireValue>(
        _ key: StaticString, _ value: WritableKeyPath<Message, Value?>, _ rounding: WireRounding,
        absent: WireAbsence)
}

extension WireFieldVisitor {
    /// A field every message has, written as it is.
    @inline(__always)
    mutating func field<Value: WireValue>(_ key: StaticString, _ value: WritableKeyPath<Message, Value>) {
        field(key, value, .exact)
    }

    /// A field a message may lack, written as it is.
    @inline(__always)
    mutating func field<Value: WireValue>(
        _ key: StaticString, _ value: WritableKeyPath<Message, Value?>, absent: WireAbsence
    ) {
        field(key, value, .exact, absent: absent)
    }
}

/// A message described by its table of fields.
protocol WireMessage: Codable {
    /// The `type` key's value.
    static var type: String { get }
    /// What decoding starts from: the table sets every field from the line (a field that is
    /// always there and missing from the line is an error), so none of its values is seen.
    static var blank: Self { get }
    /// The table: every field, in the order of its key (the order of a line; `JSONEncoder`'s
    /// `.sortedKeys` writes the same). WireFieldTests fails when it is out of order, or when
    /// docs/protocol.schema.json lists other keys.
    static func fields(_ visitor: inout some WireFieldVisitor<Self>)
}

extension WireMessage {
    /// Decodes the message, field by field, from its table: its `Codable`.
    public init(from decoder: any Decoder) throws {
        var visitor = WireDecoding<Self>(try decoder.container(keyedBy: AnyCodingKey.self))
        Self.fields(&visitor)
        if let error = visitor.error { throw error }
        self = visitor.message
    }

    /// Encodes the message, field by field, from its table: its `Codable`.
    public func encode(to encoder: any Encoder) throws {
        var visitor = WireEncoding(self, encoder.container(keyedBy: AnyCodingKey.self))
        Self.fields(&visitor)
        if let error = visitor.error { throw error }
    }

    /// Its numbers rounded as the table says (``WireRounding``).
    func roundedForWire() -> Self {
        var visitor = WireRounder(self)
        Self.fields(&visitor)
        return visitor.message
    }
}

// MARK: - Values

/// A type a field may have: how it is written in a line, what it is in JSON (for `Codable`), and
/// how its numbers are rounded.
protocol WireValue {
    /// What the value is in JSON, for `Codable` (`XY` for a point, `Int64` for a time).
    associatedtype Wire: Codable
    var wire: Wire { get }
    /// The value a decoded `Wire` stands for; throws ``WireValueProblem`` when it stands for none.
    init(wire: Wire) throws
    /// Writes the value into a line, as `JSONEncoder` writes `wire`.
    func write(to writer: inout JSONWriter) throws
    /// Rounded to six decimals (numbers; anything else as it is).
    func roundedToSixDecimals() -> Self
    /// Whether JSON can carry it (numbers: finite).
    var isFiniteForWire: Bool { get }
}

/// Why a decoded value stands for no value of its field (`unknown touch phase 'x'`).
struct WireValueProblem: Error {
    var message: String
}

extension WireValue {
    func roundedToSixDecimals() -> Self { self }
    var isFiniteForWire: Bool { true }
}

extension WireValue where Wire == Self {
    var wire: Self { self }
    init(wire: Self) { self = wire }
}

extension String: WireValue {
    func write(to writer: inout JSONWriter) { writer.string(self) }
}

extension Int: WireValue {
    func write(to writer: inout JSONWriter) { writer.integer(self) }
}

extension UInt64: WireValue {
    func write(to writer: inout JSONWriter) { writer.integer(self) }
}

extension Double: WireValue {
    func write(to writer: inout JSONWriter) throws { try writer.number(self) }
    func roundedToSixDecimals() -> Double { WireNumber.rounded(self) }
    var isFiniteForWire: Bool { isFinite }
}

extension Millimeters: WireValue {
    var wire: Double { value }
    init(wire: Double) { self.init(wire) }
    func write(to writer: inout JSONWriter) throws { try writer.number(value) }
    func roundedToSixDecimals() -> Millimeters { Millimeters(WireNumber.rounded(value)) }
    var isFiniteForWire: Bool { value.isFinite }
}

/// Kernel time, in microseconds.
extension Timestamp: WireValue {
    var wire: Int64 { microseconds }
    init(wire: Int64) { self.init(microseconds: wire) }
    func write(to writer: inout JSONWriter) { writer.integer(microseconds) }
}

extension TouchID: WireValue {
    var wire: UInt32 { rawValue }
    init(wire: UInt32) { self.init(wire) }
    func write(to writer: inout JSONWriter) { writer.integer(rawValue) }
}

/// At most ``TouchIDList/capacity`` ids, as a list of numbers.
extension TouchIDList: WireValue {
    var wire: [UInt32] { map(\.rawValue) }

    init(wire: [UInt32]) throws {
        guard wire.count <= Self.capacity else {
            throw WireValueProblem(message: "at most \(Self.capacity) touch ids, found \(wire.count)")
        }
        self.init(wire.map { TouchID($0) })
    }

    func write(to writer: inout JSONWriter) {
        writer.raw("[")
        for (i, id) in enumerated() {
            if i > 0 { writer.raw(",") }
            writer.integer(id.rawValue)
        }
        writer.raw("]")
    }
}

/// The protocol's spelling of a value with a raw string value (`state`, `direction`, `tool`).
protocol SpelledWireValue: WireValue, Codable, RawRepresentable<String> where Wire == Self {}

extension SpelledWireValue {
    func write(to writer: inout JSONWriter) { writer.string(rawValue) }
}

extension GestureKind: SpelledWireValue {}
extension GestureState: SpelledWireValue {}
extension Direction: SpelledWireValue {}
extension Edge: SpelledWireValue {}
extension ToolType: SpelledWireValue {}

extension TouchPhase: WireValue {
    var wire: String { description }

    init(wire: String) throws {
        switch wire {
        case "began": self = .began
        case "moved": self = .moved
        case "stationary": self = .stationary
        case "ended": self = .ended
        case "cancelled": self = .cancelled
        default: throw WireValueProblem(message: "unknown touch phase '\(wire)'")
        }
    }

    func write(to writer: inout JSONWriter) { writer.string(description) }
}

/// A point or a vector, as ``XY``: surface coordinates or millimetres, as the key says.
protocol XYWireValue: WireValue where Wire == XY {
    init(_ xy: XY)
}

extension XYWireValue {
    init(wire: XY) { self.init(wire) }
    func write(to writer: inout JSONWriter) throws { try writer.xy(wire) }
    func roundedToSixDecimals() -> Self { Self(WireNumber.rounded(wire)) }
    var isFiniteForWire: Bool { wire.isFinite }
}

extension SurfacePoint: XYWireValue {
    var wire: XY { XY(self) }
    init(_ xy: XY) { self.init(x: xy.x, y: xy.y) }
}

extension SurfaceVector: XYWireValue {
    var wire: XY { XY(self) }
    init(_ xy: XY) { self.init(dx: xy.x, dy: xy.y) }
}

extension PhysicalPoint: XYWireValue {
    var wire: XY { XY(self) }
    init(_ xy: XY) { self.init(x: Millimeters(xy.x), y: Millimeters(xy.y)) }
}

extension PhysicalVector: XYWireValue {
    var wire: XY { XY(self) }
    init(_ xy: XY) { self.init(dx: Millimeters(xy.x), dy: Millimeters(xy.y)) }
}

// MARK: - Walking the table

/// Writes a message into a line (``LineEncoder``): each field as `,"key":value`, the first comma
/// then turned into the opening brace, so that no field asks whether it is the first.
///
/// It reads the message where it lies, for the call of ``JSONWriter/write(_:)``: a copy of the
/// message in the visitor would retain and release its strings, and destroying such a visitor
/// looks its type's metadata up in the runtime (a conformance check) on every line.
struct WireLineWriter<Message: WireMessage>: WireFieldVisitor {
    let message: UnsafePointer<Message>
    var writer: JSONWriter
    /// The first value JSON cannot carry (the line is not sent).
    var error: (any Error)?

    init(_ message: UnsafePointer<Message>, into writer: JSONWriter) {
        self.message = message
        self.writer = writer
    }

    @inline(__always)
    mutating func type() {
        writer.key("type")
        writer.string(Message.type)
    }

    @inline(__always)
    mutating func field<Value: WireValue>(
        _ key: StaticString, _ value: WritableKeyPath<Message, Value>, _ rounding: WireRounding
    ) {
        writer.key(key)
        write(message.pointee[keyPath: value])
    }

    @inline(__always)
    mutating func field<Value: WireValue>(
        _ key: StaticString, _ value: WritableKeyPath<Message, Value?>, _ rounding: WireRounding,
        absent: WireAbsence
    ) {
        if let present = message.pointee[keyPath: value] {
            writer.key(key)
            write(present)
        } else if absent == .null {
            writer.key(key)
            writer.raw("null")
        }
    }

    @inline(__always)
    private mutating func write(_ value: some WireValue) {
        do {
            try value.write(to: &writer)
        } catch {
            if self.error == nil { self.error = error }
        }
    }
}

/// The `Codable` encoding (`JSONEncoder`, and through it every message that is not written by
/// hand).
private struct WireEncoding<Message: WireMessage>: WireFieldVisitor {
    let message: Message
    var container: KeyedEncodingContainer<AnyCodingKey>
    var error: (any Error)?

    init(_ message: Message, _ container: KeyedEncodingContainer<AnyCodingKey>) {
        self.message = message
        self.container = container
    }

    mutating func type() {
        attempt { try $0.encode(Message.type, forKey: AnyCodingKey(stringValue: "type")) }
    }

    mutating func field<Value: WireValue>(
        _ key: StaticString, _ value: WritableKeyPath<Message, Value>, _ rounding: WireRounding
    ) {
        let wire = message[keyPath: value].wire
        attempt { try $0.encode(wire, forKey: AnyCodingKey(stringValue: key.description)) }
    }

    mutating func field<Value: WireValue>(
        _ key: StaticString, _ value: WritableKeyPath<Message, Value?>, _ rounding: WireRounding,
        absent: WireAbsence
    ) {
        let wire = message[keyPath: value]?.wire
        let codingKey = AnyCodingKey(stringValue: key.description)
        switch absent {
        case .null: attempt { try $0.encode(wire, forKey: codingKey) }
        case .omitted: attempt { try $0.encodeIfPresent(wire, forKey: codingKey) }
        }
    }

    private mutating func attempt(_ body: (inout KeyedEncodingContainer<AnyCodingKey>) throws -> Void) {
        guard error == nil else { return }
        do { try body(&container) } catch { self.error = error }
    }
}

/// The `Codable` decoding (the Swift client, `gestured listen`): strict about what the table
/// says (a field that is always there must be, each value must stand for one), lenient about
/// keys it does not list (a newer daemon's).
private struct WireDecoding<Message: WireMessage>: WireFieldVisitor {
    let container: KeyedDecodingContainer<AnyCodingKey>
    var message = Message.blank
    var error: (any Error)?

    init(_ container: KeyedDecodingContainer<AnyCodingKey>) {
        self.container = container
    }

    mutating func type() {
        guard error == nil else { return }
        do { try container.expectType(Message.type) } catch { self.error = error }
    }

    mutating func field<Value: WireValue>(
        _ key: StaticString, _ value: WritableKeyPath<Message, Value>, _ rounding: WireRounding
    ) {
        guard error == nil else { return }
        let codingKey = AnyCodingKey(stringValue: key.description)
        do {
            message[keyPath: value] = try self.value(
                try container.decode(Value.Wire.self, forKey: codingKey), codingKey)
        } catch {
            self.error = error
        }
    }

    mutating func field<Value: WireValue>(
        _ key: StaticString, _ value: WritableKeyPath<Message, Value?>, _ rounding: WireRounding,
        absent: WireAbsence
    ) {
        guard error == nil else { return }
        let codingKey = AnyCodingKey(stringValue: key.description)
        do {
            if let wire = try container.decodeIfPresent(Value.Wire.self, forKey: codingKey) {
                message[keyPath: value] = try self.value(wire, codingKey)
            } else {
                message[keyPath: value] = nil
            }
        } catch {
            self.error = error
        }
    }

    private func value<Value: WireValue>(_ wire: Value.Wire, _ key: AnyCodingKey) throws -> Value {
        do {
            return try Value(wire: wire)
        } catch let problem as WireValueProblem {
            throw container.corrupted(key, problem.message)
        }
    }
}

/// Rounds a message's numbers as its table says (``WireRounding``), on its way to the wire.
private struct WireRounder<Message>: WireFieldVisitor {
    var message: Message

    init(_ message: Message) {
        self.message = message
    }

    mutating func type() {}

    @inline(__always)
    mutating func field<Value: WireValue>(
        _ key: StaticString, _ value: WritableKeyPath<Message, Value>, _ rounding: WireRounding
    ) {
        guard rounding == .sixDecimals else { return }
        message[keyPath: value] = message[keyPath: value].roundedToSixDecimals()
    }

    @inline(__always)
    mutating func field<Value: WireValue>(
        _ key: StaticString, _ value: WritableKeyPath<Message, Value?>, _ rounding: WireRounding,
        absent: WireAbsence
    ) {
        guard rounding == .sixDecimals, let present = message[keyPath: value] else { return }
        message[keyPath: value] = present.isFiniteForWire ? present.roundedToSixDecimals() : nil
    }
}

/// One line of a message's table, as the schema check and the docs read it.
struct WireFieldEntry: Equatable {
    var key: String
    /// Where the value comes from (nil for `type`).
    var value: AnyKeyPath?
    /// Nil: the field is always there.
    var absent: WireAbsence?
    var rounding: WireRounding
}

/// Lists a message's table (``WireMessage/entries``).
private struct WireEntryList<Message>: WireFieldVisitor {
    var entries: [WireFieldEntry] = []

    mutating func type() {
        entries.append(WireFieldEntry(key: "type", value: nil, absent: nil, rounding: .exact))
    }

    mutating func field<Value: WireValue>(
        _ key: StaticString, _ value: WritableKeyPath<Message, Value>, _ rounding: WireRounding
    ) {
        entries.append(WireFieldEntry(key: key.description, value: value, absent: nil, rounding: rounding))
    }

    mutating func field<Value: WireValue>(
        _ key: StaticString, _ value: WritableKeyPath<Message, Value?>, _ rounding: WireRounding,
        absent: WireAbsence
    ) {
        entries.append(WireFieldEntry(key: key.description, value: value, absent: absent, rounding: rounding))
    }
}

extension WireMessage {
    /// The table, line by line.
    static var entries: [WireFieldEntry] {
        var list = WireEntryList<Self>()
        fields(&list)
        return list.entries
    }
}
