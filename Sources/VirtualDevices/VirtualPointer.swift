import EvdevValues
import Glibc
import TouchValues

/// A pointer made through uinput for the clicks and scrolling of `gestured actions`.
///
/// - ``Kind/absolute``: a pointer whose position is absolute over the whole screen (`ABS_X`/`ABS_Y`
///   0…32767, like QEMU's USB tablet), which udev and libinput take for an absolute mouse: it is
///   moved to the gesture's position before it clicks or scrolls, so a long press right-clicks
///   under the finger. On a kiosk with one screen the touchscreen covers it, so surface
///   coordinates are screen coordinates.
/// - ``Kind/relative``: a mouse (`REL_X`/`REL_Y`) that never moves: it clicks and scrolls
///   wherever the cursor is.
///
/// Both have the three buttons and both wheels, high resolution (`REL_WHEEL_HI_RES`,
/// `REL_HWHEEL_HI_RES`, 120 units a detent) beside the legacy detents, as the kernel's HID driver
/// reports a high-resolution mouse (Documentation/input/event-codes.rst). Not Sendable: one owner.
public final class VirtualPointer {
    public enum Kind: Hashable, Sendable {
        case absolute, relative
    }

    public static let axisMaximum: Int32 = 32767
    public let kind: Kind
    public let devnode: String?
    /// Owned here: releasing the object removes the device.
    private let uinput: EvdevUinput
    private var writer: EventWriter
    private var events: [RawEvent] = []
    private var position: (x: Int32, y: Int32)?

    /// Creates the pointer (needs write access to /dev/uinput).
    public init(_ kind: Kind, name: String? = nil) throws(InputError) {
        let name = name ?? (kind == .absolute ? "gestured virtual pointer (absolute)" : "gestured virtual pointer")
        var description = DeviceCapabilities(
            name: name, id: InputID(bustype: 0x06, vendor: 0x1d6b, product: kind == .absolute ? 0x0106 : 0x0105))
        for button in [EventCode.btnLeft, EventCode.btnRight, EventCode.btnMiddle] {
            description.addCode(EventCode.evKey, button)
        }
        for wheel in [EventCode.relWheel, EventCode.relHWheel, EventCode.relWheelHiRes, EventCode.relHWheelHiRes] {
            description.addCode(EventCode.evRel, wheel)
        }
        switch kind {
        case .absolute:
            for axis in [EventCode.absX, EventCode.absY] {
                description.addAxis(axis, AbsInfo(minimum: 0, maximum: Self.axisMaximum))
            }
        case .relative:
            description.addCode(EventCode.evRel, EventCode.relX)
            description.addCode(EventCode.evRel, EventCode.relY)
        }
        let device = try EvdevUinput(description: description)
        guard let fd = device.fileDescriptor else { throw InputError(call: "libevdev_uinput_get_fd", errno: EBADF) }
        devnode = device.devnode
        writer = EventWriter(fileDescriptor: fd)
        uinput = device
        self.kind = kind
    }

    /// Device units for a surface position (0…1 each way, clamped).
    public static func units(x: Double, y: Double) -> (x: Int32, y: Int32) {
        func unit(_ v: Double) -> Int32 { Int32((min(max(v.isFinite ? v : 0, 0), 1) * Double(axisMaximum)).rounded()) }
        return (unit(x), unit(y))
    }

    /// Presses and releases `button` (`BTN_LEFT`…); an absolute pointer first moves to `x`, `y`
    /// (surface coordinates) unless it is there already.
    public func click(_ button: UInt16, x: Double, y: Double) throws(InputError) {
        events.removeAll(keepingCapacity: true)
        moveIfAbsolute(x: x, y: y)
        InputEncoding.click(button, into: &events)
        try writer.write(events)
    }

    /// Turns the wheels (high-resolution units and legacy detents, signs as the kernel's); an
    /// absolute pointer first moves to `x`, `y` unless it is there already.
    public func wheel(
        vertical: Int32, verticalDetents: Int32, horizontal: Int32, horizontalDetents: Int32, x: Double, y: Double
    ) throws(InputError) {
        events.removeAll(keepingCapacity: true)
        moveIfAbsolute(x: x, y: y)
        InputEncoding.wheel(
            vertical: vertical, verticalDetents: verticalDetents, horizontal: horizontal,
            horizontalDetents: horizontalDetents, into: &events)
        try writer.write(events)
    }

    private func moveIfAbsolute(x: Double, y: Double) {
        guard kind == .absolute else { return }
        let target = Self.units(x: x, y: y)
        guard position.map({ $0 != target }) ?? true else { return }
        InputEncoding.move(to: target, into: &events)
        position = target
    }
}
