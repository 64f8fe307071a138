/// What the server reads of a request line before it decodes it, or instead: its `type` and its
/// `id`, found in one pass over the line's outer object that steps over every other value
/// without reading it — so a request can be refused on its type alone (a `define` the connection
/// may not make now) before its body is decoded, and a request of nothing but `type` and `id`
/// (a `ping`) needs no decoding at all.
///
/// The pass stops as soon as it knows `type`, `id` and that something else is there (a
/// `define` that starts with its `type` and `id`, as clients write it, costs the bytes up to its
/// third key); otherwise it goes to the end of the object. It is linear in what it reads and
/// allocates nothing but the two strings. Where it cannot tell for certain what the decoder
/// (``ClientMessage/parse(_:read:)``) would read — no outer object, no `type`, `type` or `id` twice
/// before it stops, a key spelt with an escape, a value that is not a plain string (no escapes)
/// or integer — it says nothing (nil) and the line is decoded. What it says agrees with the
/// decoder's reading of any line the decoder accepts (a property test holds it to that over
/// random lines); of a line the decoder refuses it may still say a type, and a request refused
/// on its type is then refused for that, not for its other faults.
public struct RequestHead: Hashable, Sendable {
    /// The outer object's `type`.
    public var type: String
    /// Its `id`, nil when it has none.
    public var id: RequestID?
    /// The line holds nothing but `type` and `id` in strict JSON (§2), each read whole: the
    /// request is exactly what the server's table of request types makes of this head.
    public var isWhole: Bool

    public init(type: String, id: RequestID?, isWhole: Bool) {
        self.type = type
        self.id = id
        self.isWhole = isWhole
    }

    /// The head of `line` (a request line without its newline), or nil when the pass cannot
    /// tell it for certain.
    public static func scan(_ line: UnsafeRawBufferPointer) -> RequestHead? {
        var scanner = Scanner(bytes: line)
        return scanner.head()
    }

    private struct Scanner {
        let bytes: UnsafeRawBufferPointer
        var at = 0

        private static let quote = UInt8(ascii: "\"")
        private static let backslash = UInt8(ascii: "\\")

        var current: UInt8? { at < bytes.count ? bytes[at] : nil }

        mutating func skipWhitespace() {
            while let b = current, b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { at += 1 }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard current == byte else { return false }
            at += 1
            return true
        }

        mutating func head() -> RequestHead? {
            skipWhitespace()
            guard take(UInt8(ascii: "{")) else { return nil }
            var type: String?
            var id: RequestID?
            var seenID = false
            var others = false
            skipWhitespace()
            if !take(UInt8(ascii: "}")) {
                while true {
                    guard let key = plainString(asciiOnly: false) else { return nil }
                    skipWhitespace()
                    guard take(UInt8(ascii: ":")) else { return nil }
                    skipWhitespace()
                    if key.elementsEqual("type".utf8) {
                        guard type == nil, let value = plainString(asciiOnly: true) else { return nil }
                        type = String(decoding: value, as: UTF8.self)
                    } else if key.elementsEqual("id".utf8) {
                        guard !seenID, let value = requestID() else { return nil }
                        (id, seenID) = (value, true)
                    } else {
                        others = true
                        // Everything a refusal needs is known; the rest is the decoder's.
                        if let type, seenID { return RequestHead(type: type, id: id, isWhole: false) }
                        guard skipValue() else { return nil }
                    }
                    if let type, seenID, others { return RequestHead(type: type, id: id, isWhole: false) }
                    skipWhitespace()
                    if take(UInt8(ascii: ",")) {
                        skipWhitespace()
                        continue
                    }
                    guard take(UInt8(ascii: "}")) else { return nil }
                    break
                }
            }
            skipWhitespace()
            guard at == bytes.count, let type else { return nil }
            return RequestHead(type: type, id: id, isWhole: !others)
        }

        /// A string without escapes or control characters, at its opening quote; its bytes
        /// (without the quotes). With `asciiOnly`, a byte beyond ASCII makes it unreadable; else
        /// its bytes must be UTF-8.
        mutating func plainString(asciiOnly: Bool) -> UnsafeRawBufferPointer.SubSequence? {
            guard take(Self.quote) else { return nil }
            let start = at
            var ascii = true
            while let b = current, b != Self.quote {
                guard b >= 0x20, b != Self.backslash else { return nil }
                if b >= 0x80 {
                    guard !asciiOnly else { return nil }
                    ascii = false
                }
                at += 1
            }
            guard current == Self.quote else { return nil }
            let value = bytes[start..<at]
            at += 1
            guard ascii || String(validating: value, as: UTF8.self) != nil else { return nil }
            return value
        }

        /// An `id`: a plain string, or an integer written without a fraction or an exponent that
        /// fits in 64 bits.
        mutating func requestID() -> RequestID? {
            if current == Self.quote {
                return plainString(asciiOnly: false).map { .string(String(decoding: $0, as: UTF8.self)) }
            }
            let start = at
            _ = take(UInt8(ascii: "-"))
            let digits = at
            while let b = current, b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") { at += 1 }
            let count = at - digits
            // One digit at least; no leading zero; nothing of a fraction or an exponent after.
            guard count > 0, count == 1 || bytes[digits] != UInt8(ascii: "0") else { return nil }
            if let b = current, b == UInt8(ascii: ".") || b == UInt8(ascii: "e") || b == UInt8(ascii: "E") {
                return nil
            }
            return Int64(String(decoding: bytes[start..<at], as: UTF8.self)).map(RequestID.number)
        }

        /// Steps over a value without reading it: a string, a nested object or array (brackets
        /// counted outside strings, not matched), or a scalar up to its delimiter. False when the
        /// line ends first.
        mutating func skipValue() -> Bool {
            guard let first = current else { return false }
            switch first {
            case Self.quote:
                return skipString()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                while let b = current {
                    switch b {
                    case Self.quote:
                        guard skipString() else { return false }
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["):
                        depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 {
                            at += 1
                            return true
                        }
                    default:
                        break
                    }
                    at += 1
                }
                return false
            default:
                let start = at
                while let b = current,
                    b != UInt8(ascii: ","), b != UInt8(ascii: "}"), b != UInt8(ascii: "]"),
                    b != 0x20, b != 0x09, b != 0x0A, b != 0x0D
                {
                    at += 1
                }
                return at > start
            }
        }

        /// Steps over a string at its opening quote, escapes included.
        mutating func skipString() -> Bool {
            at += 1
            while let b = current {
                at += b == Self.backslash ? 2 : 1
                if b == Self.quote { return true }
            }
            return false
        }
    }
}
