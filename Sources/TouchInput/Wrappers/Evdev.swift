import CEvdev
import CLinuxSupport
import TouchValues
import Glibc

/// An error from a system or library call of this module.
public struct InputError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The call that failed (`open`, `libevdev_new_from_fd`…).
    public var call: String
    /// The file it was about, if any.
    public var path: String?
    /// The errno value.
    public var errno: Int32

    public init(call: String, path: String? = nil, errno: Int32) {
        self.call = call
        self.path = path
        self.errno = errno
    }

    public var description: String {
        let what = path.map { "\($0): " } ?? ""
        return "\(what)\(call) failed: \(String(cString: strerror(errno)))"
    }
}

/// The wrapper around libevdev for reading: every libevdev call on an input device is in this
/// file (and the uinput side in ``EvdevUinput``). Owns the file descriptor and the `struct
/// libevdev` exactly once; both are released in `deinit`.
struct EvdevHandle: ~Copyable {
    private var device: OpaquePointer?
    let fd: Int32
    let path: String

    /// Opens `path` non-blocking and read-only (write access is not needed to read or grab).
    init(path: String) throws(InputError) {
        let fd = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw InputError(call: "open", path: path, errno: Glibc.errno) }
        var device: OpaquePointer?
        let rc = libevdev_new_from_fd(fd, &device)
        guard rc == 0, let device else {
            Glibc.close(fd)
            throw InputError(call: "libevdev_new_from_fd", path: path, errno: -rc)
        }
        self.device = device
        self.fd = fd
        self.path = path
    }

    deinit {
        if let device {
            libevdev_free(device)
            Glibc.close(fd)
        }
    }

    /// Frees libevdev's state and closes the fd; later calls on the handle fail with EBADF.
    mutating func close() {
        guard let device else { return }
        libevdev_free(device)
        Glibc.close(fd)
        self.device = nil
    }

    var isOpen: Bool { device != nil }

    /// Timestamps in CLOCK_MONOTONIC (the engine's clock) instead of the default CLOCK_REALTIME.
    func useMonotonicClock() throws(InputError) {
        guard let device else { throw InputError(call: "libevdev_set_clock_id", path: path, errno: EBADF) }
        let rc = libevdev_set_clock_id(device, CLOCK_MONOTONIC)
        guard rc == 0 else { throw InputError(call: "libevdev_set_clock_id", path: path, errno: -rc) }
    }

    /// The device's description, read from libevdev's cached state.
    func description() -> DeviceCapabilities {
        guard let device else { return DeviceCapabilities(name: "") }
        var d = DeviceCapabilities(
            name: String(cString: libevdev_get_name(device)),
            id: InputID(
                bustype: UInt16(truncatingIfNeeded: libevdev_get_id_bustype(device)),
                vendor: UInt16(truncatingIfNeeded: libevdev_get_id_vendor(device)),
                product: UInt16(truncatingIfNeeded: libevdev_get_id_product(device)),
                version: UInt16(truncatingIfNeeded: libevdev_get_id_version(device))))
        for property in 0...EventCode.propMax where libevdev_has_property(device, UInt32(property)) != 0 {
            d.properties.insert(property)
        }
        for type in EventCode.evKey...EventCode.evMax where libevdev_has_event_type(device, UInt32(type)) != 0 {
            guard let maximum = EventCode.maximumCode(ofType: type) else { continue }
            for code in 0...maximum where libevdev_has_event_code(device, UInt32(type), UInt32(code)) != 0 {
                if type == EventCode.evAbs, let info = libevdev_get_abs_info(device, UInt32(code))?.pointee {
                    d.addAxis(
                        code,
                        AbsInfo(
                            value: info.value, minimum: info.minimum, maximum: info.maximum, fuzz: info.fuzz,
                            flat: info.flat, resolution: info.resolution))
                } else {
                    d.addCode(type, code)
                }
            }
        }
        return d
    }

    /// The kernel's physical path (EVIOCGPHYS), if it has one.
    var phys: String? { device.flatMap { libevdev_get_phys($0) }.map { String(cString: $0) } }

    /// The result of one ``next(syncing:)``.
    enum Next {
        /// An event in normal mode.
        case event(InputEvent)
        /// SYN_DROPPED (first) or a sync event (while syncing): the state is being rebuilt.
        case sync(InputEvent)
        /// Nothing more to read (EAGAIN); while syncing, the sync is complete.
        case drained
        /// The device is gone (ENODEV) or unreadable (another errno).
        case failed(Int32)
    }

    /// libevdev_next_event in normal or sync mode; retries EINTR.
    func next(syncing: Bool) -> Next {
        guard let device else { return .failed(EBADF) }
        var raw = input_event()
        let flags = syncing ? LIBEVDEV_READ_FLAG_SYNC.rawValue : LIBEVDEV_READ_FLAG_NORMAL.rawValue
        while true {
            let rc = libevdev_next_event(device, flags, &raw)
            let event = InputEvent(
                time: Timestamp(microseconds: Int64(raw.time.tv_sec) * 1_000_000 + Int64(raw.time.tv_usec)),
                type: raw.type, code: raw.code, value: raw.value)
            switch rc {
            case Int32(LIBEVDEV_READ_STATUS_SUCCESS.rawValue): return .event(event)
            case Int32(LIBEVDEV_READ_STATUS_SYNC.rawValue): return .sync(event)
            case -EAGAIN: return .drained
            case -EINTR: continue
            default: return .failed(-rc)
            }
        }
    }

    /// The kernel's view of every slot (after open or a completed sync).
    func slotStates() -> [FrameAssembler.SlotState] {
        guard let device else { return [] }
        let count = max(Int(libevdev_get_num_slots(device)), 0)
        return (0..<count).map { slot in
            func value(_ code: UInt16) -> Int32 { libevdev_get_slot_value(device, UInt32(slot), UInt32(code)) }
            return FrameAssembler.SlotState(
                trackingID: value(EventCode.absMTTrackingID), x: value(EventCode.absMTPositionX),
                y: value(EventCode.absMTPositionY), touchMajor: value(EventCode.absMTTouchMajor),
                pressure: value(EventCode.absMTPressure), toolType: value(EventCode.absMTToolType))
        }
    }

    /// The slot the next slot events apply to.
    var currentSlot: Int { device.map { Int(libevdev_get_current_slot($0)) } ?? 0 }

    /// The current value of a non-slot code (a button's state, ABS_X).
    func value(type: UInt16, code: UInt16) -> Int32 {
        device.map { libevdev_get_event_value($0, UInt32(type), UInt32(code)) } ?? 0
    }

    /// EVIOCGRAB: while grabbed, no other reader (libinput, X) sees the device's events.
    func grab(_ on: Bool) throws(InputError) {
        guard let device else { throw InputError(call: "libevdev_grab", path: path, errno: EBADF) }
        let rc = libevdev_grab(device, on ? LIBEVDEV_GRAB : LIBEVDEV_UNGRAB)
        guard rc == 0 else { throw InputError(call: "libevdev_grab", path: path, errno: -rc) }
    }

    /// libevdev's name for an event code, for reports.
    static func codeName(type: UInt16, code: UInt16) -> String {
        libevdev_event_code_get_name(UInt32(type), UInt32(code)).map { String(cString: $0) }
            ?? EventCode.codeName(type: type, code: code)
    }

    /// The code libevdev knows by `name` for event `type` (`KEY_LEFTCTRL`, `REL_WHEEL_HI_RES`).
    static func code(ofType type: UInt16, named name: String) -> UInt16? {
        let code = libevdev_event_code_from_name(UInt32(type), name)
        return code >= 0 && code <= Int32(UInt16.max) ? UInt16(code) : nil
    }

    /// libevdev's name for an input property.
    static func propertyName(_ property: UInt16) -> String {
        libevdev_property_get_name(UInt32(property)).map { String(cString: $0) } ?? EventCode.propertyName(property)
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
