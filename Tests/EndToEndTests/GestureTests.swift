import Foundation
import GestureEngine
import GestureProtocol
import Testing

extension EndToEndTests {
    /// Each gesture of the built-in set, drawn by `gestured simulate` on a uinput panel, read by
    /// a real daemon, received by a socket client with the right fields. The panels vary (with
    /// and without resolution, 2 / 10 / 60 slots, single touch) as real kiosks do.
    @Suite("gestures", .timeLimit(.minutes(2)))
    struct Gestures {
        /// What a client received while a panel played a script.
        struct Played {
            var device: DeviceInfo
            var gestures: [GestureMessage]
            var touches: [TouchMessage]
            /// Monotonic time just before the script started, µs.
            var start: Int64
        }

        /// Starts a daemon (built-in configuration, or `configuration`: YAML recognizers) and a
        /// `profile` panel playing `steps`, subscribes a client, plays, and waits until `count`
        /// gestures `match` (`what` names them);
        /// then unplugs the panel and stops the daemon. Checks what every gesture must carry:
        /// the panel's label, the root region, kernel times between the start of the script and
        /// their reception (non-decreasing), increasing `seq`.
        static func play(
            _ steps: [String], on profile: String, configuration: String? = nil,
            subscription: Subscription = Subscription(), until what: String, count: Int = 1,
            _ match: @escaping @Sendable (GestureMessage) -> Bool
        ) async throws -> Played {
            try await EndToEndFixture.run { fixture in
                if let configuration { try fixture.writeConfiguration(configuration) }
                let daemon = try await fixture.startDaemon()
                let panel = try await fixture.panel(profile, profile: profile, steps: steps)
                let client = try await fixture.subscribe(subscription)
                let device = try await client.device(named: panel.name)
                let start = panel.play()
                do {
                    try await client.waitFor(what, count: count) {
                        if case .gesture(let g) = $0 { match(g) } else { false }
                    }
                } catch {
                    throw FixtureError("\(error); received:\n\(Self.summary(client.messages, since: start))")
                }
                try await panel.waitUntilPlayed()
                try await panel.unplug()
                try await client.removal(of: device.label)
                try await fixture.finish(daemon)

                let received = client.received.filter {
                    if case .gesture = $0.message { true } else { false }
                }
                // `seq` grows across all; times only per recognizer: a report held back by R4 (the
                // swipe waiting for the circle to fail) keeps its own, earlier time.
                var previousSeq: UInt64?
                var previousTime: [String: Int64] = [:]
                for r in received {
                    guard case .gesture(let g) = r.message else { continue }
                    #expect(g.device == device.label && g.region == "root", "\(g)")
                    #expect(
                        g.time.microseconds > start && g.time.microseconds <= r.at,
                        "kernel time within the script: \(g)")
                    if let previousSeq { #expect(g.seq > previousSeq, "\(g) after seq \(previousSeq)") }
                    if let time = previousTime[g.name] {
                        #expect(g.time.microseconds >= time, "\(g) after \(g.name) at \(time)")
                    }
                    previousSeq = g.seq
                    previousTime[g.name] = g.time.microseconds
                }
                return Played(device: device, gestures: client.gestures, touches: client.touches, start: start)
            }
        }

        /// What a client received, one line each, in kernel time since `start` (ms): gestures
        /// (continuous ones at their first and last state only) and touches landing and lifting.
        static func summary(_ messages: [ServerMessage], since start: Int64) -> String {
            func at(_ time: Int64) -> String { String(format: "%+9.1f ms", Double(time - start) / 1000) }
            var lines: [String] = []
            for message in messages {
                switch message {
                case .gesture(let g) where g.state != .changed:
                    var line = "\(at(g.time.microseconds)) \(g.name) \(g.state.rawValue) fingers=\(g.fingers)"
                    if let direction = g.direction { line += " direction=\(direction.rawValue)" }
                    line += String(format: " translation=%.3f,%.3f", g.translation.dx, g.translation.dy)
                    lines.append(line)
                case .touch(let t) where t.phase != .moved:
                    lines.append("\(at(t.time.microseconds)) touch \(t.id.rawValue) \(t.phase)")
                default:
                    continue
                }
            }
            return lines.isEmpty ? "  nothing" : lines.map { "  " + $0 }.joined(separator: "\n")
        }

