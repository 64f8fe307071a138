#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Turns server messages into lines: the JSON object followed by `\n`, the same bytes for the
/// same message every time (keys sorted).
///
/// `gesture` and `touch` — the messages sent for every frame, to every subscriber — are written
/// by hand, straight into a reused buffer; every other message goes through Foundation's
/// `JSONEncoder` (``GestureProtocol/makeEncoder()``). The hand-written lines are byte for byte
/// what `JSONEncoder` gives (a property test compares the two on random messages), about ten
/// times faster (docs/PERFORMANCE.md, "Socket"). A number JSON cannot carry (NaN, infinity) is
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
        default: try json.encode(message).withUnsafeBytes { writer.bytes.append(contentsOf: $0.bindMemory(to: UInt8.self)) }
        }
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
    /// Whether the object being written already has a member (a comma comes before the next).
    private var hasMember = false

    /// Empties the buffer, keeping its capacity (a copy of the writer gets its own buffer here).
    mutating func reset() {
        if !isKnownUniquelyReferenced(&bytes) { bytes = LineBytes() }
        bytes.removeAll()
        hasMember = false
    }

    mutating func beginObject() {
        bytes.append(UInt8(ascii: "{"))
        hasMember = false
    }

    mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        hasMember = true
    }

    /// `"key":` — `key` is one of the protocol's own keys, which need no escaping.
    mutating func key(_ key: StaticString) {
        if hasMember { bytes.append(UInt8(ascii: ",")) }
        hasMember = true
        bytes.append(UInt8(ascii: "\""))
        // The literal's bytes where the binary holds them (no closure, no retain per key); a
        // one-letter literal (`x`) may be stored as its scalar instead.
        if key.hasPointerRepresentation {
            bytes.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        } else {
            key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            // Names, labels and states need no escape: appended in one piece, not byte by byte.
            guard utf8.contains(where: Self.needsEscape) else {
                bytes.append(contentsOf: utf8)
                return
            }
            for byte in utf8 {
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

    mutating func integer(_ value: some BinaryInteger) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        // The magnitude's digits, least significant first, then reversed in place.
        var magnitude = value.magnitude
        let start = bytes.count
        repeat {
            let (quotient, digit) = magnitude.quotientAndRemainder(dividingBy: 10)
            bytes.append(UInt8(ascii: "0") + UInt8(digit))
            magnitude = quotient
        } while magnitude != 0
        bytes.reverse(from: start)
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
    /// are `description`'s (checked on 16 million such values): the digits without trailing
    /// zeros, and Swift's exponent below 1e-4 (`6.1e-05`). Swift's shortest round-trip formatting
    /// costs ~1 200 instructions a number; this, ~100 (docs/PERFORMANCE.md, "Frame path").
    private mutating func decimal(_ value: Double) -> Bool {
        let magnitude = value.magnitude
        guard magnitude < 1e9 else { return false }
        let scaled = (magnitude * 1e6).rounded()
        guard scaled / 1e6 == magnitude else { return false }
        if value.sign == .minus { bytes.append(UInt8(ascii: "-")) }
        let millionths = UInt64(scaled)
        if millionths != 0 && millionths < 100 {
            if millionths < 10 {
                integer(millionths)
                exponent("e-06")
            } else {
                integer(millionths / 10)
                if millionths % 10 != 0 {
                    bytes.append(UInt8(ascii: "."))
                    integer(millionths % 10)
                }
                exponent("e-05")
            }
            return true
        }
        integer(millionths / 1_000_000)
        var fraction = millionths % 1_000_000
        guard fraction != 0 else { return true }
        var digits = 6
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        bytes.append(UInt8(ascii: "."))
        // Least significant first, leading zeros included, then reversed in place.
        let start = bytes.count
        for _ in 0..<digits {
            bytes.append(UInt8(ascii: "0") + UInt8(fraction % 10))
            fraction /= 10
        }
        bytes.reverse(from: start)
        return true
    }

    private mutating func exponent(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func null() {
        let null: StaticString = "null"
        null.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func xy(_ value: XY) throws {
        beginObject()
        key("x")
        try number(value.x)
        key("y")
        try number(value.y)
        endObject()
    }

    mutating func xy(_ value: XY?) throws {
        if let value { try xy(value) } else { null() }
    }

    // The members of each message in the order `.sortedKeys` puts them; optional ones are left
    // out when nil, except the `_mm` points, which are `null` (GestureMessage's `encode(to:)`).

    mutating func write(_ m: GestureMessage) throws {
        beginObject()
        key("device")
        string(m.device)
        if let direction = m.direction {
            key("direction")
            string(direction.rawValue)
        }
        if let edge = m.edge {
            key("edge")
            string(edge.rawValue)
        }
        key("fingers")
        integer(m.fingers)
        key("kind")
        string(m.kind.rawValue)
        key("name")
        string(m.name)
        key("position")
        try xy(m.position)
        key("position_mm")
        try xy(m.positionMM)
        key("region")
        string(m.region)
        if let rotation = m.rotation {
            key("rotation")
            try number(rotation)
        }
        if let rotationVelocity = m.rotationVelocity {
            key("rotation_velocity")
            try number(rotationVelocity)
        }
        if let scale = m.scale {
            key("scale")
            try number(scale)
        }
        if let scaleVelocity = m.scaleVelocity {
            key("scale_velocity")
            try number(scaleVelocity)
        }
        if let score = m.score {
            key("score")
            try number(score)
        }
        key("seq")
        integer(m.seq)
        if let shape = m.shape {
            key("shape")
            string(shape)
        }
        key("state")
        string(m.state.rawValue)
        key("time_us")
        integer(m.timeUS)
        key("touches")
        bytes.append(UInt8(ascii: "["))
        for (i, touch) in m.touches.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            integer(touch)
        }
        bytes.append(UInt8(ascii: "]"))
        key("translation")
        try xy(m.translation)
        key("translation_mm")
        try xy(m.translationMM)
        key("type")
        string(GestureMessage.type)
        key("velocity")
        try xy(m.velocity)
        key("velocity_mm")
        try xy(m.velocityMM)
        endObject()
    }

    mutating func write(_ m: TouchMessage) throws {
        beginObject()
        key("device")
        string(m.device)
        key("phase")
        string(TouchMessage.spelling(m.phase))
        key("position")
        try xy(m.position)
        key("position_mm")
        try xy(m.positionMM)
        if let pressure = m.pressure {
            key("pressure")
            try number(pressure)
        }
        key("region")
        string(m.region)
        key("seq")
        integer(m.seq)
        if let sizeMM = m.sizeMM {
            key("size_mm")
            try number(sizeMM)
        }
        key("time_us")
        integer(m.timeUS)
        key("tool")
        string(m.tool.rawValue)
        key("touch")
        integer(m.touch)
        key("type")
        string(TouchMessage.type)
        endObject()
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
/// writer cost ~280 instructions per key; docs/PERFORMANCE.md, "Frame path"). Owned by one
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

    @inline(__always)
    func append(_ byte: UInt8) {
        if count == capacity { grow(to: count + 1) }
        base[count] = byte
        count += 1
    }

    @inline(__always)
    func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
        if count + bytes.count > capacity { grow(to: count + bytes.count) }
        // Keys, names and digits are a few bytes: a loop beats a call to memcpy.
        for (i, byte) in bytes.enumerated() { base[count + i] = byte }
        count += bytes.count
    }

    /// Reverses the bytes from `start` to the end (digits written least significant first).
    func reverse(from start: Int) {
        var digits = UnsafeMutableBufferPointer(start: base + start, count: count - start)
        digits.reverse()
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
