import EvdevValues
import TouchValues

/// An evemu recording or device description (`evemu-record` / `evemu-describe`, format 1.x).
///
/// Every variant in the corpus parses: descriptions as `N:/I:/P:/B:/A:` lines, or only as the
/// `#` comments of early evemu (`# Input device name: "…"`, `#   Event code 0 (ABS_X)`, `#  Min 0`);
/// `A:` lines with or without the resolution column; `B:` bitmasks spread over several lines;
/// event values zero-padded or written `-001`; timestamps near 0 or in epoch seconds; comment and
/// banner lines anywhere; CRLF line ends. Events are parsed lazily by ``EventReader`` so a replay
/// of a large recording does not hold a second copy of it.
public struct EvemuRecording: Sendable {
    /// The device the recording was made on.
    public var description: DeviceCapabilities
    /// The format version from the `# EVEMU 1.x` header, when there is one.
    public var version: String?
    /// The file's bytes.
    public let bytes: [UInt8]
    /// Byte offset and line number where the event section starts.
    let eventsOffset: Int
    let eventsLine: Int

    /// Longest accepted line: real lines are under 200 bytes; this bounds the work on garbage.
    static let maximumLineLength = 4096

    /// Parses the device description; events are read later through ``events()``.
    public init(bytes: [UInt8]) throws(LineError) {
        self.bytes = bytes
        var header = HeaderParser()
        var offset = 0
        var line = 1
        var eventsOffset = bytes.count
        var eventsLine = line
        while offset < bytes.count {
            let end = Self.lineEnd(bytes, from: offset)
            if end - offset > Self.maximumLineLength {
                throw LineError(line: line, "line longer than \(Self.maximumLineLength) bytes")
            }
            let text = Self.trimmedLine(bytes, offset, end)
            if text.starts(with: [UInt8(ascii: "E"), UInt8(ascii: ":")]) {
                eventsOffset = offset
                eventsLine = line
                break
            }
            try header.consume(text, line: line)
            offset = end + 1
            line += 1
        }
        self.eventsOffset = eventsOffset
        self.eventsLine = eventsLine
        version = header.version
        // Problems of the description as a whole are reported on the first event line, or on the
        // last line of a file without events.
        let reachedEnd = offset >= bytes.count
        description = try header.finish(line: reachedEnd ? max(line - 1, 1) : line)
    }

    /// Parses a file's text.
    public init(text: String) throws(LineError) {
        try self.init(bytes: Array(text.utf8))
    }

    /// A reader over the recording's events, from the first.
    public func events() -> EventReader {
        EventReader(bytes: bytes, offset: eventsOffset, line: eventsLine)
    }

    /// Every event at once (tests, small files).
    public func allEvents() throws(LineError) -> [InputEvent] {
        var reader = events()
        var result: [InputEvent] = []
        while let e = try reader.next() { result.append(e) }
        return result
    }

    static func lineEnd(_ bytes: [UInt8], from offset: Int) -> Int {
        var i = offset
        let n = bytes.count
        while i < n && bytes[i] != 0x0A { i += 1 }
        return i
    }

    static func trimmedLine(_ bytes: [UInt8], _ start: Int, _ end: Int) -> ArraySlice<UInt8> {
        var s = start
        var e = end
        while s < e && (bytes[s] == 0x20 || bytes[s] == 0x09) { s += 1 }
        while e > s && (bytes[e - 1] == 0x0D || bytes[e - 1] == 0x20 || bytes[e - 1] == 0x09) { e -= 1 }
        return bytes[s..<e]
    }

    /// Reads `E:` lines one at a time.
    public struct EventReader: Sendable {
        let bytes: [UInt8]
        var offset: Int
        /// The line number of the next line to read.
        public private(set) var line: Int
        var repeats = EventLineParser.Repeats()

        init(bytes: [UInt8], offset: Int, line: Int) {
            self.bytes = bytes
            self.offset = offset
            self.line = line
        }

