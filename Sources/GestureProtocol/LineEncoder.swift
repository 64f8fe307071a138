#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Turns server messages into lines: the JSON object followed by `\n`, the same bytes for the
/// same message every time (keys sorted).
///
/// `gesture` and `touch` — the messages sent for every frame, to every subscriber — and `raw`
/// (every read of a panel being recorded) are written
/// by hand from their tables of fields (``WireMessage``), straight into a reused buffer; every
/// other message goes through Foundation's `JSONEncoder` (``GestureProtocol/makeEncoder()``).
/// The hand-written lines are byte for byte what `JSONEncoder` gives (a property test compares
/// the two on random messages), about ten times faster (docs/performance-history.md, "Socket"). A number JSON cannot carry (NaN, infinity) is
/// an `EncodingError`, as with `JSONEncoder`.
///
/// Not thread-safe: one per thread or per event loop.
public struct LineEncoder {
    private let json = GestureProtocol.makeEncoder()
    private var writer = JSONWriter()

    public init() {}

    /// `message` as one line, newline included.
    public mutating func encode(_ message: ServerMessage) throws -> [UInt8] {
        try encode(message) { Array($0) }
    }

    /// Hands `body` the line of `message`, newline included, in the encoder's own buffer (valid
    /// only during the call): for a caller that copies it straight to where it goes.
    public mutating func encode<Result>(
        _ message: ServerMessage, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result
    ) throws -> Result {
        writer.reset()
        switch message {
        case .gesture(let gesture): try writer.write(gesture)
        case .touch(let touch): try writer.write(touch)
        case .raw(let raw): try writer.write(raw)
        default:
            try json.encode(message).withUnsafeBytes { writer.bytes.append(contentsOf: $0.bindMemory(to: UInt8.self)) }
        }
        writer.bytes.append(UInt8(ascii: "\n"))
        return try body(writer.bytes.contents)
    }

    /// Hands `body` the line of `gesture`, as ``encode(_:_:)`` does for `.gesture(gesture)`,
    /// without copying the message into a ``ServerMessage`` first.
    public mutating func encode<Result>(
        _ gesture: GestureMessage, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result
    ) throws -> Result {
        writer.reset()
        try writer.write(gesture)
        writer.bytes.append(UInt8(ascii: "\n"))
        return try body(writer.bytes.contents)
    }
}

/// Appends JSON to a byte array the way `JSONEncoder` with `.sortedKeys` and
/// `.withoutEscapingSlashes` does: no spaces, the keys given in sorted order by the caller,
/// numbers as Swift prints them (an integral `Double` without its `.0`), strings with `"`, `\`
/// and control characters escaped and everything else as UTF-8.
struct JSONWriter {
    private(set) var bytes = LineBytes()

    /// Empties the buffer, keeping its capacity (a copy of the writer gets its own buffer here).
    mutating func reset() {
        if !isKnownUniquelyReferenced(&bytes) { bytes = LineBytes() }
        bytes.removeAll()
    }

    /// Appends `fragment` as it is: the punctuation and keys around the values (`,"fingers":`),
    /// the protocol's own, which need no escaping. One capacity check and one copy each; inlined,
    /// so that the copy of a literal of known length is a few moves.
    @inline(__always)
    mutating func raw(_ fragment: StaticString) {
        // A one-character literal may be stored as its scalar instead of as bytes.
        guard fragment.hasPointerRepresentation else {
            fragment.withUTF8Buffer { bytes.append(contentsOf: $0) }
            return
        }
        bytes.append(contentsOf: UnsafeBufferPointer(start: fragment.utf8Start, count: fragment.utf8CodeUnitCount))
    }

