import Foundation
import GestureEngine
import GestureProtocol
import Testing

extension EndToEndTests {
    /// Finding panels and following them: at start, plugged in while running, unplugged in the
    /// middle of a gesture, plugged back. scripts/e2e.sh runs this suite in both boots: with
    /// udevd (discovery through udev) and without (the fallback: capabilities and raw kernel
    /// uevents); `GESTURED_VM_DISCOVERY` names the mode the boot must produce.
    @Suite("discovery and hotplug", .timeLimit(.minutes(2)))
    struct Discovery {
        static var expectedMode: String? { ProcessInfo.processInfo.environment["GESTURED_VM_DISCOVERY"] }

        @Test("a panel present at start is opened, listed in hello, and works")
        func presentAtStart() async throws {
            try await EndToEndFixture.run { fixture in
                let panel = try await fixture.panel(profile: "no-resolution-10", steps: ["swipe right"])
                let daemon = try await fixture.startDaemon()
                if let mode = Self.expectedMode {
                    #expect(
                        daemon.lines.contains { $0.contains("device discovery through \(mode)") }, "\(daemon.lines)")
                }
                let client = try await fixture.subscribe(Subscription(kinds: [.swipe]))
                // With udevd the panel may still be in udev's hands at start; then it is opened
                // when udev announces it, and the client hears `added`.
                let device = try await client.device(named: panel.name)
                #expect(device.slots == 10 && device.sizeMM == nil)
                #expect(device.label == String(panel.devnode.split(separator: "/").last!))
                panel.play()
                let swipe = try await client.gesture("a swipe") { $0.name == "swipe" }
                #expect(swipe.direction == .right && swipe.device == device.label)
                try await panel.unplug()
                try await client.removal(of: device.label)
                try await fixture.finish(daemon)
            }
        }

        @Test("a panel plugged in while the daemon runs is announced and works")
        func pluggedIn() async throws {
            try await EndToEndFixture.run { fixture in
                let daemon = try await fixture.startDaemon()
                #expect(daemon.lines.contains { $0.contains("status=waiting for a touchscreen") })
                let client = try await fixture.subscribe(Subscription(kinds: [.tap]))
                #expect(client.hello.devices.isEmpty)
                let panel = try await fixture.panel(profile: "kiosk-10", steps: ["tap at=0.8,0.2"])
                let device = try await client.device(named: panel.name)
                #expect(client.deviceEvents.map(\.event) == [.added])
                #expect(device.slots == 10 && device.vendor == 0x6765)
                panel.play()
                let tap = try await client.gesture("a tap") { $0.name == "tap" }
                #expect(tap.device == device.label && Gestures.near(tap.position, 0.8, 0.2))
                try await panel.unplug()
                try await client.removal(of: device.label)
                try await fixture.finish(daemon)
            }
        }

        @Test("unplugged mid-pan: the pan and its touches are cancelled, then removed; plugged back, it works")
        func unplugMidPanAndReplug() async throws {
            try await EndToEndFixture.run { fixture in
                let daemon = try await fixture.startDaemon()
                let client = try await fixture.subscribe(Subscription(kinds: [.pan, .tap], touches: true))
                // A finger lands and moves (a pan begins), then stays down while the panel goes.
                let panel = try await fixture.panel(
                    "replugged", steps: ["down id=1 at=0.2,0.5", "move id=1 to=0.5,0.5 duration=300ms", "pause"])
                let first = try await client.device(named: panel.name)
                panel.play()
                try await panel.waitForPause()
                try await client.gesture("the pan to begin") { $0.name == "pan" && $0.state == .began }
                try await panel.unplug()
                try await client.removal(of: first.label)

                let messages = client.messages
                let removed = try #require(
                    messages.firstIndex {
                        if case .device(let d) = $0 { d.event == .removed } else { false }
                    })
                let pan = client.gestures.filter { $0.name == "pan" }.map(\.state)
                #expect(pan.first == .began && pan.last == .cancelled && !pan.contains(.ended), "\(pan)")
                let cancelled = try #require(
                    messages.firstIndex {
                        if case .gesture(let g) = $0 { g.name == "pan" && g.state == .cancelled } else { false }
                    })
                #expect(cancelled < removed, "cancelled comes before removed")
                // The finger that was down is cancelled for raw-touch clients too, before removal.
                let touchEnds = messages[..<removed].compactMap { m -> TouchMessage? in
                    if case .touch(let t) = m, t.phase == .cancelled || t.phase == .ended { t } else { nil }
                }
                #expect(touchEnds.map(\.phase) == [.cancelled], "\(touchEnds)")

                // The same panel again: found again, and it works.
                let again = try await fixture.panel("replugged", steps: ["tap at=0.5,0.5"])
                let second = try await client.device(named: again.name)
                again.play()
                let tap = try await client.gesture("a tap on the replugged panel") { $0.name == "tap" }
                #expect(tap.device == second.label && tap.fingers == 1)
                try await again.unplug()
                try await client.removal(of: second.label)
                try await fixture.finish(daemon)
            }
        }
    }
}
