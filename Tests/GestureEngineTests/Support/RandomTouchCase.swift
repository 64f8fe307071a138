import Foundation
import TestSupport

@testable import GestureEngine

/// One random case for the views' invariant (ViewStreamPropertyTests): a configuration drawn from
/// every kind and every flag and relation, and random multi-touch input on one panel — landings,
/// moves, lifts, 1–5 fingers at once, pauses long enough for timers, now and then a cancelled
/// touch (a palm) or lost events. Everything follows from the seed.
///
/// About half the cases also put a stage before the arena (``PanelSettings``): dead zones, a
/// stuck-contact limit, idle with or without a wake, and the screen going off now and then. They
/// are drawn from a generator of their own, so the other half are exactly the cases they were
/// before the stage existed.
struct RandomTouchCase {
    enum Step {
        case frame(TouchFrame)
        /// Events were lost (SYN_DROPPED): R9.
        case resync(Timestamp)
        /// Time passes to here; every timer up to it fires.
        case wait(Timestamp)
        /// The caller read the screen's state (``GestureEngine/screen(_:isOn:)``), before the
        /// frame at that time.
        case screen(Timestamp, isOn: Bool)
    }

    /// What the input did to one touch: the truth the views' stream is checked against.
    struct Contact {
        var id: TouchID
        var landed: Timestamp
        var landing: SurfacePoint
        var tool: ToolType
        /// Every frame in which it moved, with its position.
        var moves: [(time: Timestamp, position: SurfacePoint)] = []
        var lifted: (time: Timestamp, position: SurfacePoint)?
        /// A frame said `cancelled` (a palm, a lost contact).
        var cancelled: Timestamp?
    }

    static let device = DeviceDescriptor(
        id: DeviceID(1), label: "panel", name: "random panel",
        geometry: SurfaceGeometry(physicalSize: PhysicalSize(width: Millimeters(344), height: Millimeters(194))))
    static let origin = Timestamp(microseconds: 1_000_000_000)
    /// Ids are never reused, and a gesture lists at most ``TouchIDList/capacity`` touches: with no
    /// more touches than that in a case, every claim is visible in the gesture events.
    static let mostTouches = TouchIDList.capacity

    let seed: UInt64
    var configuration = EngineConfiguration()
    var reportsTouchMoves = true
    var explains = false
    /// The kinds whose gesture events the engine makes (``GestureEngine/reportedKinds``); nil:
    /// every kind. Not drawn: ViewStreamPropertyTests runs each case again with some left out.
    var reportedKinds: Set<GestureKind>?
    /// The stage before the arena; inactive in about half the cases.
    var panel = PanelSettings()
    var steps: [Step] = []
    var contacts: [TouchID: Contact] = [:]
    /// The input as text, for a failure message.
    var script: [String] = []

    init(seed: UInt64) {
        self.seed = seed
        var rng = SplitMix64(seed: seed)
        reportsTouchMoves = rng.chance(0.8)
        explains = rng.chance(0.2)
        configuration = Self.configuration(&rng)
        var panelRNG = SplitMix64(seed: seed ^ Self.panelSalt)
        if panelRNG.chance(0.5) { panel = Self.panel(&panelRNG) }
        makeInput(&rng, &panelRNG)
    }

    static let panelSalt: UInt64 = 0x7061_6e65_6c5f_6761

    // MARK: - The stage before the arena

    static func panel(_ rng: inout SplitMix64) -> PanelSettings {
        var panel = PanelSettings()
        for _ in 0..<Int.random(in: 0...2, using: &rng) {
            let width = Double.random(in: 0.05...0.4, using: &rng)
            let height = Double.random(in: 0.05...0.4, using: &rng)
            panel.deadZones.append(
                SurfaceRect(
                    x: Double.random(in: 0...(1 - width), using: &rng),
                    y: Double.random(in: 0...(1 - height), using: &rng), width: width, height: height))
        }
        if rng.chance(0.6) {
            panel.stuckContact = StuckContactLimit(
                after: .milliseconds(Int64.random(in: 100...1_500, using: &rng)),
                within: Millimeters(Double.random(in: 0.3...3, using: &rng)))
        }
        if rng.chance(0.5) {
            panel.idleAfter = .milliseconds(Int64.random(in: 50...2_000, using: &rng))
            panel.wakeAfterIdle = rng.chance(0.5)
        }
        panel.screenWake = rng.chance(0.5)
        // At least something, so the half with a stage has one.
        if !panel.isActive { panel.screenWake = true }
        return panel
    }

