import GestureActions
import GestureEngine
import GestureProtocol

// Strict Codable for the mqtt file, as for the daemon's and the actions file: unknown keys are
// errors, every value is checked where it is read, so the loader can point at its line and column.

extension MQTTConfiguration: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case broker
        case topicPrefix = "topic-prefix"
        case qos, socket
        case daemonUser = "daemon-user"
        case publish, queue
        case homeAssistant = "home-assistant"
        case inbound
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.strictContainer(keyedBy: CodingKeys.self, in: "the mqtt file")
        guard c.contains(.broker), try !c.decodeNil(forKey: .broker) else {
            throw decoder.missing(CodingKeys.broker, "the mqtt file needs 'broker': at least {url: mqtts://HOST:8883}")
        }
        broker = try c.decode(BrokerSettings.self, forKey: .broker)
        topicPrefix = try c.decodeIfPresent(.topicPrefix, parsing: TopicPrefix.init)
        qos = try c.decode(.qos, default: 1, expect: "0 (at most once) or 1 (at least once)") { $0 == 0 || $0 == 1 }
        socket = try c.decodeClientSocket(forKey: .socket)
        daemonUser = try c.decodeDaemonUser(forKey: .daemonUser)
        publish = try c.decode(.publish, default: PublishSettings())
        queue = try c.decode(.queue, default: QueueBounds())
        homeAssistant = try c.decode(.homeAssistant, default: HomeAssistantSettings())
        inbound = try c.decodeIfPresent(InboundSettings.self, forKey: .inbound)
    }
}

/// An absolute path of a file the client reads (a certificate, a key, a password).
private func absolutePath<Key: CodingKey>(_ c: KeyedDecodingContainer<Key>, _ key: Key) throws -> String? {
    guard let path = try c.decodeIfPresent(String.self, forKey: key) else { return nil }
    guard path.hasPrefix("/"), !path.utf8.contains(0), path.utf8.count <= 4096 else {
        throw c.corrupted(key, "expected an absolute path")
    }
    return path
}

extension BrokerSettings: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case url
        case clientID = "client-id"
        case keepaliveSeconds = "keepalive-s"
        case connectTimeoutSeconds = "connect-timeout-s"
        case reconnectMaxSeconds = "reconnect-max-s"
        case caFile = "ca-file"
        case certFile = "cert-file"
        case keyFile = "key-file"
        case username
        case passwordFile = "password-file"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.strictContainer(keyedBy: CodingKeys.self, in: "'broker'")
        guard let url = try c.decodeIfPresent(.url, parsing: BrokerURL.init(parsing:)) else {
            throw decoder.missing(
                CodingKeys.url, "'broker' needs 'url': mqtts://HOST[:PORT] (TLS) or mqtt://HOST[:PORT]")
        }
        self.url = url
        clientID = try c.decodeIfPresent(String.self, forKey: .clientID)
        if let clientID, !Self.isClientID(clientID) {
            throw c.corrupted(.clientID, "expected 1 to 64 letters, digits, '-', '_' or '.'")
        }
        keepaliveSeconds = try c.decode(
            .keepaliveSeconds, default: 30, within: 5...3600, expect: "seconds from 5 to 3600")
        connectTimeoutSeconds = try c.decode(
            .connectTimeoutSeconds, default: 10, within: 1...300, expect: "seconds from 1 to 300")
        reconnectMaxSeconds = try c.decode(
            .reconnectMaxSeconds, default: 30, within: 1...3600, expect: "seconds from 1 to 3600")
        caFile = try absolutePath(c, .caFile)
        certFile = try absolutePath(c, .certFile)
        keyFile = try absolutePath(c, .keyFile)
        for key in [CodingKeys.caFile, .certFile, .keyFile] where c.contains(key) && !url.tls {
            throw c.corrupted(key, "'\(key.rawValue)' is for TLS: the url must be mqtts://")
        }
        if (certFile == nil) != (keyFile == nil) {
            let given = certFile == nil ? CodingKeys.keyFile : .certFile
            throw c.corrupted(given, "a client certificate needs both 'cert-file' and 'key-file'")
        }
        username = try c.decodeIfPresent(String.self, forKey: .username)
        if let username, username.isEmpty || username.utf8.count > 256 || username.utf8.contains(0) {
            throw c.corrupted(.username, "expected a user name of 1 to 256 bytes")
        }
        passwordFile = try absolutePath(c, .passwordFile)
        if passwordFile != nil && username == nil {
            throw c.corrupted(.passwordFile, "a password needs 'username' beside it")
        }
    }

    /// A client identifier most brokers take (MQTT 3.1.1 §3.1.3.1 guarantees 23 letters and
    /// digits; mosquitto takes more, and these characters).
    static func isClientID(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count) && id.unicodeScalars.allSatisfy(TopicLevel.allowed)
    }
}