    mutating func string(_ value: String) {
        // Names, labels and states need no escape: quoted and copied in one pass, which gives up
        // at the first byte that needs one (the reserved room is then written over).
        let plain = value.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            let n = utf8.count + 2
            let p = bytes.reserve(n)
            p[0] = UInt8(ascii: "\"")
            for i in 0..<utf8.count {
                let byte = utf8[i]
                if Self.needsEscape(byte) { return false }
                p[i + 1] = byte
            }
            p[n - 1] = UInt8(ascii: "\"")
            bytes.commit(n)
            return true
        }
        if plain != true { escaped(value) }
    }

    /// `value` quoted, with the escapes it needs.
    private mutating func escaped(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): escape(byte)
            case 0x08: escape(UInt8(ascii: "b"))
            case 0x09: escape(UInt8(ascii: "t"))
            case 0x0A: escape(UInt8(ascii: "n"))
            case 0x0C: escape(UInt8(ascii: "f"))
            case 0x0D: escape(UInt8(ascii: "r"))
            case 0..<0x20:
                // `\u00XX`, lower-case hex digits.
                escape(UInt8(ascii: "u"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(UInt8(ascii: "0"))
                for nibble in [byte >> 4, byte & 0xF] {
                    bytes.append(nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10)
                }
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    private mutating func escape(_ byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        bytes.append(byte)
    }

    mutating func integer(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        unsigned(value.magnitude)
    }

    mutating func integer(_ value: Int) { integer(Int64(value)) }

    mutating func integer(_ value: UInt32) { unsigned(UInt64(value)) }

    mutating func integer(_ value: UInt64) { unsigned(value) }

    /// The digits of `value`, counted first and then written two at a time from the last ones
    /// back, in place.
    private mutating func unsigned(_ value: UInt64) {
        let width = Self.digitCount(value)
        Self.writeDigits(value, width, to: bytes.reserve(width))
        bytes.commit(width)
    }

    /// How many decimal digits `value` has (one for zero).
    @inline(__always)
    static func digitCount(_ value: UInt64) -> Int {
        var width = 1
        var rest = value
        while rest >= 10_000 {
            rest /= 10_000
            width += 4
        }
        if rest >= 100 {
            width += rest >= 1000 ? 3 : 2
        } else if rest >= 10 {
            width += 1
        }
        return width
    }

    /// Writes the `width` digits of `value` at `target`, a pair of them a step, the last pair
    /// first.
    @inline(__always)
    static func writeDigits(_ value: UInt64, _ width: Int, to target: UnsafeMutablePointer<UInt8>) {
        var rest = value
        var end = width
        while end >= 2 {
            let pair = rest % 100
            rest /= 100
            end -= 2
            UnsafeMutableRawPointer(target + end).storeBytes(of: digitPair(pair), as: UInt16.self)
        }
        if end == 1 { target[0] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest) }
    }

    /// The two ASCII digits of `pair` (0...99) as they lie in memory, the tens first: computed,
    /// not looked up (a table is one more data page a line touches, which a guest under TCG pays
    /// for). `pair * 103 >> 10` is `pair / 10` for every pair.
    @inline(__always)
    static func digitPair(_ pair: UInt64) -> UInt16 {
        let tens = (pair &* 103) >> 10
        let ones = pair &- tens &* 10
        return UInt16(truncatingIfNeeded: 0x3030 | tens | ones << 8).littleEndian
    }

    /// Swift's shortest round-tripping spelling, as `JSONEncoder` writes it: `1` for `1.0`,
    /// `1e-07`, `1.5e+20`. NaN and infinity are errors.
    mutating func number(_ value: Double) throws {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value, EncodingError.Context(codingPath: [], debugDescription: "\(value) is not valid in JSON"))
        }
        if decimal(value) { return }
        // `description`'s digits, written straight into the line: `Double` hands a
        // `TextOutputStream` its digits from a stack buffer, where `description` would build a
        // String (an allocation for most coordinates) to be copied again.
        let start = bytes.count
        var sink = DigitSink(bytes: bytes)
        value.write(to: &sink)
        bytes.dropIntegralFraction(after: start)
    }

    /// Writes `value` with integer arithmetic when it has at most six decimals and is below 1e9
    /// in magnitude — every number of a `gesture` or `touch` message the daemon makes
    /// (``WireNumber``) — and returns true; false, writing nothing, otherwise. The characters
    /// are `description`'s (a property test compares them on random values of every magnitude):
    /// the digits without trailing zeros, and Swift's exponent below 1e-4 (`6.1e-05`). Swift's
    /// shortest round-trip formatting costs ~1 200 instructions a number; this, ~150 with its checks
    /// (docs/performance-history.md, "Before and after: per-line cost").
    private mutating func decimal(_ value: Double) -> Bool {
        let magnitude = value.magnitude
        guard magnitude < 1e9 else { return false }
        // Adding ½ and truncating rounds without a libm call; below 1e15 the sum is exact enough
        // that the check below holds only for the nearest millionth.
        // (Signed: the conversions both ways are one instruction each.)
        let signed = Int64(magnitude * 1e6 + 0.5)
        guard Double(signed) / 1e6 == magnitude else { return false }
        let millionths = UInt64(truncatingIfNeeded: signed)
        if value.sign == .minus { bytes.append(UInt8(ascii: "-")) }
        if millionths != 0 && millionths < 100 {
            if millionths < 10 {
                integer(millionths)
                raw("e-06")
            } else {
                integer(millionths / 10)
                if millionths % 10 != 0 {
                    bytes.append(UInt8(ascii: "."))
                    integer(millionths % 10)
                }
                raw("e-05")
            }
            return true
        }
        let whole = millionths / 1_000_000
        let fraction = millionths &- whole &* 1_000_000
        let width = Self.digitCount(whole)
        // The whole part, then `.` and the six digits of the fraction as one word, stored whole;
        // only the bytes up to the last digit that is not zero are counted.
        let p = bytes.reserve(width + 8)
        Self.writeDigits(whole, width, to: p)
        guard fraction != 0 else {
            bytes.commit(width)
            return true
        }
        let high = fraction / 10_000
        let middle = fraction / 100 &- high &* 100
        let low = fraction &- fraction / 100 &* 100
        let word =
            UInt64(UInt8(ascii: ".")) | UInt64(Self.digitPair(high).littleEndian) << 8
            | UInt64(Self.digitPair(middle).littleEndian) << 24 | UInt64(Self.digitPair(low).littleEndian) << 40
        UnsafeMutableRawPointer(p + width).storeBytes(of: word.littleEndian, as: UInt64.self)
        // The digits' values: the trailing zeros (and the unused eighth byte) are the zero bytes
        // at the top, the fraction not being zero.
        let values = word ^ 0x0030_3030_3030_302E
        bytes.commit(width &+ 8 &- values.leadingZeroBitCount / 8)
        return true
    }

    mutating func xy(_ value: XY) throws {
        raw(#"{"x":"#)
        try number(value.x)
        raw(#","y":"#)
        try number(value.y)
        raw("}")
    }

    mutating func xy(_ value: XY?) throws {
        if let value { try xy(value) } else { raw("null") }
    }

    /// `,"key":`, before a field's value (``WireLineWriter``).
    @inline(__always)
    mutating func key(_ key: StaticString) {
        let n = key.utf8CodeUnitCount + 4
        let p = bytes.reserve(n)
        p[0] = UInt8(ascii: ",")
        p[1] = UInt8(ascii: "\"")
        key.withUTF8Buffer { LineBytes.copy($0, to: p + 2) }
        p[n - 2] = UInt8(ascii: "\"")
        p[n - 1] = UInt8(ascii: ":")
        bytes.commit(n)
    }

    /// A message through its table of fields, in the table's order (the keys sorted): each field
    /// written as `,"key":value`, then the first comma turned into the opening brace.
    mutating func write<Message: WireMessage>(_ message: Message) throws {
        let start = bytes.count
        let error = withUnsafePointer(to: message) { message in
            var visitor = WireLineWriter(message, into: self)
            Message.fields(&visitor)
            return visitor.error
        }
        if let error { throw error }
        if bytes.count == start { raw("{") } else { bytes[start] = UInt8(ascii: "{") }
        raw("}")
    }
}

/// Where `Double.write(to:)` puts its digits: ASCII from a buffer (`_writeASCII`, the stream's
/// customization point for it), or a String when the standard library hands one.
private struct DigitSink: TextOutputStream {
    let bytes: LineBytes

    mutating func write(_ string: String) {
        var string = string
        string.withUTF8 { bytes.append(contentsOf: $0) }
    }

    mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: buffer)
    }
}

