import EvdevValues
import Glibc
import TouchValues

/// Per-device settings from the configuration file; the daemon's config loader fills them.
public struct DeviceSettings: Hashable, Sendable {
    /// False: the device is skipped with ``SkipReason/disabledByConfiguration``.
    public var enabled: Bool
    /// Clockwise rotation of the panel, applied after calibration.
    public var rotation: Rotation
    /// The physical size, overriding what the device and udev say (still sanity-checked).
    public var size: PhysicalSize?
    /// Overrides udev's `LIBINPUT_CALIBRATION_MATRIX`.
    public var calibration: CalibrationMatrix?
    /// Accept a device the classifier would skip as an absolute pointer or an indirect device
    /// (resistive panels in mouse emulation that send BTN_LEFT instead of BTN_TOUCH).
    public var forceTouchscreen: Bool
    /// Grab the panel and forward the touches no recognizer claims to a mirror device
    /// (VirtualDevices' `PassthroughMirror`, docs/PASSTHROUGH.md).
    public var passthrough: Bool
    /// The engine's stage before the panel's arena: dead zones, stuck contacts, idle, wakes.
    public var panel: PanelSettings
    /// Where the kernel says whether the panel's screen is on; a touch landing while it is off
    /// wakes it (``PanelSettings/screenWake`` goes with it).
    public var screen: PanelWake.ScreenFile?

    public init(
        enabled: Bool = true, rotation: Rotation = .none, size: PhysicalSize? = nil,
        calibration: CalibrationMatrix? = nil, forceTouchscreen: Bool = false, passthrough: Bool = false,
        panel: PanelSettings = PanelSettings(), screen: PanelWake.ScreenFile? = nil
    ) {
        self.enabled = enabled
        self.rotation = rotation
        self.size = size
        self.calibration = calibration
        self.forceTouchscreen = forceTouchscreen
        self.passthrough = passthrough
        self.panel = panel
        self.screen = screen
        if screen != nil { self.panel.screenWake = true }
    }
}

/// What identifies a device for matching: stable keys that survive renumbering of event nodes.
public struct DeviceIdentity: Hashable, Sendable {
    /// The kernel's device name (EVIOCGNAME).
    public var name: String
    public var id: InputID
    /// The event node (`/dev/input/event5`); nil for recordings.
    public var devnode: String?
    /// udev's `ID_PATH` (`pci-0000:00:14.0-usb-0:2:1.0`), when udev has run.
    public var idPath: String?
    /// udev's symlinks for the node (`/dev/input/by-id/…`, `/dev/input/by-path/…`).
    public var links: [String]
    /// The kernel's physical path (EVIOCGPHYS, `usb-0000:00:14.0-2/input0`), stable without udev.
    public var phys: String?

    public init(
        name: String, id: InputID, devnode: String? = nil, idPath: String? = nil, links: [String] = [],
        phys: String? = nil
    ) {
        self.name = name
        self.id = id
        self.devnode = devnode
        self.idPath = idPath
        self.links = links
        self.phys = phys
    }
}

/// Selects devices by name glob, vendor:product and stable path; every key given must match, an
/// empty match matches every device.
public struct DeviceMatch: Hashable, Sendable {
    /// An fnmatch(3) glob on the kernel name (`*`, `?`, `[…]`).
    public var name: String?
    /// USB (or other bus) vendor and product ids.
    public var vendor: UInt16?
    public var product: UInt16?
    /// A stable path: udev's `ID_PATH`, a `/dev/input/by-id/…` or `/dev/input/by-path/…` link (also
    /// resolved through the file system when udev is not running), or the kernel's phys path.
    public var path: String?

    public init(name: String? = nil, vendor: UInt16? = nil, product: UInt16? = nil, path: String? = nil) {
        self.name = name
        self.vendor = vendor
        self.product = product
        self.path = path
    }

    /// Selects devices with `usb`'s vendor and product.
    public init(name: String? = nil, usb: USBID?, path: String? = nil) {
        self.init(name: name, vendor: usb?.vendor, product: usb?.product, path: path)
    }

    /// Whether `identity` is selected.
    public func matches(_ identity: DeviceIdentity) -> Bool {
        if let name, fnmatch(name, identity.name, 0) != 0 { return false }
        if let vendor, identity.id.vendor != vendor { return false }
        if let product, identity.id.product != product { return false }
        if let path, !Self.pathMatches(path, identity) { return false }
        return true
    }

    static func pathMatches(_ path: String, _ identity: DeviceIdentity) -> Bool {
        if path == identity.idPath || path == identity.phys || path == identity.devnode { return true }
        if identity.links.contains(path) { return true }
        // Without udev there are no links in the database, but the by-id/by-path symlinks may still
        // exist (created by an earlier udevd, or by hand): resolve them.
        if path.hasPrefix("/"), let devnode = identity.devnode, let resolved = realpath(path, nil) {
            defer { free(resolved) }
            return String(cString: resolved) == devnode
        }
        return false
    }
}

/// One configuration entry: a match and the settings it gives.
public struct DeviceRule: Hashable, Sendable {
    public var match: DeviceMatch
    public var settings: DeviceSettings

    public init(match: DeviceMatch, settings: DeviceSettings) {
        self.match = match
        self.settings = settings
    }
}

extension Array where Element == DeviceRule {
    /// The settings of the first rule matching `identity`, or the defaults.
    public func settings(for identity: DeviceIdentity) -> DeviceSettings {
        first { $0.match.matches(identity) }?.settings ?? DeviceSettings()
    }
}

/// A USB (or other bus) vendor and product id, written `vendor:product` in hex (`0eef:72a1`):
/// the configuration's `match.usb`, parsed here and nowhere else.
public struct USBID: Hashable, Sendable, CustomStringConvertible {
    public var vendor: UInt16
    public var product: UInt16

    /// What a written id must look like, for errors.
    public static let expected = "vendor:product in hex, e.g. \"0eef:72a1\""

    public init(vendor: UInt16, product: UInt16) {
        self.vendor = vendor
        self.product = product
    }

    /// Parses `vendor:product` in hex (`0eef:72a1`); nil when malformed.
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let v = UInt16(parts[0], radix: 16), let p = UInt16(parts[1], radix: 16) else {
            return nil
        }
        self.init(vendor: v, product: p)
    }

    /// Four lower-case hex digits each: `0eef:72a1`.
    public var description: String { Self.hex(vendor) + ":" + Self.hex(product) }

    private static func hex(_ value: UInt16) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }
}