        static func near(_ p: SurfacePoint, _ x: Double, _ y: Double, within tolerance: Double = 0.02) -> Bool {
            abs(p.x - x) < tolerance && abs(p.y - y) < tolerance
        }

        /// The state sequence of one continuous gesture: began, changed…, then ended.
        static func isComplete(_ states: [GestureState]) -> Bool {
            states.first == .began && states.last == .ended
                && states.dropFirst().dropLast().allSatisfy { $0 == .changed }
        }

        @Test("tap: one recognized tap where it was drawn (10 slots, with resolution: millimetres)")
        func tap() async throws {
            let played = try await Self.play(["tap at=0.3,0.6"], on: "kiosk-10", until: "a tap") { $0.name == "tap" }
            let taps = played.gestures.filter { $0.kind == .tap }
            #expect(taps.map(\.name) == ["tap"])
            let tap = try #require(taps.first)
            #expect(tap.state == .recognized && tap.fingers == 1 && tap.touches.count == 1)
            #expect(Self.near(tap.position, 0.3, 0.6), "\(tap.position)")
            // kiosk-10 is 512×287 mm: the same point in millimetres.
            let size = try #require(played.device.sizeMM)
            let mm = try #require(tap.positionMM)
            #expect(abs(mm.x.value - 0.3 * size.width) < 5 && abs(mm.y.value - 0.6 * size.height) < 5, "\(mm)")
        }

        @Test("double-tap: one double-tap and no tap (no resolution: no millimetres)")
        func doubleTap() async throws {
            let played = try await Self.play(["double-tap at=0.7,0.3"], on: "no-resolution-10", until: "a double tap") {
                $0.name == "double-tap"
            }
            #expect(played.device.sizeMM == nil)
            let taps = played.gestures.filter { $0.kind == .tap }
            #expect(taps.map(\.name) == ["double-tap"], "the tap waits for the double tap to fail, which it does not")
            let doubleTap = try #require(taps.first)
            #expect(doubleTap.state == .recognized && doubleTap.fingers == 1)
            #expect(Self.near(doubleTap.position, 0.7, 0.3), "\(doubleTap.position)")
            #expect(doubleTap.positionMM == nil && doubleTap.translationMM == nil)
        }

        @Test("two-finger-tap: two fingers on a 2-slot optical panel")
        func twoFingerTap() async throws {
            let played = try await Self.play(
                ["tap at=0.5,0.4 fingers=2"], on: "optical-2", until: "a two-finger tap"
            ) { $0.name == "two-finger-tap" }
            let taps = played.gestures.filter { $0.kind == .tap }
            #expect(taps.map(\.name) == ["two-finger-tap"])
            let tap = try #require(taps.first)
            #expect(tap.state == .recognized && tap.fingers == 2 && Set(tap.touches).count == 2)
            #expect(Self.near(tap.position, 0.5, 0.4), "the centroid of the two fingers: \(tap.position)")
            let mm = try #require(tap.positionMM)  // 480×270 mm
            #expect(abs(mm.x.value - 240) < 5 && abs(mm.y.value - 108) < 5, "\(mm)")
        }

        @Test("long-press: began after the press duration, ended at the lift (single-touch resistive panel)")
        func longPress() async throws {
            let played = try await Self.play(
                ["long-press at=0.4,0.7 duration=1s"], on: "resistive", subscription: Subscription(touches: true),
                until: "a long press to end"
            ) { $0.name == "long-press" && $0.state == .ended }
            let press = played.gestures.filter { $0.name == "long-press" }
            #expect(Self.isComplete(press.map(\.state)), "\(press.map(\.state))")
            let began = try #require(press.first)
            #expect(began.kind == .longPress && began.fingers == 1)
            #expect(Self.near(began.position, 0.4, 0.7), "\(began.position)")
            // The default minimum duration is 500 ms of kernel time; the finger lifted after 1 s.
            let landed = try #require(played.touches.first { $0.phase == .began })
            #expect(
                began.time.microseconds - landed.time.microseconds >= 500_000,
                "began \(began.time.microseconds - landed.time.microseconds) µs after landing")
            // Ended at the lift, 1 s after landing (later only if the host starved the VM mid-press).
            let held = press.last!.time.microseconds - landed.time.microseconds
            #expect(held >= 900_000 && held < 2_500_000, "ended \(held) µs after landing")
            // R8 (cancels-touches): raw-touch clients see the touch cancelled when the press begins.
            #expect(played.touches.last?.phase == .cancelled && played.touches.last?.time == began.time)
            #expect(played.gestures.allSatisfy { $0.name == "long-press" }, "\(played.gestures.map(\.name))")
        }

