// The definitions the engine runs: regions and recognizers, as the configuration file and a
// client's `define` both write them. `Codable` (standard library only) so the YAML config loader
// and the JSON protocol decode the very same types and share one validation.
//
// Spelling: keys are kebab-case; a key with a unit carries it in its name (`slop-mm`,
// `max-duration-ms`, `min-velocity-mm-s`), as libinput names its constants.

/// A named rectangle that plays the part of a view. The root region (``RegionSpec/rootName``)
/// is the whole surface of each device and always exists.
public struct RegionSpec: Hashable, Sendable {
    public static let rootName = "root"

    public var name: String
    /// The rectangle in surface coordinates.
    public var rect: SurfaceRect
    /// The enclosing region (root when nil).
    public var parent: String?
    /// Higher is on top among siblings; ties go to the later definition.
    public var z: Int
    /// `private`: where fingers land in it (and in the regions inside it), and the gestures made
    /// of such touches, reach its owner only (``Privacy``).
    public var isPrivate: Bool

    public init(name: String, rect: SurfaceRect, parent: String? = nil, z: Int = 0, isPrivate: Bool = false) {
        self.name = name
        self.rect = rect
        self.parent = parent
        self.z = z
        self.isPrivate = isPrivate
    }
}

/// Where a definition error is: a path of keys and indices from the root of what was decoded,
/// so the YAML loader can turn it into `FILE:LINE:COLUMN` and the protocol into a JSON pointer.
public enum SpecPathComponent: Hashable, Sendable, CustomStringConvertible {
    case key(String)
    case index(Int)

    public var description: String {
        switch self {
        case .key(let k): k
        case .index(let i): "[\(i)]"
        }
    }
}

/// A definition that cannot run: unknown key, wrong type, bad value, unknown reference, cycle.
public struct SpecError: Error, Hashable, Sendable, CustomStringConvertible {
    public var path: [SpecPathComponent]
    public var message: String

    public init(path: [SpecPathComponent], message: String) {
        self.path = path
        self.message = message
    }

    /// `recognizers[3].requires-failure-of[0]: message`.
    public var description: String {
        path.isEmpty ? message : "\(Self.render(path)): \(message)"
    }

    /// A path as keys joined by dots, indices in brackets: `recognizers[3].when.min-fingers`.
    public static func render(_ path: [SpecPathComponent]) -> String {
        var text = ""
        for component in path {
            switch component {
            case .key(let k): text += text.isEmpty ? k : ".\(k)"
            case .index(let i): text += "[\(i)]"
            }
        }
        return text
    }
}

// MARK: - Coding of the shared pieces

extension SurfaceRect: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable { case x, y, width, height }

    /// Each field's default and rule, in decoding order.
    private static var fields:
        [(
            key: CodingKeys, path: WritableKeyPath<SurfaceRect, Double>, default: Double, expect: String,
            isValid: (Double) -> Bool
        )]
    {
        let unit = "a number from 0 to 1 (surface coordinates)"
        return [
            (.x, \.x, 0, unit, { (0...1).contains($0) }),
            (.y, \.y, 0, unit, { (0...1).contains($0) }),
            (.width, \.width, 1, "a width above 0 and at most 1", { $0 > 0 && $0 <= 1 }),
            (.height, \.height, 1, "a height above 0 and at most 1", { $0 > 0 && $0 <= 1 }),
        ]
    }

    private static let pastTheSurface = "the rectangle reaches past the surface (0…1)"

    private var reachesPastTheSurface: Bool { x + width > 1.000_001 || y + height > 1.000_001 }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.strictContainer(keyedBy: CodingKeys.self, in: "a rectangle")
        self = .unit
        for field in Self.fields {
            self[keyPath: field.path] = try c.decode(
                field.key, default: field.default, expect: field.expect, where: field.isValid)
        }
        guard !reachesPastTheSurface else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: Self.pastTheSurface))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        for field in Self.fields { try c.encode(self[keyPath: field.path], forKey: field.key) }
    }

    /// The first rule broken (the ones decoding checks), as a path below the rectangle.
    func problem() -> ParameterProblem? {
        for field in Self.fields where !field.isValid(self[keyPath: field.path]) {
            return ParameterProblem(path: [.key(field.key.rawValue)], message: "expected \(field.expect)")
        }
        return reachesPastTheSurface ? ParameterProblem(message: Self.pastTheSurface) : nil
    }
}

extension RegionSpec: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, rect, parent, z
        case isPrivate = "private"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.strictContainer(keyedBy: CodingKeys.self, in: "a region")
        name = try c.decode(String.self, forKey: .name)
        guard Self.isValidName(name) else {
            throw c.corrupted(.name, Self.nameExpectation)
        }
        rect = try c.decode(SurfaceRect.self, forKey: .rect)
        parent = try c.decodeIfPresent(String.self, forKey: .parent)
        z = try c.decode(.z, default: 0)
        isPrivate = try c.decode(.isPrivate, default: false)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(rect, forKey: .rect)
        try c.encodeIfPresent(parent, for: .parent)
        try c.encode(z, forKey: .z)
        if isPrivate { try c.encode(true, forKey: .isPrivate) }
    }

    /// What a name must be, as its error says.
    static let nameExpectation = "expected a name of letters, digits, '-', '_' or '.'"

    /// Names of regions and recognizers: non-empty, at most 64 of `[A-Za-z0-9._-]`, not `*`.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64
            && name.utf8.allSatisfy { c in
                (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D
                    || c == 0x5F || c == 0x2E
            }
    }
}
