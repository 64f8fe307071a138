import GestureMetrics

/// `status`: the answer to a `status` request — what an operator wants to know first about a
/// running daemon: its version and uptime, its configuration and whether the last reload failed,
/// its panels, who is connected, and its counters (the metrics' snapshot, ``MetricsSnapshot``).
///
/// ```json
/// {"clients":[{"client":3,"transport":"unix","uid":1000,"user":"kiosk"}],
///  "configuration":{"file":"/etc/gestured/gestured.yaml","loaded":1795772431.5},
///  "id":1,"metrics":{…},"panels":[{"grabbed":false,"label":"event5","last_touch":1795772500.25,
///  "name":"ILITEK ILITEK-TP","width_mm":344,"height_mm":194}],"type":"status"}
/// ```
/// Times are Unix seconds. Nested objects and lists: `Codable`, not a table of fields
/// (CONTRIBUTING.md, "Adding a message type"); it is sent once a request, never a frame.
public struct StatusMessage: Hashable, Sendable, Codable, TypedMessage {
    public static let type = "status"
    /// Its `type` key (``MessageType``).
    var messageType = MessageType<StatusMessage>()

    /// The running configuration.
    public struct Configuration: Hashable, Sendable, Codable {
        /// The file it was read from (`--config`); nil for the built-in configuration. The files
        /// a configuration is read from are listed in this object: a configuration merged from
        /// several files (drop-ins) names the others beside this one.
        public var file: String?
        /// The drop-ins merged onto `file` (`FILE.d/*.yaml`), in the order they were merged; nil
        /// (absent) when there were none.
        public var dropIns: [String]?
        /// When it was loaded: at the start, or by the last reload that succeeded.
        public var loaded: Double
        /// The last reload, when it failed (and no reload has succeeded since): the running
        /// configuration is the one of `loaded`.
        public var reloadFailure: ReloadFailure?

        public init(file: String?, dropIns: [String]? = nil, loaded: Double, reloadFailure: ReloadFailure? = nil) {
            self.file = file
            self.dropIns = dropIns
            self.loaded = loaded
            self.reloadFailure = reloadFailure
        }

        enum CodingKeys: String, CodingKey {
            case file, loaded
            case dropIns = "drop_ins"
            case reloadFailure = "reload_failure"
        }
    }

    /// A reload that kept the running configuration.
    public struct ReloadFailure: Hashable, Sendable, Codable {
        /// When it was tried.
        public var time: Double
        /// Why it failed, as the journal says it: `FILE:LINE:COLUMN: …` for a configuration error.
        public var error: String

        public init(time: Double, error: String) {
            self.time = time
            self.error = error
        }
    }

    /// A panel open now (a recording replayed counts as one).
    public struct Panel: Hashable, Sendable, Codable {
        /// Its label (`device` in messages).
        public var label: String
        /// The kernel's name for it.
        public var name: String
        /// Grabbed, its unclaimed touches going to a passthrough mirror.
        public var grabbed: Bool
        /// The mirror's event node, while grabbed (when udev named it).
        public var mirror: String?
        /// Its physical size, when the panel or the configuration says it.
        public var widthMillimeters: Double?
        public var heightMillimeters: Double?
        /// When its last frame came.
        public var lastTouch: Double?
        /// Its rotation, degrees clockwise (`devices[].rotation`): the size is after it.
        public var rotation: Int
        /// Idle (`idle-after` passed with nothing down; docs/ARBITRATION.md, "Before the arena").
        public var idle: Bool
        /// Its screen as last read (`devices[].screen`); nil when it is not read.
        public var screenOn: Bool?

        public init(
            label: String, name: String, grabbed: Bool, mirror: String? = nil, widthMillimeters: Double? = nil,
            heightMillimeters: Double? = nil, lastTouch: Double? = nil, rotation: Int = 0, idle: Bool = false,
            screenOn: Bool? = nil
        ) {
            self.label = label
            self.name = name
            self.grabbed = grabbed
            self.mirror = mirror
            self.widthMillimeters = widthMillimeters
            self.heightMillimeters = heightMillimeters
            self.lastTouch = lastTouch
            self.rotation = rotation
            self.idle = idle
            self.screenOn = screenOn
        }

        enum CodingKeys: String, CodingKey {
            case label, name, grabbed, mirror, rotation, idle
            case widthMillimeters = "width_mm"
            case heightMillimeters = "height_mm"
            case lastTouch = "last_touch"
            case screenOn = "screen_on"
        }
    }

    /// A connected client.
    public struct Client: Hashable, Sendable, Codable {
        public enum Transport: String, Hashable, Sendable, Codable {
            case unix
            case websocket
        }

        /// Its number (`client` in `hello`).
        public var client: UInt64
        public var transport: Transport
        /// On the Unix socket: its user, by the kernel's peer credentials, and that user's name
        /// (nil when the user database has none).
        public var uid: UInt32?
        public var user: String?
        /// On the WebSocket endpoint: the page's origin.
        public var origin: String?

        public init(
            client: UInt64, transport: Transport, uid: UInt32? = nil, user: String? = nil, origin: String? = nil
        ) {
            self.client = client
            self.transport = transport
            self.uid = uid
            self.user = user
            self.origin = origin
        }
    }

    /// Echoes the request's `id`.
    public var id: RequestID?
    public var configuration: Configuration
    public var panels: [Panel]
    public var clients: [Client]
    /// Every counter, as the metrics endpoint serves them (its version, start time and the
    /// snapshot's time among them).
    public var metrics: MetricsSnapshot

    public init(
        id: RequestID? = nil, configuration: Configuration, panels: [Panel], clients: [Client],
        metrics: MetricsSnapshot
    ) {
        self.id = id
        self.configuration = configuration
        self.panels = panels
        self.clients = clients
        self.metrics = metrics
    }

    /// The daemon's version.
    public var version: String { metrics.version }
    /// Seconds since the daemon started, when the snapshot was made.
    public var uptime: Double { max(0, metrics.time - metrics.startTime) }

    enum CodingKeys: String, CodingKey { case messageType = "type", id, configuration, panels, clients, metrics }

    /// The metrics' own keys, said again at the top for scripts (`jq .version`).
    private enum SummaryKeys: String, CodingKey {
        case version
        case startTime = "start_time"
        case uptime = "uptime_s"
    }

    /// Decoded as the compiler makes it; encoded with `version`, `start_time` and `uptime_s`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(messageType, forKey: .messageType)
        try c.encodeIfPresent(id, forKey: .id)
        try c.encode(configuration, forKey: .configuration)
        try c.encode(panels, forKey: .panels)
        try c.encode(clients, forKey: .clients)
        try c.encode(metrics, forKey: .metrics)
        var summary = encoder.container(keyedBy: SummaryKeys.self)
        try summary.encode(version, forKey: .version)
        try summary.encode(metrics.startTime, forKey: .startTime)
        try summary.encode(uptime, forKey: .uptime)
    }
}
