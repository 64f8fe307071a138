import FoundationEssentials
import GestureEngine
import GestureMQTT
import GestureProtocol
import Testing

/// Messages of the daemon's to feed a session.
enum Daemon {
    static let hello = HelloMessage(
        daemonVersion: "0.1.0", client: 1, devices: [],
        recognizers: [
            RecognizerSummary(name: "tap", kind: .tap, owner: .configuration, region: "root"),
            RecognizerSummary(name: "swipe", kind: .swipe, owner: .configuration, region: "root"),
            RecognizerSummary(name: "long-press", kind: .longPress, owner: .configuration, region: "root"),
            RecognizerSummary(name: "hold", kind: .longPress, owner: .configuration, region: "root"),
        ],
        limits: ServerLimits())

    static func gesture(_ name: String, _ kind: GestureKind, _ state: GestureState, seq: UInt64 = 1) -> ServerMessage {
        let report = GestureReport(
            name: name, kind: kind, state: state, region: "root", fingers: 1, touches: TouchIDList([TouchID(1)]),
            time: Timestamp(microseconds: 1_000 * Int64(seq)), position: SurfacePoint(x: 0.5, y: 0.5))
        return .gesture(GestureMessage(seq: seq, device: "event5", report: report))
    }

    static func idle(_ device: String) -> ServerMessage {
        .idle(IdleMessage(device: device, time: Timestamp(microseconds: 9), afterMS: 3000))
    }

    static func active(_ device: String) -> ServerMessage {
        .active(ActiveMessage(device: device, time: Timestamp(microseconds: 10), touch: TouchID(2)))
    }
}

extension MQTTSession {
    /// Everything it would hand the library now, each acknowledged at once.
    mutating func flush() -> [OutgoingMessage] {
        var out: [OutgoingMessage] = []
        var token = 1
        while let m = next() {
            out.append(m)
            sent(token: token)
            done(token: token)
            token += 1
        }
        return out
    }
}

func text(_ m: OutgoingMessage) -> String { String(decoding: m.payload, as: UTF8.self) }

/// A JSON value, to read a discovery config back.
enum JSONValue: Decodable, Equatable {
    case string(String), number(Double), bool(Bool), array([JSONValue]), object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let n = try? c.decode(Double.self) {
            self = .number(n)
        } else if let a = try? c.decode([JSONValue].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: JSONValue].self))
        }
    }

    var string: String? { if case .string(let s) = self { s } else { nil } }
    var strings: [String]? { if case .array(let a) = self { a.compactMap(\.string) } else { nil } }
    var object: [String: JSONValue]? { if case .object(let o) = self { o } else { nil } }
}

@Suite("the mqtt session")
struct MQTTSessionTests {
    static let broker = BrokerSettings(url: BrokerURL(tls: true, host: "broker", port: 8883))

    static func session(_ publish: PublishSettings = PublishSettings(), discovery: Bool = false) -> MQTTSession {
        MQTTSession(
            configuration: MQTTConfiguration(
                broker: broker, publish: publish, homeAssistant: HomeAssistantSettings(discovery: discovery),
                inbound: InboundSettings(topics: [InboundTopic(topic: "screen", payload: "ON", rule: "screen-on")])),
            hostname: "kiosk", version: "0.1.0")
    }

    @Test("availability: offline until the daemon says hello, online then, offline when it goes; the will says offline")
    func availability() {
        var s = Self.session()
        #expect(s.will == OutgoingMessage(topic: "gestured/kiosk/availability", text: "offline", qos: 1, retain: true))
        #expect(s.flush().isEmpty)
        #expect(s.brokerConnected() == ["gestured/kiosk/command/screen"])
        #expect(s.flush().map(text) == ["offline"])
        s.daemonConnected(Daemon.hello)
        #expect(s.flush().map(text) == ["online"])
        s.daemonDisconnected()
        s.daemonDisconnected()
        #expect(s.flush().map(text) == ["offline"])
    }

    @Test("a reconnected broker gets every state again before what waited")
    func statesFirst() {
        var s = Self.session()
        _ = s.brokerConnected()
        s.daemonConnected(Daemon.hello)
        s.handle(Daemon.idle("event5"))
        _ = s.flush()
        s.brokerDisconnected()
        s.handle(Daemon.gesture("tap", .tap, .recognized))
        _ = s.brokerConnected()
        let out = s.flush()
        #expect(out.map(\.topic) == ["gestured/kiosk/availability", "gestured/kiosk/active", "gestured/kiosk/gesture"])
        #expect(out.prefix(2).allSatisfy(\.retain) && !out[2].retain)
    }

