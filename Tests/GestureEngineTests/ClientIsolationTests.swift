import Foundation
import GestureEngine
import TestSupport
import Testing

/// The rule between owners (docs/ARBITRATION.md, "Client recognizers") as an invariant over
/// random input: under the default `clients` policy, what one client defines — any regions over
/// anything, any recognizers, instant long presses, pans that begin at the first motion — changes
/// nothing of the gestures of the configuration or of another client. Each case runs the same
/// random touches through an engine with the configuration and client 2 and through one where
/// client 1 has defined its random set too, and compares everything not owned by client 1.
/// 250 cases from one fixed base seed, so every run checks the same ones;
/// `GESTURED_CLIENT_ISOLATION_CASES=N` runs the first N of them (fewer under emulation:
/// scripts/cross/test-arm64.sh), and `GESTURED_CLIENT_ISOLATION_SEED=<n>` replays one failing case.
@Suite("Client isolation")
struct ClientIsolationTests {
    static let device = DeviceDescriptor(
        id: DeviceID(1), label: "panel", name: "panel",
        geometry: SurfaceGeometry(physicalSize: PhysicalSize(width: Millimeters(344), height: Millimeters(194))))
    /// At least one.
    static let cases =
        ProcessInfo.processInfo.environment["GESTURED_CLIENT_ISOLATION_CASES"].flatMap { Int($0) }.map { max($0, 1) }
        ?? 250
    static let baseSeed: UInt64 = 0x6973_6F6C_6174_65
    static let replayed = ProcessInfo.processInfo.environment["GESTURED_CLIENT_ISOLATION_SEED"].flatMap { UInt64($0) }

    static var seeds: [UInt64] { replayed.map { [$0] } ?? (0..<UInt64(cases)).map { baseSeed &+ $0 } }

    @Test("a client's definitions change nothing of the configuration's gestures or another client's")
    func isolation() async throws {
        // Not vacuous: the others must have gestures to lose, the hostile client gestures of its own.
        var (othersGestures, hostileGestures) = (0, 0)
        defer {
            if Self.replayed == nil {
                #expect(
                    othersGestures > Self.cases && hostileGestures > Self.cases, "\(othersGestures), \(hostileGestures)"
                )
            }
        }
        for seed in Self.seeds {
            // A case takes milliseconds, the whole run seconds: let the suites beside it (which
            // wait on child processes with time limits) have the cooperative threads meanwhile.
            await Task.yield()
            var rng = SplitMix64(seed: seed)
            let configuration = Self.definitions(&rng, prefix: "c", visible: nil)
            var engineConfiguration = EngineConfiguration(
                regions: configuration.regions, recognizers: configuration.recognizers)
            engineConfiguration.clients = ClientPolicy()
            let other = Self.definitions(&rng, prefix: "b", visible: configuration)
            // The same names as client 2's: each client's names are its own.
            let hostile = Self.definitions(&rng, prefix: "b", visible: configuration, hostile: true)
            let frames = Self.touches(&rng)

            let without = try Self.run(engineConfiguration, [(.client(2), other)], frames)
            let with = try Self.run(engineConfiguration, [(.client(1), hostile), (.client(2), other)], frames)
            let seen = with.filter { $0.owner != .client(1) }.map(Self.summary)
            let expected = without.map(Self.summary)
            othersGestures += expected.count
            hostileGestures += with.count - seen.count
            guard seen != expected else { continue }
            let first =
                zip(seen, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                ?? min(seen.count, expected.count)
            Issue.record(
                """
                seed \(seed) (GESTURED_CLIENT_ISOLATION_SEED=\(seed) replays it): client 1 changed what others get; \
                first difference at event \(first): with it \(seen.dropFirst(first).first ?? "nothing"), \
                without it \(expected.dropFirst(first).first ?? "nothing")
                """)
            return
        }
    }

