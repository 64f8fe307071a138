/// A position in a YAML text, 1-based, as editors count: the line, and the character (Unicode
/// scalar) within it.
public struct YAMLMark: Hashable, Sendable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    /// The file the node was written in, when a document is merged from several
    /// (``YAMLDropIns``); nil: the one being read.
    public var file: String?

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public var description: String { "\(line):\(column)" }

    /// The position just after `text`, counting line breaks as YAML (and libyaml) does: `\n`,
    /// `\r\n`, a lone `\r`, and U+0085, U+2028, U+2029.
    public init(after text: String) {
        var mark = YAMLMark(line: 1, column: 1)
        var afterCR = false
        for scalar in text.unicodeScalars {
            defer { afterCR = scalar == "\r" }
            if scalar == "\n" && afterCR { continue }
            if Self.lineBreaks.contains(scalar) {
                mark = YAMLMark(line: mark.line + 1, column: 1)
            } else {
                mark.column += 1
            }
        }
        self = mark
    }

    static let lineBreaks: Set<Unicode.Scalar> = ["\n", "\r", "\u{85}", "\u{2028}", "\u{2029}"]
}

/// A problem in a YAML text (syntax, structure) or in decoding it, with where it is.
public struct YAMLError: Error, Hashable, Sendable, CustomStringConvertible {
    public var mark: YAMLMark
    public var message: String

    public init(_ message: String, at mark: YAMLMark) {
        self.mark = mark
        self.message = message
    }

    public var description: String { "\(mark): \(message)" }
}

/// One node of a composed YAML document: aliases are resolved (an alias is the node its anchor
/// names), merge keys (`<<`) are applied, and every node keeps the position it was written at.
public struct YAMLNode: Sendable {
    public enum Content: Sendable {
        case scalar(YAMLScalar)
        case sequence([YAMLNode])
        case mapping([YAMLPair])
    }

    public var content: Content
    /// Where the node starts (for an alias: where its anchor's node starts).
    public var mark: YAMLMark
    /// Nodes in this subtree with aliases expanded; bounds what aliases can multiply.
    var size: Int

    public init(_ content: Content, at mark: YAMLMark) {
        self.content = content
        self.mark = mark
        switch content {
        case .scalar: size = 1
        case .sequence(let items): size = items.reduce(1) { $0 + $1.size }
        case .mapping(let pairs): size = pairs.reduce(1) { $0 + $1.key.size + $1.value.size }
        }
    }

    public var scalar: YAMLScalar? {
        if case .scalar(let s) = content { s } else { nil }
    }

    public var sequence: [YAMLNode]? {
        if case .sequence(let items) = content { items } else { nil }
    }

    public var mapping: [YAMLPair]? {
        if case .mapping(let pairs) = content { pairs } else { nil }
    }

    /// What the node is, for messages: `'text'`, `nothing` (null), `a list`, `a mapping`.
    public var summary: String {
        switch content {
        case .scalar(let s): s.isNull ? "nothing" : "'\(s.text)'"
        case .sequence: "a list"
        case .mapping: "a mapping"
        }
    }
}

/// A key and its value in a mapping, in the order they were written.
public struct YAMLPair: Sendable {
    public var key: YAMLNode
    public var value: YAMLNode

    public init(key: YAMLNode, value: YAMLNode) {
        self.key = key
        self.value = value
    }
}

/// A scalar's text and how it was written, which decides what it can be read as (YAML 1.1, as
/// libyaml and PyYAML read it): a plain `0660` is a number, a quoted `'0660'` only a string.
public struct YAMLScalar: Hashable, Sendable {
    public enum Style: Hashable, Sendable {
        case plain, singleQuoted, doubleQuoted, literal, folded
    }

    /// The standard tags a scalar may carry (`!!str 0660`); other tags are refused when parsing.
    public enum Tag: String, Hashable, Sendable, CaseIterable {
        case str, int, float, bool, null
    }

    public var text: String
    public var style: Style
    public var tag: Tag?

    public init(_ text: String, style: Style = .plain, tag: Tag? = nil) {
        self.text = text
        self.style = style
        self.tag = tag
    }

    /// A plain scalar, or one whose tag asks for this type: what YAML lets be a non-string.
    private func resolves(as tags: Tag...) -> Bool {
        if let tag { return tags.contains(tag) }
        return style == .plain
    }

    /// `~`, `null`, `Null`, `NULL`, or nothing at all (`key:`), unquoted; or `!!null`.
    public var isNull: Bool {
        resolves(as: .null) && (tag == .null || ["", "~", "null", "Null", "NULL"].contains(text))
    }

    /// `true`/`false`, `yes`/`no`, `on`/`off` in any letter case.
    public var bool: Bool? {
        guard tag != .str else { return nil }
        switch text.lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default: return nil
        }
    }

    /// An integer: decimal, `0x1f`, `0o17` or `017` (octal, as YAML 1.1 reads a leading zero),
    /// `0b101`, with an optional sign and `_` separators.
    public func integer<T: FixedWidthInteger>(_: T.Type = T.self) -> T? {
        guard resolves(as: .int) else { return nil }
        let digits = text.filter { $0 != "_" }
        let negative = digits.hasPrefix("-")
        let unsigned = digits.hasPrefix("-") || digits.hasPrefix("+") ? digits.dropFirst() : Substring(digits)
        guard !unsigned.isEmpty, unsigned.first?.isASCII == true, unsigned.first?.isNumber == true else { return nil }
        let sign = negative ? "-" : ""
        for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] where unsigned.hasPrefix(prefix) {
            return T(sign + unsigned.dropFirst(prefix.count), radix: radix)
        }
        if unsigned.count > 1, unsigned.hasPrefix("0") { return T(sign + unsigned.dropFirst(), radix: 8) }
        return T(sign + unsigned, radix: 10)
    }

    /// A number: an integer or decimal form, `1e3`, `.inf`, `-.inf`, `.nan`, with `_` separators.
    public var double: Double? {
        guard resolves(as: .float, .int) else { return nil }
        switch text.lowercased() {
        case ".inf", "+.inf": return .infinity
        case "-.inf": return -.infinity
        case ".nan": return .nan
        default: return Double(text.filter { $0 != "_" })
        }
    }

    /// Whether this text, written plain, would be read as something other than a string (so a
    /// string with it must be quoted).
    public static func plainTextIsNotAString(_ text: String) -> Bool {
        let plain = YAMLScalar(text)
        return plain.isNull || plain.bool != nil || plain.integer(Int.self) != nil || plain.double != nil
    }
}
