import Foundation
import GestureEngine
import GestureProtocol
import Glibc
import Testing

extension EndToEndTests {
    /// Two panels at once, a kernel buffer overflow, configuration reloads.
    @Suite("several panels and faults", .timeLimit(.minutes(2)))
    struct Faults {
        @Test("two panels at once keep separate state: a long press on one, a tap on the other")
        func twoPanels() async throws {
            try await EndToEndFixture.run { fixture in
                let daemon = try await fixture.startDaemon()
                let client = try await fixture.subscribe()
                // Played together: the tap lands and lifts while the long press is held. Were the
                // touches mixed, the press would see two fingers and fail, and the tap a second finger.
                let left = try await fixture.panel("left", steps: ["long-press at=0.3,0.3 duration=1500ms"])
                let right = try await fixture.panel(
                    "right", profile: "optical-2", steps: ["wait 300ms", "tap at=0.7,0.7"])
                let a = try await client.device(named: left.name)
                let b = try await client.device(named: right.name)
                #expect(a.label != b.label)
                left.play()
                right.play()
                try await client.gesture("the long press to end") { $0.name == "long-press" && $0.state == .ended }
                try await client.gesture("the tap") { $0.name == "tap" }
                let onA = client.gestures.filter { $0.device == a.label }
                let onB = client.gestures.filter { $0.device == b.label }
                #expect(onA.map(\.name).allSatisfy { $0 == "long-press" }, "\(onA.map(\.name))")
                #expect(Gestures.isComplete(onA.map(\.state)) && onA.allSatisfy { $0.fingers == 1 })
                #expect(onB.map(\.name) == ["tap"] && onB.first?.fingers == 1, "\(onB.map(\.name))")
                // Overlapping in time indeed: the tap came while the press was held.
                let tapTime = try #require(onB.first?.time.microseconds)
                #expect(onA.first!.time.microseconds < tapTime + 1_000_000 && tapTime < onA.last!.time.microseconds)
                try await left.unplug()
                try await right.unplug()
                try await fixture.finish(daemon)
            }
        }

        @Test("kernel buffer overflow: SIGSTOP during a flood, SIGCONT → resync, no stuck touch, next tap recognized")
        func overflow() async throws {
            try await EndToEndFixture.run { fixture in
                let daemon = try await fixture.startDaemon()
                let client = try await fixture.subscribe(Subscription(kinds: [.pan, .tap], touches: true))
                // optical-2 has 2 slots, so the kernel gives each reader a small buffer (256 events);
                // the flood is 1000 frames in about a second (10 s of moves at 10× speed).
                let panel = try await fixture.panel(
                    profile: "optical-2",
                    steps: [
                        "down id=1 at=0.2,0.5", "move id=1 to=0.3,0.5 duration=200ms", "pause",
                        "move id=1 to=0.8,0.5 duration=10s", "up id=1", "pause", "tap at=0.5,0.5",
                    ], options: ["--speed", "10"])
                let device = try await client.device(named: panel.name)
                panel.play()
                try await panel.waitForPause(1)
                try await client.gesture("the pan to begin") { $0.name == "pan" && $0.state == .began }

                daemon.send(SIGSTOP)
                panel.play()
                try await panel.waitForPause(2)  // the flood is in the kernel's buffer, or lost
                daemon.send(SIGCONT)
                try await client.gesture("the pan to be cancelled") { $0.name == "pan" && $0.state == .cancelled }
                try await daemon.output.wait(for: "the daemon to report the overflow", within: EndToEndFixture.patience)
                {
                    $0.lines.contains { $0.contains("SYN_DROPPED") }
                }
                #expect(!client.gestures.contains { $0.name == "pan" && $0.state == .ended })

                panel.play()
                let tap = try await client.gesture("a tap after the resync") { $0.name == "tap" }
                #expect(tap.fingers == 1 && tap.device == device.label && Gestures.near(tap.position, 0.5, 0.5))
                // No stuck touch: every touch that began ends or is cancelled, the tap's finger too
                // (its end may follow the tap: R8 holds it until the recognizers have decided).
                // The panel stays plugged, so nothing but the daemon's own reading can end them.
                try await client.waitFor("the tap's finger to end", count: 2) {
                    if case .touch(let t) = $0 { t.phase == .ended || t.phase == .cancelled } else { false }
                }
                let touches = client.touches
                let began = Set(touches.filter { $0.phase == .began }.map(\.id))
                let over = Set(touches.filter { $0.phase == .ended || $0.phase == .cancelled }.map(\.id))
                #expect(began == over && began.count == 2, "began \(began), ended or cancelled \(over)")
                try await panel.unplug()
                try await fixture.finish(daemon)
            }
        }

        @Test(
            "SIGHUP reload: a new three-finger tap fires; a broken file is refused with its place and changes nothing")
        func reload() async throws {
            try await EndToEndFixture.run { fixture in
                try fixture.writeConfiguration("recognizers:\n  - name: tap\n    kind: tap\n")
                let daemon = try await fixture.startDaemon()
                let client = try await fixture.subscribe()
                #expect(client.hello.recognizers.map(\.name) == ["tap"])

                try fixture.writeConfiguration(
                    "recognizers:\n  - name: tap\n    kind: tap\n  - name: three-finger-tap\n    kind: tap\n    fingers: 3\n"
                )
                daemon.send(SIGHUP)
                try await daemon.output.wait(for: "the reload", within: EndToEndFixture.patience) {
                    $0.lines.contains { $0.contains("configuration reloaded") }
                }
                let panel = try await fixture.panel(
                    steps: ["tap at=0.5,0.5 fingers=3", "pause", "tap at=0.5,0.5 fingers=3"])
                let device = try await client.device(named: panel.name)
                panel.play()
                let tap = try await client.gesture("the new recognizer") { $0.name == "three-finger-tap" }
                #expect(tap.fingers == 3 && tap.state == .recognized && tap.device == device.label)
                try await panel.waitForPause()

                // A misspelt key: refused with FILE:LINE:COLUMN; the running configuration stays.
                let broken = "recognizers:\n  - name: tap\n    kind: tap\n    tapz: 2\n"
                try fixture.writeConfiguration(broken)
                let text = try String(contentsOfFile: fixture.configPath, encoding: .utf8)
                let line =
                    text.split(separator: "\n", omittingEmptySubsequences: false)
                    .firstIndex { $0.contains("tapz") }! + 1
                daemon.send(SIGHUP)
                try await daemon.output.wait(for: "the reload to be refused", within: EndToEndFixture.patience) {
                    $0.lines.contains { $0.contains("reload failed") && $0.contains("gestured.yaml:\(line):5") }
                }
                panel.play()
                try await client.gesture("the three-finger tap again") { g in
                    g.name == "three-finger-tap" && g.seq > tap.seq
                }
                let late = try await fixture.subscribe()
                #expect(late.hello.recognizers.map(\.name) == ["tap", "three-finger-tap"])
                try await panel.unplug()
                try await fixture.finish(daemon)
            }
        }
    }
}
