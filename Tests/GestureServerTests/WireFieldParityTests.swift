import Foundation
import GestureProtocol
import GestureServer
import TestSupport
import Testing

@testable import GestureEngine

/// A field of the engine's ``GestureEvent`` reaches a client only if it is in the message
/// (``GestureMessage``), its mapping (``WireMapping``), the hand-written encoder
/// (``LineEncoder``), the Codable encoding and docs/protocol.schema.json. These tests fail when
/// one of them is missing a field the others have.
@Suite struct WireFieldParityTests {
    /// Each stored property of the engine's event and the wire key it becomes; `nil` for what
    /// routes the event and is not sent as it is (the owner; the device, sent as its label).
    static let wireKeys: [String: String?] = [
        "name": "name", "kind": "kind", "state": "state", "owner": nil, "device": "device", "region": "region",
        "fingers": "fingers", "touches": "touches", "time": "time_us", "position": "position",
        "positionMM": "position_mm", "translation": "translation", "translationMM": "translation_mm",
        "velocity": "velocity", "velocityMM": "velocity_mm", "scale": "scale", "rotation": "rotation",
        "scaleVelocity": "scale_velocity", "rotationVelocity": "rotation_velocity", "direction": "direction",
        "edge": "edge", "shape": "shape", "score": "score",
    ]
    /// Keys of the message that no engine field gives.
    static let messageOnlyKeys: Set<String> = ["type", "seq"]

    /// An event with every optional field set, so that every key it has is on the wire.
    static let full = GestureEvent(
        name: "all", kind: .shape, state: .recognized, owner: .configuration, device: DeviceID(3), region: "root",
        fingers: 2, touches: TouchIDList([TouchID(1), TouchID(2)]), time: Timestamp(microseconds: 7),
        position: SurfacePoint(x: 0.5, y: 0.25), positionMM: PhysicalPoint(x: Millimeters(10), y: Millimeters(5)),
        translation: SurfaceVector(dx: 0.125, dy: 0),
        translationMM: PhysicalVector(dx: Millimeters(2.5), dy: Millimeters(0)),
        velocity: SurfaceVector(dx: 1, dy: 0), velocityMM: PhysicalVector(dx: Millimeters(20), dy: Millimeters(0)),
        scale: 1.5, rotation: 0.25,
        scaleVelocity: 0.5, rotationVelocity: 0.75, direction: .left, edge: .top, shape: "circle", score: 0.9)

    static var expectedKeys: Set<String> { Set(wireKeys.values.compactMap { $0 }).union(messageOnlyKeys) }

    @Test func `every field of the engine's event has its wire key`() {
        let fields = Set(Mirror(reflecting: Self.full).children.compactMap(\.label))
        let missing = fields.subtracting(Self.wireKeys.keys)
        #expect(
            missing.isEmpty,
            """
            GestureEvent has \(missing.sorted()) that the wire does not: add each to GestureMessage (its init from \
            the event, CodingKeys, encode and decode), LineEncoder's JSONWriter.write(_: GestureMessage), \
            docs/protocol.schema.json, docs/PROTOCOL.md and this test's table
            """)
        #expect(Set(Self.wireKeys.keys).subtracting(fields).isEmpty, "the table lists fields the event no longer has")
    }

    /// The keys of one encoded line (a JSON object).
    static func keys(_ line: [UInt8]) throws -> Set<String> {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
        return Set(object.keys)
    }

    static func message() throws -> ServerMessage {
        var mapping = WireMapping()
        let device = DeviceDescriptor(
            id: DeviceID(3), label: "event3", name: "panel", geometry: SurfaceGeometry(unknownSizeWithAspect: 0.6))
        let publication = mapping.publication(
            of: .gesture(Self.full), device: device, for: .replay(touches: false, explanations: false))
        return try #require(publication?.message)
    }

    @Test func `the mapping and the hand-written encoder carry every key`() throws {
        var encoder = LineEncoder()
        let keys = try Self.keys(try encoder.encode(try Self.message()))
        #expect(keys == Self.expectedKeys)
    }

    @Test func `the Codable encoding carries every key`() throws {
        let keys = try Self.keys(Array(try GestureProtocol.makeEncoder().encode(try Self.message())))
        #expect(keys == Self.expectedKeys)
    }

    @Test func `the schema lists every key and no other`() throws {
        let schema = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: SchemaValidator.schemaPath)))
        let gesture = try #require(
            ((schema as? [String: Any])?["$defs"] as? [String: Any])?["gesture"] as? [String: Any])
        let properties = try #require(gesture["properties"] as? [String: Any])
        #expect(Set(properties.keys) == Self.expectedKeys)
    }
}
