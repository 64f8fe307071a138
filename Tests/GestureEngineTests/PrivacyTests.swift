import GestureEngine
import Testing

/// Private regions (docs/RECORDING.md, "Who may see where fingers are"): a touch is private to
/// the owners of the private regions it landed in — the region it was hit-tested to or one around
/// it, among the configuration's and each client's own — and a gesture, an explanation or a view
/// event made of such touches carries that mark, whoever owns the recognizer. Where it lands
/// decides (R1): sliding out keeps it private, sliding in keeps it open.
@Suite("Private regions")
struct PrivacyTests {
    static let device = DeviceDescriptor(
        id: DeviceID(1), label: "panel", name: "panel",
        geometry: SurfaceGeometry(physicalSize: PhysicalSize(width: Millimeters(344), height: Millimeters(194))))

    /// The configuration's PIN pad (top left, private, with a key inside it) and a plain area;
    /// client 7's own private pad (bottom right). The built-in recognizers run on root.
    static func engine() throws -> (GestureEngine, [EngineEvent]) {
        let configuration = EngineConfiguration(
            regions: [
                RegionSpec(name: "pin", rect: SurfaceRect(x: 0, y: 0, width: 0.5, height: 0.5), isPrivate: true),
                RegionSpec(name: "key", rect: SurfaceRect(x: 0.1, y: 0.1, width: 0.1, height: 0.1), parent: "pin"),
                RegionSpec(name: "plain", rect: SurfaceRect(x: 0.5, y: 0, width: 0.5, height: 0.5)),
            ],
            recognizers: EngineConfiguration.default.recognizers)
        var engine = try GestureEngine(configuration: configuration)
        engine.explains = true
        engine.addDevice(device)
        var events: [EngineEvent] = []
        try engine.define(
            owner: .client(7),
            regions: [
                RegionSpec(name: "own", rect: SurfaceRect(x: 0.5, y: 0.5, width: 0.5, height: 0.5), isPrivate: true)
            ],
            recognizers: [], at: Timestamp(microseconds: 0), into: &events)
        return (engine, events)
    }

    /// A finger that lands at `from`, moves to `to` and lifts: one frame every 10 ms from `at`.
    static func stroke(_ id: UInt32, from: SurfacePoint, to: SurfacePoint, at ms: Int64) -> [TouchFrame] {
        (0...10).map { step in
            let f = Double(step) / 10
            let phase: TouchPhase = step == 0 ? .began : step == 10 ? .ended : .moved
            let point = SurfacePoint(x: from.x + (to.x - from.x) * f, y: from.y + (to.y - from.y) * f)
            return TouchFrame(
                device: DeviceID(1), time: Timestamp(microseconds: (ms + Int64(step) * 10) * 1000),
                touches: [Touch(id: TouchID(id), phase: phase, position: point)])
        }
    }

    /// What the engine made of one stroke: its gestures', explanations' and view events' marks.
    static func marks(from: SurfacePoint, to: SurfacePoint) throws -> [Privacy] {
        var (engine, events) = try Self.engine()
        events.removeAll()
        for frame in Self.stroke(1, from: from, to: to, at: 1000) { engine.process(frame, into: &events) }
        engine.advance(to: Timestamp(microseconds: 10_000_000), into: &events)
        let marks = events.compactMap { event -> Privacy? in
            switch event {
            case .gesture(let g): g.privacy
            case .touch(let t): t.privacy
            case .explanation(let e): e.privacy
            case .panel: nil
            }
        }
        #expect(events.contains { if case .gesture = $0 { true } else { false } }, "the stroke made no gesture")
        return marks
    }

    @Test
    func `a stroke that lands in the configuration's private region is for who may see touches, sliding out or not`()
        throws
    {
        for to in [SurfacePoint(x: 0.15, y: 0.15), SurfacePoint(x: 0.9, y: 0.1)] {
            let marks = try Self.marks(from: SurfacePoint(x: 0.15, y: 0.15), to: to)
            #expect(!marks.isEmpty && marks.allSatisfy { $0.configuration && !$0.isOpen })
            #expect(marks.allSatisfy { $0.admits(client: 3, seesPositions: true) })
            #expect(marks.allSatisfy { !$0.admits(client: 3, seesPositions: false) })
        }
    }

    @Test func `a stroke that lands in a client's private region is for that client alone`() throws {
        let marks = try Self.marks(from: SurfacePoint(x: 0.8, y: 0.8), to: SurfacePoint(x: 0.2, y: 0.9))
        #expect(!marks.isEmpty && marks.allSatisfy { !$0.configuration })
        #expect(marks.allSatisfy { $0.admits(client: 7, seesPositions: false) })
        #expect(marks.allSatisfy { !$0.admits(client: 3, seesPositions: true) })
    }

    @Test func `a stroke that lands outside every private region is open, sliding into one or not`() throws {
        for to in [SurfacePoint(x: 0.7, y: 0.2), SurfacePoint(x: 0.2, y: 0.2), SurfacePoint(x: 0.8, y: 0.8)] {
            let marks = try Self.marks(from: SurfacePoint(x: 0.7, y: 0.2), to: to)
            #expect(!marks.isEmpty && marks.allSatisfy(\.isOpen))
        }
    }

    @Test func `a gesture of a touch in private regions of two clients reaches neither`() {
        var mark = Privacy(privateTo: .client(7))
        mark.formUnion(Privacy(privateTo: .client(8)))
        #expect(!mark.admits(client: 7, seesPositions: true) && !mark.admits(client: 8, seesPositions: true))
        var both = Privacy(privateTo: .client(7))
        both.formUnion(Privacy(privateTo: .configuration))
        #expect(both.admits(client: 7, seesPositions: true) && !both.admits(client: 7, seesPositions: false))
        #expect(Privacy.open.admits(client: 1, seesPositions: false))
    }
}
