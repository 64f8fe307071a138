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

    public init(name: String, rect: SurfaceRect, parent: String? = nil, z: Int = 0) {
        self.name = name
        self.rect = rect
        self.parent = parent
        self.z = z
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

    public var description: String {
        path.isEmpty ? message : "\(path.map(\.description).joined(separator: ".")): \(message)"
    }
}
