import GestureEngine

/// What a connection wants to receive: the filters of its last `subscribe`.
///
/// A filter that is absent lets everything through; a list lets through only what it names (so
/// an empty list lets nothing through: `{"gestures": [], "touches": true}` asks for raw touches
/// only). All filters must match. `gestures`, `kinds` and `states` apply to `gesture` messages;
/// `regions` and `devices` to both `gesture` and `touch`.
public struct Subscription: RequestFields {
    /// Recognizer names.
    public var gestures: Set<String>?
    public var kinds: Set<GestureKind>?
    public var states: Set<GestureState>?
    /// Region names: a gesture's recognizer region, a touch's landing region.
    public var regions: Set<String>?
    /// Device labels (`event5`).
    public var devices: Set<String>?
    /// Raw touch streams (R8) on or off.
    public var touches: Bool
    /// `explain` messages on or off: why recognizers failed, waited, or were blocked.
    public var explain: Bool

    /// The most names one filter may list.
    public static let maxFilterEntries = 256

    public init(
        gestures: Set<String>? = nil, kinds: Set<GestureKind>? = nil, states: Set<GestureState>? = nil,
        regions: Set<String>? = nil, devices: Set<String>? = nil, touches: Bool = false, explain: Bool = false
    ) {
        self.gestures = gestures
        self.kinds = kinds
        self.states = states
        self.regions = regions
        self.devices = devices
        self.touches = touches
        self.explain = explain
    }

    /// Whether a `gesture` message passes these filters.
    public func matches(_ g: GestureMessage) -> Bool {
        matches(g.report, device: g.device)
    }

    /// Whether the `gesture` message of `report`, on the device labelled `device`, would pass
    /// these filters (decided before the message is built).
    public func matches(_ report: GestureReport, device: String) -> Bool {
        (kinds?.contains(report.kind) ?? true) && (states?.contains(report.state) ?? true)
            && (gestures?.contains(report.name) ?? true) && (regions?.contains(report.region) ?? true)
            && (devices?.contains(device) ?? true)
    }

    /// Whether a `touch` message passes these filters.
    public func matches(_ t: TouchMessage) -> Bool {
        touches && (regions?.contains(t.region) ?? true) && (devices?.contains(t.device) ?? true)
    }

    /// Whether an `explain` message passes these filters (`states` does not apply: an
    /// explanation is about a gesture that did not happen).
    public func matches(_ e: ExplainMessage) -> Bool {
        explain && (gestures?.contains(e.name) ?? true) && (kinds?.contains(e.kind) ?? true)
            && (regions?.contains(e.region) ?? true) && (devices?.contains(e.device) ?? true)
    }

    public enum Keys: String, CaseIterable {
        case gestures, kinds, states, regions, devices, touches, explain
    }
}

extension Subscription {
    /// Decodes the filters from a `subscribe` object, strictly: every problem is an
    /// `invalid-filter` error naming the key (and the entry) at fault.
    public init(from object: KeyedDecodingContainer<AnyCodingKey>, id: RequestID?) throws(ErrorMessage) {
        func fail(_ message: String, _ path: String) -> ErrorMessage {
            ErrorMessage(code: .invalidFilter, message: message, id: id, path: path)
        }
        func list(_ key: Keys) throws(ErrorMessage) -> [String]? {
            let k = AnyCodingKey(stringValue: key.rawValue)
            guard object.contains(k) else { return nil }
            guard let list = try? object.decode([String].self, forKey: k) else {
                throw fail("'\(key.rawValue)' must be a list of strings", "/\(key.rawValue)")
            }
            guard list.count <= Subscription.maxFilterEntries else {
                throw fail(
                    "'\(key.rawValue)' lists \(list.count) entries; at most \(Subscription.maxFilterEntries) are allowed",
                    "/\(key.rawValue)")
            }
            return list
        }
        func names(_ key: Keys, what: String) throws(ErrorMessage) -> Set<String>? {
            guard let entries = try list(key) else { return nil }
            for (i, name) in entries.enumerated() where !RegionSpec.isValidName(name) {
                throw fail(
                    "'\(name)' in '\(key.rawValue)' is not a \(what) name (1 to 64 letters, digits, '-', '_' or '.')",
                    "/\(key.rawValue)/\(i)")
            }
            return Set(entries)
        }
        func values<T: RawRepresentable & CaseIterable>(_ key: Keys, what: String) throws(ErrorMessage) -> Set<T>?
        where T.RawValue == String {
            guard let entries = try list(key) else { return nil }
            var result = Set<T>()
            for (i, spelling) in entries.enumerated() {
                guard let value = T(rawValue: spelling) else {
                    let known = T.allCases.map(\.rawValue).joined(separator: ", ")
                    throw fail(
                        "unknown \(what) '\(spelling)' in '\(key.rawValue)'"
                            + NearestWord.hint(for: spelling, among: T.allCases.map(\.rawValue))
                            + " (expected one of: \(known))",
                        "/\(key.rawValue)/\(i)")
                }
                result.insert(value)
            }
            return result
        }

        gestures = try names(.gestures, what: "recognizer")
        kinds = try values(.kinds, what: "kind")
        states = try values(.states, what: "state")
        regions = try names(.regions, what: "region")
        if let labels = try list(.devices) {
            for (i, label) in labels.enumerated() where label.isEmpty || label.utf8.count > 255 {
                throw fail("device labels in 'devices' must be 1 to 255 bytes long", "/devices/\(i)")
            }
            devices = Set(labels)
        } else {
            devices = nil
        }
        func flag(_ key: Keys) throws(ErrorMessage) -> Bool {
            let k = AnyCodingKey(stringValue: key.rawValue)
            guard object.contains(k) else { return false }
            guard let on = try? object.decode(Bool.self, forKey: k) else {
                throw fail("'\(key.rawValue)' must be true or false", "/\(key.rawValue)")
            }
            return on
        }
        touches = try flag(.touches)
        explain = try flag(.explain)
    }

    /// Writes the filters into a `subscribe` object; lists are sorted so the line is stable.
    public func encode(into c: inout KeyedEncodingContainer<AnyCodingKey>) throws {
        func put(_ key: Keys, _ values: [String]?) throws {
            if let values { try c.encode(values.sorted(), forKey: AnyCodingKey(stringValue: key.rawValue)) }
        }
        try put(.gestures, gestures.map(Array.init))
        try put(.kinds, kinds?.map(\.rawValue))
        try put(.states, states?.map(\.rawValue))
        try put(.regions, regions.map(Array.init))
        try put(.devices, devices.map(Array.init))
        try c.encode(touches, forKey: AnyCodingKey(stringValue: Keys.touches.rawValue))
        // Only when asked for: a server older than `explain` refuses the key (it is strict).
        if explain { try c.encode(true, forKey: AnyCodingKey(stringValue: Keys.explain.rawValue)) }
    }
}
