import GestureEngine

/// The file of `gestured mqtt` (docs/FLEET.md, "Home Assistant and MQTT", explains every key):
/// which broker, what is published under which topic prefix, how much waits while the broker is
/// away, Home Assistant's discovery, and the inbound topics that run rules of the actions file.
///
/// ```yaml
/// broker:
///   url: mqtts://broker.lan:8883
///   ca-file: /etc/gestured/mqtt-ca.pem
///   username: kiosk-hall
///   password-file: /etc/gestured/mqtt-password
/// publish:
///   gestures: [swipe, double-tap]
///   kinds: [long-press]
/// home-assistant:
///   discovery: true
/// inbound:
///   topics:
///     - {topic: screen, payload: "ON", rule: screen-on}
/// ```
public struct MQTTConfiguration: Hashable, Sendable {
    public var broker: BrokerSettings
    /// Every topic's first levels; nil: `gestured/<hostname>`.
    public var topicPrefix: TopicPrefix?
    /// The QoS of what is published: 0 (at most once) or 1 (at least once, what waits in the
    /// queue is delivered when the broker is back).
    public var qos: Int
    /// The daemon's socket; nil: the protocol's default path.
    public var socket: String?
    /// A user taken for the daemon besides root, `gestured` and this client's own (as in the
    /// actions file).
    public var daemonUser: String?
    public var publish: PublishSettings
    public var queue: QueueBounds
    public var homeAssistant: HomeAssistantSettings
    /// nil: nothing is subscribed to but Home Assistant's status (with discovery on).
    public var inbound: InboundSettings?

    public init(
        broker: BrokerSettings, topicPrefix: TopicPrefix? = nil, qos: Int = 1, socket: String? = nil,
        daemonUser: String? = nil, publish: PublishSettings = PublishSettings(), queue: QueueBounds = QueueBounds(),
        homeAssistant: HomeAssistantSettings = HomeAssistantSettings(), inbound: InboundSettings? = nil
    ) {
        self.broker = broker
        self.topicPrefix = topicPrefix
        self.qos = qos
        self.socket = socket
        self.daemonUser = daemonUser
        self.publish = publish
        self.queue = queue
        self.homeAssistant = homeAssistant
        self.inbound = inbound
    }
}

/// Where the broker is and who this client is to it.
public struct BrokerSettings: Hashable, Sendable {
    public var url: BrokerURL
    /// nil: `gestured-<hostname>`.
    public var clientID: String?
    /// Seconds between the client's pings when nothing else is sent; the broker takes the client
    /// for gone (and publishes its will) after one and a half times this.
    public var keepaliveSeconds: Int
    /// How long a connection may take, from the TCP connect to the broker's CONNACK: a broker
    /// that accepts and never answers is left after this and tried again later.
    public var connectTimeoutSeconds: Int
    /// The longest pause between two attempts (the first is one second, doubling up to this).
    public var reconnectMaxSeconds: Int
    /// TLS (`mqtts://`): the CA certificates the broker's certificate must chain to (PEM); nil:
    /// the system's (`/etc/ssl/certs`).
    public var caFile: String?
    /// TLS client certificate and its key (PEM, the key unencrypted), both or neither.
    public var certFile: String?
    public var keyFile: String?
    public var username: String?
    /// The password's file: its first line is the password (never in this file, never on a
    /// command line).
    public var passwordFile: String?

    public init(
        url: BrokerURL, clientID: String? = nil, keepaliveSeconds: Int = 30, connectTimeoutSeconds: Int = 10,
        reconnectMaxSeconds: Int = 30, caFile: String? = nil, certFile: String? = nil, keyFile: String? = nil,
        username: String? = nil, passwordFile: String? = nil
    ) {
        self.url = url
        self.clientID = clientID
        self.keepaliveSeconds = keepaliveSeconds
        self.connectTimeoutSeconds = connectTimeoutSeconds
        self.reconnectMaxSeconds = reconnectMaxSeconds
        self.caFile = caFile
        self.certFile = certFile
        self.keyFile = keyFile
        self.username = username
        self.passwordFile = passwordFile
    }
}

