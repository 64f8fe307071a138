import GestureMQTT
import Testing

@Suite("topics and broker URLs")
struct TopicTests {
    @Test(
        "a topic prefix that MQTT would not publish to, or that holds what a level may not, is refused saying why",
        arguments: [
            ("gestured/+/kiosk", "cannot hold the wildcard '+'"),
            ("gestured/#", "cannot hold the wildcard '#'"),
            ("$SYS/gestured", "cannot start with '$'"),
            ("/gestured", "cannot have an empty level"),
            ("gestured/", "cannot have an empty level"),
            ("gestured//kiosk", "cannot have an empty level"),
            ("", "cannot be empty"),
            ("gestured/kiosk hall", "holds  , which it may not"),
            ("gestured/kiosk\u{0}", "holds \\0, which it may not"),
            ("gestured/" + String(repeating: "k", count: 200), "of 209 bytes: at most 200"),
        ])
    func refusedPrefixes(text: String, expected: String) {
        #expect(throws: TopicError.self) { try TopicPrefix(text) }
        do {
            _ = try TopicPrefix(text)
        } catch {
            #expect(error.description.contains(expected), "\(error.description)")
        }
    }

    @Test("a prefix of levels is taken, and topics hang under it")
    func topicsUnderPrefix() throws {
        let topics = Topics(prefix: try TopicPrefix("site-1/gestured/kiosk.hall"))
        #expect(topics.availability == "site-1/gestured/kiosk.hall/availability")
        #expect(topics.gesture == "site-1/gestured/kiosk.hall/gesture")
        #expect(topics.panel == "site-1/gestured/kiosk.hall/panel")
        #expect(topics.active == "site-1/gestured/kiosk.hall/active")
        #expect(topics.command("screen/power") == "site-1/gestured/kiosk.hall/command/screen/power")
    }

    @Test("the default prefix is gestured/<hostname>, a host name that is no topic level made one")
    func defaultPrefix() {
        #expect(TopicPrefix.default(hostname: "kiosk-7.lan").text == "gestured/kiosk-7.lan")
        #expect(TopicPrefix.default(hostname: "kiosk+7/#").text == "gestured/kiosk_7__")
        #expect(TopicPrefix.default(hostname: "").text == "gestured/_")
    }

    @Test(
        "broker URLs: scheme, host, port and their defaults",
        arguments: [
            ("mqtt://broker.lan", false, "broker.lan", 1883),
            ("mqtts://broker.lan", true, "broker.lan", 8883),
            ("mqtts://10.0.0.2:8884", true, "10.0.0.2", 8884),
            ("mqtt://localhost:1883/", false, "localhost", 1883),
            ("mqtts://[::1]:8883", true, "::1", 8883),
            ("mqtts://[fe80::1]", true, "fe80::1", 8883),
        ])
    func urls(text: String, tls: Bool, host: String, port: Int) throws {
        let url = try BrokerURL(parsing: text)
        #expect(url == BrokerURL(tls: tls, host: host, port: port))
    }

    @Test(
        "a broker URL that does not parse is refused saying what is wrong",
        arguments: [
            ("broker.lan:1883", "it has no scheme"),
            ("tcp://broker.lan", "the scheme 'tcp' is not mqtt or mqtts"),
            ("ws://broker.lan", "the scheme 'ws' is not mqtt or mqtts"),
            ("mqtt://", "it has no host"),
            ("mqtt://:1883", "it has no host"),
            ("mqtts://kiosk:secret@broker.lan", "a user or password in the URL"),
            ("mqtt://broker.lan/topic", "'/' starts a path"),
            ("mqtt://broker.lan?x=1", "'?' starts a path"),
            ("mqtt://broker.lan:0", "the port '0' is not a number from 1 to 65535"),
            ("mqtt://broker.lan:65536", "the port '65536'"),
            ("mqtt://broker.lan:+80", "the port '+80'"),
            ("mqtt://broker.lan:", "the port ''"),
            ("mqtt://broker_lan", "is not a host name"),
            ("mqtt://[::1", "without its ']'"),
            ("mqtt://[zz::1]", "is not an IPv6 address"),
            ("mqtt://bro\u{7}ker", "'bro\\u{07}ker' is not a host name"),
        ])
    func badURLs(text: String, expected: String) {
        do {
            _ = try BrokerURL(parsing: text)
            Issue.record("\(text) parsed")
        } catch {
            #expect(error.description.contains("is not a broker URL"), "\(error.description)")
            #expect(error.description.contains(expected), "\(error.description)")
        }
    }

    @Test("text from the broker is escaped and cut for the journal")
    func loggable() {
        #expect(MQTTText.loggable("a/b\nc") == "a/b\\nc")
        let long = String(repeating: "x", count: 100)
        #expect(MQTTText.loggable(long) == String(repeating: "x", count: 80) + "… (100 bytes)")
    }
}