        @Test("pan: three fingers across a 60-slot panel; translation and velocity follow them")
        func pan() async throws {
            let played = try await Self.play(
                ["pan from=0.2,0.5 to=0.8,0.5 fingers=3 duration=800ms"], on: "large-60",
                subscription: Subscription(kinds: [.pan]), until: "a pan to end"
            ) { $0.name == "pan" && $0.state == .ended }
            let pan = played.gestures.filter { $0.name == "pan" }
            #expect(Self.isComplete(pan.map(\.state)), "\(pan.map(\.state))")
            #expect(pan.count > 10, "changed at the panel's rate")
            #expect(pan.allSatisfy { $0.kind == .pan && $0.fingers == 3 && Set($0.touches).count == 3 })
            // Positions go left to right along y = 0.5; the translation ends near the 0.6 drawn.
            #expect(zip(pan, pan.dropFirst()).allSatisfy { $0.position.x <= $1.position.x + 0.001 })
            #expect(pan.allSatisfy { abs($0.position.y - 0.5) < 0.02 })
            let last = pan.last!
            #expect(abs(last.translation.dx - 0.6) < 0.05 && abs(last.translation.dy) < 0.02, "\(last.translation)")
            #expect(pan.dropLast().contains { $0.velocity.dx > 0.3 }, "moving right at ~0.75 surface/s")
        }

        @Test("swipe: left, right, up, down (two fingers), each with its direction")
        func swipes() async throws {
            let played = try await Self.play(
                ["swipe left", "swipe right", "swipe up fingers=2", "swipe down"], on: "kiosk-10",
                subscription: Subscription(kinds: [.swipe]), until: "four swipes", count: 4
            ) { $0.kind == .swipe }
            let swipes = played.gestures.filter { $0.kind == .swipe }
            #expect(swipes.map(\.direction) == [.left, .right, .up, .down])
            #expect(swipes.map(\.fingers) == [1, 1, 2, 1])
            #expect(swipes.allSatisfy { $0.name == "swipe" && $0.state == .recognized })
            // A 0.3 stroke from the centre, recognized while it moves once it has covered 20 mm
            // (0.039 of the 512 mm width, 0.07 of the 287 mm height): translation along the
            // direction, at least that far.
            for s in swipes {
                let (dx, dy) = (s.translation.dx, s.translation.dy)
                let along: Double =
                    switch s.direction {
                    case .left: -dx
                    case .right: dx
                    case .up: -dy
                    case .down: dy
                    default: 0
                    }
                #expect(along > 0.035, "\(s.direction.map(\.rawValue) ?? "?"): translation \(s.translation)")
            }
        }

        @Test("swipe: 2 to 5 fingers landing over up to 150 ms and lifting over up to 200 ms, each one swipe")
        func multiFingerSwipes() async throws {
            let steps = [
                "swipe down fingers=4 landing=110ms lifting=200ms",
                "swipe up-left fingers=3 landing=150ms lifting=100ms",
                "swipe right fingers=5 landing=60ms lifting=200ms",
                "swipe down-right fingers=2 landing=150ms lifting=150ms",
            ]
            // Pans and touches too: a failure then shows when each finger landed (kernel time) and
            // the finger count the pan settled on.
            let played = try await Self.play(
                steps, on: "kiosk-10", subscription: Subscription(kinds: [.swipe, .pan], touches: true),
                until: "four swipes", count: 4
            ) { $0.kind == .swipe }
            let swipes = played.gestures.filter { $0.kind == .swipe }
            #expect(swipes.map(\.direction) == [.down, .upLeft, .right, .downRight])
            #expect(swipes.map(\.fingers) == [4, 3, 5, 2])
            // The pans report the whole hand from their first message, however late the kernel
            // stamped the last finger (docs/RECOGNIZERS.md, finger-count settling).
            let pans = played.gestures.filter { $0.kind == .pan && $0.state == .began }
            #expect(pans.map(\.fingers) == [4, 3, 5, 2])
        }

