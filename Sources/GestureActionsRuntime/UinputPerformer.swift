import GestureActions
import GestureProtocol
import Glibc
import Synchronization
import VirtualDevices

/// Why the keys and pointer of `gestured actions` cannot work: the message says what to do.
public struct ActionsError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Carries out keys, clicks and wheel motion. ``UinputPerformer`` is the real one; the host
/// tests record instead (these machines have no uinput).
public protocol ActionPerformer: AnyObject, Sendable {
    /// Makes what `configuration` needs (its keyboard with its keys, its pointers) before it takes
    /// effect; on error the previous devices stay.
    func prepare(for configuration: ActionsConfiguration) throws(ActionsError)
    func tap(_ keys: [String]) throws(ActionsError)
    func click(_ button: PointerButton, at place: PointerPlace, position: XY) throws(ActionsError)
    func wheel(_ motion: WheelMotion, at place: PointerPlace, position: XY) throws(ActionsError)
}

/// The uinput devices of `gestured actions`, made only when the configuration needs them: a
/// keyboard that declares every key the rules name, an absolute pointer for clicks and scrolling
/// at the gesture, a relative one for those at the cursor.
public final class UinputPerformer: ActionPerformer {
    /// The group udev-rules/70-gestured.rules gives /dev/uinput.
    public static let uinputGroup = "gestured-uinput"

    private struct Devices {
        var keyboard: VirtualKeyboard?
        var keys: Set<String> = []
        var absolute: VirtualPointer?
        var relative: VirtualPointer?
    }

    private let devices = Mutex(Devices())

    public init() {}

    /// The event nodes made, for logs: `keyboard=/dev/input/event7 …`.
    public var devnodes: [String: String] {
        devices.withLock { d in
            var nodes: [String: String] = [:]
            nodes["keyboard"] = d.keyboard?.devnode
            nodes["pointer-absolute"] = d.absolute?.devnode
            nodes["pointer-relative"] = d.relative?.devnode
            return nodes
        }
    }

    public func prepare(for configuration: ActionsConfiguration) throws(ActionsError) {
        let keys = configuration.keyNames
        let places = configuration.pointerPlaces
        try devices.withLock { (d: inout Devices) throws(ActionsError) in
            var next = Devices()
            // A keyboard is made again only when its keys change (a new device: the kernel fixes
            // a device's keys when it is created).
            if !keys.isEmpty {
                if keys == d.keys, let keyboard = d.keyboard {
                    next.keyboard = keyboard
                } else {
                    next.keyboard = try Self.make("keyboard") { () throws(InputError) in try VirtualKeyboard(keys: keys)
                    }
                }
                next.keys = keys
            }
            if places.contains(.gesture) {
                next.absolute = d.absolute
                if next.absolute == nil {
                    next.absolute = try Self.make("absolute pointer") { () throws(InputError) in
                        try VirtualPointer(.absolute)
                    }
                }
            }
            if places.contains(.cursor) {
                next.relative = d.relative
                if next.relative == nil {
                    next.relative = try Self.make("pointer") { () throws(InputError) in try VirtualPointer(.relative) }
                }
            }
            d = next
        }
    }

    public func tap(_ keys: [String]) throws(ActionsError) {
        try devices.withLock { (d: inout Devices) throws(ActionsError) in
            guard let keyboard = d.keyboard else { throw ActionsError("no virtual keyboard for \(keys)") }
            do { try keyboard.tap(keys) } catch { throw ActionsError("the virtual keyboard: \(error)") }
        }
    }

    public func click(_ button: PointerButton, at place: PointerPlace, position: XY) throws(ActionsError) {
        try withPointer(place) { (pointer) throws(InputError) in
            try pointer.click(Self.code(button), x: position.x, y: position.y)
        }
    }

    public func wheel(_ motion: WheelMotion, at place: PointerPlace, position: XY) throws(ActionsError) {
        try withPointer(place) { (pointer) throws(InputError) in
            try pointer.wheel(
                vertical: motion.vertical, verticalDetents: motion.verticalDetents, horizontal: motion.horizontal,
                horizontalDetents: motion.horizontalDetents, x: position.x, y: position.y)
        }
    }

    private func withPointer(
        _ place: PointerPlace, _ body: (VirtualPointer) throws(InputError) -> Void
    ) throws(ActionsError) {
        try devices.withLock { (d: inout Devices) throws(ActionsError) in
            guard let pointer = place == .gesture ? d.absolute : d.relative else {
                throw ActionsError("no virtual pointer for actions at the \(place.rawValue)")
            }
            do { try body(pointer) } catch { throw ActionsError("the virtual pointer: \(error)") }
        }
    }

    static func code(_ button: PointerButton) -> UInt16 {
        switch button {
        case .left: EventCode.btnLeft
        case .right: EventCode.btnRight
        case .middle: EventCode.btnMiddle
        }
    }

    /// Makes a device, turning uinput's refusals into what to do about them.
    private static func make<Device>(
        _ what: String, _ body: () throws(InputError) -> Device
    ) throws(ActionsError) -> Device {
        do {
            return try body()
        } catch {
            throw ActionsError("cannot create the virtual \(what): \(explain(error))")
        }
    }

    /// What a uinput error means for the person setting up the kiosk.
    static func explain(_ error: InputError) -> String {
        switch error.errno {
        case EACCES, EPERM:
            var owner = ""
            var info = stat()
            if stat("/dev/uinput", &info) == 0 {
                let group = getgrgid(info.st_gid).map { String(cString: $0.pointee.gr_name) } ?? "\(info.st_gid)"
                let mode = String(info.st_mode & 0o777, radix: 8)
                owner = " (/dev/uinput now: group '\(group)', mode 0\(mode)"
                owner +=
                    group == uinputGroup ? ")" : "; the udev rule that gives it to '\(uinputGroup)' is not in effect)"
            }
            return "/dev/uinput: permission denied for uid \(getuid())\(owner). The user that runs gestured actions "
                + "must be in the group '\(uinputGroup)', which udev-rules/70-gestured.rules gives /dev/uinput: "
                + "`usermod -aG \(uinputGroup) USER` and log in again, or SupplementaryGroups=\(uinputGroup) in the "
                + "unit (docs/ACTIONS.md, \"Security\")"
        case ENOENT, ENODEV, ENXIO:
            return "/dev/uinput does not exist: load the uinput module (`modprobe uinput`; at boot: "
                + "`echo uinput > /etc/modules-load.d/uinput.conf`)"
        default:
            return "\(error)"
        }
    }
}
