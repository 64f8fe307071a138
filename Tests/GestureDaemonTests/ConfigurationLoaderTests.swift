import FoundationEssentials
import GestureEngine
import Testing
import TouchInput

@testable import GestureDaemon

/// One broken configuration and where the error must point.
struct BrokenConfiguration: CustomTestStringConvertible, Sendable {
    var title: String
    var yaml: String
    var line: Int
    var column: Int
    /// A fragment the message must contain.
    var says: String
    var testDescription: String { title }
}

@Suite("Configuration file")
struct ConfigurationLoaderTests {
    static let broken: [BrokenConfiguration] = [
        .init(
            title: "YAML syntax error", yaml: "recognizers: [a, b\nsocket: {}\n", line: 2, column: 7, says: "expected"),
        .init(
            title: "unknown top-level key", yaml: "socket: {}\nsokcet: {}\n", line: 2, column: 1,
            says: "unknown key 'sokcet'"),
        .init(
            title: "unknown recognizer key",
            yaml: "recognizers:\n  - name: t\n    kind: tap\n    tapz: 2\n", line: 4, column: 5,
            says: "unknown key 'tapz'"),
        .init(
            title: "wrong type", yaml: "recognizers:\n  - name: t\n    kind: tap\n    taps: two\n", line: 4, column: 11,
            says: "expected an integer"),
        .init(
            title: "value out of range", yaml: "recognizers:\n  - name: t\n    kind: tap\n    fingers: 11\n", line: 4,
            column: 14, says: "finger count from 1 to 10"),
        .init(
            title: "unknown kind", yaml: "recognizers:\n  - name: t\n    kind: wiggle\n", line: 3, column: 11,
            says: "wiggle"),
        .init(
            title: "missing name", yaml: "recognizers:\n  - kind: pan\n", line: 2, column: 5, says: "missing key 'name'"
        ),
        .init(
            title: "duplicate key", yaml: "socket:\n  path: /run/a.sock\n  path: /run/b.sock\n", line: 3, column: 3,
            says: "duplicate key 'path'"),
        .init(
            title: "bad rotation", yaml: "devices:\n  - rotation: 45\n", line: 2, column: 15, says: "0, 90, 180 or 270"),
        .init(
            title: "bad socket mode", yaml: "socket:\n  mode: \"0999\"\n", line: 2, column: 9, says: "octal file mode"),
        .init(
            title: "relative socket path", yaml: "socket:\n  path: gestured.sock\n", line: 2, column: 9,
            says: "absolute path"),
        .init(
            title: "bad usb id", yaml: "devices:\n  - match: {usb: \"eeff\"}\n", line: 2, column: 18,
            says: "vendor:product"),
        .init(
            title: "rect past the surface",
            yaml: "regions:\n  - name: r\n    rect: {x: 0.5, y: 0, width: 0.8, height: 1}\n", line: 3, column: 11,
            says: "reaches past the surface"),
        .init(title: "top level is a list", yaml: "- a\n- b\n", line: 1, column: 1, says: "mapping"),
        .init(
            title: "calibration matrix of the wrong size", yaml: "devices:\n  - calibration: [1, 0, 0]\n", line: 2,
            column: 18, says: "6 numbers"),
        .init(title: "bad log level", yaml: "log-level: loud\n", line: 1, column: 12, says: "loud"),
        // Messages that said nothing (Yams named its own node types).
        .init(
            title: "recognizers written as a mapping, not a list", yaml: "recognizers:\n  name: p\n  kind: pan\n",
            line: 2, column: 3, says: "expected a list, found a mapping"),
        .init(
            title: "a name list written as one name",
            yaml: "recognizers:\n  - name: t\n    kind: tap\n    requires-failure-of: dbl\n", line: 4, column: 26,
            says: "expected a list, found 'dbl'"),
        .init(
            title: "kind written as a mapping", yaml: "recognizers:\n  - name: t\n    kind: {a: 1}\n", line: 3,
            column: 11, says: "expected a string, found a mapping"),
        .init(
            title: "unknown tool type", yaml: "recognizers:\n  - name: p\n    kind: pan\n    accepts: {tools: [hand]}\n",
            line: 4, column: 23, says: "unknown tool 'hand' (expected one of: finger, pen, palm)"),
        .init(
            title: "log level as a number", yaml: "log-level: 3\n", line: 1, column: 12,
            says: "unknown log level '3' (expected one of: trace, debug, info, notice, warning, error, critical)"),
        .init(
            title: "a key that is not a name", yaml: "socket:\n  [path]: /run/x.sock\n", line: 2, column: 3,
            says: "expected a key that is a string, found a list"),
        // `recognizers:` with nothing after it ran the built-in set.
        .init(
            title: "recognizers without a value", yaml: "log-level: info\nrecognizers:\n#  - name: p\n#    kind: pan\n",
            line: 2, column: 1, says: "'recognizers' has no value: list recognizers, write 'recognizers: []' for none"),
        .init(
            title: "duplicate key in a flow mapping", yaml: "socket: {path: /run/a.sock, path: /run/b.sock}\n",
            line: 1, column: 29, says: "duplicate key 'path' in this mapping"),
        .init(title: "unknown alias", yaml: "socket: *settings\n", line: 1, column: 9, says: "unknown alias '*settings'"),
        .init(title: "two documents", yaml: "log-level: info\n---\nlog-level: debug\n", line: 2, column: 1,
            says: "a second YAML document"),
        // The WebSocket endpoint.
        .init(
            title: "websocket listen on a name", yaml: "websocket:\n  listen: \"localhost:7330\"\n  allowed-origins: [\"http://a\"]\n",
            line: 2, column: 11, says: "an IP address and a port"),
        .init(
            title: "websocket port out of range",
            yaml: "websocket:\n  listen: \"127.0.0.1:70000\"\n  allowed-origins: [\"http://a\"]\n", line: 2, column: 11,
            says: "an IP address and a port"),
        .init(
            title: "websocket without allowed origins", yaml: "websocket:\n  listen: \"127.0.0.1:7330\"\n", line: 2,
            column: 3, says: "'websocket' needs 'allowed-origins'"),
        .init(
            title: "websocket origin with a path", yaml: "websocket:\n  allowed-origins: [\"http://a:8080/kiosk\"]\n",
            line: 2, column: 20, says: "scheme://host[:port] with no path"),
        .init(
            title: "websocket with no origins", yaml: "websocket:\n  allowed-origins: []\n", line: 2, column: 20,
            says: "a list of 1 to 64 origins"),
        .init(
            title: "unknown websocket key", yaml: "websocket:\n  allowed-origins: [\"file://\"]\n  allow-defines: true\n",
            line: 3, column: 3, says: "unknown key 'allow-defines' in 'websocket'"),
        // `websocket:` with no value ran no endpoint, where `websocket: {}`
        // was refused.
        .init(
            title: "websocket without a value", yaml: "log-level: info\nwebsocket:\n#  allowed-origins: [file://]\n",
            line: 2, column: 1, says: "'websocket' has no value: give it 'allowed-origins'"),
        .init(
            title: "websocket as an empty mapping", yaml: "websocket: {}\n", line: 1, column: 12,
            says: "'websocket' needs 'allowed-origins'"),
        .init(
            title: "websocket max-clients of 0",
            yaml: "websocket:\n  allowed-origins: [\"file://\"]\n  max-clients: 0\n", line: 3, column: 16,
            says: "a number from 1 to 1024"),
        .init(
            title: "websocket max-clients-per-peer too large",
            yaml: "websocket:\n  allowed-origins: [\"file://\"]\n  max-clients-per-peer: 2000\n", line: 3, column: 25,
            says: "a number from 1 to 1024"),
        .init(
            title: "socket max-clients-per-user of 0", yaml: "socket:\n  max-clients-per-user: 0\n", line: 2,
            column: 25, says: "a number from 1 to 1024"),
        .init(
            title: "websocket ping interval too short",
            yaml: "websocket:\n  allowed-origins: [\"file://\"]\n  ping-interval-ms: 10\n", line: 3, column: 21,
            says: "milliseconds from 1000 to 3600000"),
        .init(
            title: "a value of the wrong type through an alias",
            yaml: """
                regions:
                  - name: r
                    rect: &r {x: 0, y: 0, width: 0.5, height: 0.5}
                recognizers:
                  - name: t
                    kind: tap
                    fingers: *r
                """, line: 7, column: 14, says: "expected an integer, found a mapping"),
    ]

