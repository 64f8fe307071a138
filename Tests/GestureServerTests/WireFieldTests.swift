import Foundation
import GestureServer
import TestSupport
import Testing

@testable import GestureEngine
@testable import GestureProtocol

/// A message's table of fields (``WireMessage/fields(_:)``) is the one place its keys are
/// declared: the line writer, the Codable encoding and decoding and the rounding walk it. These
/// tests hold it to what the table alone cannot say: that its keys are in a line's order, that
/// docs/protocol.schema.json lists the same keys with the same presence, that every number is
/// rounded, and that every field the engine reports is in it.
@Suite struct WireFieldTests {
    /// The schema's `$defs`.
    static var schema: [String: Any] {
        let object = try? JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: SchemaValidator.schemaPath)))
        return (object as? [String: Any])?["$defs"] as? [String: Any] ?? [:]
    }

    static var tabled: [String] { ServerMessage.tabledTypes.map { $0.type } }

    static func entries(_ type: String) throws -> [WireFieldEntry] {
        try #require(ServerMessage.tabledTypes.first { $0.type == type }).entries
    }

    static func properties(_ type: String) throws -> [String: [String: Any]] {
        let definition = try #require(schema[type] as? [String: Any], "the schema has no $defs/\(type)")
        return try #require(definition["properties"] as? [String: [String: Any]])
    }

    /// A property's definition with its `$ref` followed.
    static func resolved(_ property: [String: Any]) -> [String: Any] {
        guard let ref = property["$ref"] as? String, ref.hasPrefix("#/$defs/") else { return property }
        return resolved(schema[String(ref.dropFirst("#/$defs/".count))] as? [String: Any] ?? [:])
    }

    /// Whether a property admits `null` (a `type` list with it, or a `oneOf` branch of it).
    static func admitsNull(_ property: [String: Any]) -> Bool {
        let p = resolved(property)
        if p["type"] as? String == "null" || (p["type"] as? [String])?.contains("null") == true { return true }
        return (p["oneOf"] as? [[String: Any]])?.contains(where: admitsNull) ?? false
    }

    /// Whether a property carries numbers that are not integers (a number, or `{x, y}`).
    static func carriesFractions(_ property: [String: Any]) -> Bool {
        let p = resolved(property)
        if p["type"] as? String == "number" { return true }
        if let branches = p["oneOf"] as? [[String: Any]] { return branches.contains(where: carriesFractions) }
        return (p["properties"] as? [String: [String: Any]])?.values.contains(where: carriesFractions) ?? false
    }

    @Test func `the schema defines every tabled message type`() {
        #expect(Self.tabled.sorted() == ["active", "contact", "gesture", "idle", "raw", "touch", "wake"])
        for type in Self.tabled { #expect(Self.schema[type] != nil, "docs/protocol.schema.json has no $defs/\(type)") }
    }

    @Test(arguments: ServerMessage.tabledTypes.map { $0.type })
    func `a table lists its keys in a line's order, each once`(type: String) throws {
        let keys = try Self.entries(type).map(\.key)
        #expect(keys == keys.sorted(), "\(type)'s table is not in key order (JSONEncoder's .sortedKeys): \(keys)")
        #expect(Set(keys).count == keys.count, "\(type)'s table lists a key twice")
        #expect(keys.contains("type"), "\(type)'s table has no v.type()")
    }

    @Test(arguments: ServerMessage.tabledTypes.map { $0.type })
    func `the schema lists the table's keys, requires what is always there and admits null where the table writes it`(
        type: String
    ) throws {
        let entries = try Self.entries(type)
        let properties = try Self.properties(type)
        #expect(
            Set(properties.keys) == Set(entries.map(\.key)),
            """
            $defs/\(type) in docs/protocol.schema.json lists \(properties.keys.sorted()), the table \
            \(entries.map(\.key)): add the field to the schema (and docs/PROTOCOL.md)
            """)
        let definition = try #require(Self.schema[type] as? [String: Any])
        let required = Set(definition["required"] as? [String] ?? [])
        for entry in entries {
            // A key with `null` for "none" is on every line too.
            #expect(
                required.contains(entry.key) == (entry.absent != .omitted),
                "\(type).\(entry.key): the schema's `required` and the table disagree")
            guard let property = properties[entry.key] else { continue }
            #expect(
                Self.admitsNull(property) == (entry.absent == .null),
                "\(type).\(entry.key): the schema's null and the table's absence disagree")
        }
    }

    @Test(arguments: ServerMessage.tabledTypes.map { $0.type })
    func `every number with a fraction is rounded to six decimals`(type: String) throws {
        let properties = try Self.properties(type)
        for entry in try Self.entries(type) {
            let property = try #require(properties[entry.key])
            #expect(
                (entry.rounding == .sixDecimals) == Self.carriesFractions(property),
                "\(type).\(entry.key): a number goes out rounded (.sixDecimals), anything else exact")
        }
    }

    /// The stored properties of `value` the table's key paths name under `prefix`.
    static func unsent(_ value: Any, under prefix: String, _ entries: [WireFieldEntry]) -> [String] {
        let named = Set(entries.compactMap { $0.value.map { String(describing: $0) } })
        return Mirror(reflecting: value).children.compactMap(\.label).filter { !named.contains(prefix + $0) }
    }

    @Test func `every field of the engine's report is on the wire`() throws {
        let unsent = Self.unsent(
            GestureMessage.blank.report, under: #"\GestureMessage.report."#, try Self.entries("gesture"))
        #expect(
            unsent.isEmpty,
            "GestureReport has \(unsent) that GestureMessage.fields does not send: add a line for each to the table")
    }

    @Test func `every field of a touch but the device's raw values is on the wire`() throws {
        let unsent = Self.unsent(TouchMessage.blank.touch, under: #"\TouchMessage.touch."#, try Self.entries("touch"))
        #expect(unsent == ["raw"], "Touch has \(unsent) that TouchMessage.fields does not send (raw stays behind)")
    }

    /// A report with every field set, so that every key it has is on the wire.
    static let full: GestureEvent = {
        var report = GestureReport(
            name: "all", kind: .shape, state: .recognized, region: "root", fingers: 2,
            touches: TouchIDList([TouchID(1), TouchID(2)]), time: Timestamp(microseconds: 7),
            position: SurfacePoint(x: 0.5, y: 0.25))
        report.positionMM = PhysicalPoint(x: Millimeters(10), y: Millimeters(5))
        report.translation = SurfaceVector(dx: 0.125, dy: 0)
        report.translationMM = PhysicalVector(dx: Millimeters(2.5), dy: Millimeters(0))
        report.velocity = SurfaceVector(dx: 1, dy: 0)
        report.velocityMM = PhysicalVector(dx: Millimeters(20), dy: Millimeters(0))
        report.scale = 1.5
        report.rotation = 0.25
        report.scaleVelocity = 0.5
        report.rotationVelocity = 0.75
        report.direction = .left
        report.edge = .top
        report.shape = "circle"
        report.score = 0.9
        return GestureEvent(owner: .configuration, device: DeviceID(3), report: report)
    }()

    static func keys(_ line: [UInt8]) throws -> Set<String> {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
        return Set(object.keys)
    }

    @Test func `the mapping, the line writer and the Codable encoding carry every key and decode to the message`()
        throws
    {
        var mapping = WireMapping()
        let device = DeviceDescriptor(
            id: DeviceID(3), label: "event3", name: "panel", geometry: SurfaceGeometry(unknownSizeWithAspect: 0.6))
        let publication = mapping.publication(
            of: .gesture(Self.full), device: device, for: .replay(touches: false, explanations: false))
        let message = try #require(publication?.message)
        let all = Set(try Self.entries("gesture").map(\.key))
        var encoder = LineEncoder()
        let line = try encoder.encode(message)
        #expect(try Self.keys(line) == all)
        #expect(try Self.keys(Array(try GestureProtocol.makeEncoder().encode(message))) == all)
        #expect(try JSONDecoder().decode(ServerMessage.self, from: Data(line)) == message)
    }

    @Test func `a line without a key that is always there does not decode, and says which`() throws {
        let line =
            #"{"device":"event5","phase":"began","position":{"x":0,"y":0},"position_mm":null,"region":"root","#
            + #""seq":1,"time_us":5,"touch":3,"type":"touch"}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(TouchMessage.self, from: Data(line.utf8)) }
        do {
            _ = try JSONDecoder().decode(TouchMessage.self, from: Data(line.utf8))
        } catch DecodingError.keyNotFound(let key, _) {
            #expect(key.stringValue == "tool")
        }
        let withTool = line.replacingOccurrences(of: #""touch":3"#, with: #""tool":"pen","touch":3"#)
        let touch = try JSONDecoder().decode(TouchMessage.self, from: Data(withTool.utf8))
        #expect(touch.tool == .pen && touch.id == TouchID(3) && touch.positionMM == nil && touch.pressure == nil)
        let badPhase = withTool.replacingOccurrences(of: "began", with: "landed")
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(TouchMessage.self, from: Data(badPhase.utf8)) }
    }
}