    // MARK: - Configuration

    static func configuration(_ rng: inout SplitMix64) -> EngineConfiguration {
        var regions: [RegionSpec] = []
        for i in 0..<Int.random(in: 0...2, using: &rng) {
            let width = Double.random(in: 0.2...0.6, using: &rng)
            let height = Double.random(in: 0.2...0.6, using: &rng)
            let rect = SurfaceRect(
                x: Double.random(in: 0...(1 - width), using: &rng), y: Double.random(in: 0...(1 - height), using: &rng),
                width: width, height: height)
            regions.append(RegionSpec(name: "region\(i)", rect: rect, z: Int.random(in: 0...1, using: &rng)))
        }
        let count = Int.random(in: 1...5, using: &rng)
        let kinds = (0..<count).map { _ in GestureKind.allCases.randomElement(using: &rng)! }
        let names = kinds.enumerated().map { "\($1.rawValue)\($0)" }
        var recognizers: [RecognizerSpec] = []
        for (i, kind) in kinds.enumerated() {
            var spec = RecognizerSpec(name: names[i], parameters: parameters(kind, &rng))
            if !regions.isEmpty && rng.chance(0.4) { spec.region = regions.randomElement(using: &rng)!.name }
            spec.cancelsTouches = rng.chance(0.75)
            spec.delaysTouchesBegan = rng.chance(0.3)
            spec.delaysTouchesEnded = rng.chance(0.7)
            // Only earlier ones: requirements never form a cycle.
            spec.requiresFailureOf = names[..<i].filter { _ in rng.chance(0.3) }
            let others = names.filter { $0 != names[i] }
            spec.simultaneousWith = rng.chance(0.1) ? ["*"] : others.filter { _ in rng.chance(0.2) }
            spec.preempts = rng.chance(0.05) ? ["*"] : others.filter { _ in rng.chance(0.15) }
            if rng.chance(0.2) { spec.when.maxFingers = Int.random(in: 1...3, using: &rng) }
            if rng.chance(0.1) { spec.when.minFingers = Int.random(in: 1...(spec.when.maxFingers ?? 2), using: &rng) }
            recognizers.append(spec)
        }
        return EngineConfiguration(regions: regions, recognizers: recognizers)
    }

    static func parameters(_ kind: GestureKind, _ rng: inout SplitMix64) -> RecognizerParameters {
        func ms(_ range: ClosedRange<Int64>) -> TimeSpan { .milliseconds(Int64.random(in: range, using: &rng)) }
        switch kind {
        case .tap:
            var p = TapParameters()
            p.taps = Int.random(in: 1...2, using: &rng)
            p.fingers = Int.random(in: 1...3, using: &rng)
            p.maxDuration = ms(150...600)
            p.maxGap = ms(150...400)
            return .tap(p)
        case .longPress:
            var p = LongPressParameters()
            p.fingers = Int.random(in: 1...2, using: &rng)
            p.minDuration = ms(150...700)
            return .longPress(p)
        case .pan:
            var p = PanParameters()
            p.minFingers = Int.random(in: 1...2, using: &rng)
            p.maxFingers = Int.random(in: p.minFingers...5, using: &rng)
            p.startDistance = Millimeters(Double.random(in: 0...10, using: &rng))
            return .pan(p)
        case .swipe:
            var p = SwipeParameters()
            p.minFingers = Int.random(in: 1...2, using: &rng)
            p.maxFingers = Int.random(in: p.minFingers...3, using: &rng)
            return .swipe(p)
        case .edgeSwipe:
            var p = EdgeSwipeParameters()
            p.edges = Set(Edge.allCases.filter { _ in rng.chance(0.6) })
            if p.edges.isEmpty { p.edges = [.top] }
            p.fingers = Int.random(in: 1...3, using: &rng)
            p.band = Millimeters(Double.random(in: 8...20, using: &rng))
            return .edgeSwipe(p)
        case .pinch:
            var p = PinchParameters()
            p.maxFingers = Int.random(in: 2...5, using: &rng)
            return .pinch(p)
        case .rotate:
            var p = RotateParameters()
            p.maxFingers = Int.random(in: 2...5, using: &rng)
            return .rotate(p)
        case .shape:
            var p = ShapeParameters()
            p.maxFingers = Int.random(in: 1...2, using: &rng)
            return .shape(p)
        case .pressAndTap:
            var p = PressAndTapParameters()
            p.minDuration = ms(50...300)
            p.maxDuration = ms(150...600)
            return .pressAndTap(p)
        default:
            preconditionFailure("RandomTouchCase draws no \(kind) recognizer: give the kind its case here")
        }
    }

