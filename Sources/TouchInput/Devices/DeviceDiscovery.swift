import EvdevValues
import Logging
import TouchValues

/// A candidate event node and the verdict on it.
public struct DiscoveredDevice: Hashable, Sendable {
    /// Whether the device is to be opened as a touchscreen, or why not.
    public enum Verdict: Hashable, Sendable {
        case touchscreen
        case skipped(SkipReason)
    }

    /// `/dev/input/event5`.
    public var devnode: String
    public var syspath: String
    /// Name, ids and stable paths (from sysfs and udev; nothing needs opening the node).
    public var identity: DeviceIdentity
    /// Size and calibration properties from udev (empty without udevd).
    public var udev: UdevHints
    /// How the verdict was reached: from udev's `ID_INPUT_*`, or by opening the node and reading
    /// its capabilities (no udevd, or a device udevd has not processed).
    public var decidedBy: Discovery
    public var verdict: Verdict

    /// `event5`.
    public var label: String { TouchDevice.label(of: devnode) }

    /// Opens it as touchscreen `id` (the udev hints and stable paths carried over).
    public func open(id: DeviceID, rules: [DeviceRule] = [], logger: Logger) throws(TouchDeviceError) -> TouchDevice {
        try TouchDevice(
            path: devnode, id: id, udev: udev, idPath: identity.idPath, links: identity.links, rules: rules,
            logger: logger)
    }
}

/// How devices are found and followed.
public enum Discovery: String, Hashable, Sendable, CustomStringConvertible {
    /// udevd runs: `ID_INPUT_TOUCHSCREEN=1` selects touchscreens, the udev monitor reports hotplug.
    case udev
    /// No udevd (containers, initramfs, the test VM): capabilities decide, raw kernel uevents
    /// report hotplug.
    case capabilities

    public var description: String { rawValue }
}

/// A hotplug event for an `event*` node.
public enum HotplugEvent: Hashable, Sendable {
    /// A node appeared (a touchscreen or a skipped device; see its verdict).
    case added(DiscoveredDevice)
    /// A node disappeared.
    case removed(devnode: String)
}

/// Finds touchscreens and follows hotplug.
///
/// Register ``fileDescriptor`` (the udev monitor) with epoll and call ``receive()`` when it is
/// readable. ``scan()`` lists what is present now; start the monitor first (the initializer does)
/// so nothing plugged in between is missed — the daemon de-duplicates by devnode.
public final class DeviceDiscovery {
    /// udev when udevd runs, capabilities otherwise (decided once, at creation).
    public let mode: Discovery
    /// The monitor's fd (non-blocking).
    public let fileDescriptor: Int32
    /// Configuration entries (`enabled`, `forceTouchscreen` affect the verdict).
    public var rules: [DeviceRule]
    private var context: UdevContext
    private let logger: Logger

    /// Starts discovery; `mode` nil chooses from whether udevd is running.
    public init(mode: Discovery? = nil, rules: [DeviceRule] = [], logger: Logger) throws(InputError) {
        let mode = mode ?? (UdevContext.udevdIsRunning ? .udev : .capabilities)
        var context = try UdevContext()
        fileDescriptor = try context.startMonitor(source: mode == .udev ? .udev : .kernel)
        self.context = context
        self.mode = mode
        self.rules = rules
        self.logger = logger
        logger.info("device discovery through \(mode)")
    }

    /// Every `event*` node present now, with its verdict.
    public func scan() throws(InputError) -> [DiscoveredDevice] {
        try context.enumerateEventNodes().compactMap { discovered($0) }
    }

    /// Drains the monitor.
    public func receive() -> [HotplugEvent] {
        var events: [HotplugEvent] = []
        while let info = context.receive() {
            guard info.sysname.hasPrefix("event"), let devnode = info.devnode else { continue }
            switch info.action {
            case "add":
                if let device = discovered(info) { events.append(.added(device)) }
            case "remove":
                events.append(.removed(devnode: devnode))
            default:
                // "change"/"bind": the node stays what it was (a re-trigger does not re-add it).
                continue
            }
        }
        return events
    }

    func discovered(_ info: UdevDeviceInfo) -> DiscoveredDevice? {
        guard info.sysname.hasPrefix("event"), let devnode = info.devnode else { return nil }
        let attributes = info.parentAttributes
        func hex(_ key: String) -> UInt16 { attributes[key].flatMap { UInt16($0, radix: 16) } ?? 0 }
        let identity = DeviceIdentity(
            name: attributes["name"] ?? info.properties["NAME"].map { $0.trimmingCharacters(in: "\"") } ?? "",
            id: InputID(
                bustype: hex("id/bustype"), vendor: hex("id/vendor"), product: hex("id/product"),
                version: hex("id/version")),
            devnode: devnode, idPath: info.properties["ID_PATH"], links: info.devlinks,
            phys: attributes["phys"].flatMap { $0.isEmpty ? nil : $0 })
        let hints = UdevHints(
            widthMM: info.properties["ID_INPUT_WIDTH_MM"].flatMap { Double($0) },
            heightMM: info.properties["ID_INPUT_HEIGHT_MM"].flatMap { Double($0) },
            calibrationMatrix: info.properties["LIBINPUT_CALIBRATION_MATRIX"])
        let settings = rules.settings(for: identity)
        var device = DiscoveredDevice(
            devnode: devnode, syspath: info.syspath, identity: identity, udev: hints, decidedBy: .capabilities,
            verdict: .touchscreen)
        if MirrorMarks.isMirror(name: identity.name, phys: identity.phys) {
            // Before any rule: a mirror carries its panel's name, so the panel's entry would match.
            device.verdict = .skipped(.passthroughMirror)
        } else if !settings.enabled {
            device.verdict = .skipped(.disabledByConfiguration)
        } else if mode == .udev && info.isInitialized && !settings.forceTouchscreen {
            device.decidedBy = .udev
            device.verdict = Self.udevVerdict(info.properties)
        } else {
            device.verdict = probe(devnode, settings: settings)
        }
        return device
    }

    /// The verdict from udev's `ID_INPUT_*` properties.
    static func udevVerdict(_ properties: [String: String]) -> DiscoveredDevice.Verdict {
        if properties["ID_INPUT_TOUCHSCREEN"] == "1" { return .touchscreen }
        let kinds = [
            "ID_INPUT_TOUCHPAD", "ID_INPUT_TABLET", "ID_INPUT_MOUSE", "ID_INPUT_KEYBOARD", "ID_INPUT_KEY",
            "ID_INPUT_JOYSTICK", "ID_INPUT_ACCELEROMETER", "ID_INPUT_SWITCH", "ID_INPUT_POINTINGSTICK",
        ].filter { properties[$0] == "1" }
        return .skipped(
            .notATouchscreen(udevType: kinds.isEmpty ? "no ID_INPUT_* type" : kinds.joined(separator: ", ")))
    }

    /// Opens the node and classifies its capabilities.
    private func probe(_ devnode: String, settings: DeviceSettings) -> DiscoveredDevice.Verdict {
        do {
            let handle = try EvdevHandle(path: devnode)
            switch DeviceClassifier.classify(handle.description(), forceTouchscreen: settings.forceTouchscreen) {
            case .success: return .touchscreen
            case .failure(let reason): return .skipped(reason)
            }
        } catch {
            logger.debug("cannot probe \(devnode): \(error)")
            return .skipped(.cannotOpen(error.description))
        }
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: Character) -> String {
        var s = Substring(self)
        while s.first == set { s = s.dropFirst() }
        while s.last == set { s = s.dropLast() }
        return String(s)
    }
}
