import FoundationEssentials

/// Home Assistant's MQTT discovery for one kiosk (docs/FLEET.md, "Discovery"): one device and its
/// entities, each a retained JSON config on `<discovery prefix>/<component>/<node>/<object>/config`
/// with the keys Home Assistant's MQTT integration documents for that component:
///
/// | entity | component | reads |
/// |---|---|---|
/// | Active | `binary_sensor` (`occupancy`) | `<prefix>/active`: `ON` / `OFF` |
/// | Gesture | `event`, `event_types` the published recognizers' names | `<prefix>/gesture`, its `name` as `event_type` |
/// | Last gesture | `sensor` | `<prefix>/gesture`, its `name` |
/// | one per inbound topic | `button`, `payload_press` the topic's payload | writes `<prefix>/command/<topic>` |
///
/// Every entity has the device's availability (`<prefix>/availability`, `online` / `offline`).
/// The configs are retained, so Home Assistant finds them when it starts again without being
/// sent them anew (its `homeassistant/status` birth message is not listened to: one subscription
/// fewer that the broker could feed); they are published again at every connection to the broker,
/// which may have restarted without them.
public struct HomeAssistantDiscovery: Sendable {
    public let settings: HomeAssistantSettings
    public let topics: Topics
    /// `[a-zA-Z0-9_-]` only (the discovery topic's node id), from the client id.
    public let node: String
    public let deviceName: String
    public let version: String

    public init(settings: HomeAssistantSettings, topics: Topics, clientID: String, hostname: String, version: String) {
        self.settings = settings
        self.topics = topics
        node = String(
            String.UnicodeScalarView(TopicLevel.sanitized(clientID).unicodeScalars.map { $0 == "." ? "_" : $0 }))
        deviceName = settings.deviceName ?? hostname
        self.version = version
    }

    /// One entity's config: its discovery topic and its payload.
    public struct Config: Hashable, Sendable {
        public var topic: String
        public var payload: [UInt8]
    }

    /// The configs of every entity, given the recognizer names the `event` entity's types are and
    /// the inbound topics (a button each).
    public func configs(eventTypes: [String], inbound: [InboundTopic]) -> [Config] {
        let device = Device(
            identifiers: ["gestured_\(node)"], name: deviceName, manufacturer: "gestured", model: "gestured mqtt",
            swVersion: version)
        let origin = Origin(name: "gestured", swVersion: version, supportURL: "https://github.com/gestured/gestured")
        func entity(_ object: String, _ name: String) -> Entity {
            Entity(
                name: name, uniqueID: "gestured_\(node)_\(object)", availabilityTopic: topics.availability,
                device: device, origin: origin)
        }
        var configs: [Config] = []
        func add(_ component: String, _ object: String, _ entity: Entity) {
            // Strings and lists of strings only: JSONEncoder has nothing to refuse.
            configs.append(
                Config(
                    topic: settings.prefix.appending("\(component)/\(node)/\(object)/config"),
                    payload: Array(try! Self.encoder.encode(entity))))
        }
        var active = entity("active", "Active")
        active.stateTopic = topics.active
        active.payloadOn = Topics.on
        active.payloadOff = Topics.off
        active.deviceClass = "occupancy"
        add("binary_sensor", "active", active)

        var gesture = entity("gesture", "Gesture")
        gesture.stateTopic = topics.gesture
        gesture.eventTypes = eventTypes.sorted()
        // The socket's message, with its recognizer's name as the event type and a few of its
        // fields as the event's attributes.
        gesture.valueTemplate =
            "{{ {'event_type': value_json.name, 'kind': value_json.kind, 'state': value_json.state, "
            + "'fingers': value_json.fingers, 'device': value_json.device, 'region': value_json.region} | tojson }}"
        gesture.icon = "mdi:gesture-tap"
        add("event", "gesture", gesture)

        var last = entity("last_gesture", "Last gesture")
        last.stateTopic = topics.gesture
        last.valueTemplate = "{{ value_json.name }}"
        last.icon = "mdi:gesture"
        add("sensor", "last_gesture", last)

        for entry in inbound {
            let object =
                "command_"
                + String(
                    String.UnicodeScalarView(
                        (entry.topic + "_" + entry.payload).unicodeScalars.map {
                            TopicLevel.allowed($0) && $0 != "." ? $0 : "_"
                        }))
            var button = entity(object, entry.rule)
            button.commandTopic = topics.command(entry.topic)
            button.payloadPress = entry.payload
            add("button", object, button)
        }
        return configs
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Home Assistant's keys are the properties' names in snake case (`uniqueID`: `unique_id`).
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return encoder
    }()

    struct Device: Encodable, Hashable {
        var identifiers: [String]
        var name: String
        var manufacturer: String
        var model: String
        var swVersion: String
    }

    struct Origin: Encodable, Hashable {
        var name: String
        var swVersion: String
        var supportURL: String
    }

    /// The keys of the four components used here, as Home Assistant's MQTT integration spells them.
    struct Entity: Encodable, Hashable {
        var name: String
        var uniqueID: String
        var availabilityTopic: String
        var device: Device
        var origin: Origin
        var stateTopic: String?
        var commandTopic: String?
        var valueTemplate: String?
        var payloadOn: String?
        var payloadOff: String?
        var payloadPress: String?
        var eventTypes: [String]?
        var deviceClass: String?
        var icon: String?
    }
}
