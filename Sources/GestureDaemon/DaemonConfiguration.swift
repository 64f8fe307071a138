import GestureEngine
import GestureProtocol
import GestureServer
import TouchInput

/// The whole configuration file (`/etc/gestured/gestured.yaml`); documented key by key in
/// docs/CONFIGURATION.md.
///
/// `regions` and `recognizers` are the engine's own definitions (the same types a client's
/// `define` sends). When the file has no `recognizers` key the built-in set runs; when it has
/// one, exactly the listed recognizers run.
public struct DaemonConfiguration: Hashable, Sendable {
    public var socket: SocketConfiguration
    /// The WebSocket endpoint for browsers; nil (the key absent) runs none.
    public var websocket: WebSocketConfiguration?
    public var devices: [DeviceConfiguration]
    public var regions: [RegionSpec]
    /// Nil when the file did not list recognizers (the built-in set applies).
    public var recognizers: [RecognizerSpec]?
    /// What clients' own recognizers may do to these (docs/ARBITRATION.md).
    public var clients: ClientPolicy
    public var logLevel: LogLevel
    /// The top-level `idle-after-ms`, `wake-after-idle` and `stuck-contact`: every panel's,
    /// unless its `devices` entry gives its own.
    public var panels: PanelDefaults
    /// The group (a name or a gid) whose members may record any panel with `gestured record`,
    /// besides who may read the panel itself (docs/RECORDING.md, "Who may record"); nil: none.
    public var recordGroup: String?
    /// ``recordGroup``'s gid: given as a number, or looked up when the file is loaded
    /// (``ConfigurationLoader/load(contentsOf:)``); nil when there is none or it was not looked up.
    public var recordGroupID: UInt32?
    /// The group (a name or a gid) whose members see raw touches — where fingers land and move —
    /// besides root, the daemon's user and ``recordGroup`` (docs/RECORDING.md, "Who may see
    /// where fingers are"); nil: none.
    public var touchesGroup: String?
    /// ``touchesGroup``'s gid, as ``recordGroupID`` is ``recordGroup``'s.
    public var touchesGroupID: UInt32?

    public init(
        socket: SocketConfiguration = SocketConfiguration(), websocket: WebSocketConfiguration? = nil,
        devices: [DeviceConfiguration] = [],
        regions: [RegionSpec] = [], recognizers: [RecognizerSpec]? = nil, clients: ClientPolicy = ClientPolicy(),
        logLevel: LogLevel = .info, panels: PanelDefaults = PanelDefaults(), recordGroup: String? = nil,
        touchesGroup: String? = nil
    ) {
        self.socket = socket
        self.websocket = websocket
        self.devices = devices
        self.regions = regions
        self.recognizers = recognizers
        self.clients = clients
        self.logLevel = logLevel
        self.panels = panels
        self.recordGroup = recordGroup
        recordGroupID = recordGroup.flatMap { UInt32($0) }
        self.touchesGroup = touchesGroup
        touchesGroupID = touchesGroup.flatMap { UInt32($0) }
    }

    /// Who may see where fingers are under this configuration, for the daemon running as
    /// `daemonUser`: the one rule the server applies to raw touches and the daemon to
    /// recordings (``PositionAccess``).
    public func positionAccess(daemonUser: UInt32) -> PositionAccess {
        PositionAccess(
            daemonUser: daemonUser, touchesGroup: touchesGroupID, recordGroup: recordGroupID,
            pagesSeeTouches: websocket?.allowTouches ?? false)
    }

    /// What the engine runs: the file's regions, and its recognizers or the built-in set.
    public var engineConfiguration: EngineConfiguration {
        EngineConfiguration(
            regions: regions, recognizers: recognizers ?? EngineConfiguration.default.recognizers, clients: clients)
    }

    /// The built-in configuration: what runs without a file, and what `gestured config
    /// --default` prints (every setting spelled out, so it is a complete starting point).
    public static var builtIn: DaemonConfiguration {
        DaemonConfiguration(recognizers: EngineConfiguration.default.recognizers)
    }
}

/// What every panel gets unless its `devices` entry says otherwise (docs/CONFIGURATION.md, "A
/// kiosk's day").
public struct PanelDefaults: Hashable, Sendable {
    /// Milliseconds without a touch before a panel is idle; nil: never.
    public var idleAfterMS: Int?
    /// The first touch on an idle panel is a wake (it reaches nobody).
    public var wakeAfterIdle: Bool
    public var stuckContact: StuckContactLimit?

    public init(idleAfterMS: Int? = nil, wakeAfterIdle: Bool = false, stuckContact: StuckContactLimit? = nil) {
        self.idleAfterMS = idleAfterMS
        self.wakeAfterIdle = wakeAfterIdle
        self.stuckContact = stuckContact
    }
}

/// Log levels, spelled as swift-log and the journal's priorities name them.
public enum LogLevel: String, Hashable, Sendable, Codable, CaseIterable, Spelled {
    case trace, debug, info, notice, warning, error, critical

    public static var spelledAs: String { "log level" }
}

/// Where and how the daemon listens.
public struct SocketConfiguration: Hashable, Sendable {
    public static let defaultPath = GestureProtocol.defaultSocketPath

    public var path: String
    /// File mode of the socket node (octal in the file, e.g. `"0660"`).
    public var mode: UInt32
    /// Group that owns the socket node; nil keeps the daemon's group.
    public var group: String?
    /// Connections through the Unix socket at once; more are refused with an error.
    public var maxClients: Int
    /// Connections through the Unix socket of one user at once (by peer credentials).
    public var maxClientsPerUser: Int