    /// A gesture event as compared: what happened, to whom, when, on which touches, and where to
    /// a micrometre of surface (a sum over the same touches in another slot order may differ in
    /// its last bits).
    static func summary(_ g: GestureEvent) -> String {
        func r(_ x: Double) -> String { String(format: "%.6f", x) }
        return
            "\(g.owner) \(g.name) \(g.state) at \(g.time) fingers \(g.fingers) touches \(g.touches.map(\.rawValue).sorted()) "
            + "position \(r(g.position.x)),\(r(g.position.y)) translation \(r(g.translation.dx)),\(r(g.translation.dy))"
    }

    /// Every gesture event of a run, in order.
    static func run(
        _ configuration: EngineConfiguration, _ clients: [(Owner, Definitions)], _ frames: [TouchFrame]
    ) throws -> [GestureEvent] {
        var engine = try GestureEngine(configuration: configuration)
        engine.addDevice(device)
        var events: [EngineEvent] = []
        let start = frames.first?.time ?? Timestamp(microseconds: 0)
        for (owner, definitions) in clients {
            try engine.define(
                owner: owner, regions: definitions.regions, recognizers: definitions.recognizers, at: start,
                into: &events)
        }
        for frame in frames { engine.process(frame, into: &events) }
        if let last = frames.last { engine.advance(to: last.time + TimeSpan(microseconds: 5_000_000), into: &events) }
        return events.compactMap {
            guard case .gesture(let g) = $0 else { return nil }
            return g
        }
    }

    struct Definitions {
        var regions: [RegionSpec] = []
        var recognizers: [RecognizerSpec] = []
    }

    /// A random set of regions and recognizers named `prefix…`. A client's (`visible` is the
    /// configuration) may attach to and name the configuration's definitions within the default
    /// policy: `simultaneous-with` only; a hostile one also covers the surface with high regions
    /// and defines recognizers that begin at once.
    static func definitions(
        _ rng: inout SplitMix64, prefix: String, visible: Definitions?, hostile: Bool = false
    ) -> Definitions {
        var d = Definitions()
        for i in 0..<Int.random(in: 0...3, using: &rng) {
            let x = Double.random(in: 0...0.6, using: &rng)
            let y = Double.random(in: 0...0.6, using: &rng)
            let rect =
                hostile && i == 0
                ? SurfaceRect(x: 0, y: 0, width: 1, height: 1)
                : SurfaceRect(
                    x: x, y: y, width: Double.random(in: 0.1...(1 - x), using: &rng),
                    height: Double.random(in: 0.1...(1 - y), using: &rng))
            let parents = [nil] + d.regions.map(\.name) + (visible?.regions.map(\.name) ?? [])
            d.regions.append(
                RegionSpec(
                    name: "\(prefix)r\(i)", rect: rect, parent: i == 0 ? nil : parents.randomElement(using: &rng)!,
                    z: hostile ? 100 : Int.random(in: -1...1, using: &rng)))
        }
        let regions = [RegionSpec.rootName] + d.regions.map(\.name) + (visible?.regions.map(\.name) ?? [])
        let count = Int.random(in: 2...6, using: &rng)
        for i in 0..<count {
            var spec = RecognizerSpec(
                name: "\(prefix)\(i)", region: regions.randomElement(using: &rng)!,
                parameters: hostile && i < 2 ? greedy(i) : parameters(&rng))
            let own = (0..<i).map { "\(prefix)\($0)" }
            let outer = visible?.recognizers.map(\.name) ?? []
            if !own.isEmpty && Bool.random(using: &rng) { spec.requiresFailureOf = [own.randomElement(using: &rng)!] }
            if Int.random(in: 0..<4, using: &rng) == 0 {
                spec.simultaneousWith = [(own + outer + ["*"]).randomElement(using: &rng)!]
            }
            if !own.isEmpty && Int.random(in: 0..<4, using: &rng) == 0 {
                spec.preempts = [own.randomElement(using: &rng)!]
            }
            spec.cancelsTouches = Bool.random(using: &rng)
            spec.delaysTouchesBegan = Int.random(in: 0..<4, using: &rng) == 0
            d.recognizers.append(spec)
        }
        return d
    }