    // MARK: - Input

    /// A finger's motion: resting, sliding at a speed (mm/s), or circling a point.
    private enum Motion {
        case rest
        case slide(dx: Double, dy: Double)
        case circle(center: SurfacePoint, radius: Double, radiansPerSecond: Double)
    }

    private struct Finger {
        var id: TouchID
        var position: SurfacePoint
        var tool: ToolType
        var motion: Motion
        var angle = 0.0
    }

    private mutating func makeInput(_ rng: inout SplitMix64, _ panelRNG: inout SplitMix64) {
        let size = Self.device.geometry.measuringSize
        let (width, height) = (size.width.value, size.height.value)
        let mostAtOnce = Int.random(in: 1...5, using: &rng)
        var time = Self.origin
        var fingers: [Finger] = []
        var nextID: UInt32 = 1

        func landingPoint(_ rng: inout SplitMix64) -> SurfacePoint {
            if let near = fingers.randomElement(using: &rng), rng.chance(0.3) {
                // A finger of the same hand: 10–40 mm away.
                let angle = Double.random(in: 0..<(2 * Double.pi), using: &rng)
                let d = Double.random(in: 10...40, using: &rng)
                return clamp(
                    SurfacePoint(
                        x: near.position.x + cos(angle) * d / width, y: near.position.y + sin(angle) * d / height))
            }
            if rng.chance(0.25) {
                // In an edge's band.
                let inset = Double.random(in: 0...12, using: &rng)
                let along = Double.random(in: 0.05...0.95, using: &rng)
                switch Edge.allCases.randomElement(using: &rng)! {
                case .top: return SurfacePoint(x: along, y: inset / height)
                case .bottom: return SurfacePoint(x: along, y: 1 - inset / height)
                case .left: return SurfacePoint(x: inset / width, y: along)
                case .right: return SurfacePoint(x: 1 - inset / width, y: along)
                }
            }
            return SurfacePoint(x: Double.random(in: 0...1, using: &rng), y: Double.random(in: 0...1, using: &rng))
        }

        func motion(at p: SurfacePoint, _ rng: inout SplitMix64) -> Motion {
            let pick = Double.random(in: 0..<1, using: &rng)
            if pick < 0.35 { return .rest }
            if pick < 0.8 {
                let angle = Double.random(in: 0..<(2 * Double.pi), using: &rng)
                let speed =
                    rng.chance(0.5) ? Double.random(in: 5...80, using: &rng) : Double.random(in: 150...700, using: &rng)
                return .slide(dx: cos(angle) * speed, dy: sin(angle) * speed)
            }
            let radius = Double.random(in: 15...40, using: &rng)
            let center = SurfacePoint(x: p.x - radius / width, y: p.y)
            return .circle(center: center, radius: radius, radiansPerSecond: Double.random(in: 3...10, using: &rng))
        }

        let frames = Int.random(in: 10...90, using: &rng)
        for _ in 0..<frames {
            let pause = Double.random(in: 0..<1, using: &rng)
            let dt: Int64 =
                pause < 0.75
                ? Int64.random(in: 7_000...17_000, using: &rng)
                : pause < 0.93
                    ? Int64.random(in: 20_000...150_000, using: &rng) : Int64.random(in: 150_000...900_000, using: &rng)
            time = time + TimeSpan(microseconds: dt)
            let seconds = Double(dt) / 1_000_000

            if !fingers.isEmpty && rng.chance(0.01) {
                steps.append(.resync(time))
                script.append("\(ms(time)) resync")
            }
            if panel.screenWake {
                // Off mostly while nothing is down, as the daemon reads it; now and then on again.
                let roll = Double.random(in: 0..<1, using: &panelRNG)
                if roll < (fingers.isEmpty ? 0.2 : 0.03) || roll > 0.97 {
                    let isOn = roll > 0.97
                    steps.append(.screen(time, isOn: isOn))
                    script.append("\(ms(time)) screen \(isOn ? "on" : "off")")
                }
            }

            var touches: [Touch] = []
            var line: [String] = []
            var kept: [Finger] = []
            for var f in fingers {
                let roll = Double.random(in: 0..<1, using: &rng)
                if roll < 0.07 {
                    touches.append(Touch(id: f.id, phase: .ended, position: f.position, tool: f.tool))
                    contacts[f.id]?.lifted = (time, f.position)
                    line.append("up \(f.id.rawValue)")
                    continue
                }
                if roll < 0.075 {
                    touches.append(Touch(id: f.id, phase: .cancelled, position: f.position, tool: f.tool))
                    contacts[f.id]?.cancelled = time
                    line.append("cancel \(f.id.rawValue)")
                    continue
                }
                let before = f.position
                switch f.motion {
                case .rest:
                    if rng.chance(0.3) {
                        f.position = clamp(
                            SurfacePoint(
                                x: f.position.x + Double.random(in: -0.3...0.3, using: &rng) / width,
                                y: f.position.y + Double.random(in: -0.3...0.3, using: &rng) / height))
                    }
                case .slide(let dx, let dy):
                    f.position = clamp(
                        SurfacePoint(x: f.position.x + dx * seconds / width, y: f.position.y + dy * seconds / height))
                case .circle(let center, let radius, let speed):
                    f.angle += speed * seconds
                    f.position = clamp(
                        SurfacePoint(
                            x: center.x + cos(f.angle) * radius / width, y: center.y + sin(f.angle) * radius / height))
                }
                if f.position != before {
                    touches.append(Touch(id: f.id, phase: .moved, position: f.position, tool: f.tool))
                    contacts[f.id]?.moves.append((time, f.position))
                    line.append(String(format: "move %d to %.4f,%.4f", f.id.rawValue, f.position.x, f.position.y))
                } else {
                    touches.append(Touch(id: f.id, phase: .stationary, position: f.position, tool: f.tool))
                }
                kept.append(f)
            }
            fingers = kept

            let room = mostAtOnce - fingers.count
            if room > 0 && Int(nextID) <= Self.mostTouches && rng.chance(0.3) {
                for _ in 0..<min(room, Self.mostTouches + 1 - Int(nextID), rng.chance(0.3) ? 2 : 1) {
                    let p = landingPoint(&rng)
                    let tool: ToolType = rng.chance(0.9) ? .finger : rng.chance(0.7) ? .pen : .palm
                    let f = Finger(id: TouchID(nextID), position: p, tool: tool, motion: motion(at: p, &rng))
                    nextID += 1
                    fingers.append(f)
                    touches.append(Touch(id: f.id, phase: .began, position: p, tool: tool))
                    contacts[f.id] = Contact(id: f.id, landed: time, landing: p, tool: tool)
                    line.append(
                        String(format: "down %d at %.4f,%.4f", f.id.rawValue, p.x, p.y)
                            + (tool == .finger ? "" : " tool=\(tool)"))
                }
            }
            if touches.isEmpty {
                steps.append(.wait(time))
                script.append("\(ms(time)) wait")
            } else {
                steps.append(.frame(TouchFrame(device: Self.device.id, time: time, touches: touches)))
                if !line.isEmpty { script.append("\(ms(time)) " + line.joined(separator: "; ")) }
            }
        }
        // Every finger lifts, then every timer runs out.
        if !fingers.isEmpty {
            time = time + .milliseconds(10)
            for f in fingers { contacts[f.id]?.lifted = (time, f.position) }
            steps.append(
                .frame(
                    TouchFrame(
                        device: Self.device.id, time: time,
                        touches: fingers.map { Touch(id: $0.id, phase: .ended, position: $0.position, tool: $0.tool) }))
            )
            script.append("\(ms(time)) " + fingers.map { "up \($0.id.rawValue)" }.joined(separator: "; "))
        }
        steps.append(.wait(time + .milliseconds(5_000)))
    }

    private func clamp(_ p: SurfacePoint) -> SurfacePoint {
        SurfacePoint(x: min(1, max(0, p.x)), y: min(1, max(0, p.y)))
    }

    func ms(_ t: Timestamp) -> String {
        let us = (t - Self.origin).microseconds
        return us % 1000 == 0 ? "\(us / 1000)ms" : "\(Double(us) / 1000)ms"
    }
}

extension SplitMix64 {
    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }
}
