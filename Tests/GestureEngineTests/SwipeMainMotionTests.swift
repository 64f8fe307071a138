import Foundation
import TestSupport
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
    /// `pause`: ms the finger rests at the turn (a person's hook slows down where it turns).
    static func hookedFlick(_ direction: Direction, side: Double, hookAngle: Double = 90, pause: Double = 0) -> [Leg] {
        [
            Leg(degrees: direction.degrees + side * hookAngle, length: 20, ms: 87),
            Leg(degrees: direction.degrees, length: 0, ms: pause),
            Leg(degrees: direction.degrees, length: 100, ms: 125),
        ]
    }

    /// Draws `legs` one after the other with one finger at `hz` frames per second (each period
    /// ± `jitterMs` at random when `jitter` seeds it: a real panel's, or a loaded machine's), then
    /// lifts; the first decision and the frame time (ms after landing) it came at.
    static func draw(
        _ legs: [Leg], parameters: SwipeParameters = SwipeParameters(), hz: Double = 120,
        jitter: UInt64? = nil, jitterMs: Double = 1
    ) -> (Proposal, Double?) {
        var h = Swipe(parameters)
        let start = h.time
        let origin = (x: 170.0, y: 100.0)
        /// Where the finger is `ms` after landing.
        func position(at ms: Double) -> (Double, Double) {
            var (x, y) = origin
            var left = ms
            for leg in legs {
                let (c, s) = cosSin(leg.degrees * Double.pi / 180)
                let part = leg.ms > 0 ? min(max(left, 0), leg.ms) / leg.ms : 1
                (x, y) = (x + leg.length * part * c, y + leg.length * part * s)
                left -= leg.ms
            }
            return (x, y)
        }
        var decision = h.down([(1, origin.x, origin.y)])
        var at: Double?
        func note(_ p: Proposal) {
            guard case .none = decision else { return }
            if case .none = p { return }
            decision = p
            at = Double((h.time - start).microseconds) / 1000
        }
        var random = jitter.map { SplitMix64(seed: $0) }
        func period() -> Double {
            guard var r = random else { return 1000 / hz }
            defer { random = r }
            return 1000 / hz + (Double(r.next() % 2001) / 1000 - 1) * jitterMs
        }
        let total = legs.reduce(0) { $0 + $1.ms }
        var now = 0.0
        while true {
            let p = period()
            guard now + p <= total + 1e-9 else { break }
            now += p
            h.wait(p)
            let (x, y) = position(at: now)
            note(h.move([(1, x, y)]))
        }
        h.wait(1000 / hz)
        note(h.up([1]))
        return (decision, at)
    }

    @Test(
        "a hooked flick is one swipe in the flick's direction, hooks to either side, at 60–120 Hz",
        arguments: Direction.allCases, [-1.0, 1.0])
    func hookedFlick(direction: Direction, side: Double) {
        for hz in [60.0, 90.0, 100.0, 120.0] {
            for hookAngle in [90.0, 60.0] {
                for pause in [0.0, 20.0] {
                    let legs = Self.hookedFlick(direction, side: side, hookAngle: hookAngle, pause: pause)
                    let (decision, at) = Self.draw(legs, hz: hz)
                    let what = "\(hz) Hz, hook \(side * hookAngle)°, resting \(pause) ms at the turn"
                    #expect(decision.name == "recognize", "\(what)")
                    #expect(
                        decision.report?.direction == direction,
                        "\(what): \(decision.report?.direction.map(\.rawValue) ?? "none") at \(at ?? -1) ms")
                    // Decided on the flick, before the finger lifts.
                    #expect((at ?? .infinity) < 212 + pause, "\(what): at \(at ?? -1) ms")
                }
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

    @Test(
        "any hooked flick is one swipe in the flick's direction: hooks of 10–20 mm at 150–290 mm/s, 60–90° to either side, resting up to 30 ms at the turn, flicks up to 10° askew, 60–125 Hz, frames up to 3 ms early or late (random cases)"
    )
    func hookedFlickProperty() throws {
        let environment = ProcessInfo.processInfo.environment
        let single = environment["GESTURED_HOOK_SEED"].flatMap { UInt64($0, radix: 16) }
        var seeds = SplitMix64(seed: 0x2025_1126)
        for _ in 0..<(single == nil ? 2000 : 1) {
            let seed = single ?? seeds.next()
            var r = SplitMix64(seed: seed)
            let direction = Direction.allCases.randomElement(using: &r)!
            let flick = direction.degrees + Double.random(in: -10...10, using: &r)
            let side = Bool.random(using: &r) ? 1.0 : -1.0
            let hook = (
                degrees: flick + side * Double.random(in: 60...90, using: &r),
                length: Double.random(in: 10...20, using: &r), speed: Double.random(in: 150...290, using: &r)
            )
            let rest = Double.random(in: 0...30, using: &r)
            let length = Double.random(in: 80...120, using: &r)
            let speed = Double.random(in: 600...1000, using: &r)
            let hz = Double.random(in: 60...125, using: &r)
            let jitterMs = Double.random(in: 0...3, using: &r)
            let legs = [
                Leg(degrees: hook.degrees, length: hook.length, ms: hook.length / hook.speed * 1000),
                Leg(degrees: flick, length: 0, ms: rest),
                Leg(degrees: flick, length: length, ms: length / speed * 1000),
            ]
            let (decision, at) = Self.draw(legs, hz: hz, jitter: r.next(), jitterMs: jitterMs)
            guard decision.name != "recognize" || decision.report?.direction != direction else { continue }
            let got = decision.report?.direction.map(\.rawValue) ?? decision.name
            Issue.record(
                """
                \(got) at \(at ?? -1) ms for a flick \(direction.rawValue) (\(flick)°), hook \(hook), resting \(rest) ms, \
                \(length) mm at \(speed) mm/s, \(hz) Hz ± \(jitterMs) ms
                replay: GESTURED_HOOK_SEED=\(String(seed, radix: 16)) swift test --filter hookedFlickProperty
                """)
            return
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
