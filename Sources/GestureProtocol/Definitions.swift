import GestureEngine

/// The regions and recognizers of one `define`, spelled exactly as in the configuration file
/// (kebab-case keys, units in key names) and decoded by the very same `Codable` code, so a
/// snippet of a config file can be pasted into a `define` and fails the same way.
///
/// ```json
/// {"type":"define","id":1,
///  "regions":[{"name":"keypad","rect":{"x":0.5,"y":0.5,"width":0.5,"height":0.5}}],
///  "recognizers":[{"name":"keypad-tap","kind":"tap","region":"keypad","fingers":1}]}
/// ```
public struct Definitions: RequestFields {
    public var regions: [RegionSpec]
    public var recognizers: [RecognizerSpec]

    public init(regions: [RegionSpec] = [], recognizers: [RecognizerSpec] = []) {
        self.regions = regions
        self.recognizers = recognizers
    }

    public enum Keys: String, CaseIterable { case regions, recognizers }
}

extension Definitions {
    /// Decodes the lists from a `define` object; every problem is an `invalid-definition` error
    /// whose `path` is a JSON pointer to the value at fault.
    public init(from object: KeyedDecodingContainer<AnyCodingKey>, id: RequestID?) throws(ErrorMessage) {
        do {
            regions =
                try object.decodeIfPresent([RegionSpec].self, forKey: AnyCodingKey(stringValue: Keys.regions.rawValue))
                ?? []
            recognizers =
                try object.decodeIfPresent(
                    [RecognizerSpec].self, forKey: AnyCodingKey(stringValue: Keys.recognizers.rawValue)) ?? []
        } catch let error as DecodingError {
            throw ErrorMessage(definitionError: error, id: id)
        } catch {
            // Decoding throws DecodingError only; StrictJSON refused what the parser would.
            throw ErrorMessage(code: .invalidDefinition, message: "the definitions cannot be read", id: id)
        }
    }

    public func encode(into c: inout KeyedEncodingContainer<AnyCodingKey>) throws {
        try c.encode(regions, forKey: AnyCodingKey(stringValue: Keys.regions.rawValue))
        try c.encode(recognizers, forKey: AnyCodingKey(stringValue: Keys.recognizers.rawValue))
    }
}

extension ErrorMessage {
    /// An `invalid-definition` error for a decoding failure inside `define`.
    init(definitionError error: DecodingError, id: RequestID?) {
        let path: [any CodingKey]
        let detail: String
        switch error {
        case .typeMismatch(let type, let context):
            path = context.codingPath
            detail = "expected \(describeExpected(type))"
        case .valueNotFound(let type, let context):
            path = context.codingPath
            detail = "expected \(describeExpected(type)), found null"
        case .dataCorrupted(let context):
            path = context.codingPath
            detail = context.debugDescription
        case .keyNotFound(let key, let context):
            path = context.codingPath + [key]
            detail = "missing key '\(key.stringValue)'"
        @unknown default:
            path = []
            detail = "\(error)"
        }
        let components = path.map { key in
            key.intValue.map(SpecPathComponent.index) ?? .key(key.stringValue)
        }
        self.init(
            code: .invalidDefinition, message: Self.describe(components, detail), id: id,
            path: Self.pointer(components))
    }

    /// An `invalid-definition` error for a definition the engine refused (unknown reference,
    /// duplicate name, cycle…). The daemon passes the engine's error, whose path is relative to
    /// the `define` object (`recognizers`, index, key…).
    public init(definitionError error: SpecError, id: RequestID?) {
        self.init(
            code: .invalidDefinition, message: Self.describe(error.path, error.message), id: id,
            path: error.path.isEmpty ? nil : Self.pointer(error.path))
    }

    /// `recognizers[0].slop-mm: expected …`
    static func describe(_ path: [SpecPathComponent], _ detail: String) -> String {
        var location = ""
        for component in path {
            switch component {
            case .key(let k): location += location.isEmpty ? k : ".\(k)"
            case .index(let i): location += "[\(i)]"
            }
        }
        return location.isEmpty ? detail : "\(location): \(detail)"
    }

    /// A JSON pointer (RFC 6901): `/recognizers/0/slop-mm`.
    package static func pointer(_ path: [SpecPathComponent]) -> String {
        path.map { component in
            switch component {
            case .key(let k): "/" + k.replacing("~", with: "~0").replacing("/", with: "~1")
            case .index(let i): "/\(i)"
            }
        }.joined()
    }
}
