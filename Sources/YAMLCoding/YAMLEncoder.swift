/// Encodes `Encodable` values into a YAML node tree (``YAMLNode/emitted()`` writes it out).
///
/// Keys stay in the order they are encoded, and containers asked for twice on one encoder (a type
/// that encodes its common keys and then lets a part encode its own into the same mapping) share
/// one mapping. Numbers are written plainly (`3.0`, `0.1`, `.inf`); strings that would read back
/// as something else are quoted. The nodes carry no position (1:1).
public struct YAMLEncoder {
    public init() {}

    public func encode<T: Encodable>(_ value: T) throws -> YAMLNode {
        let root = Slot()
        try NodeEncoder(slot: root, codingPath: []).encodeValue(value)
        return root.node
    }
}

/// A node under construction; containers keep references to their children's slots.
private final class Slot {
    enum Content {
        case empty
        case scalar(YAMLScalar)
        case sequence([Slot])
        case mapping([(key: String, slot: Slot)])
    }

    var content = Content.empty

    var node: YAMLNode {
        let mark = YAMLMark(line: 1, column: 1)
        switch content {
        case .empty: return YAMLNode(.scalar(YAMLScalar("")), at: mark)
        case .scalar(let s): return YAMLNode(.scalar(s), at: mark)
        case .sequence(let items): return YAMLNode(.sequence(items.map(\.node)), at: mark)
        case .mapping(let pairs):
            return YAMLNode(
                .mapping(pairs.map { YAMLPair(key: YAMLNode(.scalar(Self.string($0.key)), at: mark), value: $0.slot.node) }),
                at: mark)
        }
    }

    static func string(_ text: String) -> YAMLScalar {
        YAMLScalar(text, style: YAMLScalar.plainTextIsNotAString(text) ? .singleQuoted : .plain)
    }

    /// The slot for `key` in this mapping (made a mapping if still empty), replacing an earlier value.
    func child(forKey key: String) -> Slot {
        var pairs: [(key: String, slot: Slot)] = []
        if case .mapping(let existing) = content { pairs = existing }
        let slot = Slot()
        if let index = pairs.firstIndex(where: { $0.key == key }) {
            pairs[index].slot = slot
        } else {
            pairs.append((key, slot))
        }
        content = .mapping(pairs)
        return slot
    }

    func appendItem() -> Slot {
        var items: [Slot] = []
        if case .sequence(let existing) = content { items = existing }
        let slot = Slot()
        items.append(slot)
        content = .sequence(items)
        return slot
    }
}

private struct NodeEncoder: Encoder, SingleValueEncodingContainer {
    let slot: Slot
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .empty = slot.content { slot.content = .mapping([]) }
        return KeyedEncodingContainer(KeyedContainer<Key>(slot: slot, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .empty = slot.content { slot.content = .sequence([]) }
        return UnkeyedContainer(slot: slot, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    func encodeNil() { slot.content = .scalar(YAMLScalar("null")) }

    func encode<T: Encodable>(_ value: T) throws { try encodeValue(value) }

    func encodeValue<T: Encodable>(_ value: T) throws {
        switch value {
        case let text as String: slot.content = .scalar(Slot.string(text))
        case let flag as Bool: slot.content = .scalar(YAMLScalar(flag ? "true" : "false"))
        case let number as Double: slot.content = .scalar(YAMLScalar(Self.text(number)))
        case let number as Float: slot.content = .scalar(YAMLScalar(Self.text(Double(number))))
        case let integer as any FixedWidthInteger: slot.content = .scalar(YAMLScalar(String(describing: integer)))
        default: try value.encode(to: self)
        }
    }

    private static func text(_ number: Double) -> String {
        if number.isNaN { return ".nan" }
        if number.isInfinite { return number < 0 ? "-.inf" : ".inf" }
        return number.description
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let slot: Slot
    let codingPath: [any CodingKey]

    private func encoder(_ key: Key) -> NodeEncoder {
        NodeEncoder(slot: slot.child(forKey: key.stringValue), codingPath: codingPath + [key])
    }

    mutating func encodeNil(forKey key: Key) { encoder(key).encodeNil() }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try encoder(key).encodeValue(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        encoder(key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder(key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { NodeEncoder(slot: slot, codingPath: codingPath) }

    mutating func superEncoder(forKey key: Key) -> any Encoder { encoder(key) }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let slot: Slot
    let codingPath: [any CodingKey]
    private(set) var count = 0

    init(slot: Slot, codingPath: [any CodingKey]) {
        self.slot = slot
        self.codingPath = codingPath
    }

    private mutating func encoder() -> NodeEncoder {
        defer { count += 1 }
        return NodeEncoder(slot: slot.appendItem(), codingPath: codingPath + [IndexKey(intValue: count)])
    }

    mutating func encodeNil() { encoder().encodeNil() }

    mutating func encode<T: Encodable>(_ value: T) throws { try encoder().encodeValue(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey>
    {
        encoder().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { encoder().unkeyedContainer() }

    mutating func superEncoder() -> any Encoder { encoder() }
}
