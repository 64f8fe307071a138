import Foundation
import TestSupport
import Testing

@testable import GestureEngine

/// Deeply nested regions cost in proportion to the regions: validating them (parents known, no
/// cycle), compiling them (depths, delivery, ancestry) and a `define` of them. Following every
/// region's chain to the top was quadratic: 4 000 chained regions took 1.4 s to validate, 20 000
/// over 20 s, and the compiled set held each region's list of every ancestor's recognizers.
@Suite("Region nesting")
struct RegionNestingTests {
    static let device = DeviceDescriptor(
        id: DeviceID(1), label: "event5", name: "panel",
        geometry: SurfaceGeometry(physicalSize: PhysicalSize(width: Millimeters(344), height: Millimeters(194))))
    static let rect = SurfaceRect(x: 0.25, y: 0.25, width: 0.5, height: 0.5)

    /// `count` regions, each inside the one before (`r0` under the root), listed innermost first
    /// so that no parent is defined before its child.
    static func chain(_ count: Int, prefix: String = "r") -> [RegionSpec] {
        (0..<count).reversed().map { i in
            RegionSpec(name: "\(prefix)\(i)", rect: rect, parent: i == 0 ? nil : "\(prefix)\(i - 1)")
        }
    }

    /// Taps on the surface and on the innermost region, simultaneous, each recognized.
    static func taps(inner: String) -> [RecognizerSpec] {
        var top = RecognizerSpec(name: "top", parameters: .tap(TapParameters()))
        top.simultaneousWith = ["*"]
        return [top, RecognizerSpec(name: "inner", region: inner, parameters: .tap(TapParameters()))]
    }

    /// A one-finger tap at `p`: the gestures it gives, by recognizer name and region.
    static func tap(_ engine: inout GestureEngine, at p: SurfacePoint, from time: Int64) -> [String] {
        var events: [EngineEvent] = []
        for (t, phase) in [(time, TouchPhase.began), (time + 50_000, .ended)] {
            engine.process(
                TouchFrame(
                    device: device.id, time: Timestamp(microseconds: t),
                    touches: [Touch(id: TouchID(UInt32(time / 1000 + 1)), phase: phase, position: p)]),
                into: &events)
        }
        engine.advance(to: Timestamp(microseconds: time + 1_000_000), into: &events)
        return events.compactMap { event in
            guard case .gesture(let g) = event else { return nil }
            return "\(g.name)@\(g.region)"
        }.sorted()
    }

    @Test("20 000 chained regions: validated, compiled, and a touch delivered to the innermost and the root")
    func deepChain() throws {
        let count = 20_000
        let configuration = EngineConfiguration(
            regions: Self.chain(count), recognizers: Self.taps(inner: "r\(count - 1)"))
        try configuration.validate()
        var engine = try GestureEngine(configuration: configuration)
        engine.addDevice(Self.device)
        #expect(
            Self.tap(&engine, at: SurfacePoint(x: 0.5, y: 0.5), from: 1_000_000)
                == ["inner@r\(count - 1)", "top@root"])
        #expect(Self.tap(&engine, at: SurfacePoint(x: 0.1, y: 0.1), from: 3_000_000) == ["top@root"])
    }

    @Test("a client's 20 000 chained regions under the configuration's: the same, through define")
    func deepClientChain() throws {
        var configuration = EngineConfiguration(regions: [RegionSpec(name: "panel", rect: .unit)], recognizers: [])
        configuration.clients = ClientPolicy(mayCover: true)
        var engine = try GestureEngine(configuration: configuration)
        engine.addDevice(Self.device)
        var regions = Self.chain(20_000, prefix: "c")
        regions[regions.count - 1].parent = "panel"
        var events: [EngineEvent] = []
        try engine.define(
            owner: .client(1), regions: regions, recognizers: Self.taps(inner: "c19999"),
            at: Timestamp(microseconds: 1), into: &events)
        #expect(
            Self.tap(&engine, at: SurfacePoint(x: 0.5, y: 0.5), from: 1_000_000) == ["inner@c19999", "top@root"])
    }

    @Test("a cycle closing a chain of 20 000 is found, at the first region that reaches it")
    func deepCycle() throws {
        var regions = Self.chain(20_000)
        regions[regions.count - 1].parent = "r19999"
        do {
            try EngineConfiguration(regions: regions, recognizers: []).validate()
            Issue.record("accepted")
        } catch {
            #expect(error.path == [.key("regions"), .index(0), .key("parent")])
            #expect(error.message == "regions form a cycle through 'r19999'")
        }
    }

    @Test("small cycles and self-parents keep their messages and places")
    func smallCycles() {
        func error(_ regions: [RegionSpec]) -> String? {
            do {
                try EngineConfiguration(regions: regions, recognizers: []).validate()
                return nil
            } catch {
                return error.description
            }
        }
        let rect = Self.rect
        #expect(
            error([RegionSpec(name: "a", rect: rect, parent: "a")])
                == "regions[0].parent: a region cannot be its own parent")
        #expect(
            error([
                RegionSpec(name: "x", rect: rect), RegionSpec(name: "a", rect: rect, parent: "b"),
                RegionSpec(name: "b", rect: rect, parent: "c"), RegionSpec(name: "c", rect: rect, parent: "b"),
            ]) == "regions[1].parent: regions form a cycle through 'b'")
    }

    // MARK: The walk itself

    /// Each region's parent is asked for once, whatever the shape: the count is the test's
    /// measure of linearity (no clock). Depths are checked against following each chain.
    @Test("the walk asks each region's parent once, and its depths are each chain's length")
    func walkIsLinear() throws {
        let seed =
            ProcessInfo.processInfo.environment["GESTURED_REGION_WALK_SEED"].flatMap { UInt64($0) }
            ?? UInt64.random(in: 0...UInt64.max)
        var rng = SplitMix64(seed: seed)
        for round in 0..<200 {
            let count = Int(rng.next() % 3000) + 1
            // Parents among the regions before it in a random order: a forest; deep when the
            // parent is mostly the one just before.
            let order = (0..<count).shuffled(using: &rng)
            var parent = [Int?](repeating: nil, count: count)
            for k in 1..<max(count, 1) where rng.next() % 10 != 0 {
                parent[order[k]] = rng.next() % 4 == 0 ? order[Int(rng.next() % UInt64(k))] : order[k - 1]
            }
            var asked = 0
            let depths = try RegionForest.depths(count: count) { i in
                asked += 1
                return parent[i]
            }.get()
            #expect(asked == count, "seed \(seed) (GESTURED_REGION_WALK_SEED=\(seed) replays it), round \(round)")
            for i in 0..<count {
                var d = 0
                var p = parent[i]
                while let q = p {
                    d += 1
                    p = parent[q]
                }
                #expect(depths[i] == d, "seed \(seed) (GESTURED_REGION_WALK_SEED), round \(round), region \(i)")
            }
        }
    }

    @Test("a chain of 20 000 is walked in 20 000 steps; a cycle closing it in as many")
    func chainSteps() {
        let count = 20_000
        var asked = 0
        let depths = RegionForest.depths(count: count) { i in
            asked += 1
            return i + 1 < count ? i + 1 : nil
        }
        #expect(asked == count)
        #expect((try? depths.get())?.first == count - 1)
        asked = 0
        let cycle = RegionForest.depths(count: count) { i in
            asked += 1
            return (i + 1) % count
        }
        #expect(asked == count)
        #expect(cycle == .failure(RegionForest.Cycle(start: 0, repeated: 0)))
    }
}
