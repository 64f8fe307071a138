import CLinuxSupport
import EvdevValues
import Glibc
import Logging
import TouchValues

/// An open touchscreen: a non-blocking event node read through libevdev, turned into frames.
///
/// Register ``fileDescriptor`` with the input thread's epoll for EPOLLIN and call
/// ``read(into:)`` when it is readable: it drains the device until EAGAIN. Owned by one thread
/// (the input thread); not Sendable.
public final class TouchDevice {
    public let id: DeviceID
    public let identity: DeviceIdentity
    public let model: TouchscreenModel
    /// The configuration's settings for it (the first matching rule's).
    public let settings: DeviceSettings
    /// What the engine gets (`GestureEngine.addDevice(_:)`).
    public let descriptor: DeviceDescriptor
    public private(set) var isGrabbed = false
    /// Whether the device is still open (false after ``close()``).
    public var isOpen: Bool { handle.isOpen }
    /// Counters of quirks absorbed so far.
    public var diagnostics: AssemblerDiagnostics { assembler.diagnostics }
    /// Touches currently down.
    public var liveTouchCount: Int { assembler.liveTouchCount }

    private var handle: EvdevHandle
    private var assembler: FrameAssembler
    /// The events read since the last ``takeCaptured()``, while someone records the panel; nil
    /// (and nothing kept) otherwise.
    private var captured: [InputEvent]?
    private let logger: Logger
    /// The fd, kept after close so the caller can still unregister it by number.
    public let fileDescriptor: Int32

    /// What ``read(into:)`` found besides frames.
    public enum ReadOutcome: Hashable, Sendable {
        /// Everything available was read.
        case drained
        /// Events were lost (SYN_DROPPED); libevdev re-synchronised the state. The buffer holds a
        /// frame cancelling the touches that were live; the daemon should also call
        /// `engine.resync(id, at:)` with the given time.
        case resynced(at: Timestamp)
        /// The device is gone (unplugged, or unreadable). The buffer holds a frame cancelling its
        /// live touches; unregister the fd, call ``close()`` and `engine.removeDevice`.
        case removed(at: Timestamp, reason: InputError)
    }

    /// Opens the event node at `path` as touchscreen `id`.
    ///
    /// - Parameters:
    ///   - udev: properties udev knows about the device (size, calibration, stable paths).
    ///   - rules: the configuration's device entries; the first whose match selects the device applies.
    /// - Throws: ``TouchDeviceError``: the node could not be opened, or it is not a touchscreen.
    public init(
        path: String, id: DeviceID, udev: UdevHints = UdevHints(), idPath: String? = nil, links: [String] = [],
        rules: [DeviceRule] = [], logger: Logger
    ) throws(TouchDeviceError) {
        let handle = try Self.open(path)
        let description = handle.description()
        let identity = DeviceIdentity(
            name: description.name, id: description.id, devnode: path, idPath: idPath, links: links, phys: handle.phys)
        let settings = rules.settings(for: identity)
        let model: TouchscreenModel
        do {
            model = try TouchscreenModel(description: description, settings: settings, udev: udev)
        } catch {
            throw .notATouchscreen(error)
        }
        self.id = id
        self.identity = identity
        self.model = model
        self.settings = settings
        self.fileDescriptor = handle.fd
        self.descriptor = model.descriptor(id: id, label: Self.label(of: path))
        var logger = logger
        logger[metadataKey: "device"] = "\(descriptor.label)"
        self.logger = logger
        assembler = model.makeAssembler(device: id, contactsKnown: true)
        Self.synchronize(&assembler, from: handle, model: model)
        self.handle = handle
        for warning in model.warnings { logger.warning("\(warning)") }
        logger.info(
            "opened touchscreen",
            metadata: [
                "name": "\(description.name)", "usb": "\(description.id.vendorProduct)",
                "protocol": "\(model.touchProtocol)", "size": "\(model.size.source)",
            ])
        if assembler.diagnostics.contactsIgnored > 0 {
            logger.info("contacts already down at open are ignored until they lift")
        }
    }

    private static func open(_ path: String) throws(TouchDeviceError) -> EvdevHandle {
        do {
            let handle = try EvdevHandle(path: path)
            try handle.useMonotonicClock()
            return handle
        } catch {
            throw .cannotOpen(error)
        }
    }