    @Test("a broken configuration fails at its file:line:column", arguments: broken)
    func brokenConfiguration(_ example: BrokenConfiguration) {
        do {
            let config = try ConfigurationLoader.parse(Data(example.yaml.utf8), file: "test.yaml")
            Issue.record("accepted: \(config)")
        } catch {
            #expect(error.file == "test.yaml")
            #expect((error.line, error.column) == (example.line, example.column), "\(error)")
            #expect(error.message.contains(example.says), "\(error)")
            #expect(error.description.hasPrefix("test.yaml:\(error.line):\(error.column): "))
        }
    }

    @Test("bytes that are not UTF-8 are located")
    func invalidUTF8() {
        let data = Data("socket:\n  path: /run/".utf8) + Data([0xFF, 0x41])
        #expect(throws: ConfigurationFileError(file: "x", line: 2, column: 14, message: "the file is not valid UTF-8"))
        {
            try ConfigurationLoader.parse(data, file: "x")
        }
    }

    @Test("a file that cannot be read says why in the system's words, not Foundation's error value")
    func unreadable() throws {
        let missing = "/nonexistent-\(UInt64.random(in: 0...UInt64.max))/gestured.yaml"
        let gone = ConfigurationFileError(
            file: missing, line: 1, column: 1, message: "cannot read the file: No such file or directory")
        #expect(throws: gone) { try ConfigurationLoader.load(contentsOf: missing) }
        let directory = ConfigurationFileError(
            file: "/", line: 1, column: 1, message: "cannot read the file: Is a directory")
        #expect(throws: directory) { try ConfigurationLoader.load(contentsOf: "/") }
    }

