import TestSupport
import Testing

@testable import GestureEngine

/// A report's `startTime` (`start_time_us` on the wire): when the gesture's first touch landed.
@Suite("A gesture's start time")
struct StartTimeTests {
    static func run(_ body: String) throws -> [GestureEvent] {
        try ScenarioRunner.gestures("config default\nrate 100Hz\n" + body + "\nwait 1s")
    }

    @Test("a swipe starts when its finger landed, not when it is recognized")
    func swipe() throws {
        let events = try Self.run("0ms down 1 at 0.25,0.50\n+10ms stroke 1 to 0.55,0.51 over 140ms flick\n+8ms up 1")
        let swipe = try #require(events.first { $0.name == "swipe" })
        #expect(swipe.startTime == Scenario.origin, "the finger landed at 0 ms")
        #expect(swipe.time > swipe.startTime, "recognized while the finger moves: \(swipe.startTime) … \(swipe.time)")
        // The pan that ran beside it started with the same finger.
        for pan in events where pan.name == "pan" { #expect(pan.startTime == swipe.startTime) }
    }

    @Test("a double-tap starts at its first tap, and every report of a pan carries its start")
    func doubleTapAndPan() throws {
        let taps = try Self.run("0ms down 1 at 0.5,0.5\n+60ms up 1\n+100ms down 2 at 0.5,0.5\n+60ms up 2")
        let doubleTap = try #require(taps.first { $0.name == "double-tap" })
        #expect(doubleTap.startTime == Scenario.origin, "the first tap landed at 0 ms")
        #expect((doubleTap.time - doubleTap.startTime).milliseconds == 220, "from the first landing to the second lift")

        let pan = try Self.run("0ms down 1 at 0.3,0.5\n+20ms stroke 1 to 0.6,0.5 over 300ms\n+20ms up 1")
            .filter { $0.name == "pan" }
        #expect(pan.count > 2)
        #expect(Set(pan.map(\.startTime)).count == 1, "began, changed and ended share the start")
        #expect(pan.allSatisfy { $0.startTime <= $0.time })
    }

    /// Over random input and configurations (every kind, R4's held reports, client regions,
    /// resyncs): each report starts when the first touch it lists landed, and not after it is
    /// reported.
    @Test("every report starts when the first touch it lists landed")
    func startIsFirstLanding() throws {
        var seeds = SplitMix64(seed: 0x7374_6172_745f_7573)
        var reports = 0
        for _ in 0..<300 {
            let seed = seeds.next()
            let c = RandomTouchCase(seed: seed)
            var landed: [TouchID: Timestamp] = [:]
            for case .frame(let frame) in c.steps {
                for touch in frame.touches where touch.phase == .began { landed[touch.id] = frame.time }
            }
            for case .gesture(let g)? in try ViewStreamPropertyTests.run(c).map(\.event) {
                reports += 1
                guard g.touches.count > 0, case let first = g.touches[0], let landing = landed[first] else {
                    Issue.record("case \(ViewStreamPropertyTests.hex(seed)): \(g.name) lists no touch that landed")
                    return
                }
                guard g.startTime == landing, g.startTime <= g.time else {
                    Issue.record(
                        """
                        case \(ViewStreamPropertyTests.hex(seed)): \(g.name) \(g.state) at \(g.time) starts at \
                        \(g.startTime), its first touch \(first) landed at \(landing)
                        """)
                    return
                }
            }
        }
        #expect(reports > 300, "only \(reports) reports in 300 cases")
    }
}
