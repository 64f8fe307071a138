import EvdevValues
import Glibc

/// A keyboard made through uinput that types the shortcuts of `gestured actions`.
///
/// It declares the keys it may send when it is created (the kernel refuses others, and a
/// compositor's keymap sees a keyboard with just these keys) and never holds a key: each
/// ``tap(_:)`` presses the keys in order and releases them in reverse order, one report each, in
/// one write. So nothing is left pressed if the process ends. Not Sendable: one owner.
public final class VirtualKeyboard {
    public static let defaultName = "gestured virtual keyboard"
    /// Key codes by name, for the keys this keyboard declared.
    public let codes: [String: UInt16]
    /// The event node (`/dev/input/eventN`).
    public let devnode: String?
    /// Owned here: releasing the object removes the device.
    private let uinput: EvdevUinput
    private var writer: EventWriter
    private var events: [RawEvent] = []

    /// Creates the keyboard (needs write access to /dev/uinput); `keys` are Linux key names.
    public init(keys: Set<String>, name: String = VirtualKeyboard.defaultName) throws(InputError) {
        var codes: [String: UInt16] = [:]
        for key in keys {
            guard let code = EventCode.code(ofType: EventCode.evKey, named: key) else {
                throw InputError(call: "libevdev_event_code_from_name(\(key))", errno: EINVAL)
            }
            codes[key] = code
        }
        var description = DeviceCapabilities(name: name, id: InputID(bustype: 0x06, vendor: 0x1d6b, product: 0x0104))
        for code in codes.values { description.addCode(EventCode.evKey, code) }
        let device = try EvdevUinput(description: description)
        guard let fd = device.fileDescriptor else { throw InputError(call: "libevdev_uinput_get_fd", errno: EBADF) }
        devnode = device.devnode
        writer = EventWriter(fileDescriptor: fd)
        uinput = device
        self.codes = codes
    }

    /// Presses `keys` in order and releases them in reverse order. A key this keyboard did not
    /// declare is an error (EINVAL) and nothing is sent.
    public func tap(_ keys: [String]) throws(InputError) {
        var chord: [UInt16] = []
        for key in keys {
            guard let code = codes[key] else { throw InputError(call: "tap \(key) (not declared)", errno: EINVAL) }
            chord.append(code)
        }
        events.removeAll(keepingCapacity: true)
        InputEncoding.tap(chord, into: &events)
        try writer.write(events)
    }
}

/// The event sequences of the virtual keyboard and pointers, without I/O (tested on the host).
public enum InputEncoding {
    /// Presses in order, releases in reverse order, a report after each.
    public static func tap(_ keys: [UInt16], into events: inout [RawEvent]) {
        for key in keys {
            events.append(RawEvent(EventCode.evKey, key, 1))
            events.append(RawEvent(EventCode.evSyn, EventCode.synReport, 0))
        }
        for key in keys.reversed() {
            events.append(RawEvent(EventCode.evKey, key, 0))
            events.append(RawEvent(EventCode.evSyn, EventCode.synReport, 0))
        }
    }

    /// Moves an absolute pointer to `to` (device units) in a report of its own, when given.
    public static func move(to position: (x: Int32, y: Int32)?, into events: inout [RawEvent]) {
        guard let position else { return }
        events.append(RawEvent(EventCode.evAbs, EventCode.absX, position.x))
        events.append(RawEvent(EventCode.evAbs, EventCode.absY, position.y))
        events.append(RawEvent(EventCode.evSyn, EventCode.synReport, 0))
    }

    /// A button pressed and released, a report each.
    public static func click(_ button: UInt16, into events: inout [RawEvent]) {
        events.append(RawEvent(EventCode.evKey, button, 1))
        events.append(RawEvent(EventCode.evSyn, EventCode.synReport, 0))
        events.append(RawEvent(EventCode.evKey, button, 0))
        events.append(RawEvent(EventCode.evSyn, EventCode.synReport, 0))
    }

    /// Wheel motion in one report: each axis's legacy detents (when there are any) before its
    /// high-resolution units, as the kernel's HID driver sends them.
    public static func wheel(
        vertical: Int32, verticalDetents: Int32, horizontal: Int32, horizontalDetents: Int32,
        into events: inout [RawEvent]
    ) {
        guard vertical != 0 || horizontal != 0 else { return }
        if verticalDetents != 0 { events.append(RawEvent(EventCode.evRel, EventCode.relWheel, verticalDetents)) }
        if vertical != 0 { events.append(RawEvent(EventCode.evRel, EventCode.relWheelHiRes, vertical)) }
        if horizontalDetents != 0 { events.append(RawEvent(EventCode.evRel, EventCode.relHWheel, horizontalDetents)) }
        if horizontal != 0 { events.append(RawEvent(EventCode.evRel, EventCode.relHWheelHiRes, horizontal)) }
        events.append(RawEvent(EventCode.evSyn, EventCode.synReport, 0))
    }
}