    @Test("a socket group the system does not know fails the check, at the group")
    func unknownGroup() {
        let yaml = "socket:\n  path: /run/g.sock\n  group: nosuchgroup\n"
        #expect(
            throws: ConfigurationFileError(file: "g.yaml", line: 3, column: 10, message: "no group named 'nosuchgroup'")
        ) {
            try ConfigurationLoader.parse(Data(yaml.utf8), file: "g.yaml") { "no group named '\($0)'" }
        }
        #expect(throws: Never.self) {
            try ConfigurationLoader.parse(Data(yaml.utf8), file: "g.yaml") { _ in nil }
        }
    }

    @Test("YAML people write in configurations: anchors, merge keys, flow and block, quotes, comments, multi-line")
    func yamlFeatures() throws {
        let written = """
            %YAML 1.1
            --- # the kiosk
            socket: {path: '/run/g/g.sock', mode: "0600"}   # flow mapping, quoted scalars
            devices:
              - match:
                  name: >-
                    eGalax
                    Touch*
                rotation: 90
            regions:
              - &strip {name: strip, rect: {x: 0.9, y: 0, width: 0.1, height: 1}}
            recognizers:
              - &tap
                name: tap
                kind: tap
                region: strip
                requires-failure-of: [double-tap]
              - <<: *tap
                name: double-tap
                taps: 2
                requires-failure-of: []
              - name: "pan"
                kind: pan
                simultaneous-with:
                  - '*'
            ...
            """
        let plain = """
            socket:
              path: /run/g/g.sock
              mode: "0600"
            devices:
              - match:
                  name: eGalax Touch*
                rotation: 90
            regions:
              - name: strip
                rect: {x: 0.9, y: 0, width: 0.1, height: 1}
            recognizers:
              - name: tap
                kind: tap
                region: strip
                requires-failure-of: [double-tap]
              - name: double-tap
                kind: tap
                region: strip
                taps: 2
              - name: pan
                kind: pan
                simultaneous-with: ["*"]
            """
        let fancy = try ConfigurationLoader.parse(Data(written.utf8), file: "fancy.yaml")
        #expect(fancy == (try ConfigurationLoader.parse(Data(plain.utf8), file: "plain.yaml")))
        #expect(fancy.devices.first?.match.name == "eGalax Touch*")
        #expect(fancy.recognizers?.map(\.name) == ["tap", "double-tap", "pan"])
    }

    @Test("an empty file is the default configuration")
    func emptyFile() throws {
        let config = try ConfigurationLoader.parse(Data(), file: "empty.yaml")
        #expect(config == DaemonConfiguration())
        #expect(config.recognizers == nil)
        #expect(config.websocket == nil)
    }

    @Test("a websocket with only its origins listens on 127.0.0.1:7330, refuses define, pings every 30 s; it prints back as it loads")
    func webSocketDefaults() throws {
        let config = try ConfigurationLoader.parse(
            Data("websocket:\n  allowed-origins: [\"http://localhost:8080\"]\n".utf8), file: "ws.yaml")
        let websocket = try #require(config.websocket)
        #expect(websocket == WebSocketConfiguration(allowedOrigins: ["http://localhost:8080"]))
        #expect((websocket.host, websocket.port, websocket.allowDefine, websocket.pingIntervalMS) == ("127.0.0.1", 7330, false, 30_000))
        #expect((websocket.maxClients, websocket.maxClientsPerPeer) == (32, 8))
        let yaml = try ConfigurationLoader.yaml(config, header: "printed")
        #expect(try ConfigurationLoader.parse(Data(yaml.utf8), file: "printed.yaml") == config)
    }

    @Test("a full configuration decodes every section")
    func fullConfiguration() throws {
        let yaml = """
            log-level: debug
            socket:
              path: /run/g/g.sock
              mode: "0600"
              group: kiosk
              max-clients: 8
              max-clients-per-user: 3
            websocket:
              listen: "[::1]:7331"
              allowed-origins: ["http://localhost:8080", "file://"]
              allow-define: true
              ping-interval-ms: 5000
              max-clients: 12
              max-clients-per-peer: 2
            devices:
              - match: {name: "eGalax*", usb: "0eef:72a1"}
                rotation: 90
                size-mm: {width: 344, height: 194}
                passthrough: true
            regions:
              - name: keypad
                rect: {x: 0.1, y: 0.5, width: 0.3, height: 0.4}
            recognizers:
              - name: admin
                kind: edge-swipe
                edges: [top]
                fingers: 3
                preempts: [pan]
              - name: pan
                kind: pan
            """
        let config = try ConfigurationLoader.parse(Data(yaml.utf8), file: "full.yaml")
        #expect(config.logLevel == .debug)
        #expect(
            config.socket
                == SocketConfiguration(
                    path: "/run/g/g.sock", mode: 0o600, group: "kiosk", maxClients: 8, maxClientsPerUser: 3))
        #expect(
            config.websocket
                == WebSocketConfiguration(
                    host: "::1", port: 7331, allowedOrigins: ["http://localhost:8080", "file://"], allowDefine: true,
                    pingIntervalMS: 5000, maxClients: 12, maxClientsPerPeer: 2))
        #expect(
            config.devices.first?.match == DeviceMatchSpec(name: "eGalax*", usb: USBID(vendor: 0x0eef, product: 0x72a1)))
        #expect(config.devices.first?.size == PhysicalSize(width: Millimeters(344), height: Millimeters(194)))
        #expect(config.devices.first?.passthrough == true)
        #expect(config.regions.map(\.name) == ["keypad"])
        let admin = try #require(config.recognizers?.first)
        #expect(admin.kind == .edgeSwipe)
        #expect(admin.preempts == ["pan"])
        let p = try #require(admin.parameters.value(as: EdgeSwipeParameters.self))
        #expect(p.edges == [.top] && p.fingers == 3)
    }
}

