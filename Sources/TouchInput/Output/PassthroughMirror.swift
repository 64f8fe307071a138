import TouchValues
import Glibc

/// Touch ownership for one touchscreen (docs/PASSTHROUGH.md): the panel is grabbed (EVIOCGRAB),
/// so the compositor, X server or libinput no longer sees it, and a mirror touchscreen made
/// through uinput — same axes, ranges, resolution, properties and slots, named after the panel
/// with ``MirrorEncoder/nameSuffix`` and with a ``physPrefix`` phys — gets the touches the views
/// should see (R8). Feed it the engine's view events of its panel with ``add(_:)`` and write
/// them with ``flush()``, on the input thread, before anything else learns of the batch.
///
/// Both the grab and the mirror belong to file descriptors of this process only (opened
/// O_CLOEXEC): when it exits, even by SIGKILL, the kernel releases the grab and removes the
/// mirror. Not Sendable: one owner.
public final class PassthroughMirror {
    /// The start of a mirror's phys (EVIOCGPHYS, sysfs `phys`), followed by the panel's phys or
    /// node's name (`event5`): a marker that does not depend on the name.
    public static let physPrefix = "gestured-passthrough/"

    /// Whether a device with this name and phys is a passthrough mirror (of any gestured
    /// process): discovery never takes one, or the daemon would read its own output.
    public static func isMirror(name: String, phys: String?) -> Bool {
        MirrorEncoder.isMirror(name: name) || phys?.hasPrefix(physPrefix) == true
    }

    /// The panel.
    public let source: TouchDevice
    /// The mirror's event node (`/dev/input/eventN`).
    public let devnode: String?
    /// The mirror's kernel name.
    public var name: String { encoder.description.name }
    /// Axes of the panel the mirror leaves out, by name (MirrorEncoder says why).
    public var omittedAxes: [String] {
        encoder.omittedAxes.map { EventCode.codeName(type: EventCode.evAbs, code: $0) }
    }
    /// What could not be forwarded so far.
    public var diagnostics: MirrorDiagnostics { encoder.diagnostics }
    /// False once ``release()`` ran.
    public private(set) var isActive = true

    private var uinput: EvdevUinput
    private var writer: EventWriter
    private var encoder: MirrorEncoder
    private var events: [RawEvent] = []

    /// Creates the mirror of `device`, then grabs `device`. If the grab fails (another program
    /// holds it) the mirror is removed again and the error thrown.
    public init(of device: TouchDevice) throws(InputError) {
        let encoder = MirrorEncoder(source: device.model.description, touchProtocol: device.model.touchProtocol)
        let phys = Self.physPrefix + (device.identity.phys ?? device.descriptor.label)
        var uinput = try EvdevUinput(description: encoder.description, phys: phys)
        do {
            try device.grab()
        } catch {
            uinput.destroy()
            throw error
        }
        guard let fd = uinput.fileDescriptor else { throw InputError(call: "libevdev_uinput_get_fd", errno: EBADF) }
        self.source = device
        self.devnode = uinput.devnode
        self.writer = EventWriter(fileDescriptor: fd)
        self.uinput = uinput
        self.encoder = encoder
        events.reserveCapacity(64)
    }

    /// Encodes one view event of the panel — the touch as the views see it, at its frame's time
    /// (nothing is written until ``flush()``).
    public func add(_ touch: Touch, at time: Timestamp) {
        encoder.encode(touch, at: time, into: &events)
    }

    /// Ends the open frame and writes everything added since the last flush, in one write(2).
    /// A failure leaves the mirror as it is; the caller decides (the daemon releases it).
    public func flush() throws(InputError) {
        encoder.finish(into: &events)
        defer { events.removeAll(keepingCapacity: true) }
        guard isActive else { throw InputError(call: "write", path: devnode, errno: ENODEV) }
        try writer.write(events)
    }

    /// Removes the mirror, then releases the panel's grab (if the panel is still open; closing it
    /// releases the grab too). Touches still down on the mirror end with it: readers see the
    /// device go away. Idempotent; throws only when the panel refused the release.
    public func release() throws(InputError) {
        guard isActive else { return }
        isActive = false
        uinput.destroy()
        if source.isOpen && source.isGrabbed { try source.grab(false) }
    }
}
