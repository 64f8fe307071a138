import TestSupport
import Testing

@testable import GestureEngine

/// The default set on realistic input: strokes synthesized with real-world timing (60–120 Hz
/// frames, acceleration, ~0.2 mm finger jitter, several seeds), so each real gesture yields that
/// gesture (docs/ARBITRATION.md, "The default set").
@Suite("Default set on realistic input")
struct DefaultSetTests {
    static let rates = [60.0, 90.0, 120.0]

    static func run(_ body: String, rate: Double, seed: UInt64 = 7) throws -> [GestureEvent] {
        try ScenarioRunner.gestures("config default\nrate \(rate)Hz\njitter 0.2mm\nseed \(seed)\n" + body + "\nwait 1s")
    }

    static func names(_ events: [GestureEvent]) -> [String] {
        events.filter { $0.state != .changed }.map { "\($0.name) \($0.state.rawValue)" }
    }

    @Test(
        "R6: a one-finger horizontal swipe yields a swipe (the pan may run too)", arguments: rates,
        [Direction.left, .right])
    func horizontalSwipe(rate: Double, direction: Direction) throws {
        for seed in 1...5 as ClosedRange<UInt64> {
            let (from, to) = direction == .right ? ("0.25", "0.55") : ("0.55", "0.25")
            let events = try Self.run(
                "0ms down 1 at \(from),0.50\n+10ms stroke 1 to \(to),0.51 over 140ms flick\n+8ms up 1", rate: rate,
                seed: seed)
            let swipes = events.filter { $0.name == "swipe" }
            #expect(swipes.count == 1, "\(Self.names(events))")
            #expect(swipes.first?.direction == direction)
            #expect(Set(events.map(\.name)).isSubset(of: ["swipe", "pan"]), "\(Self.names(events))")
        }
    }

    @Test("swipes of 1–5 fingers in 8 directions report fingers and direction", arguments: 1...5, Direction.allCases)
    func swipes(fingers: Int, direction: Direction) throws {
        let (c, s) = cosSin(direction.degrees * Double.pi / 180)
        var downs: [String] = []
        var strokes: [String] = []
        for i in 0..<fingers {
            let x = 0.45 + Double(i) * 0.04 - Double(fingers - 1) * 0.02
            let y = 0.5
            downs.append("down \(i + 1) at \(x),\(y)")
            strokes.append("stroke \(i + 1) to \(x + c * 70 / 344),\(y + s * 70 / 194) over 130ms flick")
        }
        let lifts = (1...fingers).map { "up \($0)" }
        let events = try Self.run(
            "0ms \(downs.joined(separator: "; "))\n+12ms \(strokes.joined(separator: "; "))\n+8ms \(lifts.joined(separator: "; "))",
            rate: 120)
        let swipe = events.first { $0.name == "swipe" }
        #expect(swipe?.direction == direction, "\(Self.names(events))")
        #expect(swipe?.fingers == fingers)
        #expect(swipe?.touches.count == fingers)
    }

    @Test("a drawn circle yields circle, not a pan alone", arguments: rates, [360.0, -360.0])
    func circle(rate: Double, degrees: Double) throws {
        for (seed, duration) in [(1, 600), (2, 800), (3, 1000)] as [(UInt64, Int)] {
            let events = try Self.run(
                "0ms down 1 at 0.58,0.50\n+10ms arc 1 around 0.50,0.50 by \(degrees)deg over \(duration)ms drag\n+10ms up 1",
                rate: rate, seed: seed)
            let circles = events.filter { $0.name == "circle" }
            #expect(circles.count == 1, "\(Self.names(events))")
            #expect(circles.first?.shape == "circle")
            #expect(!events.contains { $0.name == "swipe" || $0.name == "tap" })
        }
    }

    @Test(
        "R4: two quick taps yield exactly one double-tap and no tap",
        arguments: rates, [60, 120, 250])
    func doubleTap(rate: Double, gapMS: Int) throws {
        for seed in 1...4 as ClosedRange<UInt64> {
            let events = try Self.run(
                """
                0ms down 1 at 0.40,0.50
                +10ms wiggle 1 over 70ms
                +0ms up 1
                +\(gapMS)ms down 2 at 0.405,0.505
                +10ms wiggle 2 over 70ms
                +0ms up 2
                """, rate: rate, seed: seed)
            #expect(Self.names(events) == ["double-tap recognized"])
        }
    }

    @Test("a single tap yields exactly one tap, after the double-tap gap", arguments: rates)
    func singleTap(rate: Double) throws {
        let events = try Self.run("0ms down 1 at 0.40,0.50\n+10ms wiggle 1 over 80ms\n+0ms up 1", rate: rate)
        #expect(Self.names(events) == ["tap recognized"])
    }

