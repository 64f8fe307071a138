/// Decodes `Decodable` values from a composed YAML node tree, so definitions written once for
/// `Codable` (and JSON) read YAML too.
///
/// Errors are `DecodingError`s with the coding path as usual and, for the ones this decoder
/// raises itself, a ``YAMLError`` as the underlying error: it says where the offending node is and
/// what was expected in words (`expected an integer, found 'two'`).
public struct YAMLDecoder {
    public init() {}

    public func decode<T: Decodable>(_ type: T.Type, from node: YAMLNode) throws -> T {
        try NodeDecoder(node: node, codingPath: []).decodeValue(type)
    }
}

/// What a type is, in the words of an error message.
private func expectation(_ type: Any.Type) -> String {
    switch type {
    case is any FixedWidthInteger.Type: return "an integer"
    case is any BinaryFloatingPoint.Type: return "a number"
    case is Bool.Type: return "true or false"
    case is String.Type: return "a string"
    default: return "a value"
    }
}

private struct NodeDecoder: Decoder {
    let node: YAMLNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func mismatch(_ type: Any.Type, expected: String) -> DecodingError {
        let error = YAMLError("expected \(expected), found \(node.summary)", at: node.mark)
        let context = DecodingError.Context(
            codingPath: codingPath, debugDescription: error.message, underlyingError: error)
        return node.scalar?.isNull == true ? .valueNotFound(type, context) : .typeMismatch(type, context)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard let pairs = node.mapping else { throw mismatch([String: Any].self, expected: "a mapping") }
        for pair in pairs where pair.key.scalar == nil {
            let error = YAMLError("expected a key that is a string, found \(pair.key.summary)", at: pair.key.mark)
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath, debugDescription: error.message, underlyingError: error))
        }
        return KeyedDecodingContainer(KeyedContainer<Key>(decoder: self, pairs: pairs))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard let items = node.sequence else { throw mismatch([Any].self, expected: "a list") }
        return UnkeyedContainer(decoder: self, items: items)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func child(_ node: YAMLNode, _ key: any CodingKey) -> NodeDecoder {
        NodeDecoder(node: node, codingPath: codingPath + [key])
    }

    /// Scalars are read here; everything else through its own `init(from:)`.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        switch type {
        case is String.Type: return try scalar(type) { $0.text }
        case is Bool.Type: return try scalar(type) { $0.bool }
        case is Double.Type: return try scalar(type) { $0.double }
        case is Float.Type: return try scalar(type) { $0.double.map { Float($0) } }
        case let integer as any FixedWidthInteger.Type: return try decodeInteger(integer) as! T
        default: return try T(from: self)
        }
    }

    private func decodeInteger<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        try scalar(type) { $0.integer(I.self) }
    }

    private func scalar<T>(_ type: T.Type, _ convert: (YAMLScalar) -> Any?) throws -> T {
        guard let scalar = node.scalar, !(scalar.isNull && !(T.self is String.Type)), let value = convert(scalar) as? T
        else {
            throw mismatch(type, expected: expectation(type))
        }
        return value
    }
}

extension NodeDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool { node.scalar?.isNull == true }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeValue(type) }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: NodeDecoder
    let pairs: [YAMLPair]
    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] { pairs.compactMap { $0.key.scalar.flatMap { Key(stringValue: $0.text) } } }

    func contains(_ key: Key) -> Bool { value(key) != nil }

    private func value(_ key: Key) -> YAMLNode? {
        pairs.first { $0.key.scalar?.text == key.stringValue }?.value
    }

    private func child(_ key: Key) throws -> NodeDecoder {
        guard let node = value(key) else {
            let error = YAMLError("missing key '\(key.stringValue)'", at: decoder.node.mark)
            throw DecodingError.keyNotFound(
                key, .init(codingPath: codingPath, debugDescription: error.message, underlyingError: error))
        }
        return decoder.child(node, key)
    }

    func decodeNil(forKey key: Key) throws -> Bool { try child(key).decodeNil() }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try child(key).decodeValue(type) }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try child(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try child(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { decoder }

    func superDecoder(forKey key: Key) throws -> any Decoder { try child(key) }
}

/// A list position as a coding key.
struct IndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String { String(intValue ?? 0) }
    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: NodeDecoder
    let items: [YAMLNode]
    var currentIndex = 0
    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    private mutating func next() throws -> NodeDecoder {
        guard !isAtEnd else {
            let error = YAMLError("the list has no more items", at: decoder.node.mark)
            throw DecodingError.valueNotFound(
                Any.self, .init(codingPath: codingPath, debugDescription: error.message, underlyingError: error))
        }
        defer { currentIndex += 1 }
        return decoder.child(items[currentIndex], IndexKey(intValue: currentIndex))
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, items[currentIndex].scalar?.isNull == true else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().decodeValue(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try next().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }

    mutating func superDecoder() throws -> any Decoder { try next() }
}