    /// A long press that begins after 1 ms whatever moves, and a pan that begins at the first
    /// motion: what a client that wants every touch would define.
    static func greedy(_ i: Int) -> RecognizerParameters {
        if i == 0 {
            var p = LongPressParameters()
            p.minDuration = .milliseconds(1)
            p.slop = Millimeters(10_000)
            return .longPress(p)
        }
        var p = PanParameters()
        p.startDistance = Millimeters(0)
        return .pan(p)
    }

    static func parameters(_ rng: inout SplitMix64) -> RecognizerParameters {
        switch Int.random(in: 0..<7, using: &rng) {
        case 0:
            var p = TapParameters()
            p.taps = Int.random(in: 1...2, using: &rng)
            p.fingers = Int.random(in: 1...2, using: &rng)
            return .tap(p)
        case 1:
            var p = LongPressParameters()
            p.minDuration = .milliseconds(Int64.random(in: 50...600, using: &rng))
            return .longPress(p)
        case 2: return .pan(PanParameters())
        case 3: return .swipe(SwipeParameters())
        case 4: return .pinch(PinchParameters())
        case 5: return .rotate(RotateParameters())
        default: return .edgeSwipe(EdgeSwipeParameters())
        }
    }

    /// A few seconds of touches: one to three fingers landing (some together, some staggered),
    /// holding, moving in straight strokes or spreading, lifting, with pauses between.
    static func touches(_ rng: inout SplitMix64) -> [TouchFrame] {
        var frames: [TouchFrame] = []
        var time: Int64 = 1_000_000
        var nextID: UInt32 = 1
        for _ in 0..<Int.random(in: 2...6, using: &rng) {
            let fingers = Int.random(in: 1...3, using: &rng)
            let centre = SurfacePoint(
                x: Double.random(in: 0...1, using: &rng), y: Double.random(in: 0...1, using: &rng))
            let velocity = SurfaceVector(
                dx: Double.random(in: -2...2, using: &rng), dy: Double.random(in: -2...2, using: &rng))
            let spread = Double.random(in: -0.5...0.5, using: &rng)
            let offsets = (0..<fingers).map { f in SurfaceVector(dx: 0.05 * Double(f), dy: 0.03 * Double(f)) }
            let landAt = (0..<fingers).map { f in f == 0 ? 0 : Int64.random(in: 0...80_000, using: &rng) }
            let ids = (0..<fingers).map { TouchID(nextID + UInt32($0)) }
            nextID += UInt32(fingers)
            let length = Int64.random(in: 1...80, using: &rng) * 8_000
            let still = Bool.random(using: &rng)
            var t: Int64 = 0
            while t <= length + 8_000 {
                var touches: [Touch] = []
                for f in 0..<fingers where landAt[f] <= t {
                    let s = Double(t) / 1_000_000
                    let moving = still ? 0 : s
                    let p = SurfacePoint(
                        x: centre.x + offsets[f].dx * (1 + spread * s) + velocity.dx * moving,
                        y: centre.y + offsets[f].dy * (1 + spread * s) + velocity.dy * moving)
                    let clamped = SurfacePoint(x: min(max(p.x, 0), 1), y: min(max(p.y, 0), 1))
                    let phase: TouchPhase =
                        t > length
                        ? .ended : landAt[f] == t || (landAt[f] < t && landAt[f] > t - 8_000) ? .began : .moved
                    touches.append(Touch(id: ids[f], phase: phase, position: clamped))
                }
                if !touches.isEmpty {
                    frames.append(
                        TouchFrame(device: device.id, time: Timestamp(microseconds: time + t), touches: touches))
                }
                t += 8_000
            }
            time += t + Int64.random(in: 0...700_000, using: &rng)
        }
        return frames
    }
}
