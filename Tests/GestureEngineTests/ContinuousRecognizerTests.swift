import Testing

@testable import GestureEngine

/// The transition tables of the continuous kinds (docs/RECOGNIZERS.md): long-press, pan,
/// edge-swipe, pinch, rotate.
@Suite("continuous recognizers")
struct ContinuousRecognizerTests {
    // MARK: long-press

    static func longPress(fingers: Int) -> LongPressParameters {
        var p = LongPressParameters()
        p.fingers = fingers
        return p
    }

    @Test("long-press: F fingers held min-duration begin; moves change; a lift ends", arguments: 1...4)
    func longPress(fingers: Int) {
        var h = MachineHarness<LongPressRecognizer>(Self.longPress(fingers: fingers))
        #expect(h.down(MachineHarness<LongPressRecognizer>.fingers(fingers, at: 150, 100)).name == "none")
        #expect(h.machine.deadline == h.time + .milliseconds(500))
        #expect(h.fire()?.name == "begin")
        let moved = MachineHarness<LongPressRecognizer>.fingers(fingers, at: 150, 100, dx: 20)
        let change = h.move(moved)
        #expect(change.name == "change")
        #expect(abs(change.report!.translation.dx * 344 - 20) < 1e-9)
        #expect(h.up([1]).name == "end")
    }

    @Test("long-press: moving beyond slop or lifting before the time fails", arguments: ["move", "lift"])
    func longPressFails(how: String) {
        var h = MachineHarness<LongPressRecognizer>(Self.longPress(fingers: 1))
        h.down([(1, 150, 100)])
        h.wait(200)
        let result = how == "move" ? h.move([(1, 154, 100)]) : h.up([1])
        #expect(result.name == "fail")
    }

    @Test("long-press: waits for all its fingers; the timer counts from the last landing")
    func longPressWaitsForFingers() {
        var h = MachineHarness<LongPressRecognizer>(Self.longPress(fingers: 2))
        h.down([(1, 150, 100)])
        #expect(h.machine.deadline == nil)
        h.wait(100)
        h.down([(2, 170, 100)])
        #expect(h.machine.deadline == h.time + .milliseconds(500))
    }

    // MARK: pan

    /// Pan parameters; `settle` 0 takes the fingers down at once (UIKit), as in the transition table.
    static func pan(_ low: Int, _ high: Int, settle: Int64 = 0) -> PanParameters {
        var p = PanParameters()
        p.minFingers = low
        p.maxFingers = high
        p.settle = .milliseconds(settle)
        return p
    }

    @Test("pan: begins once the centroid moved start-distance, with F fingers", arguments: 1...5)
    func panBegins(fingers: Int) {
        typealias H = MachineHarness<PanRecognizer>
        var h = H(Self.pan(1, 5))
        h.down(H.fingers(fingers, at: 150, 100))
        h.wait(16)
        #expect(h.move(H.fingers(fingers, at: 150, 100, dx: 2.9)).name == "none")
        h.wait(16)
        let began = h.move(H.fingers(fingers, at: 150, 100, dx: 3.1))
        #expect(began.name == "begin")
        #expect(began.report?.fingers == fingers)
        h.wait(16)
        #expect(h.move(H.fingers(fingers, at: 150, 100, dx: 10)).name == "change")
        #expect(h.up((1...UInt32(fingers)).map { $0 }).name == "end")
    }

    @Test("pan: more than max-fingers fails; lifting before it began fails", arguments: 1...4)
    func panFails(maxFingers: Int) {
        typealias H = MachineHarness<PanRecognizer>
        var h = H(Self.pan(1, maxFingers))
        #expect(h.down(H.fingers(maxFingers + 1, at: 150, 100)).name == "fail")
        var g = H(Self.pan(1, maxFingers))
        g.down([(1, 150, 100)])
        #expect(g.up([1]).name == "fail")
    }

    @Test("pan: fewer than min-fingers never begin", arguments: 2...5)
    func panMinFingers(minFingers: Int) {
        typealias H = MachineHarness<PanRecognizer>
        var h = H(Self.pan(minFingers, 5))
        h.down(H.fingers(minFingers - 1, at: 150, 100))
        #expect(h.move(H.fingers(minFingers - 1, at: 150, 100, dx: 30)).name == "none")
    }

    @Test("pan: a finger landing mid-pan does not make the translation jump; the count follows after 100 ms")
    func panContinuity() {
        typealias H = MachineHarness<PanRecognizer>
        var h = H(Self.pan(1, 5))
        h.down([(1, 100, 100)])
        h.move([(1, 120, 100)])
        h.down([(2, 200, 150)])
        let after = h.move([(1, 125, 100), (2, 205, 150)])
        #expect(abs(after.report!.translation.dx * 344 - 25) < 1e-9)
        #expect(abs(after.report!.translation.dy) < 1e-12)
        #expect(after.report?.fingers == 1)
        h.wait(100)
        #expect(h.move([(1, 126, 100), (2, 206, 150)]).report?.fingers == 2)
    }

