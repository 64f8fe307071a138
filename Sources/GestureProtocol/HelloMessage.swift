import GestureEngine

/// `hello`: the first line on every connection.
///
/// ```json
/// {"type":"hello","protocol":1,"daemon":"0.1.0","client":7,
///  "devices":[{"label":"event5",…}],
///  "recognizers":[{"name":"tap","kind":"tap","owner":"configuration","region":"root"}],
///  "limits":{"max_line_bytes":65536,"max_queued_bytes":262144,"max_queued_messages":1024,"max_clients":128,
///            "max_definitions":64}}
/// ```
public struct HelloMessage: Hashable, Sendable, TypedMessage {
    public static let type = "hello"
    /// Its `type` key (``MessageType``).
    var messageType = MessageType<HelloMessage>()

    /// ``GestureProtocol/version`` of the server.
    public var protocolVersion: Int
    /// The daemon's own version.
    public var daemonVersion: String
    /// This connection's id; recognizers it defines are listed with owner `client:<id>`.
    public var client: UInt64
    /// The touchscreens present now.
    public var devices: [DeviceInfo]
    /// The recognizers running now (the configuration's and every client's).
    public var recognizers: [RecognizerSummary]
    public var limits: ServerLimits

    public init(
        protocolVersion: Int = GestureProtocol.version, daemonVersion: String, client: UInt64, devices: [DeviceInfo],
        recognizers: [RecognizerSummary], limits: ServerLimits
    ) {
        self.protocolVersion = protocolVersion
        self.daemonVersion = daemonVersion
        self.client = client
        self.devices = devices
        self.recognizers = recognizers
        self.limits = limits
    }
}

extension HelloMessage: Codable {
    enum CodingKeys: String, CodingKey {
        case messageType = "type", protocolVersion = "protocol", daemonVersion = "daemon", client, devices
        case recognizers, limits
    }
}

/// A running recognizer as `hello` lists it; `owner` is `configuration` or `client:<id>` on the wire.
extension RecognizerSummary: Codable {
    enum CodingKeys: String, CodingKey { case name, kind, owner, region }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let name = try c.decode(String.self, forKey: .name)
        let kind = try c.decode(GestureKind.self, forKey: .kind)
        let spelling = try c.decode(String.self, forKey: .owner)
        guard let owner = OwnerSpelling.owner(spelling) else {
            throw c.corrupted(.owner, "expected 'configuration' or 'client:<id>'")
        }
        self.init(name: name, kind: kind, owner: owner, region: try c.decode(String.self, forKey: .region))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(kind, forKey: .kind)
        try c.encode(OwnerSpelling.string(owner), forKey: .owner)
        try c.encode(region, forKey: .region)
    }
}

/// The limits a server enforces, announced in `hello` so clients need not guess them.
public struct ServerLimits: Hashable, Sendable {
    /// The longest line a client may send, without its `\n`. A longer line is skipped up to its
    /// newline and answered with `line-too-long`.
    public var maxLineBytes: Int
    /// Messages a client may have waiting for it (after coalescing) before it is disconnected
    /// with `overflow`.
    public var maxQueuedMessages: Int
    /// Bytes a client may have waiting for it: with this much waiting, the next message
    /// disconnects it with `overflow`, however few messages they are.
    public var maxQueuedBytes: Int
    /// Connections at once through the transport the connection came by (the Unix socket and
    /// the WebSocket endpoint each have their own); on the Unix socket the next one gets
    /// `too-many-clients` and is closed.
    public var maxClients: Int
    /// Connections at once of one peer through that transport: one user on the Unix socket
    /// (its peer credentials); on the WebSocket endpoint one local user, or one address.
    public var maxClientsPerPeer: Int
    /// Regions, and separately recognizers, one connection may define.
    public var maxDefinitions: Int
    /// Shape templates (each named or built-in template of its shape recognizers) one
    /// connection may define.
    public var maxTemplates: Int
    /// Regions, and separately recognizers, all connections together may have defined; a
    /// `define` beyond it gets `too-many-recognizers` (every client recognizer costs every
    /// frame a little; this keeps a frame's cost bounded).
    public var maxClientDefinitions: Int
    /// Shape templates all connections together may have defined (`too-many-recognizers`).
    public var maxClientTemplates: Int

    public init(
        maxLineBytes: Int = 65_536, maxQueuedMessages: Int = 1024, maxQueuedBytes: Int = 262_144, maxClients: Int = 128,
        maxClientsPerPeer: Int = 64, maxDefinitions: Int = 64, maxTemplates: Int = 16, maxClientDefinitions: Int = 256,
        maxClientTemplates: Int = 128
    ) {
        self.maxLineBytes = maxLineBytes
        self.maxQueuedMessages = maxQueuedMessages
        self.maxQueuedBytes = maxQueuedBytes
        self.maxClients = maxClients
        self.maxClientsPerPeer = maxClientsPerPeer
        self.maxDefinitions = maxDefinitions
        self.maxTemplates = maxTemplates
        self.maxClientDefinitions = maxClientDefinitions
        self.maxClientTemplates = maxClientTemplates
    }
}

extension ServerLimits: Codable {
    enum CodingKeys: String, CodingKey {
        case maxLineBytes = "max_line_bytes", maxQueuedMessages = "max_queued_messages"
        case maxQueuedBytes = "max_queued_bytes"
        case maxClients = "max_clients", maxClientsPerPeer = "max_clients_per_peer"
        case maxDefinitions = "max_definitions", maxTemplates = "max_templates"
        case maxClientDefinitions = "max_client_definitions", maxClientTemplates = "max_client_templates"
    }

    /// Lenient like every server message: a newer server's limits decode in an older client,
    /// and an older server's (without the later keys) in a newer one, with the defaults.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = ServerLimits()
        self.init(
            maxLineBytes: try c.decodeIfPresent(Int.self, forKey: .maxLineBytes) ?? defaults.maxLineBytes,
            maxQueuedMessages: try c.decodeIfPresent(Int.self, forKey: .maxQueuedMessages)
                ?? defaults.maxQueuedMessages,
            maxQueuedBytes: try c.decodeIfPresent(Int.self, forKey: .maxQueuedBytes) ?? defaults.maxQueuedBytes,
            maxClients: try c.decodeIfPresent(Int.self, forKey: .maxClients) ?? defaults.maxClients,
            maxClientsPerPeer: try c.decodeIfPresent(Int.self, forKey: .maxClientsPerPeer)
                ?? defaults.maxClientsPerPeer,
            maxDefinitions: try c.decodeIfPresent(Int.self, forKey: .maxDefinitions) ?? defaults.maxDefinitions,
            maxTemplates: try c.decodeIfPresent(Int.self, forKey: .maxTemplates) ?? defaults.maxTemplates,
            maxClientDefinitions: try c.decodeIfPresent(Int.self, forKey: .maxClientDefinitions)
                ?? defaults.maxClientDefinitions,
            maxClientTemplates: try c.decodeIfPresent(Int.self, forKey: .maxClientTemplates)
                ?? defaults.maxClientTemplates)
    }
}
