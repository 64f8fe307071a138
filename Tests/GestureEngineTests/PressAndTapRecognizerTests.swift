import Testing

@testable import GestureEngine

/// The transition table of `press-and-tap` (docs/RECOGNIZERS.md), one row at a time: a press at
/// (150, 100) mm and a tap beside it.
@Suite("press-and-tap recognizer")
struct PressAndTapRecognizerTests {
    typealias H = MachineHarness<PressAndTapRecognizer>

    static func failure(_ proposal: Proposal) -> Failure? {
        guard case .fail(let failure) = proposal else { return nil }
        return failure
    }

    @Test("a tap beside a held press is recognized as the tap lifts, at the press, with two fingers")
    func recognizes() {
        var h = H(PressAndTapParameters())
        #expect(h.down([(1, 150, 100)]).name == "none")
        h.wait(300)
        #expect(h.down([(2, 170, 100)]).name == "none")
        #expect(h.machine.deadline == h.time + .milliseconds(500), "the tap's max-duration runs")
        h.wait(80)
        let result = h.up([2])
        #expect(result.name == "recognize")
        #expect(result.report?.fingers == 2)
        #expect(result.report?.position == H.point(150, 100), "at the pressing finger")
        #expect(h.machine.deadline == nil)
        #expect(h.up([1]).name == "none", "done: the press lifting after it changes nothing")
    }

    @Test(
        "the tap lands at least min-duration after the press: sooner (together) fails",
        arguments: [(0.0, "fail"), (149.0, "fail"), (150.0, "none")])
    func tappedTooSoon(after: Double, outcome: String) {
        var h = H(PressAndTapParameters())
        h.down([(1, 150, 100)])
        h.wait(after)
        let result = h.down([(2, 170, 100)])
        #expect(result.name == outcome)
        if outcome == "fail" { #expect(Self.failure(result)?.check == .tappedTooSoon) }
    }

    @Test("two fingers landing in one frame are not a press and a tap")
    func landedTogether() {
        var h = H(PressAndTapParameters())
        let result = h.down([(1, 150, 100), (2, 170, 100)])
        #expect(Self.failure(result)?.check == .tappedTooSoon)
        #expect(Self.failure(result)?.measured == 0)
    }

    @Test("the tap lands within max-tap-distance of the press", arguments: [(59.0, "none"), (61.0, "fail")])
    func distance(dx: Double, outcome: String) {
        var h = H(PressAndTapParameters())
        h.down([(1, 150, 100)])
        h.wait(200)
        let result = h.down([(2, 150 + dx, 100)])
        #expect(result.name == outcome)
        if outcome == "fail" { #expect(Self.failure(result)?.check == .tapFarFromPress) }
    }

    @Test("either finger moving more than slop fails", arguments: [UInt32(1), 2])
    func slop(finger: UInt32) {
        var h = H(PressAndTapParameters())
        h.down([(1, 150, 100)])
        h.wait(200)
        h.down([(2, 170, 100)])
        #expect(h.move([(finger, finger == 1 ? 154 : 174, 100)]).name == "none", "4 mm: within slop-mm 5")
        let result = h.move([(finger, finger == 1 ? 156 : 176, 100)])
        #expect(Self.failure(result)?.check == .moved)
        #expect(Self.failure(result)?.key == .slop)
    }

    @Test("the press lifting first fails, before or during the tap")
    func pressLifted() {
        var alone = H(PressAndTapParameters())
        alone.down([(1, 150, 100)])
        alone.wait(300)
        #expect(Self.failure(alone.up([1]))?.check == .pressLifted)

        var during = H(PressAndTapParameters())
        during.down([(1, 150, 100)])
        during.wait(200)
        during.down([(2, 170, 100)])
        during.wait(30)
        #expect(Self.failure(during.up([1]))?.check == .pressLifted)
    }

    @Test("a third finger fails")
    func thirdFinger() {
        var h = H(PressAndTapParameters())
        h.down([(1, 150, 100)])
        h.wait(200)
        h.down([(2, 170, 100)])
        h.wait(20)
        let result = h.down([(3, 190, 100)])
        #expect(Self.failure(result)?.check == .thirdFinger)
        #expect(Self.failure(result)?.measured == 3)
    }

    @Test("a tap held max-duration fails when its timer fires")
    func heldTooLong() {
        var h = H(PressAndTapParameters())
        h.down([(1, 150, 100)])
        #expect(h.machine.deadline == nil, "a press alone has no timer: it may be held as long as it likes")
        h.wait(1000)
        h.down([(2, 170, 100)])
        let result = h.fire()
        #expect(Self.failure(result ?? .none)?.check == .heldTooLong)
        #expect(Self.failure(result ?? .none)?.key == .maxDuration)
        #expect(h.machine.deadline == nil)
    }

    @Test("reset: a new press-and-tap after one finished")
    func reset() {
        var h = H(PressAndTapParameters())
        h.down([(1, 150, 100)])
        h.wait(300)
        h.down([(2, 170, 100)])
        h.up([2])
        h.machine.reset()
        #expect(h.machine.state == .idle && h.machine.deadline == nil)
    }
}