extension PublishSettings: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case gestures, kinds, states, panel, contact
    }

    public init(from decoder: any Decoder) throws {
        self.init()
        let c = try decoder.strictContainer(keyedBy: CodingKeys.self, in: "'publish'")
        if let names = try c.decodeIfPresent([String].self, forKey: .gestures) {
            guard names.count <= Subscription.maxFilterEntries else {
                throw c.corrupted(.gestures, "expected at most \(Subscription.maxFilterEntries) recognizer names")
            }
            if let bad = names.first(where: { !RegionSpec.isValidName($0) }) {
                throw c.corrupted(
                    .gestures,
                    "'\(TopicLevel.escaped(bad))' is not a recognizer name (1 to 64 letters, digits, "
                        + "'-', '_' or '.')")
            }
            gestures = Set(names)
        }
        kinds = try c.decodeIfPresent([GestureKind].self, forKey: .kinds).map(Set.init)
        states = Set(
            try c.decode(.states, default: Array(states), expect: "a list of 1 to 5 states") { !$0.isEmpty })
        panel = try c.decode(.panel, default: panel)
        contact = try c.decode(.contact, default: contact)
    }
}

extension QueueBounds: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case maxMessages = "max-messages"
        case maxBytes = "max-bytes"
    }

    /// The fewest messages a queue holds: those in flight (``OutgoingQueue/window``) and as many
    /// waiting.
    public static let minimumMessages = 2 * OutgoingQueue.window

    public init(from decoder: any Decoder) throws {
        self.init()
        let c = try decoder.strictContainer(keyedBy: CodingKeys.self, in: "'queue'")
        maxMessages = try c.decode(
            .maxMessages, default: maxMessages, within: Self.minimumMessages...1_000_000,
            expect: "a number from \(Self.minimumMessages) to 1000000")
        maxBytes = try c.decode(
            .maxBytes, default: maxBytes, within: 65536...268_435_456, expect: "bytes from 65536 to 268435456 (256 MiB)"
        )
    }
}

extension HomeAssistantSettings: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case discovery, prefix
        case deviceName = "device-name"
    }

    public init(from decoder: any Decoder) throws {
        self.init()
        let c = try decoder.strictContainer(keyedBy: CodingKeys.self, in: "'home-assistant'")
        discovery = try c.decode(.discovery, default: discovery)
        prefix = try c.decodeIfPresent(.prefix, parsing: TopicPrefix.init) ?? prefix
        deviceName = try c.decodeIfPresent(String.self, forKey: .deviceName)
        if let deviceName,
            deviceName.isEmpty || deviceName.utf8.count > 64
                || deviceName.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        {
            throw c.corrupted(.deviceName, "expected a name of 1 to 64 bytes without control characters")
        }
    }
}

extension InboundSettings: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case actionsFile = "actions-file"
        case maxPerMinute = "max-per-minute"
        case topics
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.strictContainer(keyedBy: CodingKeys.self, in: "'inbound'")
        actionsFile = try absolutePath(c, .actionsFile) ?? "/etc/gestured/actions.yaml"
        maxPerMinute = try c.decode(.maxPerMinute, default: 30, within: 1...600, expect: "a number from 1 to 600")
        guard c.contains(.topics) else {
            throw decoder.missing(
                CodingKeys.topics,
                "'inbound' needs 'topics': a list such as {topic: screen, payload: \"ON\", "
                    + "rule: screen-on}")
        }
        topics = try c.decode(.topics, default: [], expect: "a list of 1 to 64 topics") { (1...64).contains($0.count) }
        var seen: [String: Int] = [:]
        for (i, entry) in topics.enumerated() {
            let key = entry.topic + "\u{0}" + entry.payload
            if let first = seen[key] {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(
                        codingPath: decoder.codingPath + [CodingKeys.topics, AnyCodingKey(intValue: i)!],
                        debugDescription:
                            "topics[\(first)] has this topic and payload already: one message runs one rule"))
            }
            seen[key] = i
        }
    }
}

extension InboundTopic: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case topic, payload, rule
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.strictContainer(keyedBy: CodingKeys.self, in: "an inbound topic")
        for key in [CodingKeys.topic, .rule] where !c.contains(key) {
            throw decoder.missing(
                key,
                "an inbound topic needs 'topic' (the levels under <prefix>/command/) and 'rule' "
                    + "(a rule's name in the actions file)")
        }
        topic = try c.decode(String.self, forKey: .topic)
        do {
            try TopicPrefix.check(topic, what: "an inbound topic")
        } catch {
            throw c.corrupted(.topic, error.description)
        }
        payload = try c.decode(
            .payload, default: Self.press,
            expect: "1 to \(Self.maximumPayloadBytes) bytes without control characters"
        ) {
            (1...Self.maximumPayloadBytes).contains($0.utf8.count)
                && !$0.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        }
        rule = try c.decode(.rule, default: "", expect: "a rule name (1 to 64 letters, digits, '-', '_' or '.')") {
            RegionSpec.isValidName($0)
        }
    }
}