/// The line being written: a growable byte buffer written through a pointer, so that the ~600
/// bytes of a `gesture` line cost no uniqueness or bounds check per byte (an `[UInt8]` in the
/// writer cost ~280 instructions per key; docs/performance-history.md, "Frame path"). Owned by one
/// ``JSONWriter``; never shared.
final class LineBytes {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int = 1024) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    deinit { base.deallocate() }

    /// The bytes written, valid until the next change.
    var contents: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    func removeAll() { count = 0 }

    /// A byte already written.
    subscript(index: Int) -> UInt8 {
        get { contents[index] }
        set {
            precondition(index >= 0 && index < count, "only a written byte may be replaced")
            base[index] = newValue
        }
    }

    @inline(__always)
    func append(_ byte: UInt8) {
        reserve(1)[0] = byte
        count += 1
    }

    @inline(__always)
    func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
        Self.copy(bytes, to: reserve(bytes.count))
        count += bytes.count
    }

    /// Where the next `n` bytes go, room made for them; ``commit(_:)`` counts them once written.
    @inline(__always)
    func reserve(_ n: Int) -> UnsafeMutablePointer<UInt8> {
        let used = count
        if used + n > capacity { grow(to: used + n) }
        return base + used
    }

    @inline(__always)
    func commit(_ n: Int) { count += n }

    /// Keys, names and digits are a few bytes: a loop beats a call to memcpy.
    @inline(__always)
    static func copy(_ bytes: UnsafeBufferPointer<UInt8>, to target: UnsafeMutablePointer<UInt8>) {
        for i in 0..<bytes.count { target[i] = bytes[i] }
    }

    /// Drops a trailing `.0` from the number written from `start` on (`1.0` → `1`, as
    /// `JSONEncoder` writes an integral Double).
    func dropIntegralFraction(after start: Int) {
        if count - start > 2 && base[count - 2] == UInt8(ascii: ".") && base[count - 1] == UInt8(ascii: "0") {
            count -= 2
        }
    }

    private func grow(to needed: Int) {
        let larger = max(needed, capacity * 2)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        moved.update(from: base, count: count)
        base.deallocate()
        base = moved
        capacity = larger
    }
}
