import GestureMQTT
import Testing

@Suite("inbound messages")
struct InboundRouterTests {
    static let settings = InboundSettings(
        maxPerMinute: 3,
        topics: [
            InboundTopic(topic: "screen", payload: "ON", rule: "screen-on"),
            InboundTopic(topic: "screen", payload: "OFF", rule: "screen-off"),
            InboundTopic(topic: "dashboard/next", rule: "dashboard-next"),
        ])
    static let topics = Topics(prefix: TopicPrefix.default(hostname: "kiosk"))

    static func route(
        _ router: inout InboundRouter, _ topic: String, _ payload: String, retained: Bool = false, at now: Int64 = 0
    ) -> InboundRouter.Decision {
        router.route(topic: topic, length: payload.utf8.count, retained: retained, now: now) { payload }
    }

    @Test("a message that matches a topic and one of its payloads byte for byte runs the rule the file names")
    func runs() {
        var r = InboundRouter(inbound: Self.settings, topics: Self.topics)
        #expect(r.subscriptions == ["gestured/kiosk/command/dashboard/next", "gestured/kiosk/command/screen"])
        #expect(
            Self.route(&r, "gestured/kiosk/command/screen", "OFF")
                == .run(rule: "screen-off", topic: "gestured/kiosk/command/screen", payload: "OFF"))
        #expect(
            Self.route(&r, "gestured/kiosk/command/dashboard/next", "PRESS")
                == .run(rule: "dashboard-next", topic: "gestured/kiosk/command/dashboard/next", payload: "PRESS"))
        #expect(r.runs == 2 && r.refused.isEmpty)
    }

    @Test(
        "anything else is refused with its reason and counted, and runs nothing",
        arguments: [
            ("gestured/kiosk/command/reboot", "PRESS", false, InboundRouter.Refusal.unknownTopic),
            ("gestured/kiosk/command/screen", "on", false, .unknownPayload),
            ("gestured/kiosk/command/screen", "ON ", false, .unknownPayload),
            ("gestured/kiosk/command/screen", "", false, .unknownPayload),
            ("gestured/kiosk/command/screen", "ON", true, .retained),
            ("gestured/kiosk/command/screen", String(repeating: "A", count: 257), false, .tooLong(bytes: 257)),
            ("gestured/kiosk/command/screen", String(repeating: "A", count: 1 << 20), false, .tooLong(bytes: 1 << 20)),
        ])
    func refused(topic: String, payload: String, retained: Bool, refusal: InboundRouter.Refusal) {
        var r = InboundRouter(inbound: Self.settings, topics: Self.topics)
        #expect(Self.route(&r, topic, payload, retained: retained) == .refused(refusal))
        #expect(r.runs == 0 && r.refused == [refusal.reason: 1])
    }

    @Test("a payload over the bound is refused by its length, never read")
    func lengthFirst() {
        var r = InboundRouter(inbound: Self.settings, topics: Self.topics)
        let decision = r.route(topic: "gestured/kiosk/command/screen", length: 1 << 20, retained: false, now: 0) {
            Issue.record("the payload was read")
            return ""
        }
        #expect(decision == .refused(.tooLong(bytes: 1 << 20)))
    }

    @Test("max-per-minute: a burst of that many runs, then one a minute's share at a time, exactly")
    func rate() {
        var r = InboundRouter(inbound: Self.settings, topics: Self.topics)
        let topic = "gestured/kiosk/command/screen"
        for _ in 0..<3 { #expect(Self.route(&r, topic, "ON", at: 1000) != .refused(.overRate(perMinute: 3))) }
        #expect(Self.route(&r, topic, "ON", at: 1000) == .refused(.overRate(perMinute: 3)))
        // 3 a minute: one every 20 s. 19.999 s later, still none; at 20 s, one.
        #expect(Self.route(&r, topic, "ON", at: 20_999) == .refused(.overRate(perMinute: 3)))
        #expect(Self.route(&r, topic, "ON", at: 21_000) != .refused(.overRate(perMinute: 3)))
        #expect(Self.route(&r, topic, "ON", at: 21_001) == .refused(.overRate(perMinute: 3)))
        // A flood at the same millisecond: every one refused, and counted.
        for _ in 0..<10_000 { _ = Self.route(&r, topic, "ON", at: 21_001) }
        #expect(r.runs == 4 && r.refused["over-rate"] == 10_003)
        // A long quiet time refills the burst, no more.
        for i in 0..<3 {
            #expect(Self.route(&r, topic, "ON", at: 10_000_000 + Int64(i)) != .refused(.overRate(perMinute: 3)))
        }
        #expect(Self.route(&r, topic, "ON", at: 10_000_003) == .refused(.overRate(perMinute: 3)))
    }

    @Test("without inbound topics nothing is subscribed to and every message is refused")
    func none() {
        var r = InboundRouter(inbound: nil, topics: Self.topics)
        #expect(r.subscriptions.isEmpty)
        #expect(Self.route(&r, "gestured/kiosk/command/screen", "ON") == .refused(.unknownTopic))
    }

    @Test("the receive guard: 64 KiB before the CONNACK, then 2 MiB without a packet completed")
    func receiveGuard() {
        var g = ReceiveGuard()
        g.connecting()
        #expect(g.problem(received: ReceiveGuard.beforeConnack) == nil)
        #expect(g.problem(received: ReceiveGuard.beforeConnack + 1)?.contains("and no CONNACK") == true)
        g.connack(received: 4000)
        #expect(g.problem(received: 4000 + ReceiveGuard.perPacket) == nil)
        #expect(g.problem(received: 4001 + ReceiveGuard.perPacket)?.contains("without completing a packet") == true)
        g.packetCompleted(received: 3_000_000)
        #expect(g.problem(received: 3_000_000 + ReceiveGuard.perPacket) == nil)
        g.connecting()
        #expect(g.problem(received: 70_000) != nil)
    }
}
