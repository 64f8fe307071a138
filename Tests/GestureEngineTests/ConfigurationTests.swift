import Foundation
import Testing

@testable import GestureEngine

/// EngineConfiguration: the default set, coding, and validation with paths from the root.
@Suite("Configuration")
struct ConfigurationTests {
    @Test("the default set has the design's names, in order, and validates")
    func defaultSet() throws {
        let names = EngineConfiguration.default.recognizers.map(\.name)
        #expect(
            names == [
                "tap", "double-tap", "two-finger-tap", "long-press", "pan", "swipe", "pinch", "rotate", "edge-swipe",
                "circle",
            ])
        try EngineConfiguration.default.validate()
        let engine = try GestureEngine(configuration: .default)
        #expect(engine.recognizerSummaries.map(\.name) == names)
        #expect(engine.recognizerSummaries.allSatisfy { $0.owner == .configuration && $0.region == "root" })
    }

    @Test("the default set survives a JSON round trip")
    func roundTrip() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = try encoder.encode(EngineConfiguration.default)
        let decoded = try JSONDecoder().decode(EngineConfiguration.self, from: data)
        #expect(decoded == .default)
    }

    @Test("unknown top-level keys are rejected")
    func unknownKey() {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(EngineConfiguration.self, from: Data(#"{"recognizer": []}"#.utf8))
        }
    }

    static func spec(_ json: String) throws -> RecognizerSpec {
        try JSONDecoder().decode(RecognizerSpec.self, from: Data(json.utf8))
    }

    static func error(_ configuration: EngineConfiguration) -> SpecError? {
        do {
            try configuration.validate()
            return nil
        } catch {
            return error
        }
    }

    @Test("errors point at the offending spot from the configuration root")
    func paths() throws {
        var c = EngineConfiguration.default
        c.recognizers[3].requiresFailureOf = ["nope"]
        #expect(Self.error(c)?.path == [.key("recognizers"), .index(3), .key("requires-failure-of"), .index(0)])
        #expect(Self.error(c)?.description == "recognizers[3].requires-failure-of[0]: unknown recognizer 'nope'")

        c = .default
        c.recognizers[4].simultaneousWith.append("missing")
        #expect(Self.error(c)?.path == [.key("recognizers"), .index(4), .key("simultaneous-with"), .index(4)])

        c = .default
        c.recognizers[8].preempts = ["*", "pan", "pan2"]
        #expect(Self.error(c)?.path == [.key("recognizers"), .index(8), .key("preempts"), .index(2)])

        c = .default
        c.recognizers[2].name = "tap"
        #expect(Self.error(c)?.path == [.key("recognizers"), .index(2), .key("name")])

        c = .default
        c.recognizers[1].region = "nowhere"
        #expect(Self.error(c)?.path == [.key("recognizers"), .index(1), .key("region")])
    }

    @Test("failure requirements must not form a cycle (R4)")
    func cycle() throws {
        var c = EngineConfiguration.default
        c.recognizers[1].requiresFailureOf = ["two-finger-tap"]
        c.recognizers[2].requiresFailureOf = ["tap"]
        let error = try #require(Self.error(c))
        #expect(error.message.contains("cycle"))
        #expect(error.path.first == .key("recognizers"))
        #expect(error.path.dropFirst(2).first == .key("requires-failure-of"))
    }

    @Test("a recognizer cannot name itself")
    func selfReference() {
        var c = EngineConfiguration.default
        c.recognizers[0].simultaneousWith = ["tap"]
        #expect(Self.error(c)?.path == [.key("recognizers"), .index(0), .key("simultaneous-with"), .index(0)])
    }

    @Test("regions: root is reserved, names unique, parents known and acyclic, rects inside")
    func regions() {
        let rect = SurfaceRect(x: 0, y: 0, width: 0.5, height: 0.5)
        func check(_ regions: [RegionSpec]) -> [SpecPathComponent]? {
            Self.error(EngineConfiguration(regions: regions, recognizers: []))?.path
        }
        #expect(check([RegionSpec(name: "root", rect: rect)]) == [.key("regions"), .index(0), .key("name")])
        #expect(
            check([RegionSpec(name: "a", rect: rect), RegionSpec(name: "a", rect: rect)]) == [
                .key("regions"), .index(1), .key("name"),
            ])
        #expect(
            check([RegionSpec(name: "a", rect: rect, parent: "b")]) == [.key("regions"), .index(0), .key("parent")])
        #expect(
            check([RegionSpec(name: "a", rect: rect, parent: "b"), RegionSpec(name: "b", rect: rect, parent: "a")]) == [
                .key("regions"), .index(0), .key("parent"),
            ])
        #expect(
            check([RegionSpec(name: "a", rect: SurfaceRect(x: 0.8, y: 0, width: 0.5, height: 0.5))]) == [
                .key("regions"), .index(0), .key("rect"),
            ])
        #expect(check([RegionSpec(name: "a", rect: rect), RegionSpec(name: "b", rect: rect, parent: "a")]) == nil)
    }

    @Test("parameters built in code are range-checked like decoded ones")
    func parameterRanges() {
        var tap = TapParameters()
        tap.fingers = 0
        var pan = PanParameters()
        pan.minFingers = 3
        pan.maxFingers = 2
        var shape = ShapeParameters()
        shape.templates = [
            .points(
                name: "dot",
                points: [SurfacePoint(x: 0.5, y: 0.5), SurfacePoint(x: 0.5, y: 0.5), SurfacePoint(x: 0.5, y: 0.5)])
        ]
        let cases: [(RecognizerParameters, SpecPathComponent)] = [
            (.tap(tap), .key("fingers")), (.pan(pan), .key("max-fingers")), (.shape(shape), .key("templates")),
        ]
        for (parameters, key) in cases {
            let c = EngineConfiguration(recognizers: [RecognizerSpec(name: "x", parameters: parameters)])
            #expect(Self.error(c)?.path.dropFirst(2).first == key)
        }
    }

    @Test("the engine refuses an invalid configuration at init")
    func initValidates() {
        var c = EngineConfiguration.default
        c.recognizers[0].requiresFailureOf = ["ghost"]
        #expect(throws: SpecError.self) { try GestureEngine(configuration: c) }
    }
}