    public init(
        path: String = SocketConfiguration.defaultPath, mode: UInt32 = 0o660, group: String? = nil,
        maxClients: Int = ServerLimits().maxClients, maxClientsPerUser: Int = ServerLimits().maxClientsPerPeer
    ) {
        self.path = path
        self.mode = mode
        self.group = group
        self.maxClients = maxClients
        self.maxClientsPerUser = maxClientsPerUser
    }
}

/// The WebSocket endpoint (docs/CONFIGURATION.md, `websocket`): the socket protocol for pages in
/// a browser, on a TCP address that should stay a loopback one.
public struct WebSocketConfiguration: Hashable, Sendable {
    /// An IP address literal (IPv6 in brackets in the file: `[::1]:7330`).
    public var host: String
    /// 0 picks a free port, which the journal names.
    public var port: Int
    /// Serialized origins of the pages that may connect (`http://localhost:8080`, `file://`).
    public var allowedOrigins: [String]
    /// Whether pages may `define` their own recognizers.
    public var allowDefine: Bool
    /// Whether pages are answered `status` (it names local users).
    public var allowStatus: Bool
    /// Whether pages get raw touches (where fingers are: docs/RECORDING.md).
    public var allowTouches: Bool
    /// How often the daemon pings each connection (a silent one is closed at the next ping).
    public var pingIntervalMS: Int
    /// Connections through the endpoint at once, handshakes in progress included.
    public var maxClients: Int
    /// Connections of one peer (a local user, or an address) at once.
    public var maxClientsPerPeer: Int

    public init(
        host: String = "127.0.0.1", port: Int = 7330, allowedOrigins: [String], allowDefine: Bool = false,
        allowStatus: Bool = false, allowTouches: Bool = false, pingIntervalMS: Int = 30_000, maxClients: Int = 32,
        maxClientsPerPeer: Int = 8
    ) {
        self.allowTouches = allowTouches
        self.host = host
        self.port = port
        self.allowedOrigins = allowedOrigins
        self.allowDefine = allowDefine
        self.allowStatus = allowStatus
        self.pingIntervalMS = pingIntervalMS
        self.maxClients = maxClients
        self.maxClientsPerPeer = maxClientsPerPeer
    }

    /// `listen` as written in the file.
    public var listen: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// Settings for the touchscreens an entry's `match` selects (the first matching entry wins).
public struct DeviceConfiguration: Hashable, Sendable {
    public var match: DeviceMatchSpec
    /// False ignores matching devices entirely.
    public var enabled: Bool
    /// Clockwise rotation of the panel: 0, 90, 180 or 270 degrees.
    public var rotation: Rotation
    /// The physical size, for panels that report none or a wrong one: one the device side takes
    /// (``SurfaceSize/implausibility(of:)``, checked when the file is read).
    public var size: PhysicalSize?
    /// A libinput-style 2×3 calibration matrix (overrides `LIBINPUT_CALIBRATION_MATRIX`).
    public var calibration: CalibrationMatrix?
    /// Grab the panel and forward unclaimed touches to a mirror device (docs/PASSTHROUGH.md).
    public var passthrough: Bool
    /// Take a device the classifier would skip as an absolute pointer (resistive panels in
    /// mouse emulation that send BTN_LEFT instead of BTN_TOUCH).
    public var forceTouchscreen: Bool
    /// Dead zones (surface coordinates): a contact landing in one reaches nothing.
    public var ignore: [SurfaceRect]
    /// Ends contacts held still this long (nil: the top level's, if any).
    public var stuckContact: StuckContactLimit?
    /// Milliseconds without a touch before the panel is idle (nil: the top level's, if any).
    public var idleAfterMS: Int?
    /// The first touch on the idle panel is a wake (nil: the top level's).
    public var wakeAfterIdle: Bool?
    /// Where the kernel says whether the panel's screen is on: a touch landing while it is off
    /// wakes it and reaches nobody.
    public var screen: PanelWake.ScreenFile?

    public init(
        match: DeviceMatchSpec = DeviceMatchSpec(), enabled: Bool = true, rotation: Rotation = .none,
        size: PhysicalSize? = nil, calibration: CalibrationMatrix? = nil, passthrough: Bool = false,
        forceTouchscreen: Bool = false, ignore: [SurfaceRect] = [], stuckContact: StuckContactLimit? = nil,
        idleAfterMS: Int? = nil, wakeAfterIdle: Bool? = nil, screen: PanelWake.ScreenFile? = nil
    ) {
        self.match = match
        self.enabled = enabled
        self.rotation = rotation
        self.size = size
        self.calibration = calibration
        self.passthrough = passthrough
        self.forceTouchscreen = forceTouchscreen
        self.ignore = ignore
        self.stuckContact = stuckContact
        self.idleAfterMS = idleAfterMS
        self.wakeAfterIdle = wakeAfterIdle
        self.screen = screen
    }
}

/// Which devices an entry applies to; every key given must match, an empty match matches all.
public struct DeviceMatchSpec: Hashable, Sendable {
    /// A glob (`*`, `?`) on the kernel's device name.
    public var name: String?
    /// `vendor:product` in hex, e.g. `0eef:72a1`.
    public var usb: USBID?
    /// A stable path: udev's `ID_PATH`, or a `/dev/input/by-id/…` / `/dev/input/by-path/…` link.
    public var path: String?

    public init(name: String? = nil, usb: USBID? = nil, path: String? = nil) {
        self.name = name
        self.usb = usb
        self.path = path
    }
}