        @Test("pinch: out then in; scale above then below 1 (no resolution)")
        func pinch() async throws {
            let played = try await Self.play(
                ["pinch out at=0.5,0.5", "pinch in at=0.5,0.5"], on: "no-resolution-10",
                subscription: Subscription(kinds: [.pinch]), until: "two pinches to end", count: 2
            ) { $0.name == "pinch" && $0.state == .ended }
            let pinch = played.gestures.filter { $0.name == "pinch" }
            let split = try #require(pinch.firstIndex { $0.state == .ended })
            let out = Array(pinch[...split])
            let inward = Array(pinch[(split + 1)...])
            #expect(Self.isComplete(out.map(\.state)) && Self.isComplete(inward.map(\.state)))
            #expect(pinch.allSatisfy { $0.fingers == 2 && Self.near($0.position, 0.5, 0.5, within: 0.05) })
            // The script spreads the fingers 0.1 → 0.4 apart and back: ×4 and ×¼.
            let grown = try #require(out.last?.scale)
            let shrunk = try #require(inward.last?.scale)
            #expect(grown > 2.5 && shrunk < 0.4, "scales \(grown), \(shrunk)")
        }

        @Test("rotate: clockwise 90° then counter-clockwise 60°; rotation in radians, positive clockwise")
        func rotate() async throws {
            let played = try await Self.play(
                ["rotate angle=90", "rotate angle=-60"], on: "kiosk-10", subscription: Subscription(kinds: [.rotate]),
                until: "two rotations to end", count: 2
            ) { $0.name == "rotate" && $0.state == .ended }
            let rotate = played.gestures.filter { $0.name == "rotate" }
            let split = try #require(rotate.firstIndex { $0.state == .ended })
            let clockwise = try #require(rotate[split].rotation)
            let counter = try #require(rotate.last?.rotation)
            #expect(Self.isComplete(rotate[...split].map(\.state)), "\(rotate.map(\.state))")
            // Recognition starts after a threshold angle; the rotation is measured from the start.
            #expect(abs(clockwise - Double.pi / 2) < 0.35, "\(clockwise) rad")
            #expect(abs(counter + Double.pi / 3) < 0.35, "\(counter) rad")
        }