/// Client definitions: the same validation, in the context of the configuration and the other
/// clients.
@Suite("Client definitions")
struct ClientDefinitionTests {
    static let device = DeviceDescriptor(
        id: DeviceID(1), label: "event5", name: "panel",
        geometry: SurfaceGeometry(physicalSize: PhysicalSize(width: Millimeters(344), height: Millimeters(194))))
    static let t0 = Timestamp(microseconds: 1_000_000)

    /// The default set, with `clients` granting what these tests exercise (names in
    /// `requires-failure-of`); ClientPolicyTests check the defaults.
    static func engine(clients: ClientPolicy = ClientPolicy(mayRequireFailure: true)) throws -> GestureEngine {
        var configuration = EngineConfiguration.default
        configuration.clients = clients
        var e = try GestureEngine(configuration: configuration)
        e.addDevice(device)
        return e
    }

    static func define(_ e: inout GestureEngine, _ n: UInt64, _ json: String) throws(SpecError) {
        let d = try! JSONDecoder().decode(EngineConfiguration.self, from: Data(json.utf8))
        var events: [EngineEvent] = []
        try e.define(owner: .client(n), regions: d.regions, recognizers: d.recognizers, at: t0, into: &events)
    }

    static func refusal(_ e: inout GestureEngine, _ n: UInt64, _ json: String) -> SpecError? {
        do {
            try define(&e, n, json)
            return nil
        } catch {
            return error
        }
    }

