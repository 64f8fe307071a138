import GestureEngine

/// RFC 8259 checked to the letter before a request is decoded.
///
/// Foundation's `JSONDecoder` checks a document's structure up front but a string's contents
/// and a number's value only when they are decoded, and it keeps one of two equal keys
/// silently. So a raw control character or a lone surrogate in a string surfaced as some other
/// error (or none, in a value nobody decoded), `{"type":"ping","type":"dance"}` was a `ping`,
/// and `1e309` deep inside a `define` leaked a Swift error's name. This pass reads every byte
/// once and says precisely what is wrong; it is written here because no library at hand checks
/// JSON strictly (duplicate names included) — the decoders all accept and then resolve them.
///
/// Limits chosen by the protocol (RFC 8259 §9 lets a parser set them): nesting at most
/// ``maxDepth``; numbers must fit a 64-bit float (`1e309` does not).
enum StrictJSON {
    static let maxDepth = 128

    enum Problem: Error, Equatable {
        /// Not JSON: `invalid-json`.
        case syntax(String, offset: Int)
        /// JSON, but ambiguous or beyond the protocol's limits: `invalid-message` at `path`.
        case value(String, path: [SpecPathComponent])
    }

    /// The first problem of `line` (UTF-8 already checked), or nil for strict JSON.
    static func check(_ line: some Collection<UInt8>) -> Problem? {
        var reader = Reader(bytes: Array(line))
        do throws(Problem) {
            reader.skipWhitespace()
            try reader.value(depth: 0)
            reader.skipWhitespace()
            guard reader.at == reader.bytes.count else {
                throw reader.syntax("unexpected text after the JSON value")
            }
            return nil
        } catch {
            return error
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        var at = 0
        /// Where the value being read sits, for value problems.
        var path: [SpecPathComponent] = []

        func syntax(_ message: String) -> Problem { .syntax(message, offset: at) }

        var current: UInt8? { at < bytes.count ? bytes[at] : nil }

        mutating func skipWhitespace() {
            while let b = current, b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { at += 1 }
        }

        mutating func expect(_ byte: UInt8, _ what: String) throws(Problem) {
            guard current == byte else {
                throw syntax(current == nil ? "unexpected end of the line" : "expected \(what)")
            }
            at += 1
        }

        mutating func value(depth: Int) throws(Problem) {
            guard let b = current else { throw syntax("unexpected end of the line") }
            switch b {
            case UInt8(ascii: "{"): try object(depth: depth + 1)
            case UInt8(ascii: "["): try array(depth: depth + 1)
            case UInt8(ascii: "\""): _ = try string()
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
            default: throw syntax("expected a value")
            }
        }

        mutating func literal(_ word: String) throws(Problem) {
            for byte in word.utf8 { try expect(byte, "'\(word)'") }
        }

        mutating func object(depth: Int) throws(Problem) {
            guard depth <= StrictJSON.maxDepth else { throw syntax("nested deeper than \(StrictJSON.maxDepth) levels") }
            at += 1
            skipWhitespace()
            if current == UInt8(ascii: "}") {
                at += 1
                return
            }
            var names: Set<String> = []
            while true {
                guard current == UInt8(ascii: "\"") else { throw syntax("expected a name in double quotes") }
                let name = try string()
                guard names.insert(name).inserted else {
                    throw .value("duplicate key '\(name)' in this object", path: path + [.key(name)])
                }
                skipWhitespace()
                try expect(UInt8(ascii: ":"), "':'")
                skipWhitespace()
                path.append(.key(name))
                try value(depth: depth)
                path.removeLast()
                skipWhitespace()
                if current == UInt8(ascii: ",") {
                    at += 1
                    skipWhitespace()
                    continue
                }
                try expect(UInt8(ascii: "}"), "',' or '}'")
                return
            }
        }

        mutating func array(depth: Int) throws(Problem) {
            guard depth <= StrictJSON.maxDepth else { throw syntax("nested deeper than \(StrictJSON.maxDepth) levels") }
            at += 1
            skipWhitespace()
            if current == UInt8(ascii: "]") {
                at += 1
                return
            }
            var index = 0
            while true {
                path.append(.index(index))
                try value(depth: depth)
                path.removeLast()
                index += 1
                skipWhitespace()
                if current == UInt8(ascii: ",") {
                    at += 1
                    skipWhitespace()
                    continue
                }
                try expect(UInt8(ascii: "]"), "',' or ']'")
                return
            }
        }

        /// Reads a string (at its opening quote) and returns its value.
        mutating func string() throws(Problem) -> String {
            at += 1
            var value: [UInt8] = []
            while true {
                guard let b = current else { throw syntax("a string is not closed") }
                switch b {
                case UInt8(ascii: "\""):
                    at += 1
                    return String(decoding: value, as: UTF8.self)
                case 0x00..<0x20:
                    throw syntax("a raw control character (U+\(hex(b, digits: 4))) in a string; write it as an escape")
                case UInt8(ascii: "\\"):
                    at += 1
                    try escape(into: &value)
                default:
                    value.append(b)
                    at += 1
                }
            }
        }

        /// One escape (after its backslash), appended to `value` as UTF-8.
        mutating func escape(into value: inout [UInt8]) throws(Problem) {
            guard let b = current else { throw syntax("a string is not closed") }
            at += 1
            switch b {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): value.append(b)
            case UInt8(ascii: "b"): value.append(0x08)
            case UInt8(ascii: "f"): value.append(0x0C)
            case UInt8(ascii: "n"): value.append(0x0A)
            case UInt8(ascii: "r"): value.append(0x0D)
            case UInt8(ascii: "t"): value.append(0x09)
            case UInt8(ascii: "u"):
                let unit = try codeUnit()
                let scalar: Unicode.Scalar?
                switch unit {
                case 0xD800...0xDBFF:
                    guard current == UInt8(ascii: "\\"), at + 1 < bytes.count, bytes[at + 1] == UInt8(ascii: "u") else {
                        throw syntax(
                            "a lone surrogate \\u\(hex(unit, digits: 4)) (a high surrogate needs a low one after it)")
                    }
                    at += 2
                    let low = try codeUnit()
                    guard (0xDC00...0xDFFF).contains(low) else {
                        throw syntax(
                            "a lone surrogate \\u\(hex(unit, digits: 4)) (followed by \\u\(hex(low, digits: 4)))")
                    }
                    scalar = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
                case 0xDC00...0xDFFF:
                    throw syntax("a lone surrogate \\u\(hex(unit, digits: 4)) (a low surrogate without a high one)")
                default:
                    scalar = Unicode.Scalar(unit)
                }
                guard let scalar else { throw syntax("an invalid \\u escape") }
                value.append(contentsOf: Array(String(Character(scalar)).utf8))
            default:
                at -= 1
                throw syntax("an invalid escape '\\\(String(UnicodeScalar(b)))' in a string")
            }
        }

        /// Four hex digits.
        mutating func codeUnit() throws(Problem) -> UInt32 {
            var unit: UInt32 = 0
            for _ in 0..<4 {
                guard let b = current, let digit = hexDigit(b) else {
                    throw syntax("expected four hex digits after \\u")
                }
                unit = unit << 4 | digit
                at += 1
            }
            return unit
        }

        mutating func number() throws(Problem) {
            let start = at
            if current == UInt8(ascii: "-") { at += 1 }
            if current == UInt8(ascii: "0") {
                at += 1
            } else {
                guard digits() > 0 else { throw syntax("expected a digit") }
            }
            if current == UInt8(ascii: ".") {
                at += 1
                guard digits() > 0 else { throw syntax("expected a digit after the decimal point") }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                at += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { at += 1 }
                guard digits() > 0 else { throw syntax("expected a digit in the exponent") }
            }
            let text = String(decoding: bytes[start..<at], as: UTF8.self)
            guard let number = Double(text), number.isFinite else {
                throw .value("the number \(text) is out of range (at most ±1.8e308)", path: path)
            }
        }

        /// Skips decimal digits; how many.
        mutating func digits() -> Int {
            let start = at
            while let b = current, b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") { at += 1 }
            return at - start
        }

        func hexDigit(_ b: UInt8) -> UInt32? {
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(b - UInt8(ascii: "A") + 10)
            default: nil
            }
        }

        func hex(_ value: some BinaryInteger, digits: Int) -> String {
            let text = String(value, radix: 16, uppercase: true)
            return String(repeating: "0", count: max(0, digits - text.count)) + text
        }
    }
}
