import CUdev
import EvdevValues
import Glibc

/// What libudev says about one device, copied out of libudev's objects.
struct UdevDeviceInfo: Hashable, Sendable {
    var syspath: String
    var sysname: String
    var devnode: String?
    /// `add`, `remove`, `change`… for monitor events; nil from enumeration.
    var action: String?
    /// False when udevd has not processed the device (no udevd: properties are only the kernel's).
    var isInitialized: Bool
    var properties: [String: String]
    var devlinks: [String]
    /// Attributes of the parent `input` device (`name`, `phys`, `id/vendor`…), read from sysfs.
    var parentAttributes: [String: String]
}

/// The wrapper around libudev: every libudev call of the module is in this file. Owns the `struct
/// udev` context and, once started, the monitor, exactly once; both are unreferenced in `deinit`.
struct UdevContext: ~Copyable {
    private let udev: OpaquePointer
    private var monitor: OpaquePointer?

    /// Which netlink source a monitor listens to.
    enum Source: String {
        /// Events udevd re-broadcasts after running its rules (properties complete).
        case udev
        /// Raw kernel uevents (the only source when udevd is not running).
        case kernel
    }

    init() throws(InputError) {
        guard let udev = udev_new() else { throw InputError(call: "udev_new", errno: Glibc.errno) }
        self.udev = udev
    }

    deinit {
        if let monitor { udev_monitor_unref(monitor) }
        udev_unref(udev)
    }

    /// Whether udevd is running: its control socket exists (systemd's own test).
    static var udevdIsRunning: Bool { access("/run/udev/control", F_OK) == 0 }

    /// Every `event*` node of the input subsystem.
    func enumerateEventNodes() throws(InputError) -> [UdevDeviceInfo] {
        guard let enumerate = udev_enumerate_new(udev) else {
            throw InputError(call: "udev_enumerate_new", errno: Glibc.errno)
        }
        defer { udev_enumerate_unref(enumerate) }
        udev_enumerate_add_match_subsystem(enumerate, "input")
        udev_enumerate_add_match_sysname(enumerate, "event*")
        let rc = udev_enumerate_scan_devices(enumerate)
        guard rc >= 0 else { throw InputError(call: "udev_enumerate_scan_devices", errno: -rc) }
        var result: [UdevDeviceInfo] = []
        var entry = udev_enumerate_get_list_entry(enumerate)
        while let current = entry {
            if let syspath = udev_list_entry_get_name(current),
                let device = udev_device_new_from_syspath(udev, syspath)
            {
                result.append(Self.info(device))
                udev_device_unref(device)
            }
            entry = udev_list_entry_get_next(current)
        }
        return result.sorted { Self.eventNumber($0.sysname) < Self.eventNumber($1.sysname) }
    }

    /// `5` for `event5`, for a natural order.
    static func eventNumber(_ sysname: String) -> Int { Int(sysname.dropFirst("event".count)) ?? Int.max }

    /// Starts a monitor on the input subsystem; returns its (non-blocking) fd.
    mutating func startMonitor(source: Source) throws(InputError) -> Int32 {
        guard let monitor = udev_monitor_new_from_netlink(udev, source.rawValue) else {
            throw InputError(call: "udev_monitor_new_from_netlink(\(source.rawValue))", errno: Glibc.errno)
        }
        self.monitor = monitor
        var rc = udev_monitor_filter_add_match_subsystem_devtype(monitor, "input", nil)
        guard rc >= 0 else { throw InputError(call: "udev_monitor_filter_add_match_subsystem_devtype", errno: -rc) }
        // A burst of hotplug events (a hub with several panels) must not overflow the socket;
        // raising the buffer above rmem_max needs CAP_NET_ADMIN, so failure is not an error.
        _ = udev_monitor_set_receive_buffer_size(monitor, 1 << 20)
        rc = udev_monitor_enable_receiving(monitor)
        guard rc >= 0 else { throw InputError(call: "udev_monitor_enable_receiving", errno: -rc) }
        return udev_monitor_get_fd(monitor)
    }

    /// The next queued monitor event, or nil when none is (the fd is non-blocking).
    func receive() -> UdevDeviceInfo? {
        guard let monitor, let device = udev_monitor_receive_device(monitor) else { return nil }
        defer { udev_device_unref(device) }
        return Self.info(device)
    }

    private static func string(_ p: UnsafePointer<CChar>?) -> String? { p.map { String(cString: $0) } }

    private static func info(_ device: OpaquePointer) -> UdevDeviceInfo {
        var properties: [String: String] = [:]
        var entry = udev_device_get_properties_list_entry(device)
        while let current = entry {
            if let name = string(udev_list_entry_get_name(current)) {
                properties[name] = string(udev_list_entry_get_value(current)) ?? ""
            }
            entry = udev_list_entry_get_next(current)
        }
        var links: [String] = []
        entry = udev_device_get_devlinks_list_entry(device)
        while let current = entry {
            if let name = string(udev_list_entry_get_name(current)) { links.append(name) }
            entry = udev_list_entry_get_next(current)
        }
        var parentAttributes: [String: String] = [:]
        // The parent is owned by the child (libudev docs): not unreferenced here.
        if let parent = udev_device_get_parent_with_subsystem_devtype(device, "input", nil) {
            for attribute in ["name", "phys", "id/bustype", "id/vendor", "id/product", "id/version"] {
                if let value = string(udev_device_get_sysattr_value(parent, attribute)) {
                    parentAttributes[attribute] = value.trimmingSpaces()
                }
            }
        }
        return UdevDeviceInfo(
            syspath: string(udev_device_get_syspath(device)) ?? "",
            sysname: string(udev_device_get_sysname(device)) ?? "",
            devnode: string(udev_device_get_devnode(device)),
            action: string(udev_device_get_action(device)),
            isInitialized: udev_device_get_is_initialized(device) != 0,
            properties: properties,
            devlinks: links.sorted(),
            parentAttributes: parentAttributes)
    }
}
