// Strict decoding helpers shared by every definition type (the engine's specs here, the daemon's
// configuration file): unknown keys are errors, not ignored; absent keys take documented
// defaults; out-of-range values are errors at their key.

/// A coding key for any string, used to list the keys a mapping really has.
public struct AnyCodingKey: CodingKey {
    public var stringValue: String
    public var intValue: Int?
    public init(stringValue: String) { self.stringValue = stringValue }
    public init?(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }
}

extension Decoder {
    /// Throws for the first key of this mapping that is not in `allowed`; the error's coding path
    /// ends at the offending key so a YAML loader can point at it.
    public func rejectUnknownKeys(allowed: Set<String>, in what: String) throws {
        let container = try container(keyedBy: AnyCodingKey.self)
        for key in container.allKeys where !allowed.contains(key.stringValue) {
            let expected = allowed.sorted().joined(separator: ", ")
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: codingPath + [key],
                    debugDescription: "unknown key '\(key.stringValue)' in \(what)"
                        + NearestWord.hint(for: key.stringValue, among: allowed.sorted())
                        + " (expected one of: \(expected))"
                )
            )
        }
    }

    /// The mapping's container, once ``rejectUnknownKeys(allowed:in:)`` found no key but those of
    /// `keys`.
    public func strictContainer<Key: CodingKey & CaseIterable & RawRepresentable<String>>(
        keyedBy keys: Key.Type, in what: String
    ) throws -> KeyedDecodingContainer<Key> {
        try rejectUnknownKeys(allowed: Set(Key.allCases.map(\.rawValue)), in: what)
        return try container(keyedBy: keys)
    }

    /// The error for a key this mapping needs and lacks, saying what it is for.
    public func missing(_ key: some CodingKey, _ description: String) -> DecodingError {
        .keyNotFound(key, DecodingError.Context(codingPath: codingPath, debugDescription: description))
    }
}

extension KeyedDecodingContainer {
    /// The error for a value at `key` that is refused, saying why.
    public func corrupted(_ key: Key, _ description: String) -> DecodingError {
        DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: description)
    }

    /// The string at `key`, if there is one, made a value by `parse`, whose error is said at `key`.
    public func decodeIfPresent<T, E: Error & CustomStringConvertible>(
        _ key: Key, parsing parse: (String) throws(E) -> T
    ) throws -> T? {
        guard let text = try decodeIfPresent(String.self, forKey: key) else { return nil }
        do {
            return try parse(text)
        } catch {
            throw corrupted(key, error.description)
        }
    }

    /// The value for `key`, or `fallback` when the key is absent.
    public func decode<T: Decodable>(_ key: Key, default fallback: T) throws -> T {
        try decodeLocated(T.self, forKey: key) ?? fallback
    }

    /// `decodeIfPresent`, whose every failure is a `DecodingError` at `key`. Foundation's
    /// JSONDecoder refuses a number an integer cannot hold (`1.5`, `9223372036854775808`) with an
    /// error of its own that has no place; it is said here as the configuration file's decoder
    /// says it — `expected an integer, found '1.5'` — at the key, so a `define` gets its path.
    public func decodeLocated<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        do {
            return try decodeIfPresent(type, forKey: key)
        } catch let error as DecodingError {
            throw error
        } catch {
            let expected = T.self is any FixedWidthInteger.Type ? "an integer" : "a value of another kind"
            let found = (try? decodeIfPresent(Double.self, forKey: key)).flatMap { $0 }.map(Self.spell)
            throw corrupted(key, "expected \(expected)" + (found.map { ", found '\($0)'" } ?? ""))
        }
    }

    /// A number as it was most likely written: whole ones with all their digits
    /// (`9223372036854775808`, not `9.223372036854776e+18`).
    private static func spell(_ x: Double) -> String {
        if x == x.rounded(), let whole = UInt64(exactly: x.magnitude) { return (x < 0 ? "-" : "") + String(whole) }
        return "\(x)"
    }

    /// A value that must satisfy `isValid`; otherwise an error at `key` saying what is expected.
    public func decode<T: Decodable>(
        _ key: Key, default fallback: T, expect: String, where isValid: (T) -> Bool
    ) throws -> T {
        let value = try decode(key, default: fallback)
        guard isValid(value) else {
            throw corrupted(key, "expected \(expect)")
        }
        return value
    }

    /// A value that must lie in `range`; otherwise an error at `key` saying what is expected.
    public func decode<T: Decodable & Comparable>(
        _ key: Key, default fallback: T, within range: ClosedRange<T>, expect: String
    ) throws -> T {
        try decode(key, default: fallback, expect: expect) { range.contains($0) }
    }
}

extension KeyedEncodingContainer {
    /// Encodes an optional only when present (keeps encoded configs free of `null`s).
    public mutating func encodeIfPresent<T: Encodable>(_ value: T?, for key: Key) throws {
        if let value { try encode(value, forKey: key) }
    }
}

extension GestureKind: Spelled {
    public static var spelledAs: String { "kind" }
}

extension GestureState: Spelled {
    public static var spelledAs: String { "state" }
}

extension Direction: Spelled {
    public static var spelledAs: String { "direction" }
}

extension Edge: Spelled {
    public static var spelledAs: String { "edge" }
}

/// What a decoding error's type means to a person writing a configuration or a request.
public func describeExpected(_ type: Any.Type) -> String {
    switch type {
    case is Int.Type, is Int32.Type, is UInt32.Type, is UInt16.Type, is UInt64.Type: "an integer"
    case is Double.Type: "a number"
    case is Bool.Type: "true or false"
    case is String.Type: "a string"
    default: String(describing: type).hasPrefix("Array") ? "a list" : "a mapping"
    }
}