    @Test("reports are published by name or by kind, in the states chosen, as the socket's line")
    func choice() throws {
        var s = Self.session(PublishSettings(gestures: ["tap"], kinds: [.longPress]))
        _ = s.brokerConnected()
        s.daemonConnected(Daemon.hello)
        _ = s.flush()
        #expect(s.subscription == Subscription(states: [.recognized, .began]))
        for m in [
            Daemon.gesture("tap", .tap, .recognized, seq: 1), Daemon.gesture("swipe", .swipe, .recognized, seq: 2),
            Daemon.gesture("hold", .longPress, .began, seq: 3), Daemon.gesture("hold", .longPress, .changed, seq: 4),
        ] {
            s.handle(m)
        }
        let out = s.flush()
        #expect(out.map(\.topic) == ["gestured/kiosk/gesture", "gestured/kiosk/gesture"])
        var encoder = LineEncoder()
        #expect(
            out[0].payload == Array(try encoder.encode(Daemon.gesture("tap", .tap, .recognized, seq: 1)).dropLast()))
        #expect(text(out[1]).contains("\"seq\":3"))
        #expect(Self.session(PublishSettings(gestures: ["tap"])).subscription.gestures == ["tap"])
        #expect(Self.session(PublishSettings(kinds: [.tap])).subscription.kinds == [.tap])
        #expect(Self.session(PublishSettings(contact: true)).subscription.explain)
    }

    @Test("active is OFF once every panel that reported is idle, ON when one is touched; panel messages go on panel")
    func active() {
        var s = Self.session()
        _ = s.brokerConnected()
        s.daemonConnected(Daemon.hello)
        _ = s.flush()
        #expect(s.activeState == nil)
        var out: [String] = []
        func step(_ m: ServerMessage) {
            s.handle(m)
            out += s.flush().map {
                "\($0.topic.split(separator: "/").last!) \($0.topic.hasSuffix("active") ? text($0) : "")"
            }
        }
        step(Daemon.idle("event5"))
        #expect(s.activeState == "OFF")
        step(Daemon.active("event6"))
        #expect(s.activeState == "ON")
        step(Daemon.idle("event6"))
        #expect(s.activeState == "OFF")
        step(Daemon.active("event5"))
        // A state goes before the events waiting beside it.
        #expect(out == ["active OFF", "panel ", "active ON", "panel ", "active OFF", "panel ", "active ON", "panel "])
        // OFF then ON before the broker took either: the latest only.
        s.handle(Daemon.idle("event5"))
        s.handle(Daemon.active("event5"))
        #expect(
            s.flush().map { "\($0.topic.split(separator: "/").last!) \(text($0).prefix(2))" } == [
                "active ON", "panel {\"", "panel {\"",
            ])
        var quiet = Self.session(PublishSettings(panel: false))
        _ = quiet.brokerConnected()
        quiet.handle(Daemon.idle("event5"))
        #expect(quiet.flush().map(\.topic) == ["gestured/kiosk/availability"])
    }

    /// The keys Home Assistant's MQTT integration documents for each component used
    /// (home-assistant.io, integrations binary_sensor.mqtt, event.mqtt, sensor.mqtt, button.mqtt),
    /// and those each requires.
    static let documented: [String: (allowed: Set<String>, required: Set<String>)] = {
        let common: Set = [
            "name", "unique_id", "availability_topic", "device", "origin", "icon", "device_class", "value_template",
        ]
        return [
            "binary_sensor": (common.union(["state_topic", "payload_on", "payload_off"]), ["state_topic"]),
            "event": (common.union(["state_topic", "event_types"]), ["state_topic", "event_types"]),
            "sensor": (common.union(["state_topic"]), ["state_topic"]),
            "button": (common.union(["command_topic", "payload_press"]), ["command_topic"]),
        ]
    }()

    @Test("discovery: one device, its entities with the keys Home Assistant documents, once the recognizers are known")
    func discovery() throws {
        var s = Self.session(PublishSettings(gestures: ["circle"], kinds: [.longPress]), discovery: true)
        _ = s.brokerConnected()
        #expect(s.flush().map(\.topic) == ["gestured/kiosk/availability"])
        s.daemonConnected(Daemon.hello)
        let configs = s.flush().filter { $0.topic.hasPrefix("homeassistant/") }
        #expect(
            configs.map(\.topic) == [
                "homeassistant/binary_sensor/gestured-kiosk/active/config",
                "homeassistant/event/gestured-kiosk/gesture/config",
                "homeassistant/sensor/gestured-kiosk/last_gesture/config",
                "homeassistant/button/gestured-kiosk/command_screen_ON/config",
            ])
        var devices = Set<String>()
        for config in configs {
            #expect(config.retain && config.qos == 1)
            let object = try JSONDecoder().decode([String: JSONValue].self, from: Data(config.payload))
            let component = config.topic.split(separator: "/")[1]
            let keys = try #require(Self.documented[String(component)])
            #expect(Set(object.keys).isSubset(of: keys.allowed), "\(config.topic): \(object.keys.sorted())")
            #expect(keys.required.isSubset(of: Set(object.keys)), "\(config.topic)")
            #expect(object["availability_topic"]?.string == "gestured/kiosk/availability")
            devices.insert(object["device"]?.object?["identifiers"]?.strings?.joined() ?? "")
            // Every key as Home Assistant spells it, the nested objects' too.
            #expect(
                object["device"]?.object.map { Set($0.keys) }
                    == ["identifiers", "manufacturer", "model", "name", "sw_version"])
            #expect(object["origin"]?.object.map { Set($0.keys) } == ["name", "support_url", "sw_version"])
            if component == "binary_sensor" {
                #expect(
                    Set(object.keys) == [
                        "availability_topic", "device", "device_class", "name", "origin", "payload_off", "payload_on",
                        "state_topic", "unique_id",
                    ])
            }
            if component == "event" {
                #expect(object["event_types"]?.strings == ["circle", "hold", "long-press"])
            }
            if component == "button" {
                #expect(object["command_topic"]?.string == "gestured/kiosk/command/screen")
                #expect(object["payload_press"]?.string == "ON")
            }
        }
        #expect(devices == ["gestured_gestured-kiosk"])
        // The same recognizers again: nothing new; a broker connection: all again.
        s.daemonDisconnected()
        s.daemonConnected(Daemon.hello)
        #expect(s.flush().filter { $0.topic.hasPrefix("homeassistant/") }.isEmpty)
        s.brokerDisconnected()
        _ = s.brokerConnected()
        #expect(s.flush().filter { $0.topic.hasPrefix("homeassistant/") }.count == 4)
    }
}