@Suite("Configuration references and the built-in set")
struct ConfigurationReferenceTests {
    static let broken: [BrokenConfiguration] = [
        .init(
            title: "unknown failure requirement",
            yaml: "recognizers:\n  - name: t\n    kind: tap\n    requires-failure-of: [dbl]\n", line: 4, column: 27,
            says: "dbl"),
        .init(
            title: "failure-requirement cycle",
            yaml: """
                recognizers:
                  - name: a
                    kind: tap
                    requires-failure-of: [b]
                  - name: b
                    kind: tap
                    taps: 2
                    requires-failure-of: [a]
                """, line: 8, column: 27, says: "cycle"),
        .init(
            title: "duplicate recognizer name",
            yaml: "recognizers:\n  - name: t\n    kind: tap\n  - name: t\n    kind: pan\n", line: 4, column: 11,
            says: "t"),
        .init(
            title: "unknown region", yaml: "recognizers:\n  - name: t\n    kind: tap\n    region: keypad\n", line: 4,
            column: 13, says: "keypad"),
        .init(
            title: "unknown parent region",
            yaml: "regions:\n  - name: a\n    rect: {x: 0, y: 0, width: 0.5, height: 0.5}\n    parent: nowhere\n",
            line: 4, column: 13, says: "nowhere"),
    ]