    /// `event5` for `/dev/input/event5`.
    static func label(of path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// Gives the assembler the kernel's current slot (or button) state.
    private static func synchronize(
        _ assembler: inout FrameAssembler, from handle: borrowing EvdevHandle, model: TouchscreenModel
    ) {
        switch model.touchProtocol {
        case .slots:
            assembler.synchronize(handle.slotStates(), currentSlot: handle.currentSlot)
        case .singleTouch(let button):
            let down = handle.value(type: EventCode.evKey, code: button) != 0
            assembler.synchronize([
                FrameAssembler.SlotState(
                    trackingID: down ? 0 : -1, x: handle.value(type: EventCode.evAbs, code: EventCode.absX),
                    y: handle.value(type: EventCode.evAbs, code: EventCode.absY),
                    pressure: handle.value(type: EventCode.evAbs, code: EventCode.absPressure))
            ])
        case .protocolA:
            // mtdev starts from no contacts; the converter reports the first ones it sees.
            break
        }
    }

    /// Reads every pending event, appending the frames they complete to `frames`.
    public func read(into frames: inout TouchFrameBuffer) -> ReadOutcome {
        var syncing = false
        var droppedAt = Timestamp(microseconds: 0)
        var outcome = ReadOutcome.drained
        while true {
            switch handle.next(syncing: syncing) {
            case .event(let event):
                captured?.append(event)
                assembler.handle(event, into: &frames)
            case .sync(let event):
                if !syncing {
                    // The SYN_DROPPED itself; the sync events that follow rebuild libevdev's state,
                    // which is read in one go when the sync is complete.
                    syncing = true
                    droppedAt = event.time
                }
            case .drained:
                guard syncing else { return outcome }
                syncing = false
                let dropped = InputEvent(time: droppedAt, type: EventCode.evSyn, code: EventCode.synDropped, value: 0)
                captured?.append(dropped)
                assembler.handle(dropped, into: &frames)
                Self.synchronize(&assembler, from: handle, model: model)
                logger.warning("events lost (SYN_DROPPED): live touches cancelled, state re-synchronised")
                outcome = .resynced(at: droppedAt)
            case .failed(let errno):
                let time = Self.now()
                assembler.cancelAll(at: time, into: &frames)
                let error = InputError(call: "libevdev_next_event", path: identity.devnode, errno: errno)
                if errno == ENODEV {
                    logger.info("touchscreen removed")
                } else {
                    logger.error("touchscreen unreadable, treated as removed: \(error)")
                }
                return .removed(at: time, reason: error)
            }
        }
    }

    /// Whether the events read are kept for a recording (``capture(_:)``).
    public var isCapturing: Bool { captured != nil }

    /// Starts or stops keeping the events read, as they come from the kernel (before they are
    /// assembled into frames; after a SYN_DROPPED, the SYN_DROPPED itself), for a recording of
    /// the panel: ``takeCaptured()`` hands them over after each ``read(into:)``.
    public func capture(_ on: Bool) {
        if on {
            if captured == nil { captured = [] }
        } else {
            captured = nil
        }
    }

    /// The events read since the last call (none when not capturing).
    public func takeCaptured() -> [InputEvent] {
        guard let events = captured, !events.isEmpty else { return [] }
        captured = []
        return events
    }

    /// Grabs (EVIOCGRAB) the device so no other reader sees its events, or releases it.
    public func grab(_ on: Bool = true) throws(InputError) {
        try handle.grab(on)
        isGrabbed = on
    }

    /// Cancels live touches (appending the frame to `frames`) and closes the device. For a
    /// removal seen through udev before the fd reported it.
    public func close(at time: Timestamp, into frames: inout TouchFrameBuffer) {
        assembler.cancelAll(at: time, into: &frames)
        close()
    }

    /// Closes the fd (unregister it from epoll first). Idempotent.
    public func close() {
        handle.close()
        isGrabbed = false
    }

    /// CLOCK_MONOTONIC now, in the engine's time base.
    static func now() -> Timestamp { Timestamp(microseconds: gestured_monotonic_us()) }
}

/// Why a device could not be opened as a touchscreen.
public enum TouchDeviceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// open(2) or libevdev failed (permissions, not an evdev node, gone already).
    case cannotOpen(InputError)
    /// It opened, but it is not a touchscreen this module can read.
    case notATouchscreen(SkipReason)

    /// The reason as `gestured devices` reports it.
    public var skipReason: SkipReason {
        switch self {
        case .cannotOpen(let error): .cannotOpen(error.description)
        case .notATouchscreen(let reason): reason
        }
    }

    public var description: String { skipReason.description }
}
