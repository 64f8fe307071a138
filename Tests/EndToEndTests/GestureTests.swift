import GestureEngine
import GestureProtocol
import Testing

extension EndToEndTests {
    /// Each gesture of the built-in set, drawn by `gestured simulate` on a uinput panel, read by
    /// a real daemon, received by a socket client with the right fields.
    @Suite("gestures", .timeLimit(.minutes(2)))
    struct Gestures {
        @Test("tap: one recognized tap where it was drawn, on the panel's device")
        func tap() async throws {
            try await EndToEndFixture.run { fixture in
                let daemon = try await fixture.startDaemon()
                let panel = try await fixture.panel(steps: ["tap at=0.3,0.6"])
                let client = try await fixture.subscribe(Subscription(kinds: [.tap]))
                let device = try await client.device(named: panel.name)
                let start = panel.play()
                let tap = try await client.gesture("a tap") { $0.name == "tap" }
                try await panel.waitUntilPlayed()
                #expect(tap.kind == .tap && tap.state == .recognized && tap.fingers == 1)
                #expect(tap.device == device.label && tap.region == "root")
                #expect(abs(tap.position.x - 0.3) < 0.01 && abs(tap.position.y - 0.6) < 0.01, "\(tap.position)")
                #expect(tap.timeUS > start && tap.timeUS < monotonicMicroseconds())
                #expect(client.gestures.filter { $0.name == "tap" }.count == 1)
                try await panel.unplug()
                try await client.removal(of: device.label)
                try await fixture.finish(daemon)
            }
        }
    }
}
