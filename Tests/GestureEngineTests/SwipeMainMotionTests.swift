import Testing

@testable import GestureEngine

/// The swipe's direction is its main motion (docs/RECOGNIZERS.md, "swipe"): a landing hook or a
/// slow start does not decide it; a flick is decided as soon as it has covered `min-distance-mm`,
/// as before. The strokes are people's: a real flick up-left on a tablet lands with a ~20 mm hook
/// up-right at ~230 mm/s (90 ms), then flicks ~100 mm up-left at ~800 mm/s.
@Suite("swipe: decided on the stroke's main motion")
struct SwipeMainMotionTests {
    typealias Swipe = MachineHarness<SwipeRecognizer>

    /// One leg of a stroke: `length` mm at `degrees` (screen angle, y down) over `ms`.
    struct Leg {
        var degrees: Double
        var length: Double
        var ms: Double
    }

    /// The hooked flick in `direction`: a 20 mm hook `side` × `hookAngle` degrees off it at
    /// 230 mm/s, then 100 mm in the direction at 800 mm/s.
    static func hookedFlick(_ direction: Direction, side: Double, hookAngle: Double = 90) -> [Leg] {
        [
            Leg(degrees: direction.degrees + side * hookAngle, length: 20, ms: 87),
            Leg(degrees: direction.degrees, length: 100, ms: 125),
        ]
    }

    /// Draws `legs` one after the other with one finger at `hz` frames per second, then lifts;
    /// the first decision and the frame time (ms after landing) it came at.
    static func draw(
        _ legs: [Leg], parameters: SwipeParameters = SwipeParameters(), hz: Double = 120
    ) -> (
        Proposal, Double?
    ) {
        var h = Swipe(parameters)
        let start = h.time
        var x = 170.0
        var y = 100.0
        var decision = h.down([(1, x, y)])
        var at: Double?
        func note(_ p: Proposal) {
            guard case .none = decision else { return }
            if case .none = p { return }
            decision = p
            at = Double((h.time - start).microseconds) / 1000
        }
        let period = 1000 / hz
        var carry = 0.0
        for leg in legs {
            let (c, s) = cosSin(leg.degrees * Double.pi / 180)
            let (x0, y0) = (x, y)
            var t = period - carry
            while t <= leg.ms + 1e-9 {
                h.wait(period)
                let d = leg.length * t / leg.ms
                (x, y) = (x0 + d * c, y0 + d * s)
                note(h.move([(1, x, y)]))
                t += period
            }
            carry = leg.ms - (t - period)
            (x, y) = (x0 + leg.length * c, y0 + leg.length * s)
        }
        h.wait(period)
        note(h.up([1]))
        return (decision, at)
    }

    @Test(
        "a hooked flick is one swipe in the flick's direction, hooks to either side, at 60–120 Hz",
        arguments: Direction.allCases, [-1.0, 1.0])
    func hookedFlick(direction: Direction, side: Double) {
        for hz in [60.0, 90.0, 120.0] {
            for hookAngle in [90.0, 60.0] {
                let (decision, at) = Self.draw(Self.hookedFlick(direction, side: side, hookAngle: hookAngle), hz: hz)
                #expect(decision.name == "recognize", "\(hz) Hz, hook \(side * hookAngle)°")
                #expect(
                    decision.report?.direction == direction,
                    "\(hz) Hz, hook \(side * hookAngle)°: \(decision.report?.direction.map(\.rawValue) ?? "none") at \(at ?? -1) ms"
                )
                // Decided on the flick, before the finger lifts.
                #expect((at ?? .infinity) < 212, "\(hz) Hz: at \(at ?? -1) ms")
            }
        }
    }

    @Test(
        "a user's swipe that allows only the flick's direction fires on the hooked flick", arguments: Direction.allCases
    )
    func hookedFlickOneDirection(direction: Direction) {
        var p = SwipeParameters()
        p.directions = [direction]
        for side in [-1.0, 1.0] {
            let (decision, _) = Self.draw(Self.hookedFlick(direction, side: side), parameters: p)
            #expect(decision.name == "recognize" && decision.report?.direction == direction, "hook side \(side)")
        }
    }

    @Test("a straight flick is decided as soon as it has covered min-distance-mm", arguments: Direction.allCases)
    func straightFlick(direction: Direction) {
        // 100 mm in 120 ms (833 mm/s) at 120 Hz: 8.3 mm a frame, 20 mm covered at the third frame.
        let (decision, at) = Self.draw([Leg(degrees: direction.degrees, length: 100, ms: 120)])
        #expect(decision.report?.direction == direction)
        #expect(at.map { abs($0 - 25) < 0.1 } == true, "at \(at ?? -1) ms")
        // With hold-distance-mm 0 (the check off) it is the same frame.
        var p = SwipeParameters()
        p.holdDistance = Millimeters(0)
        #expect(Self.draw([Leg(degrees: direction.degrees, length: 100, ms: 120)], parameters: p).1 == at)
    }

    @Test("a slow straight swipe is decided once it kept its direction for hold-distance-mm more, or at the lift")
    func slowStraightSwipe() {
        // 200 mm/s, under twice min-velocity-mm-s: 20 mm at 100 ms, decided at 30 mm, 150 ms.
        let (slow, at) = Self.draw([Leg(degrees: 0, length: 60, ms: 300)])
        #expect(slow.report?.direction == .right)
        #expect(at.map { $0 > 149 && $0 < 170 } == true, "at \(at ?? -1) ms")
        // Lifted at 25 mm: nothing more is coming, it is decided at the lift.
        let (short, liftedAt) = Self.draw([Leg(degrees: 0, length: 25, ms: 125)])
        #expect(short.report?.direction == .right)
        #expect(liftedAt.map { $0 > 125 } == true, "at \(liftedAt ?? -1) ms")
    }

    @Test("slow first millimetres in another direction do not decide it", arguments: [Direction.up, .left, .downRight])
    func slowStart(direction: Direction) {
        // 12 mm at 60 mm/s perpendicular to the flick, then the flick.
        let legs = [
            Leg(degrees: direction.degrees + 90, length: 12, ms: 200),
            Leg(degrees: direction.degrees, length: 80, ms: 100),
        ]
        #expect(Self.draw(legs).0.report?.direction == direction)
    }

    @Test("one or two fingers keep the speed limit: a slow drag is no swipe")
    func slowDragIsNoSwipe() {
        // 60 mm in 1.5 s: 40 mm/s.
        let (decision, _) = Self.draw([Leg(degrees: 90, length: 60, ms: 1500)])
        #expect(decision.name == "fail")
    }
}
