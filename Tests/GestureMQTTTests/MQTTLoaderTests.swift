import GestureActions
import GestureEngine
import GestureMQTT
import Testing
import YAMLCoding

/// The actions file the tests' inbound topics name.
let actionsText = """
    actions:
      - on: wake
        name: screen-on
        run: ["/usr/bin/wlopm", "--on", "*"]
      - on: mqtt
        name: dashboard-next
        keys: [KEY_LEFTCTRL, KEY_TAB]
      - on: long-press
        name: menu
        click: right
    """

/// Parses mqtt text whose inbound topics name rules of ``actionsText``.
func parseMQTT(_ text: String) throws(YAMLFileError) -> LoadedMQTT {
    try MQTTLoader.parse(Array(text.utf8), file: "mqtt.yaml") { path throws(YAMLFileError) in
        try ActionsLoader.parse(Array(actionsText.utf8), file: path) { $0.hasPrefix("KEY_") }
    }
}

/// The error text for `text`, or nil when it parses.
func mqttProblem(_ text: String) -> String? {
    do {
        _ = try parseMQTT(text)
        return nil
    } catch {
        return error.description
    }
}

@Suite("mqtt file")
struct MQTTLoaderTests {
    @Test("a whole file reads into its settings, defaults filled in")
    func wholeFile() throws {
        let loaded = try parseMQTT(
            """
            broker:
              url: mqtts://broker.lan
              ca-file: /etc/gestured/ca.pem
              cert-file: /etc/gestured/kiosk.pem
              key-file: /etc/gestured/kiosk.key
              username: kiosk-hall
              password-file: /etc/gestured/mqtt-password
              keepalive-s: 60
            topic-prefix: site/kiosk-hall
            qos: 0
            publish:
              gestures: [swipe, double-tap]
              kinds: [long-press]
              panel: false
            queue: {max-messages: 500}
            home-assistant: {discovery: true, device-name: Hall}
            inbound:
              actions-file: /etc/gestured/actions.yaml
              topics:
                - {topic: screen, payload: "ON", rule: screen-on}
                - {topic: dashboard/next, rule: dashboard-next}
            """)
        let c = loaded.configuration
        #expect(c.broker.url == BrokerURL(tls: true, host: "broker.lan", port: 8883))
        #expect(c.broker.caFile == "/etc/gestured/ca.pem" && c.broker.keyFile == "/etc/gestured/kiosk.key")
        #expect(c.broker.username == "kiosk-hall" && c.broker.passwordFile == "/etc/gestured/mqtt-password")
        #expect(
            c.broker.keepaliveSeconds == 60 && c.broker.connectTimeoutSeconds == 10
                && c.broker.reconnectMaxSeconds == 30)
        #expect(c.topicPrefix?.text == "site/kiosk-hall" && c.qos == 0)
        #expect(c.publish == PublishSettings(gestures: ["swipe", "double-tap"], kinds: [.longPress], panel: false))
        #expect(c.queue == QueueBounds(maxMessages: 500, maxBytes: 1 << 20))
        #expect(c.homeAssistant == HomeAssistantSettings(discovery: true, deviceName: "Hall"))
        #expect(
            c.inbound?.topics == [
                InboundTopic(topic: "screen", payload: "ON", rule: "screen-on"),
                InboundTopic(topic: "dashboard/next", payload: "PRESS", rule: "dashboard-next"),
            ])
        #expect(loaded.actions?.configuration.rule(named: "dashboard-next") != nil)
    }

    @Test("a broker alone is a whole file")
    func minimal() throws {
        let c = try parseMQTT("broker: {url: \"mqtt://localhost\"}").configuration
        #expect(c.qos == 1 && c.topicPrefix == nil && c.inbound == nil && !c.homeAssistant.discovery)
        #expect(c.publish.states == [.recognized, .began] && c.publish.panel && !c.publish.contact)
    }

    @Test(
        "every mistake is refused at its line and column, saying what is expected",
        arguments: [
            ("topic-prefix: x", "mqtt.yaml:1:1: the mqtt file needs 'broker'"),
            (
                "broker: {url: mqtt://a}\ntopic-prefix: gestured/+/x",
                "mqtt.yaml:2:15: 'gestured/+/x': a topic prefix cannot hold the wildcard '+'"
            ),
            ("broker: {url: \"http://a\"}", "mqtt.yaml:1:15: 'http://a' is not a broker URL: the scheme 'http'"),
            ("broker: {urls: mqtt://a}", "mqtt.yaml:1:10: unknown key 'urls' in 'broker'"),
            ("broker: {username: k}", "'broker' needs 'url'"),
            (
                "broker: {url: mqtt://a, ca-file: /ca.pem}",
                "mqtt.yaml:1:34: 'ca-file' is for TLS: the url must be mqtts://"
            ),
            ("broker: {url: mqtts://a, ca-file: ca.pem}", "mqtt.yaml:1:35: expected an absolute path"),
            (
                "broker: {url: mqtts://a, cert-file: /c.pem}",
                "a client certificate needs both 'cert-file' and 'key-file'"
            ),
            ("broker: {url: mqtts://a, password-file: /p}", "a password needs 'username' beside it"),
            ("broker: {url: mqtts://a, keepalive-s: 2}", "expected seconds from 5 to 3600"),
            ("broker: {url: mqtts://a, client-id: \"a b\"}", "expected 1 to 64 letters, digits"),
            ("broker: {url: mqtts://a}\nqos: 2", "mqtt.yaml:2:6: expected 0 (at most once) or 1 (at least once)"),
            ("broker: {url: mqtts://a}\npublish: {kinds: [wave]}", "mqtt.yaml:2:19"),
            ("broker: {url: mqtts://a}\npublish: {gestures: [\"a b\"]}", "'a b' is not a recognizer name"),
            ("broker: {url: mqtts://a}\npublish: {states: []}", "expected a list of 1 to 5 states"),
            ("broker: {url: mqtts://a}\nqueue: {max-messages: 10}", "expected a number from 64 to 1000000"),
            ("broker: {url: mqtts://a}\nqueue: {max-bytes: 100}", "expected bytes from 65536"),
            ("broker: {url: mqtts://a}\nhome-assistant: {prefix: \"ha/#\"}", "cannot hold the wildcard '#'"),
            ("broker: {url: mqtts://a}\ninbound: {}", "'inbound' needs 'topics'"),
            ("broker: {url: mqtts://a}\ninbound: {topics: [{topic: screen}]}", "an inbound topic needs 'topic'"),
            (
                "broker: {url: mqtts://a}\ninbound: {topics: [{topic: \"s/+\", rule: screen-on}]}",
                "an inbound topic cannot hold the wildcard '+'"
            ),
            (
                "broker: {url: mqtts://a}\ninbound: {topics: [{topic: s, payload: \"\", rule: screen-on}]}",
                "expected 1 to 256 bytes"
            ),
            (
                "broker: {url: mqtts://a}\ninbound: {topics: [{topic: s, rule: screen-on}, {topic: s, rule: dashboard-next}]}",
                "topics[0] has this topic and payload already"
            ),
            (
                "broker: {url: mqtts://a}\ninbound:\n  topics:\n    - {topic: s, rule: reboot}",
                "mqtt.yaml:4:24: no rule named 'reboot' in /etc/gestured/actions.yaml (its named rules: dashboard-next, menu, screen-on)"
            ),
            (
                "broker: {url: mqtts://a}\ninbound:\n  topics:\n    - {topic: s, rule: menu}",
                "mqtt.yaml:4:24: the rule 'menu' (/etc/gestured/actions.yaml:8:9) clicks, scrolls or repeats at a gesture"
            ),
        ])
    func mistakes(text: String, expected: String) {
        let problem = mqttProblem(text)
        #expect(problem?.contains(expected) == true, "\(problem ?? "parsed")")
    }

    @Test("check-config tells an mqtt file by its top-level broker")
    func kind() {
        #expect(MQTTLoader.isMQTTFile("broker: {url: mqtt://a}"))
        #expect(!MQTTLoader.isMQTTFile("actions: []"))
        #expect(!MQTTLoader.isMQTTFile("recognizers: []"))
    }
}