        @Test("edge-swipe: from each edge, reporting the edge (2-slot panel)")
        func edgeSwipes() async throws {
            let played = try await Self.play(
                ["edge-swipe left", "edge-swipe right", "edge-swipe top", "edge-swipe bottom"], on: "optical-2",
                subscription: Subscription(kinds: [.edgeSwipe]), until: "four edge swipes to end", count: 4
            ) { $0.kind == .edgeSwipe && $0.state == .ended }
            let edge = played.gestures.filter { $0.kind == .edgeSwipe }
            let began = edge.filter { $0.state == .began }
            #expect(began.map(\.edge) == [.left, .right, .top, .bottom])
            #expect(edge.filter { $0.state == .ended }.map(\.edge) == [.left, .right, .top, .bottom])
            #expect(edge.allSatisfy { $0.name == "edge-swipe" && $0.fingers == 1 && $0.edge != nil })
            // Each began near its edge.
            let starts = began.map(\.position)
            if starts.count == 4 {
                #expect(
                    starts[0].x < 0.15 && starts[1].x > 0.85 && starts[2].y < 0.15 && starts[3].y > 0.85, "\(starts)")
            }
        }

        @Test("circle: the built-in shape, recognized with its name and score (60 slots)")
        func circle() async throws {
            let played = try await Self.play(
                ["circle at=0.5,0.5 radius=0.2"], on: "large-60", subscription: Subscription(kinds: [.shape]),
                until: "a circle"
            ) { $0.name == "circle" }
            let shapes = played.gestures.filter { $0.kind == .shape }
            #expect(shapes.count == 1)
            let circle = try #require(shapes.first)
            #expect(circle.state == .recognized && circle.shape == "circle" && circle.fingers == 1)
            let score = try #require(circle.score)
            #expect(score > 0.5 && score <= 1, "score \(score)")
        }

        /// The hooked flick of docs/RECOGNIZERS.md ("swipe"): a 20 mm hook at ~230 mm/s, 90° to
        /// `side` of the flick, then 100 mm at ~800 mm/s, drawn with the low-level steps on a
        /// 512 × 287 mm panel, in each of the 8 directions.
        static func hookedFlicks() -> (steps: [String], directions: [Direction]) {
            var steps: [String] = []
            var directions: [Direction] = []
            let degrees: [Direction: Double] = [
                .right: 0, .downRight: 45, .down: 90, .downLeft: 135, .left: 180, .upLeft: -135, .up: -90,
                .upRight: -45,
            ]
            for direction in Direction.allCases {
                for side in [-1.0, 1.0] {
                    func point(_ degrees: Double, _ mm: Double, from p: (Double, Double)) -> (Double, Double) {
                        let a = degrees * Double.pi / 180
                        return (p.0 + mm * cos(a) / 512, p.1 + mm * sin(a) / 287)
                    }
                    let start = (0.5, 0.5)
                    let hook = point(degrees[direction]! + side * 90, 20, from: start)
                    let end = point(degrees[direction]!, 100, from: hook)
                    func text(_ p: (Double, Double)) -> String { String(format: "%.4f,%.4f", p.0, p.1) }
                    steps += [
                        "down id=1 at=\(text(start))", "move id=1 to=\(text(hook)) duration=87ms",
                        "move id=1 to=\(text(end)) duration=125ms", "up id=1", "wait 700ms",
                    ]
                    directions.append(direction)
                }
            }
            return (steps, directions)
        }

        @Test(
            "swipe: a flick that lands with a hook is one swipe in the flick's direction, 8 directions, hooks to either side (built-in set)"
        )
        func hookedFlickBuiltIn() async throws {
            let (steps, directions) = Self.hookedFlicks()
            let played = try await Self.play(
                steps, on: "kiosk-10", subscription: Subscription(kinds: [.swipe]), until: "16 swipes",
                count: directions.count
            ) { $0.kind == .swipe }
            let swipes = played.gestures.filter { $0.kind == .swipe }
            #expect(swipes.map(\.direction) == directions.map { Optional($0) }, "\(Self.summary(played))")
            #expect(swipes.allSatisfy { $0.fingers == 1 && $0.name == "swipe" })
        }

        @Test("swipe: the hooked flicks with a user's only recognizer, a swipe in any direction")
        func hookedFlickOneRecognizer() async throws {
            let (steps, directions) = Self.hookedFlicks()
            let played = try await Self.play(
                steps, on: "kiosk-10", configuration: "recognizers:\n  - {name: flick, kind: swipe}\n",
                subscription: Subscription(kinds: [.swipe]), until: "16 swipes", count: directions.count
            ) { $0.kind == .swipe }
            let swipes = played.gestures.filter { $0.kind == .swipe }
            #expect(swipes.map(\.direction) == directions.map { Optional($0) }, "\(Self.summary(played))")
            #expect(swipes.allSatisfy { $0.fingers == 1 && $0.name == "flick" })
        }

        @Test("swipe: four fingers up at 45 mm/s, landing and lifting over 150 ms: a user's four-finger swipe up")
        func slowFourFingerSwipe() async throws {
            // 0.16 of the 287 mm height: 46 mm in 1 s.
            let played = try await Self.play(
                ["swipe up fingers=4 distance=0.16 duration=1000ms landing=150ms lifting=150ms"], on: "kiosk-10",
                configuration:
                    "recognizers:\n  - {name: four-up, kind: swipe, min-fingers: 4, max-fingers: 4, directions: [up]}\n",
                subscription: Subscription(kinds: [.swipe]), until: "the four-finger swipe"
            ) { $0.kind == .swipe }
            let swipes = played.gestures.filter { $0.kind == .swipe }
            #expect(swipes.map(\.name) == ["four-up"])
            #expect(swipes.first?.fingers == 4 && swipes.first?.direction == .up)
        }

        /// What a case received, for a failure's message.
        static func summary(_ played: Played) -> String {
            summary(played.gestures.map { .gesture($0) }, since: played.start)
        }
    }
}
