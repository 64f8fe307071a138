/// Where in a document a decoding problem is: the node a coding path names, and the position a
/// `DecodingError` raised while decoding the document points at. Shared by every file the project
/// reads (the daemon's configuration, the actions file), so their errors point alike.
extension YAMLNode {
    /// The node `path` names under this one and, for a mapping entry, its key. Stops at the deepest
    /// node that exists, which is where a missing piece belongs.
    public func resolve(_ path: [any CodingKey]) -> (node: YAMLNode, key: YAMLNode?) {
        var node = self
        var key: YAMLNode?
        for component in path {
            if let pair = node.mapping?.first(where: { $0.key.scalar?.text == component.stringValue }) {
                node = pair.value
                key = pair.key
            } else if let items = node.sequence, let index = component.intValue, items.indices.contains(index) {
                node = items[index]
                key = nil
            } else {
                break
            }
        }
        return (node, key)
    }

    /// The position and message of an error raised while decoding this document: the decoder's own
    /// (it knows the node), or a definition's own check, found by following its coding path. An
    /// unknown key, or a key written without a value, points at the key; an `expected …` message
    /// says what was found.
    public func locate(_ error: DecodingError) -> YAMLError {
        let context: DecodingError.Context
        switch error {
        case .keyNotFound(_, let c), .typeMismatch(_, let c), .valueNotFound(_, let c), .dataCorrupted(let c):
            context = c
        @unknown default:
            return YAMLError("\(error)", at: mark)
        }
        if let yaml = context.underlyingError as? YAMLError { return yaml }
        let target = resolve(context.codingPath)
        var message = context.debugDescription
        if message.hasPrefix("expected"), let scalar = target.node.scalar {
            message += " (found '\(scalar.text)')"
        }
        let pointsAtKey =
            message.hasPrefix("unknown key") || target.node.scalar.map { $0.isNull && $0.text.isEmpty } == true
        return YAMLError(message, at: pointsAtKey ? (target.key ?? target.node).mark : target.node.mark)
    }
}

extension YAMLMark {
    /// Where the first byte that is not UTF-8 is: just after the longest valid prefix.
    public init(ofFirstInvalidUTF8In bytes: some Sequence<UInt8>) {
        var mark = YAMLMark(line: 1, column: 1)
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while case .scalarValue(let scalar) = decoder.decode(&iterator) {
            if scalar == "\n" {
                mark = YAMLMark(line: mark.line + 1, column: 1)
            } else {
                mark.column += 1
            }
        }
        self = mark
    }
}
