import Glibc
import Testing
import TouchValues

@testable import TouchInput
@testable import VirtualDevices

/// The `gestured simulate` script language: what each step produces, and its errors.
@Suite struct GestureScriptTests {
    static func frames(_ script: String, seed: UInt64 = 1) throws -> [(TimeSpan, [SimulatedContact])] {
        try GestureScript(parsing: script).timeline(seed: seed).compactMap {
            if case .frame(let at, let contacts) = $0 { return (at, contacts) }
            return nil
        }
    }

    static func centroid(_ contacts: [SimulatedContact]) -> SurfacePoint {
        let n = Double(contacts.count)
        return SurfacePoint(
            x: contacts.map(\.position.x).reduce(0, +) / n, y: contacts.map(\.position.y).reduce(0, +) / n)
    }

    @Test(
        "every gesture starts with its fingers down and ends with all lifted",
        arguments: [
            "tap fingers=3", "double-tap", "long-press duration=300ms", "pan fingers=2", "swipe left fingers=4",
            "pinch out", "rotate fingers=3", "edge-swipe bottom", "circle",
        ])
    func shape(_ step: String) throws {
        let f = try Self.frames(step)
        #expect(
            f.first!.1.count
                == (step.contains("fingers=")
                    ? Int(step.split(separator: "=").last!)!
                    : (step.hasPrefix("pinch") || step.hasPrefix("rotate") ? 2 : 1)))
        #expect(f.last!.1.isEmpty)
        #expect(zip(f, f.dropFirst()).allSatisfy { $0.0 <= $1.0 })
    }

    @Test("frames come at 100 Hz with at most 1 ms of jitter")
    func timing() throws {
        let f = try Self.frames("pan duration=1s")
        let gaps = zip(f, f.dropFirst()).map { $1.0.microseconds - $0.0.microseconds }
        #expect(gaps.dropLast(2).allSatisfy { (9_000...11_000).contains($0) })
        #expect(Set(gaps).count > 10)  // jittered, not a fixed period
        #expect(f.count >= 95 && f.count <= 115)
    }

    @Test("the same seed gives the same timeline, another seed another one")
    func deterministic() throws {
        let a = try GestureScript(parsing: "swipe up\npinch in").timeline(seed: 5)
        #expect(a == (try GestureScript(parsing: "swipe up\npinch in").timeline(seed: 5)))
        #expect(a != (try GestureScript(parsing: "swipe up\npinch in").timeline(seed: 6)))
    }

    @Test(
        "swipes move in their direction",
        arguments: [
            ("right", 1.0, 0.0), ("left", -1, 0), ("up", 0, -1), ("down", 0, 1), ("up-right", 1, -1),
            ("up-left", -1, -1), ("down-right", 1, 1), ("down-left", -1, 1),
        ])
    func swipeDirection(_ direction: String, _ dx: Double, _ dy: Double) throws {
        let f = try Self.frames("swipe \(direction) fingers=2")
        let start = Self.centroid(f.first!.1)
        let end = Self.centroid(f[f.count - 2].1)
        #expect((end.x - start.x) * dx >= 0 && (end.y - start.y) * dy >= 0)
        #expect(abs(end.x - start.x) > 0.1 || abs(end.y - start.y) > 0.1)
        if dx == 0 { #expect(abs(end.x - start.x) < 0.01) }
        if dy == 0 { #expect(abs(end.y - start.y) < 0.01) }
    }

    @Test("pinch in brings fingers together, pinch out spreads them")
    func pinch() throws {
        func spread(_ c: [SimulatedContact]) -> Double {
            abs(c[0].position.x - c[1].position.x) + abs(c[0].position.y - c[1].position.y)
        }
        let pinchIn = try Self.frames("pinch in")
        #expect(spread(pinchIn.first!.1) > 3 * spread(pinchIn[pinchIn.count - 2].1))
        let pinchOut = try Self.frames("pinch out")
        #expect(spread(pinchOut.first!.1) * 3 < spread(pinchOut[pinchOut.count - 2].1))
    }

    @Test("rotate angle=90 turns the fingers clockwise on screen by a quarter turn")
    func rotate() throws {
        let f = try Self.frames("rotate angle=90 at=0.5,0.5")
        func angle(_ p: SurfacePoint) -> Double { atan2(p.y - 0.5, p.x - 0.5) }
        let turned = angle(f[f.count - 2].1[0].position) - angle(f.first!.1[0].position)
        #expect(abs(turned - Double.pi / 2) < 0.01)
    }

    @Test("edge swipes start on their edge", arguments: ["left", "right", "top", "bottom"])
    func edge(_ edge: String) throws {
        let p = try Self.frames("edge-swipe \(edge)").first!.1[0].position
        let distance =
            switch edge {
            case "left": p.x
            case "right": 1 - p.x
            case "top": p.y
            default: 1 - p.y
            }
        #expect(distance < 0.005)
    }

    @Test("a stuck contact lands, reports nothing for its duration, then lifts; contacts held down stay beside it")
    func stuck() throws {
        let timeline = try GestureScript(
            parsing: """
                down id=1 at=0.1,0.1
                stuck at=0.5,0.95 duration=40s
                up id=1
                """
        ).timeline()
        let frames = timeline.compactMap { step -> (at: TimeSpan, contacts: [SimulatedContact])? in
            if case .frame(let at, let contacts) = step { (at, contacts) } else { nil }
        }
        #expect(frames.count == 4, "\(frames)")
        guard frames.count == 4 else { return }
        #expect(frames[1].contacts.map(\.position) == [SurfacePoint(x: 0.1, y: 0.1), SurfacePoint(x: 0.5, y: 0.95)])
        #expect(frames[2].at.microseconds - frames[1].at.microseconds == 40_000_000)
        #expect(frames[2].contacts.map(\.position) == [SurfacePoint(x: 0.1, y: 0.1)], "the ghost lifted, the held one stays")
        #expect(frames[3].contacts.isEmpty)
        #expect(throws: LineError.self) { try GestureScript(parsing: "stuck fingers=2") }
    }

    @Test("low-level contacts, tools and unplug")
    func lowLevel() throws {
        let timeline = try GestureScript(
            parsing: """
                down id=1 at=0.2,0.2
                move id=1 to=0.4,0.2 duration=50ms
                move id=1 tool=palm
                unplug
                """
        ).timeline()
        guard case .frame(_, let first) = timeline.first, case .unplug = timeline.last else {
            Issue.record("unexpected timeline \(timeline)")
            return
        }
        #expect(first.map(\.position) == [SurfacePoint(x: 0.2, y: 0.2)])
        guard case .frame(_, let palm) = timeline[timeline.count - 2] else {
            Issue.record("no frame before the unplug: \(timeline)")
            return
        }
        #expect(palm[0].tool == .palm)
        #expect(palm[0].position == SurfacePoint(x: 0.4, y: 0.2))
    }

    /// A script's last `wait` did not delay the unplug: `simulate tap "wait 400ms"` unplugged
    /// right after the lift, and the daemon cancelled the tap still waiting for the double tap
    /// to fail (R9). The script's end is a step of its own.
    @Test("a trailing wait is the script's end, after its last frame")
    func trailingWait() throws {
        let timeline = try GestureScript(parsing: "tap\nwait 400ms\n").timeline()
        guard case .end(let end) = timeline.last, case .frame(let lift, let contacts) = timeline[timeline.count - 2]
        else {
            Issue.record("unexpected timeline \(timeline)")
            return
        }
        #expect(contacts.isEmpty)
        #expect(end.microseconds >= lift.microseconds + 400_000)
        let untimed = try GestureScript(parsing: "tap\n").timeline()
        #expect(!untimed.contains { if case .end = $0 { true } else { false } })
    }

    @Test("a pause keeps the contacts down and the spacing of the steps around it")
    func pause() throws {
        let timeline = try GestureScript(
            parsing: """
                down id=1 at=0.2,0.2
                pause
                up id=1
                """
        ).timeline()
        guard timeline.count == 3, case .frame(_, let down) = timeline[0], case .pause = timeline[1],
            case .frame(_, let up) = timeline[2]
        else {
            Issue.record("unexpected timeline \(timeline)")
            return
        }
        #expect(down.count == 1 && up.isEmpty)
        #expect(timeline[1].time > timeline[0].time && timeline[1].time == timeline[2].time)
        #expect(throws: LineError.self) { try GestureScript(parsing: "pause 1s") }
    }

    @Test(
        "errors name the line",
        arguments: [
            ("tap\nfly away", 2, "unknown step 'fly'"), ("tap at=2,0", 1, "not a point"),
            ("# comment\n\nswipe sideways", 3, "direction=sideways is not one of"), ("swipe", 1, "needs direction"),
            ("tap speed=3", 1, "'speed=3' is not an argument of tap"), ("pan fingers=11", 1, "from 1 to 10"),
            ("wait", 1, "needs a duration"), ("up id=4", 1, "contact 4 is not down"),
            ("down id=1 at=0.1,0.1\ndown id=1 at=0.2,0.2", 2, "already down"),
            ("tap at=0.1,0.1 at=0.2,0.2", 1, "given twice"),
            ("pinch fingers=1", 1, "from 2 to 10"), ("pan from=0.5,0.5 to=0.5,0.5", 1, "same point"),
            ("long-press duration=10h", 1, "not a duration"),
        ])
    func errors(_ script: String, _ line: Int, _ message: String) {
        #expect {
            try GestureScript(parsing: script)
        } throws: { error in
            guard let e = error as? LineError else { return false }
            return e.line == line && e.message.contains(message)
        }
    }

    @Test("durations")
    func durations() {
        #expect(GestureScript.duration("250ms") == .milliseconds(250))
        #expect(GestureScript.duration("1.5s") == .milliseconds(1500))
        #expect(GestureScript.duration("5") == nil)
        #expect(GestureScript.duration("-1s") == nil)
    }
}