    /// A fast tapper (an impatient kiosk user hammering a button): 6–10 taps whose landings are
    /// 80–150 ms apart, each down 30–70 ms, the finger drifting up to 1.5 mm per tap, trembling
    /// 0.5 mm while down and sliding up to 1 mm as it lifts; one sequence in four alternates two
    /// fingers 20 mm apart (drumming, too far apart for a double tap). Every tap is counted once,
    /// by a tap or a double-tap, and nothing else is reported: no pan, no swipe, no long press.
    @Test(
        "fast tapping (80–150 ms apart, a real finger's drift and tremor) yields only taps and double-taps, each tap once",
        arguments: rates)
    func fastTapping(rate: Double) throws {
        var random = SplitMix64(seed: 80 + UInt64(rate))
        for sequence in 0..<40 {
            let drumming = sequence % 4 == 3
            let count = 6 + Int(random.next() % 5)
            var script = ["config default", "rate \(rate)Hz", "jitter 0.5mm", "seed \(sequence + 1)"]
            var (x, y) = (172.0, 97.0)  // mm on the 344 × 194 mm panel
            var landing = 0
            for i in 1...count {
                x += random.unit() * 1.5
                y += random.unit() * 1.5
                let at = drumming && i % 2 == 0 ? x + 20 : x
                let down = 30 + Int(random.next() % 41)
                script.append("\(landing)ms down \(i) at \(at)mm,\(y)mm")
                script.append("+0ms wiggle \(i) over \(down)ms")
                script.append("+0ms move \(i) to \(at + random.unit())mm,\(y + random.unit())mm")
                script.append("+4ms up \(i)")
                landing += 80 + Int(random.next() % 71)
            }
            script.append("wait 1s")
            let events = try ScenarioRunner.gestures(script.joined(separator: "\n"))
            let described = "sequence \(sequence): \(Self.names(events))"
            #expect(Set(events.map(\.name)).isSubset(of: drumming ? ["tap"] : ["tap", "double-tap"]), "\(described)")
            #expect(events.allSatisfy { $0.state == .recognized }, "\(described)")
            let counted = events.flatMap { Array($0.touches) }
            #expect(counted.sorted() == (1...count).map { TouchID(UInt32($0)) }, "\(described)")
        }
    }

    @Test("a two-finger tap yields two-finger-tap", arguments: rates)
    func twoFingerTap(rate: Double) throws {
        let events = try Self.run(
            "0ms down 1 at 0.40,0.50\n+20ms down 2 at 0.48,0.50\n+10ms wiggle 1 over 80ms; wiggle 2 over 80ms\n+10ms up 1\n+10ms up 2",
            rate: rate)
        #expect(Self.names(events) == ["two-finger-tap recognized"])
    }

    @Test("a long press yields long-press and no tap", arguments: rates)
    func longPress(rate: Double) throws {
        let events = try Self.run("0ms down 1 at 0.40,0.50\n+10ms wiggle 1 over 800ms\n+10ms up 1", rate: rate)
        #expect(Self.names(events) == ["long-press began", "long-press ended"])
    }

    @Test("a pinch yields pinch and no rotate", arguments: rates, [1.8, 0.5])
    func pinch(rate: Double, factor: Double) throws {
        let events = try Self.run(
            """
            0ms down 1 at 0.44,0.50; down 2 at 0.56,0.52
            +16ms arc 1 around 0.50,0.51 by 3deg over 400ms scale \(factor); arc 2 around 0.50,0.51 by 3deg over 400ms scale \(factor)
            +16ms up 1; up 2
            """, rate: rate)
        let names = Set(events.map(\.name))
        #expect(names.contains("pinch"))
        #expect(!names.contains("rotate"), "\(Self.names(events))")
        #expect(!names.contains("swipe") && !names.contains("two-finger-tap"))
        let scale = events.last { $0.name == "pinch" }?.scale ?? 1
        #expect(abs(scale - factor) < 0.1)
    }

    @Test("a turn of two fingers yields rotate with the angle turned", arguments: rates, [45.0, -90.0])
    func rotate(rate: Double, degrees: Double) throws {
        let events = try Self.run(
            """
            0ms down 1 at 0.44,0.50; down 2 at 0.56,0.50
            +16ms arc 1 around 0.50,0.50 by \(degrees)deg over 500ms; arc 2 around 0.50,0.50 by \(degrees)deg over 500ms
            +16ms up 1; up 2
            """, rate: rate)
        let last = events.last { $0.name == "rotate" }
        #expect(last?.state == .ended)
        #expect(abs((last?.rotation ?? 0) * 180 / Double.pi - degrees) < 3)
    }

    @Test(
        "a quick stroke from the edge yields edge-swipe with the edge and, simultaneous with it, the inward swipe",
        arguments: Edge.allCases)
    func edgeSwipe(edge: Edge) throws {
        let (from, to): (String, String) =
            switch edge {
            case .left: ("0.004,0.50", "0.25,0.50")
            case .right: ("0.996,0.50", "0.75,0.50")
            case .top: ("0.50,0.008", "0.50,0.40")
            case .bottom: ("0.50,0.992", "0.50,0.60")
            }
        let events = try Self.run(
            "0ms down 1 at \(from)\n+10ms stroke 1 to \(to) over 200ms flick\n+8ms up 1", rate: 120)
        #expect(events.first { $0.name == "edge-swipe" && $0.state == .began }?.edge == edge)
        let inward: Direction =
            switch edge {
            case .left: .right
            case .right: .left
            case .top: .down
            case .bottom: .up
            }
        #expect(events.filter { $0.name == "swipe" }.map(\.direction) == [inward])
    }

    @Test("a slow drag yields a pan only")
    func drag() throws {
        let events = try Self.run(
            "0ms down 1 at 0.30,0.50\n+10ms stroke 1 to 0.50,0.60 over 900ms drag\n+30ms up 1", rate: 120)
        #expect(Set(events.map(\.name)) == ["pan"])
    }

    @Test("the same input gives the same events (determinism)")
    func deterministic() throws {
        let script = "0ms down 1 at 0.58,0.50\n+10ms arc 1 around 0.50,0.50 by 360deg over 700ms\n+10ms up 1"
        let a = try Self.run(script, rate: 120)
        let b = try Self.run(script, rate: 120)
        #expect(a == b)
    }
}
