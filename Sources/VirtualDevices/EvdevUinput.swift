import CEvdev
import CLinuxSupport
import EvdevValues
import Glibc

extension EventCode {
    /// The code of a Linux event-code name (`KEY_LEFTCTRL`, `BTN_RIGHT`, `REL_WHEEL`) for event
    /// `type`, from libevdev's table (libevdev_event_code_from_name); nil for an unknown name.
    public static func code(ofType type: UInt16, named name: String) -> UInt16? {
        let code = libevdev_event_code_from_name(UInt32(type), name)
        return code >= 0 && code <= Int32(UInt16.max) ? UInt16(code) : nil
    }
}

/// The wrapper around libevdev's uinput API: creates a kernel input device from a
/// ``DeviceCapabilities`` and writes events into it. Owns the uinput device exactly once;
/// destroying it (deinit) unplugs the device.
struct EvdevUinput: ~Copyable {
    private var uinput: OpaquePointer?
    /// /dev/uinput when opened here (to set a phys, which libevdev cannot); -1 when libevdev
    /// manages its own.
    private var ownedFD: Int32 = -1

    /// Creates the device through /dev/uinput; `phys` sets its physical path (EVIOCGPHYS, sysfs
    /// `phys`).
    init(description: DeviceCapabilities, phys: String? = nil) throws(InputError) {
        guard let device = libevdev_new() else { throw InputError(call: "libevdev_new", errno: ENOMEM) }
        defer { libevdev_free(device) }
        libevdev_set_name(device, description.name)
        libevdev_set_id_bustype(device, Int32(description.id.bustype))
        libevdev_set_id_vendor(device, Int32(description.id.vendor))
        libevdev_set_id_product(device, Int32(description.id.product))
        libevdev_set_id_version(device, Int32(description.id.version))
        for property in description.properties.sorted() where property <= EventCode.propMax {
            libevdev_enable_property(device, UInt32(property))
        }
        for (type, codes) in description.codes.sorted(by: { $0.key < $1.key }) {
            guard let maximum = EventCode.maximumCode(ofType: type), type != EventCode.evSyn else { continue }
            for code in codes.sorted() where code <= maximum {
                if type == EventCode.evAbs {
                    guard let info = description.absInfo[code] else { continue }
                    var abs = input_absinfo(
                        value: info.value, minimum: info.minimum, maximum: info.maximum, fuzz: info.fuzz,
                        flat: info.flat, resolution: info.resolution)
                    libevdev_enable_event_code(device, UInt32(type), UInt32(code), &abs)
                } else if type == EventCode.evRep {
                    // EV_REP codes take a value (delay/period); touchscreens have none to copy.
                    continue
                } else {
                    libevdev_enable_event_code(device, UInt32(type), UInt32(code), nil)
                }
            }
        }
        var fd = LIBEVDEV_UINPUT_OPEN_MANAGED.rawValue
        if let phys {
            fd = Glibc.open("/dev/uinput", O_RDWR | O_CLOEXEC)
            guard fd >= 0 else { throw InputError(call: "open", path: "/dev/uinput", errno: Glibc.errno) }
            guard gestured_uinput_set_phys(fd, phys) == 0 else {
                let error = InputError(call: "ioctl(UI_SET_PHYS)", path: "/dev/uinput", errno: Glibc.errno)
                Glibc.close(fd)
                throw error
            }
        }
        var created: OpaquePointer?
        let rc = libevdev_uinput_create_from_device(device, fd, &created)
        guard rc == 0, let created else {
            if phys != nil { Glibc.close(fd) }
            throw InputError(call: "libevdev_uinput_create_from_device", path: "/dev/uinput", errno: -rc)
        }
        uinput = created
        if phys != nil { ownedFD = fd }
    }

    deinit {
        if let uinput { libevdev_uinput_destroy(uinput) }
        if ownedFD >= 0 { Glibc.close(ownedFD) }
    }

    /// Destroys the device now (an unplug); later writes fail with ENODEV.
    mutating func destroy() {
        guard let uinput else { return }
        libevdev_uinput_destroy(uinput)
        self.uinput = nil
        if ownedFD >= 0 { Glibc.close(ownedFD) }
        ownedFD = -1
    }

    /// The event node of the new device (`/dev/input/eventN`), when the kernel made one.
    var devnode: String? { uinput.flatMap { libevdev_uinput_get_devnode($0) }.map { String(cString: $0) } }

    /// The sysfs path of the new device.
    var syspath: String? { uinput.flatMap { libevdev_uinput_get_syspath($0) }.map { String(cString: $0) } }

    /// Writes one event (the kernel timestamps it when it arrives).
    func write(type: UInt16, code: UInt16, value: Int32) throws(InputError) {
        guard let uinput else { throw InputError(call: "libevdev_uinput_write_event", errno: ENODEV) }
        let rc = libevdev_uinput_write_event(uinput, UInt32(type), UInt32(code), value)
        guard rc == 0 else { throw InputError(call: "libevdev_uinput_write_event", errno: -rc) }
    }

    /// The uinput fd, to write batches of events with an ``EventWriter`` (libevdev's call makes
    /// one write(2) per event); nil once destroyed.
    var fileDescriptor: Int32? { uinput.map { libevdev_uinput_get_fd($0) } }
}

/// Writes batches of events to an event-device fd (a uinput device; a pipe in the benchmark) as
/// `struct input_event`s with time zero (the kernel stamps them): one write(2) per batch, retried
/// on EINTR and continued after a partial write. uinput takes any number of whole events per
/// write. The conversion buffer is kept between batches, so steady state allocates nothing.
public struct EventWriter {
    public let fileDescriptor: Int32
    private var buffer: [input_event] = []

    public init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
        buffer.reserveCapacity(128)
    }

    public mutating func write(_ events: [RawEvent]) throws(InputError) {
        guard !events.isEmpty else { return }
        buffer.removeAll(keepingCapacity: true)
        for e in events { buffer.append(input_event(time: timeval(), type: e.type, code: e.code, value: e.value)) }
        let fd = fileDescriptor
        let failure: Int32? = buffer.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if n < 0 {
                    if Glibc.errno == EINTR { continue }
                    return Glibc.errno
                }
                guard n > 0 else { return EIO }
                offset += n
            }
            return nil
        }
        if let failure { throw InputError(call: "write", errno: failure) }
    }
}