/// What is published besides availability.
public struct PublishSettings: Hashable, Sendable {
    /// Recognizer names whose reports are published; with `kinds`, a report is published when
    /// either chooses it; neither: every recognizer's.
    public var gestures: Set<String>?
    /// Kinds whose reports are published.
    public var kinds: Set<GestureKind>?
    /// The reports published: by default the moment a gesture is known (`recognized` for a
    /// discrete one, `began` for a continuous one).
    public var states: Set<GestureState>
    /// `idle`, `active` and `wake` (and the retained `active` state).
    public var panel: Bool
    /// `contact` (what the stage before the arena did to a contact). The daemon sends it only to
    /// connections that take explanations, so it brings those of the chosen gestures along
    /// (dropped here).
    public var contact: Bool

    public init(
        gestures: Set<String>? = nil, kinds: Set<GestureKind>? = nil,
        states: Set<GestureState> = [.recognized, .began], panel: Bool = true, contact: Bool = false
    ) {
        self.gestures = gestures
        self.kinds = kinds
        self.states = states
        self.panel = panel
        self.contact = contact
    }

    /// Whether a report of recognizer `name`, of `kind`, in `state` is published.
    public func chooses(name: String, kind: GestureKind, state: GestureState) -> Bool {
        guard states.contains(state) else { return false }
        if gestures == nil && kinds == nil { return true }
        return (gestures?.contains(name) ?? false) || (kinds?.contains(kind) ?? false)
    }
}

/// How much may wait for the broker: messages not yet acknowledged by it (queued while it is away,
/// or sent and not yet acknowledged), in count and in bytes (topic and payload). Past either bound
/// the oldest waiting message is dropped and counted.
public struct QueueBounds: Hashable, Sendable {
    public var maxMessages: Int
    public var maxBytes: Int

    public init(maxMessages: Int = 1000, maxBytes: Int = 1 << 20) {
        self.maxMessages = maxMessages
        self.maxBytes = maxBytes
    }
}

/// Home Assistant's MQTT discovery (docs/FLEET.md, "Discovery").
public struct HomeAssistantSettings: Hashable, Sendable {
    public var discovery: Bool
    /// Home Assistant's discovery prefix (its MQTT integration's option).
    public var prefix: TopicPrefix
    /// The device's name in Home Assistant; nil: the host's name.
    public var deviceName: String?

    public init(discovery: Bool = false, prefix: TopicPrefix = TopicPrefix.homeAssistant, deviceName: String? = nil) {
        self.discovery = discovery
        self.prefix = prefix
        self.deviceName = deviceName
    }
}

/// Topics the client subscribes to, each message on one mapped to a named rule of the actions
/// file; anything else that arrives is refused and counted.
public struct InboundSettings: Hashable, Sendable {
    /// The actions file whose named rules the topics run.
    public var actionsFile: String
    /// Rules run in any minute at most (all topics together); more are refused.
    public var maxPerMinute: Int
    public var topics: [InboundTopic]

    public init(actionsFile: String = "/etc/gestured/actions.yaml", maxPerMinute: Int = 30, topics: [InboundTopic]) {
        self.actionsFile = actionsFile
        self.maxPerMinute = maxPerMinute
        self.topics = topics
    }
}

/// One inbound message: on `<prefix>/command/<topic>`, the exact `payload`, runs the rule `rule`.
public struct InboundTopic: Hashable, Sendable {
    /// The levels under `<prefix>/command/`.
    public var topic: String
    /// What the message must be, byte for byte (Home Assistant's MQTT button sends `PRESS`).
    public var payload: String
    /// The actions file's rule (its `name`).
    public var rule: String

    public init(topic: String, payload: String = InboundTopic.press, rule: String) {
        self.topic = topic
        self.payload = payload
        self.rule = rule
    }

    /// Home Assistant's MQTT button's `payload_press`.
    public static let press = "PRESS"
    /// The longest payload a topic may expect; every message longer than this is refused before it
    /// is compared.
    public static let maximumPayloadBytes = 256
}