    @Test("a client may name the configuration's recognizers and regions and its own")
    func visible() throws {
        var e = try Self.engine()
        try Self.define(
            &e, 1,
            #"{"regions": [{"name": "b", "rect": {"x": 0, "y": 0, "width": 0.2, "height": 0.2}}], "recognizers": [{"name": "b-tap", "kind": "tap", "region": "b", "requires-failure-of": ["double-tap", "b-long"]}, {"name": "b-long", "kind": "long-press", "region": "b"}]}"#
        )
        #expect(e.recognizerSummaries.suffix(2).map(\.owner) == [.client(1), .client(1)])
        #expect(e.recognizerSummaries.suffix(2).map(\.region) == ["b", "b"])
    }

    @Test("a client may not name another client's recognizer or region")
    func invisible() throws {
        var e = try Self.engine()
        try Self.define(
            &e, 1,
            #"{"regions": [{"name": "r1", "rect": {"x": 0, "y": 0, "width": 0.2, "height": 0.2}}], "recognizers": [{"name": "one", "kind": "tap"}]}"#
        )
        let a = Self.refusal(
            &e, 2, #"{"recognizers": [{"name": "two", "kind": "tap", "requires-failure-of": ["one"]}]}"#)
        #expect(a?.path == [.key("recognizers"), .index(0), .key("requires-failure-of"), .index(0)])
        let b = Self.refusal(&e, 2, #"{"recognizers": [{"name": "two", "kind": "tap", "region": "r1"}]}"#)
        #expect(b?.path == [.key("recognizers"), .index(0), .key("region")])
        let c = Self.refusal(
            &e, 2,
            #"{"regions": [{"name": "r2", "parent": "r1", "rect": {"x": 0, "y": 0, "width": 0.2, "height": 0.2}}]}"#)
        #expect(c?.path == [.key("regions"), .index(0), .key("parent")])
    }

    @Test("names must not collide with the configuration's; another client's names are its own")
    func collisions() throws {
        var e = try Self.engine()
        let taken = Self.refusal(&e, 1, #"{"recognizers": [{"name": "pan", "kind": "pan"}]}"#)
        #expect(taken?.path == [.key("recognizers"), .index(0), .key("name")])
        #expect(taken?.message == "recognizer name 'pan' is the configuration's")
        try Self.define(
            &e, 1,
            #"{"regions": [{"name": "pad", "rect": {"x": 0, "y": 0, "width": 0.5, "height": 0.5}}], "recognizers": [{"name": "mine", "kind": "pan", "region": "pad"}]}"#
        )
        // A client cannot see another's names, so it cannot be kept from using one (squatting).
        try Self.define(
            &e, 2,
            #"{"regions": [{"name": "pad", "rect": {"x": 0.5, "y": 0.5, "width": 0.5, "height": 0.5}}], "recognizers": [{"name": "mine", "kind": "swipe", "region": "pad", "simultaneous-with": ["mine-too"]}, {"name": "mine-too", "kind": "tap"}]}"#
        )
        let c = e.definitions.compiled
        let (one, two) = (
            c.index[.init(owner: .client(1), name: "mine")]!, c.index[.init(owner: .client(2), name: "mine")]!
        )
        #expect(c.kinds[one] == .pan && c.kinds[two] == .swipe)
        #expect(c.regionRects[c.regionOf[one]].x == 0 && c.regionRects[c.regionOf[two]].x == 0.5)
        #expect(c.simultaneous.contains(two, c.index[.init(owner: .client(2), name: "mine-too")]!))
        // Redefining replaces the client's own definitions, so its own names are free again.
        try Self.define(&e, 1, #"{"recognizers": [{"name": "mine", "kind": "tap"}]}"#)
        #expect(e.recognizerSummaries.filter { $0.owner == .client(1) }.map(\.kind) == [.tap])
    }

    @Test("a refused definition changes nothing")
    func refusalChangesNothing() throws {
        var e = try Self.engine()
        try Self.define(&e, 1, #"{"recognizers": [{"name": "mine", "kind": "pan"}]}"#)
        let before = e.recognizerSummaries
        #expect(
            Self.refusal(&e, 1, #"{"recognizers": [{"name": "new", "kind": "tap", "requires-failure-of": ["x"]}]}"#)
                != nil)
        #expect(e.recognizerSummaries == before)
    }

    @Test("the configuration cannot be changed through define")
    func configurationOwner() throws {
        var e = try Self.engine()
        var events: [EngineEvent] = []
        #expect(throws: SpecError.self) {
            try e.define(owner: .configuration, regions: [], recognizers: [], at: Self.t0, into: &events)
        }
    }

    @Test("a set made beside the engine installs only onto the set it was made from")
    func installOntoItsBasis() throws {
        var e = try Self.engine()
        var events: [EngineEvent] = []
        let basis = e.definitions
        let one = try basis.defining(owner: .client(1), regions: [], recognizers: [RecognizerSpec(name: "one", parameters: .tap(TapParameters()))])
        let two = try basis.defining(owner: .client(2), regions: [], recognizers: [RecognizerSpec(name: "two", parameters: .tap(TapParameters()))])
        // Making a set changes nothing running.
        #expect(e.recognizerSummaries == basis.recognizerSummaries)
        #expect(e.install(one, at: Self.t0, into: &events))
        // `two` was made from the set before `one`: installing it would drop `one`.
        #expect(!e.install(two, at: Self.t0, into: &events))
        #expect(e.recognizerSummaries.filter { $0.owner != .configuration }.map(\.name) == ["one"])
        let again = try e.definitions.defining(
            owner: .client(2), regions: [], recognizers: [RecognizerSpec(name: "two", parameters: .tap(TapParameters()))])
        #expect(e.install(again, at: Self.t0, into: &events))
        #expect(e.recognizerSummaries.filter { $0.owner != .configuration }.map(\.name) == ["one", "two"])
        // A reload made from an older set is refused the same way; a removal of a client without
        // definitions is no change at all.
        let (reloaded, _) = try basis.reloading(.default)
        #expect(!e.install(reloaded, at: Self.t0, into: &events))
        #expect(e.definitions.removing(.client(3)) == nil)
        #expect(e.install(e.definitions.removing(.client(1))!, at: Self.t0, into: &events))
        #expect(e.recognizerSummaries.filter { $0.owner != .configuration }.map(\.name) == ["two"])
    }

    @Test("relations compile to what the specs name: simultaneous both ways, preempts one way, '*', the clients policy")
    func relations() throws {
        var configuration = EngineConfiguration(recognizers: [
            RecognizerSpec(name: "c0", parameters: .tap(TapParameters()), simultaneousWith: ["c1"]),
            RecognizerSpec(name: "c1", parameters: .tap(TapParameters()), preempts: ["c2"]),
            RecognizerSpec(name: "c2", parameters: .tap(TapParameters())),
        ])
        for compete in [false, true] {
            configuration.clients = ClientPolicy(mayCompete: compete)
            var e = try GestureEngine(configuration: configuration)
            var events: [EngineEvent] = []
            try e.define(
                owner: .client(1), regions: [],
                recognizers: [
                    RecognizerSpec(name: "k0", parameters: .tap(TapParameters()), simultaneousWith: ["*"]),
                    RecognizerSpec(name: "k1", parameters: .tap(TapParameters()), preempts: ["k2"]),
                    RecognizerSpec(name: "k2", parameters: .tap(TapParameters()), simultaneousWith: ["k1"]),
                ], at: Self.t0, into: &events)
            try e.define(
                owner: .client(2), regions: [],
                recognizers: [RecognizerSpec(name: "m0", parameters: .tap(TapParameters()))],
                at: Self.t0, into: &events)
            let c = e.definitions.compiled
            let names = c.names
            #expect(names == ["c0", "c1", "c2", "k0", "k1", "k2", "m0"])
            let simultaneous: Set<[String]> = [["c0", "c1"], ["k1", "k2"]]
            let preempts: Set<[String]> = [["c1", "c2"], ["k1", "k2"]]
            for a in names.indices {
                for b in names.indices where a != b {
                    let (na, nb) = (names[a], names[b])
                    let crossing = na.hasPrefix("c") != nb.hasPrefix("c")
                    // Two clients' recognizers never arbitrate, whatever is granted.
                    let clients = !na.hasPrefix("c") && !nb.hasPrefix("c") && na.first != nb.first
                    let expected =
                        simultaneous.contains([na, nb]) || simultaneous.contains([nb, na]) || na == "k0" || nb == "k0"
                        || (crossing && !compete) || clients
                    #expect(c.isSimultaneous(a, b) == expected, "\(na) \(nb) compete \(compete)")
                    #expect(c.doesPreempt(a, b) == preempts.contains([na, nb]), "\(na) \(nb)")
                }
            }
        }
    }

    @Test("R9: a reload keeps the client definitions that still validate and says what it dropped and why")
    func reloadDropsInvalidClients() throws {
        var e = try Self.engine()
        try Self.define(
            &e, 1,
            #"{"recognizers": [{"name": "a", "kind": "tap", "requires-failure-of": ["double-tap"]}, {"name": "a2", "kind": "swipe"}, {"name": "a3", "kind": "tap", "requires-failure-of": ["a"]}]}"#
        )
        try Self.define(&e, 2, #"{"recognizers": [{"name": "b", "kind": "tap"}]}"#)
        var events: [EngineEvent] = []
        var next = EngineConfiguration(recognizers: [RecognizerSpec(name: "x", parameters: .pan(PanParameters()))])
        next.clients = ClientPolicy(mayRequireFailure: true)
        let dropped = try e.reload(next, at: Self.t0, into: &events)
        // Only what no longer fits goes (a, and a3 which named it); a2 stays.
        #expect(dropped.map(\.owner) == [.client(1)])
        #expect(dropped.first?.dropped.map(\.name) == ["a", "a3"])
        #expect(
            dropped.first?.dropped.first?.reason
                == "recognizers[0].requires-failure-of[0]: unknown recognizer 'double-tap' (a client may name the configuration's definitions and its own)"
        )
        #expect(e.recognizerSummaries.map(\.name) == ["x", "a2", "b"])
    }

    @Test("R9: a reload that takes a region drops what was in it; a narrower policy drops what it forbids")
    func reloadDropsRegionsAndPolicy() throws {
        var configuration = EngineConfiguration.default
        configuration.regions = [RegionSpec(name: "keypad", rect: SurfaceRect(x: 0, y: 0, width: 0.5, height: 0.5))]
        configuration.clients = ClientPolicy(mayRequireFailure: true)
        var e = try GestureEngine(configuration: configuration)
        e.addDevice(Self.device)
        try Self.define(
            &e, 1,
            #"{"regions": [{"name": "pad", "parent": "keypad", "rect": {"x": 0, "y": 0, "width": 0.2, "height": 0.2}}], "recognizers": [{"name": "p", "kind": "tap", "region": "pad"}, {"name": "q", "kind": "tap", "requires-failure-of": ["double-tap"]}, {"name": "r", "kind": "tap"}]}"#
        )
        var events: [EngineEvent] = []
        // No keypad any more, and no grant for requires-failure-of.
        let dropped = try e.reload(.default, at: Self.t0, into: &events)
        #expect(dropped.first?.dropped.map(\.name) == ["pad", "p", "q"])
        #expect(dropped.first?.dropped.map(\.kind) == [.region, .recognizer, .recognizer])
        // Each reason names the definition where the client put it, not where it was among those
        // still being tried (q was recognizers[1]).
        #expect(
            dropped.first?.dropped.map { $0.reason.prefix { $0 != ":" } } == [
                "regions[0].parent", "recognizers[0].region", "recognizers[1].requires-failure-of[0]",
            ])
        #expect(dropped.first?.dropped.last?.reason.contains("may-require-failure") == true)
        #expect(e.recognizerSummaries.filter { $0.owner == .client(1) }.map(\.name) == ["r"])
    }
}