    @Test("a configuration with a bad reference fails at its file:line:column", arguments: broken)
    func brokenReference(_ example: BrokenConfiguration) {
        do {
            let config = try ConfigurationLoader.parse(Data(example.yaml.utf8), file: "refs.yaml")
            Issue.record("accepted: \(config)")
        } catch {
            #expect((error.line, error.column) == (example.line, example.column), "\(error)")
            #expect(error.message.contains(example.says), "\(error)")
        }
    }

    @Test("the built-in configuration printed as YAML loads back unchanged")
    func builtInRoundTrip() throws {
        let yaml = try ConfigurationLoader.yaml(.builtIn, header: "built-in\nsecond line")
        #expect(yaml.hasPrefix("# built-in\n# second line\n"))
        let loaded = try ConfigurationLoader.parse(Data(yaml.utf8), file: "default.yaml")
        #expect(loaded == .builtIn)
        #expect(loaded.engineConfiguration == EngineConfiguration.default)
    }

    @Test("without a recognizers key the built-in set runs; with one, exactly those")
    func recognizersReplaceTheBuiltInSet() throws {
        let none = try ConfigurationLoader.parse(Data("log-level: info\n".utf8), file: "a.yaml")
        #expect(none.engineConfiguration.recognizers == EngineConfiguration.default.recognizers)
        let one = try ConfigurationLoader.parse(Data("recognizers:\n  - name: p\n    kind: pan\n".utf8), file: "b.yaml")
        #expect(one.engineConfiguration.recognizers.map(\.name) == ["p"])
    }
}

@Suite("Configuration: kinds with a finger minimum")
struct FingerMinimumTests {
    @Test("a pinch or rotation of fewer than two fingers is refused at its key", arguments: ["pinch", "rotate"])
    func twoFingerKinds(kind: String) {
        let yaml = "recognizers:\n  - name: x\n    kind: \(kind)\n    min-fingers: 1\n"
        #expect(throws: ConfigurationFileError.self) { try ConfigurationLoader.parse(Data(yaml.utf8), file: "f.yaml") }
        do {
            _ = try ConfigurationLoader.parse(Data(yaml.utf8), file: "f.yaml")
        } catch {
            #expect((error.line, error.column) == (4, 18), "\(error)")
            #expect(error.message.contains("at least 2 fingers"), "\(error)")
        }
    }
}

/// One rule per kind of value, whichever key gives it: a finger count in `when` and a kind's
/// own count, a contact size in `accepts` and a length of a kind, are refused in the same words.
/// (`when` said "a finger count from 1 to 10, at least min-fingers" where a kind said
/// "max-fingers ≥ min-fingers (3)"; `max-contact-size-mm` stopped at 1000 mm where every other
/// length goes to 10 000.)
@Suite("one check per rule")
struct OneRuleTests {
    static func message(_ yaml: String) -> String? {
        do {
            _ = try ConfigurationLoader.parse(Data(yaml.utf8), file: "f.yaml")
            return nil
        } catch {
            return error.message
        }
    }

    @Test("min-fingers and max-fingers say the same in `when` as in a kind's own keys")
    func fingerCounts() {
        let when = Self.message("recognizers:\n  - {name: x, kind: pan, when: {min-fingers: 3, max-fingers: 2}}\n")
        let own = Self.message("recognizers:\n  - {name: x, kind: pan, min-fingers: 3, max-fingers: 2}\n")
        #expect(when != nil && when == own)
        let whenRange = Self.message("recognizers:\n  - {name: x, kind: pan, when: {max-fingers: 11}}\n")
        let ownRange = Self.message("recognizers:\n  - {name: x, kind: pan, max-fingers: 11}\n")
        #expect(whenRange != nil && whenRange == ownRange)
    }

    @Test("max-contact-size-mm takes what every length takes, and is refused in the same words")
    func contactSize() {
        #expect(Self.message("recognizers:\n  - {name: x, kind: pan, accepts: {max-contact-size-mm: 5000}}\n") == nil)
        let size = Self.message("recognizers:\n  - {name: x, kind: pan, accepts: {max-contact-size-mm: 20000}}\n")
        let slop = Self.message("recognizers:\n  - {name: x, kind: tap, slop-mm: 20000}\n")
        #expect(size != nil && size == slop)
    }
}
