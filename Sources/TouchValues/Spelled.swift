/// A value written as one of a fixed set of words (a kind, a direction, an edge, a tool): an
/// unknown word is an error that lists the words, where Swift's default for string enums would
/// say "Cannot initialize GestureKind from invalid String value wave".
public protocol Spelled: RawRepresentable<String>, CaseIterable, Decodable {
    /// What the words name, for messages: "kind", "direction".
    static var spelledAs: String { get }
}

extension Spelled {
    /// Decodes one of the words. (More specific than the standard library's `init(from:)` for
    /// string enums, so it is the one the conforming types use.)
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let word = try container.decode(String.self)
        guard let value = Self(rawValue: word) else {
            let words = Self.allCases.map(\.rawValue).joined(separator: ", ")
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "unknown \(Self.spelledAs) '\(word)'"
                    + NearestWord.hint(for: word, among: Self.allCases.map(\.rawValue))
                    + " (expected one of: \(words))")
        }
        self = value
    }
}

extension ToolType: Spelled {
    public static var spelledAs: String { "tool" }
}
