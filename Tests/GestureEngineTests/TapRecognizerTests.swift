import Testing

@testable import GestureEngine

/// The transition table of `tap` (docs/RECOGNIZERS.md), one row at a time.
@Suite("tap recognizer")
struct TapRecognizerTests {
    typealias H = MachineHarness<TapRecognizer>

    static func parameters(taps: Int = 1, fingers: Int = 1) -> TapParameters {
        var p = TapParameters()
        p.taps = taps
        p.fingers = fingers
        return p
    }

    @Test("recognizes N taps of F fingers at the last lift", arguments: 1...3, 1...5)
    func recognizes(taps: Int, fingers: Int) {
        var h = H(Self.parameters(taps: taps, fingers: fingers))
        for tap in 0..<taps {
            let touches = H.fingers(fingers, at: 150, 100).map { ($0.0 + UInt32(tap * 10), $0.1, $0.2) }
            #expect(h.down(touches).name == "none")
            h.wait(80)
            let result = h.up(touches.map(\.0))
            if tap < taps - 1 {
                #expect(result.name == "none")
                #expect(h.machine.deadline != nil, "between taps the gap timer runs")
                h.wait(150)
            } else {
                #expect(result.name == "recognize")
                #expect(result.report?.fingers == fingers)
                #expect(h.machine.deadline == nil)
            }
        }
    }

    @Test("fingers landing one after another still make one tap", arguments: 2...5)
    func staggeredFingers(fingers: Int) {
        var h = H(Self.parameters(fingers: fingers))
        for (id, x, y) in H.fingers(fingers, at: 150, 100) {
            h.down([(id, x, y)])
            h.wait(15)
        }
        #expect(h.up((1...UInt32(fingers)).map { $0 }).name == "recognize")
    }

    @Test("more fingers than asked fail at once", arguments: 1...4)
    func tooManyFingers(fingers: Int) {
        var h = H(Self.parameters(fingers: fingers))
        #expect(h.down(H.fingers(fingers + 1, at: 150, 100)).name == "fail")
    }

    @Test("fewer fingers than asked fail at the lift", arguments: 2...5)
    func tooFewFingers(fingers: Int) {
        var h = H(Self.parameters(fingers: fingers))
        h.down(H.fingers(fingers - 1, at: 150, 100))
        h.wait(60)
        #expect(h.up((1..<UInt32(fingers)).map { $0 }).name == "fail")
    }

    @Test("moving more than slop fails; within slop does not", arguments: [(2.5, "none"), (3.5, "fail")])
    func slop(distance: Double, outcome: String) {
        var h = H(Self.parameters())
        h.down([(1, 150, 100)])
        #expect(h.move([(1, 150 + distance, 100)]).name == outcome)
    }

    @Test("held longer than max-duration: the timer fails it")
    func tooLong() {
        var h = H(Self.parameters())
        h.down([(1, 150, 100)])
        #expect(h.machine.deadline == h.time + .milliseconds(500))
        #expect(h.fire()?.name == "fail")
        #expect(h.machine.deadline == nil)
    }

    @Test("a gap longer than max-gap fails a double tap")
    func gapTooLong() {
        var h = H(Self.parameters(taps: 2))
        h.down([(1, 150, 100)])
        h.wait(60)
        h.up([1])
        #expect(h.machine.deadline == h.time + .milliseconds(300))
        #expect(h.fire()?.name == "fail")
    }

    @Test("a second tap farther than max-tap-distance fails", arguments: [(15.0, "none"), (17.0, "fail")])
    func tapDistance(offset: Double, outcome: String) {
        var h = H(Self.parameters(taps: 2))
        h.down([(1, 150, 100)])
        h.wait(60)
        h.up([1])
        h.wait(100)
        #expect(h.down([(2, 150 + offset, 100)]).name == outcome)
    }

    @Test("reports the centroid of the last tap at the lift time")
    func report() {
        var h = H(Self.parameters(fingers: 2))
        h.down([(1, 100, 100), (2, 120, 60)])
        h.wait(70)
        let result = h.up([1, 2])
        #expect(result.report?.time == h.time)
        #expect(abs(result.report!.position.x * 344 - 110) < 1e-9)
        #expect(abs(result.report!.position.y * 194 - 80) < 1e-9)
    }

    @Test("done ignores input until reset, then starts over")
    func doneAndReset() {
        var h = H(Self.parameters())
        #expect(h.down(H.fingers(2, at: 150, 100)).name == "fail")
        #expect(h.up([1, 2]).name == "none")
        h.machine.reset()
        h.mine = 0
        h.down([(5, 150, 100)])
        h.wait(50)
        #expect(h.up([5]).name == "recognize")
    }
}
