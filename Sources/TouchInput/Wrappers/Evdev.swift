import CEvdev
import EvdevValues
import Glibc
import TouchValues

/// The wrapper around libevdev for reading: every libevdev call on an input device is in this
/// file (the uinput side is VirtualDevices' `EvdevUinput`). Owns the file descriptor and the `struct
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

    /// libevdev's name for an input property.
    static func propertyName(_ property: UInt16) -> String {
        libevdev_property_get_name(UInt32(property)).map { String(cString: $0) } ?? EventCode.propertyName(property)
    }
}
