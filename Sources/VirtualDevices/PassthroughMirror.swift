import EvdevValues
import Glibc
import TouchValues

/// The mirror of a grabbed touchscreen (docs/PASSTHROUGH.md): a touchscreen made through uinput
/// — same axes, ranges, resolution, properties and slots as the panel, named after it with
/// ``MirrorMarks/nameSuffix`` and with a ``MirrorMarks/physPrefix`` phys — that gets the touches
/// the views should see (R8). Feed it the engine's view events of its panel with ``add(_:at:)``
/// and write them with ``flush()``, on the input thread, before anything else learns of the
/// batch. Whoever makes it grabs the panel (EVIOCGRAB, TouchInput's `TouchDevice.grab`), so the
/// compositor, X server or libinput reads the mirror instead.
///
/// The mirror belongs to a file descriptor of this process only (opened O_CLOEXEC): when it
/// exits, even by SIGKILL, the kernel removes the mirror (and releases the panel's grab). Not
/// Sendable: one owner.
public final class PassthroughMirror {
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
    /// False once ``remove()`` ran.
    public private(set) var isActive = true

    private var uinput: EvdevUinput
    private var writer: EventWriter
    private var encoder: MirrorEncoder
    private var events: [RawEvent] = []

    /// Creates the mirror of a panel described by `panel`, whose contacts come as
    /// `touchProtocol`; `panelPhys` (the panel's phys, or its node's name when it has none) ends
    /// the mirror's phys.
    public init(of panel: DeviceCapabilities, touchProtocol: TouchProtocol, panelPhys: String) throws(InputError) {
        let encoder = MirrorEncoder(source: panel, touchProtocol: touchProtocol)
        let uinput = try EvdevUinput(description: encoder.description, phys: MirrorMarks.physPrefix + panelPhys)
        guard let fd = uinput.fileDescriptor else { throw InputError(call: "libevdev_uinput_get_fd", errno: EBADF) }
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
    /// A failure leaves the mirror as it is; the caller decides (the daemon removes it).
    public func flush() throws(InputError) {
        encoder.finish(into: &events)
        defer { events.removeAll(keepingCapacity: true) }
        guard isActive else { throw InputError(call: "write", path: devnode, errno: ENODEV) }
        try writer.write(events)
    }

    /// Removes the mirror: touches still down on it end with it (readers see the device go
    /// away). Idempotent.
    public func remove() {
        guard isActive else { return }
        isActive = false
        uinput.destroy()
    }
}