        /// The next event, or nil at the end of the file.
        public mutating func next() throws(LineError) -> InputEvent? {
            let count = bytes.count
            while offset < count {
                let result = bytes.withUnsafeBufferPointer {
                    EventLineParser.parse($0, from: offset, repeats: &repeats)
                }
                switch result {
                case .event(let event, let next):
                    offset = next
                    line += 1
                    return event
                case .skip(let next):
                    offset = next
                    line += 1
                case .failure(let message):
                    throw LineError(line: line, message)
                }
            }
            return nil
        }
    }
}

/// The `E:` line parser, on raw bytes: this is the replay hot path.
enum EventLineParser {
    enum Result {
        case event(InputEvent, next: Int)
        case skip(next: Int)
        case failure(String)
    }

    @inline(__always) static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0D }

    @inline(__always) static func hexValue(_ c: UInt8) -> UInt32? {
        switch c {
        case 0x30...0x39: UInt32(c - 0x30)
        case 0x61...0x66: UInt32(c - 0x61 + 10)
        case 0x41...0x46: UInt32(c - 0x41 + 10)
        default: nil
        }
    }

    /// Parses the line starting at `start`: the form evemu-record writes by the short way
    /// (``parseRecorded(_:from:)``), anything else — other spacing, comments, errors — by the
    /// general one.
    @inline(__always)
    static func parse(_ b: UnsafeBufferPointer<UInt8>, from start: Int, repeats: inout Repeats) -> Result {
        if let (event, next) = parseRecorded(b, from: start, repeats: &repeats) { return .event(event, next: next) }
        return parseAny(b, from: start)
    }

    /// What the short path read before, kept for the lines that repeat it: evemu writes every
    /// event of a frame with the frame's timestamp, and the same few types and codes over and
    /// over. Where a line's bytes are those read before, so are their values.
    struct Repeats {
        /// The bytes from `E:` to the space after the timestamp, as two words (the second masked
        /// to the bytes it holds), when they are 16 or fewer; their count (0: nothing kept), and
        /// the timestamp they make.
        var stamp: (UInt64, UInt64) = (0, 0)
        var stampMask: UInt64 = 0
        var stampLength = 0
        var time: Int64 = 0
        /// Type and code fields read, `TTTT CCCC` (eight bytes as a word and the ninth) with their
        /// values, each in the place its type's last digit and its code's last two choose: the
        /// fields a panel sends (a slot, a tracking id, positions, a report) rarely share one.
        var fields = [KeptFields](repeating: KeptFields(), count: 32)
    }

    /// Type and code fields as ``Repeats`` keeps them.
    struct KeptFields {
        var word: UInt64 = 0
        var last: UInt8 = 0
        var isKept = false
        var type: UInt16 = 0
        var code: UInt16 = 0
    }

    /// Eight bytes at `i` as a word, the first lowest: the caller has checked that they are there.
    @inline(__always) private static func word(_ b: UnsafeBufferPointer<UInt8>, _ i: Int) -> UInt64 {
        UnsafeRawPointer(b.baseAddress! + i).loadUnaligned(as: UInt64.self)
    }

    /// The line exactly as evemu-record writes it, `E: <seconds>.<6 digits> <4 hex> <4 hex>
    /// <decimal>` and a newline (or the end of the file), with single spaces: read with one check
    /// a character, a third of the general path's instructions, and the timestamp and the type
    /// and code compared as words with those read before (`repeats`: the line before's timestamp,
    /// the fields of earlier lines) and taken from them when they are the same (the replay reads
    /// every line of a recording on every pass; docs/performance-history.md, "Frame path"). Nil for any
    /// other line, which ``parseAny(_:from:)`` then reads or reports; for a line both read, they
    /// read the same event (EventLineParserTests).
    static func parseRecorded(
        _ b: UnsafeBufferPointer<UInt8>, from start: Int, repeats: inout Repeats
    ) -> (InputEvent, next: Int)? {
        let n = b.count
        var i = start
        let time: Int64
        if repeats.stampLength > 0, start + 16 <= n, word(b, start) == repeats.stamp.0,
            word(b, start + 8) & repeats.stampMask == repeats.stamp.1
        {
            // The timestamp of the line before, byte for byte.
            time = repeats.time
            i += repeats.stampLength
        } else {
            guard i + 3 < n, b[i] == UInt8(ascii: "E"), b[i + 1] == UInt8(ascii: ":"), b[i + 2] == 0x20 else {
                return nil
            }
            i += 3
            var seconds: Int64 = 0
            let secondsStart = i
            while i < n, case let d = b[i] &- 0x30, d < 10, i - secondsStart < 12 {
                seconds = seconds &* 10 &+ Int64(d)
                i += 1
            }
            // The point, six digits, and a space.
            guard i > secondsStart, i + 8 < n, b[i] == UInt8(ascii: "."), b[i + 7] == 0x20,
                let micros = sixDigits(b, i + 1)
            else { return nil }
            i += 8
            time = seconds * 1_000_000 + micros
            let length = i - start
            if length <= 16 && start + 16 <= n {
                // At least 12 bytes: the second word holds 4 to 8 of them.
                let mask: UInt64 = length == 16 ? ~0 : (1 << UInt64(8 * (length - 8))) - 1
                repeats.stamp = (word(b, start), word(b, start + 8) & mask)
                repeats.stampMask = mask
                repeats.stampLength = length
                repeats.time = time
            } else {
                repeats.stampLength = 0
            }
        }
        // Type and code: four hex digits and a space each.
        guard i + 10 < n, b[i + 9] == 0x20 else { return nil }
        let fields = word(b, i)
        let last = b[i + 8]
        let digits = (fields >> 24 & 0xF) &+ 12 &* (fields >> 56 & 0xF) &+ 9 &* UInt64(last & 0xF)
        let place = Int(truncatingIfNeeded: digits & 31)
        let kept = repeats.fields[place]
        let type: UInt16
        let code: UInt16
        if kept.isKept && kept.word == fields && kept.last == last {
            // Read before, byte for byte.
            type = kept.type
            code = kept.code
        } else {
            guard b[i + 4] == 0x20, let t = hex4(b, i), let c = hex4(b, i + 5), t <= UInt32(EventCode.evMax),
                c <= UInt32(EventCode.maximumCode(ofType: UInt16(t)) ?? EventCode.keyMax)
            else { return nil }
            type = UInt16(t)
            code = UInt16(c)
            repeats.fields[place] = KeptFields(word: fields, last: last, isKept: true, type: type, code: code)
        }
        i += 10
        let negative = b[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        var value: Int64 = 0
        let valueStart = i
        while i < n, case let d = b[i] &- 0x30, d < 10, i - valueStart < 10 {
            value = value &* 10 &+ Int64(d)
            i += 1
        }
        if negative { value = -value }
        guard i > valueStart, i == n || b[i] == 0x0A, value >= Int64(Int32.min), value <= Int64(Int32.max) else {
            return nil
        }
        let event = InputEvent(time: Timestamp(microseconds: time), type: type, code: code, value: Int32(value))
        return (event, i + 1)
    }

    /// Four hex digits at `i`, either case.
    @inline(__always) private static func hex4(_ b: UnsafeBufferPointer<UInt8>, _ i: Int) -> UInt32? {
        var value: UInt32 = 0
        var bad: UInt8 = 0
        for k in 0..<4 {
            let c = b[i + k]
            let digit = c &- 0x30
            let letter = (c | 0x20) &- 0x61
            // 0–9, or a–f as 10–15; anything else marks the field bad.
            let isDigit = digit < 10
            bad |= isDigit || letter < 6 ? 0 : 1
            value = value << 4 | UInt32(isDigit ? digit : letter &+ 10) & 0xF
        }
        return bad == 0 ? value : nil
    }

    /// Six decimal digits at `i` (the fraction of a timestamp), read eight bytes at a time: the
    /// caller has checked that eight bytes are there.
    @inline(__always) private static func sixDigits(_ b: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int64? {
        // Little-endian: the first digit is the lowest byte. Two zero digits go in front.
        let word = UnsafeRawPointer(b.baseAddress! + i).loadUnaligned(as: UInt64.self) & 0xFFFF_FFFF_FFFF
        let ascii = word << 16 | 0x3030
        // Every byte 0x30…0x39: its high nibble 3, and still 3 after adding 6.
        guard ascii & 0xF0F0_F0F0_F0F0_F0F0 == 0x3030_3030_3030_3030,
            (ascii &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0 == 0x3030_3030_3030_3030
        else { return nil }
        // Eight digits to a number in three steps: pairs, fours, the whole.
        var v = ascii &- 0x3030_3030_3030_3030
        v = (v &* 10 &+ (v >> 8)) & 0x00FF_00FF_00FF_00FF
        v = (v &* 100 &+ (v >> 16)) & 0x0000_FFFF_0000_FFFF
        v = (v &* 10_000 &+ (v >> 32)) & 0x0000_0000_FFFF_FFFF
        return Int64(v)
    }

    /// Parses the line starting at `start`, in any form the format allows.
    static func parseAny(_ b: UnsafeBufferPointer<UInt8>, from start: Int) -> Result {
        let n = b.count
        var i = start
        while i < n && (b[i] == 0x20 || b[i] == 0x09) { i += 1 }
        if i >= n { return .skip(next: n) }
        let c = b[i]
        if c == 0x0A { return .skip(next: i + 1) }
        if c == 0x0D || c == UInt8(ascii: "#") {
            while i < n && b[i] != 0x0A { i += 1 }
            return .skip(next: i + 1)
        }
        guard c == UInt8(ascii: "E"), i + 1 < n, b[i + 1] == UInt8(ascii: ":") else {
            return .failure(
                "expected an event line 'E: <sec.usec> <type> <code> <value>' (the device description comes before the first event)"
            )
        }
        i += 2
        // Timestamp: seconds '.' fraction.
        while i < n && (b[i] == 0x20 || b[i] == 0x09) { i += 1 }
        var seconds: Int64 = 0
        var digits = 0
        while i < n, b[i] >= 0x30 && b[i] <= 0x39 {
            seconds = seconds * 10 + Int64(b[i] - 0x30)
            digits += 1
            i += 1
            if digits > 12 { return .failure("timestamp seconds have more than 12 digits") }
        }
        guard digits > 0 else { return .failure("expected a timestamp 'seconds.microseconds'") }
        var micros: Int64 = 0
        if i < n && b[i] == UInt8(ascii: ".") {
            i += 1
            var fractionDigits = 0
            while i < n, b[i] >= 0x30 && b[i] <= 0x39 {
                if fractionDigits < 6 { micros = micros * 10 + Int64(b[i] - 0x30) }
                fractionDigits += 1
                i += 1
                if fractionDigits > 9 { return .failure("timestamp fraction has more than 9 digits") }
            }
            guard fractionDigits > 0 else { return .failure("expected digits after the timestamp's '.'") }
            var scale = fractionDigits
            while scale < 6 {
                micros *= 10
                scale += 1
            }
        }
        // Type and code in hex.
        guard let (type, afterType) = hexField(b, i, maxDigits: 4, name: "type") else {
            return .failure("expected the event type in hex")
        }
        guard type <= UInt32(EventCode.evMax) else {
            return .failure("event type 0x\(String(type, radix: 16)) is above EV_MAX")
        }
        guard let (code, afterCode) = hexField(b, afterType, maxDigits: 4, name: "code") else {
            return .failure("expected the event code in hex")
        }
        guard code <= UInt32(EventCode.maximumCode(ofType: UInt16(type)) ?? EventCode.keyMax) else {
            return .failure(
                "event code 0x\(String(code, radix: 16)) is above the largest code of \(EventCode.typeName(UInt16(type)))"
            )
        }
        // Value: decimal, optionally signed, often zero-padded.
        i = afterCode
        guard i < n, isSpace(b[i]) else { return .failure("expected a space before the event value") }
        while i < n && (b[i] == 0x20 || b[i] == 0x09) { i += 1 }
        var negative = false
        if i < n && (b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: "+")) {
            negative = b[i] == UInt8(ascii: "-")
            i += 1
        }
        var value: Int64 = 0
        digits = 0
        while i < n, b[i] >= 0x30 && b[i] <= 0x39 {
            value = value * 10 + Int64(b[i] - 0x30)
            digits += 1
            i += 1
            if value > Int64(UInt32.max) + 1 { return .failure("event value out of 32-bit range") }
        }
        guard digits > 0 else { return .failure("expected the event value in decimal") }
        if negative { value = -value }
        guard value >= Int64(Int32.min) && value <= Int64(Int32.max) else {
            return .failure("event value \(value) out of 32-bit range")
        }
        // Then only spaces and an optional comment.
        while i < n && isSpace(b[i]) { i += 1 }
        if i < n && b[i] != 0x0A {
            guard b[i] == UInt8(ascii: "#") else { return .failure("unexpected text after the event value") }
            while i < n && b[i] != 0x0A { i += 1 }
        }
        let time = Timestamp(microseconds: seconds * 1_000_000 + micros)
        return .event(
            InputEvent(time: time, type: UInt16(type), code: UInt16(code), value: Int32(value)), next: i + 1)
    }

    @inline(__always) private static func hexField(
        _ b: UnsafeBufferPointer<UInt8>, _ start: Int, maxDigits: Int, name: StaticString
    ) -> (UInt32, Int)? {
        var i = start
        let n = b.count
        guard i < n, isSpace(b[i]) else { return nil }
        while i < n && (b[i] == 0x20 || b[i] == 0x09) { i += 1 }
        var value: UInt32 = 0
        var digits = 0
        while i < n, let d = hexValue(b[i]) {
            value = value << 4 | d
            digits += 1
            i += 1
            if digits > maxDigits { return nil }
        }
        return digits > 0 ? (value, i) : nil
    }
}

/// Collects the description part of an evemu file.
struct HeaderParser {
    var version: String?
    var name: String?
    var id: InputID?
    var propertyBytes: [UInt8] = []
    var propertyLine = 0
    var bitmaskBytes: [UInt16: [UInt8]] = [:]
    var bitmaskLine: [UInt16: Int] = [:]
    var absInfo: [UInt16: AbsInfo] = [:]
    var comments = CommentDescription()

    mutating func consume(_ text: ArraySlice<UInt8>, line: Int) throws(LineError) {
        guard let first = text.first else { return }
        if first == UInt8(ascii: "#") {
            comments.consume(String(decoding: text.dropFirst(), as: UTF8.self), version: &version)
            return
        }
        let bytes = Array(text)
        guard bytes.count >= 2, bytes[1] == UInt8(ascii: ":") else {
            throw LineError(line: line, "expected a description line (N:, I:, P:, B:, A:), a comment or an event")
        }
        let rest = String(decoding: bytes[2...], as: UTF8.self)
        let fields = rest.split(whereSeparator: { $0 == " " || $0 == "\t" })
        switch bytes[0] {
        case UInt8(ascii: "N"):
            guard name == nil else { throw LineError(line: line, "a second device name (N:)") }
            name = rest.trimmingSpaces()
        case UInt8(ascii: "I"):
            guard id == nil else { throw LineError(line: line, "a second device id (I:)") }
            let values = fields.map { UInt16($0, radix: 16) }
            guard values.count == 4, values.allSatisfy({ $0 != nil }) else {
                throw LineError(line: line, "I: needs four hex numbers: bus vendor product version")
            }
            id = InputID(bustype: values[0]!, vendor: values[1]!, product: values[2]!, version: values[3]!)
        case UInt8(ascii: "P"):
            propertyLine = line
            propertyBytes += try Self.hexBytes(fields, line: line, what: "P:")
            guard propertyBytes.count <= 64 else {
                throw LineError(line: line, "P: property mask longer than 64 bytes")
            }
        case UInt8(ascii: "B"):
            guard let typeField = fields.first, let type = UInt8(typeField, radix: 16) else {
                throw LineError(line: line, "B: needs an event type in hex, then mask bytes")
            }
            let mask = try Self.hexBytes(fields.dropFirst(), line: line, what: "B:")
            bitmaskBytes[UInt16(type), default: []] += mask
            bitmaskLine[UInt16(type)] = line
            guard bitmaskBytes[UInt16(type)]!.count <= 128 else {
                throw LineError(line: line, "B: mask for type 0x\(String(type, radix: 16)) longer than 128 bytes")
            }
        case UInt8(ascii: "A"):
            guard fields.count == 5 || fields.count == 6, let code = UInt16(fields[0], radix: 16) else {
                throw LineError(line: line, "A: needs an axis code in hex, then min max fuzz flat [resolution]")
            }
            guard code <= EventCode.absMax else {
                throw LineError(line: line, "A: axis 0x\(String(code, radix: 16)) is above ABS_MAX")
            }
            let numbers = fields.dropFirst().map { Int32($0) }
            guard numbers.allSatisfy({ $0 != nil }) else {
                throw LineError(line: line, "A: values must be decimal 32-bit integers")
            }
            let v = numbers.map { $0! }
            guard absInfo[code] == nil else {
                throw LineError(line: line, "a second A: line for axis 0x\(String(code, radix: 16))")
            }
            absInfo[code] = AbsInfo(
                minimum: v[0], maximum: v[1], fuzz: v[2], flat: v[3], resolution: v.count == 5 ? v[4] : 0)
        case UInt8(ascii: "L"), UInt8(ascii: "S"):
            // LED and switch states (evemu writes them for keyboards): nothing a touchscreen needs.
            break
        default:
            let prefix = String(decoding: bytes.prefix(2), as: UTF8.self)
            throw LineError(line: line, "unknown line type '\(prefix)'")
        }
    }

    static func hexBytes<S: Sequence>(_ fields: S, line: Int, what: String) throws(LineError) -> [UInt8]
    where S.Element == Substring {
        var result: [UInt8] = []
        for f in fields {
            guard f.count <= 2, let b = UInt8(f, radix: 16) else {
                throw LineError(line: line, "\(what) expects hex bytes, found '\(f.prefix(16))'")
            }
            result.append(b)
        }
        return result
    }

    /// The description, from the `N:/I:/P:/B:/A:` lines, or from the comments when the file has
    /// no such lines (early evemu).
    func finish(line: Int) throws(LineError) -> DeviceCapabilities {
        let hasLines = name != nil || id != nil || !bitmaskBytes.isEmpty || !absInfo.isEmpty
        if !hasLines {
            if let fromComments = comments.description() { return fromComments }
            throw LineError(
                line: line, "no device description: expected N:, I:, P:, B: and A: lines before the events")
        }
        var d = DeviceCapabilities(name: name ?? "", id: id ?? InputID())
        for (byteIndex, byte) in propertyBytes.enumerated() where byte != 0 {
            for bit in 0..<8 where byte & (1 << bit) != 0 {
                let property = UInt16(byteIndex * 8 + bit)
                guard property <= EventCode.propMax else {
                    throw LineError(line: propertyLine, "P: sets property \(property), above INPUT_PROP_MAX")
                }
                d.properties.insert(property)
            }
        }
        for (type, mask) in bitmaskBytes where type != EventCode.evSyn {
            // Types this module does not know (EV_PWR, EV_FF_STATUS) are skipped, not refused.
            guard let maximum = EventCode.maximumCode(ofType: type) else { continue }
            for (byteIndex, byte) in mask.enumerated() where byte != 0 {
                for bit in 0..<8 where byte & (1 << bit) != 0 {
                    let code = byteIndex * 8 + bit
                    guard code <= Int(maximum) else {
                        throw LineError(
                            line: bitmaskLine[type] ?? line,
                            "B: sets code 0x\(String(code, radix: 16)) of type \(EventCode.typeName(type)), above its maximum"
                        )
                    }
                    if type == EventCode.evAbs && absInfo[UInt16(code)] == nil {
                        // An axis without an A: line has no range; evemu always writes both.
                        continue
                    }
                    d.addCode(type, UInt16(code))
                }
            }
        }
        for (code, info) in absInfo { d.addAxis(code, info) }
        return d
    }
}

/// The description early evemu wrote only as comments (and later evemu still writes above the
/// machine lines):
/// ```
/// # Input device name: "N-Trig-MultiTouch-Virtual-Device"
/// # Input device ID: bus 0x03 vendor 0x1b96 product 0x01 version 0x110
/// #   Event type 3 (EV_ABS)
/// #     Event code 0 (ABS_X)
/// #       Min        0
/// # Properties:
/// #   Property  type 1 (INPUT_PROP_DIRECT)
/// ```
struct CommentDescription {
    var name: String?
    var id: InputID?
    var currentType: UInt16?
    var currentAxis: UInt16?
    var codes: [UInt16: Set<UInt16>] = [:]
    var absInfo: [UInt16: AbsInfo] = [:]
    var properties: Set<UInt16> = []
    var inProperties = false

    mutating func consume(_ comment: String, version: inout String?) {
        let text = comment.trimmingSpaces()
        if text.hasPrefix("EVEMU ") {
            version = String(text.dropFirst(6)).trimmingSpaces()
        } else if text.hasPrefix("Input device name:") {
            var value = text.dropFirst("Input device name:".count).trimmingSpaces()
            if value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 {
                value = String(value.dropFirst().dropLast())
            }
            name = value
        } else if text.hasPrefix("Input device ID:") {
            let words = text.split(separator: " ")
            func field(_ key: String) -> UInt16? {
                guard let i = words.firstIndex(where: { $0 == key }), i + 1 < words.count else { return nil }
                let w = words[i + 1]
                return w.hasPrefix("0x") ? UInt16(w.dropFirst(2), radix: 16) : UInt16(w, radix: 16)
            }
            id = InputID(
                bustype: field("bus") ?? 0, vendor: field("vendor") ?? 0, product: field("product") ?? 0,
                version: field("version") ?? 0)
        } else if text.hasPrefix("Properties:") {
            inProperties = true
            currentAxis = nil
        } else if text.hasPrefix("Property") {
            if inProperties, let number = Self.number(after: "type", in: text), number <= Int(EventCode.propMax) {
                properties.insert(UInt16(number))
            }
        } else if text.hasPrefix("Event type") {
            inProperties = false
            currentAxis = nil
            currentType = Self.number(after: "type", in: text).flatMap { UInt16(exactly: $0) }
        } else if text.hasPrefix("Event code"), let type = currentType {
            guard let number = Self.number(after: "code", in: text), let code = UInt16(exactly: number),
                let maximum = EventCode.maximumCode(ofType: type), code <= maximum, type != EventCode.evSyn
            else {
                currentAxis = nil
                return
            }
            codes[type, default: []].insert(code)
            if type == EventCode.evAbs {
                currentAxis = code
                absInfo[code] = AbsInfo(minimum: 0, maximum: 0)
            } else {
                currentAxis = nil
            }
        } else if let axis = currentAxis {
            let words = text.split(separator: " ")
            guard words.count == 2, let value = Int32(words[1]) else { return }
            switch words[0] {
            case "Value": absInfo[axis]?.value = value
            case "Min": absInfo[axis]?.minimum = value
            case "Max": absInfo[axis]?.maximum = value
            case "Fuzz": absInfo[axis]?.fuzz = value
            case "Flat": absInfo[axis]?.flat = value
            case "Resolution": absInfo[axis]?.resolution = value
            default: break
            }
        }
    }

    static func number(after key: String, in text: String) -> Int? {
        let words = text.split(separator: " ")
        guard let i = words.firstIndex(where: { $0 == key }), i + 1 < words.count else { return nil }
        return Int(words[i + 1])
    }

    func description() -> DeviceCapabilities? {
        guard let name else { return nil }
        var d = DeviceCapabilities(name: name, id: id ?? InputID(), properties: properties)
        for (type, set) in codes where type != EventCode.evAbs {
            for code in set { d.addCode(type, code) }
        }
        for (code, info) in absInfo { d.addAxis(code, info) }
        return d
    }
}

extension StringProtocol {
    /// Without the spaces, tabs and line ends at either end (a recording's fields, a udev
    /// attribute, a sysfs file's contents).
    func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
        var s = Substring(self)
        while let f = s.first, isSpace(f) { s = s.dropFirst() }
        while let l = s.last, isSpace(l) { s = s.dropLast() }
        return String(s)
    }
}