    @Test("pan: four fingers landing over 150 ms begin with fingers 4 when the landing window closes")
    func panSettles() {
        typealias H = MachineHarness<PanRecognizer>
        var h = H(PanParameters())
        let start = h.time
        for i in 0..<4 {
            #expect(h.down([(UInt32(i + 1), 120 + 15 * Double(i), 60 + 1.5 * Double(i))]).name == "none")
            h.wait(i < 3 ? 40 : 20)
            // The first fingers already move (less than the 8 mm that commit a hand): no pan yet.
            let down = (0...i).map { j -> (UInt32, Double, Double) in
                let x: Double = 120 + 15 * Double(j)
                let y: Double = 60 + 1.5 * Double(i + 1)
                return (UInt32(j + 1), x, y)
            }
            #expect(h.move(down).name == "none")
        }
        #expect(h.machine.deadline == start + .milliseconds(150) + TimeSpan(microseconds: 1))
        let began = h.fire()
        #expect(began?.name == "begin")
        #expect(began?.report?.fingers == 4)
        // Lifted one by one within 100 ms of each other: still four fingers to the end.
        h.wait(30)
        #expect(h.up([1]).name == "none")
        h.wait(60)
        #expect(h.move([(2, 135, 90), (3, 150, 90), (4, 165, 90)]).report?.fingers == 4)
        h.wait(60)
        h.up([2, 3])
        h.wait(60)
        let end = h.up([4])
        #expect(end.name == "end")
        #expect(end.report?.fingers == 4)
    }

    @Test("pan: a hand that has moved 8 mm is making its gesture: the count settles with the fingers down")
    func panCommits() {
        typealias H = MachineHarness<PanRecognizer>
        var h = H(PanParameters())
        h.down([(1, 100, 100), (2, 115, 100)])
        h.wait(30)
        #expect(h.move([(1, 100, 107), (2, 115, 107)]).name == "none")
        h.wait(10)
        let began = h.move([(1, 100, 108.5), (2, 115, 108.5)])
        #expect(began.name == "begin")
        #expect(began.report?.fingers == 2)
    }

    // MARK: edge-swipe

    @Test(
        "edge-swipe: from each edge's band, inward min-distance begins and reports the edge", arguments: Edge.allCases)
    func edgeSwipe(edge: Edge) {
        typealias H = MachineHarness<EdgeSwipeRecognizer>
        var h = H(EdgeSwipeParameters())
        let (x, y, dx, dy): (Double, Double, Double, Double) =
            switch edge {
            case .left: (2, 97, 11, 0)
            case .right: (342, 97, -11, 0)
            case .top: (172, 2, 0, 11)
            case .bottom: (172, 192, 0, -11)
            }
        h.down([(1, x, y)])
        let began = h.move([(1, x + dx, y + dy)])
        #expect(began.name == "begin")
        #expect(began.report?.edge == edge)
    }

    @Test("edge-swipe: landing outside the band fails; moving along the edge fails")
    func edgeSwipeFails() {
        typealias H = MachineHarness<EdgeSwipeRecognizer>
        var h = H(EdgeSwipeParameters())
        #expect(h.down([(1, 9, 97)]).name == "fail")
        var g = H(EdgeSwipeParameters())
        g.down([(1, 2, 97)])
        #expect(g.move([(1, 5, 108)]).name == "fail")
    }

    // MARK: pinch and rotate

    @Test("pinch: spreading F fingers by min-scale-change begins; scale is the spread ratio", arguments: 2...5)
    func pinch(fingers: Int) {
        typealias H = MachineHarness<PinchRecognizer>
        var h = H(PinchParameters())
        let start = H.fingers(fingers, at: 170, 100)
        h.down(start)
        let small = start.map { ($0.0, 170 + ($0.1 - 170) * 1.05, $0.2) }
        #expect(h.move(small).name == "none")
        let wide = start.map { ($0.0, 170 + ($0.1 - 170) * 1.5, $0.2) }
        let began = h.move(wide)
        #expect(began.name == "begin")
        #expect(abs(began.report!.scale! - 1.5) < 1e-9)
        #expect(h.up([1]).name == (fingers > 2 ? "none" : "end"))
    }

    @Test("rotate: turning F fingers by min-rotation begins; clockwise is positive", arguments: 2...5, [1.0, -1.0])
    func rotate(fingers: Int, sign: Double) {
        typealias H = MachineHarness<RotateRecognizer>
        var h = H(RotateParameters())
        let center = (170.0, 100.0)
        func ring(_ degrees: Double) -> [(UInt32, Double, Double)] {
            (0..<fingers).map { i in
                let a = (Double(i) / Double(fingers) * 360 + degrees) * Double.pi / 180
                let (c, s) = cosSin(a)
                return (UInt32(i + 1), center.0 + 30 * c, center.1 + 30 * s)
            }
        }
        h.down(ring(0))
        #expect(h.move(ring(10 * sign)).name == "none")
        let began = h.move(ring(20 * sign))
        #expect(began.name == "begin")
        #expect(abs(began.report!.rotation! - sign * 20 * Double.pi / 180) < 1e-6)
    }
}
