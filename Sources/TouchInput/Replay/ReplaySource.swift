import EvdevValues
import TouchValues

/// Plays a recording (evemu, or a device of a `libinput record` file) through the same ``FrameAssembler`` a live device uses, with the
/// recording's own clock: the frames are those the device would have produced.
///
/// Recording timestamps that go backwards (edited or concatenated files) are held at the last
/// time so the engine's clock never runs backwards; ``timeReversals`` counts them. At the end,
/// ``finish(into:)`` cancels contacts the recording left down.
public struct ReplaySource {
    public let model: TouchscreenModel
    public let descriptor: DeviceDescriptor
    public private(set) var assembler: FrameAssembler
    /// Events read so far.
    public private(set) var eventCount = 0
    /// Events whose timestamp was earlier than the one before.
    public private(set) var timeReversals = 0
    /// The time of the last event read.
    public private(set) var lastTime: Timestamp?
    private var reader: Recording.EventReader
    /// The events read since the last ``takeCaptured()``, while someone records the replay
    /// device (`gestured record` of `run --replay`); nil otherwise.
    private var captured: [InputEvent]?

    /// A replay of `recording` as device `id`, labelled `label` (usually the file name).
    /// Throws the ``SkipReason`` when the recorded device is not a touchscreen this module supports.
    public init(
        recording: Recording, id: DeviceID, label: String, settings: DeviceSettings = DeviceSettings()
    ) throws(SkipReason) {
        model = try TouchscreenModel(description: recording.description, settings: settings, udev: recording.udev)
        descriptor = model.descriptor(id: id, label: label)
        assembler = model.makeAssembler(device: id, contactsKnown: false)
        reader = recording.events()
    }

    /// A replay of an evemu recording.
    public init(
        recording: EvemuRecording, id: DeviceID, label: String, settings: DeviceSettings = DeviceSettings()
    ) throws(SkipReason) {
        try self.init(recording: Recording(recording), id: id, label: label, settings: settings)
    }

    /// Reads events until at least one frame was appended to `frames` or the recording ended.
    /// Returns false at the end (frames may still have been appended by the last events).
    public mutating func next(into frames: inout TouchFrameBuffer) throws(LineError) -> Bool {
        let start = frames.count
        while let event = try reader.next() {
            append(event, into: &frames)
            if frames.count > start { return true }
        }
        return false
    }

    /// Reads up to `limit` events, appending their frames; returns false at the end of the recording.
    /// The batch form lets a caller that clears `frames` each round read a whole file in a loop.
    public mutating func read(events limit: Int, into frames: inout TouchFrameBuffer) throws(LineError) -> Bool {
        for _ in 0..<limit {
            guard let event = try reader.next() else { return false }
            append(event, into: &frames)
        }
        return true
    }

    @inline(__always) private mutating func append(_ event: InputEvent, into frames: inout TouchFrameBuffer) {
        var event = event
        if let last = lastTime, event.time < last {
            event.time = last
            timeReversals += 1
        }
        lastTime = event.time
        eventCount += 1
        captured?.append(event)
        assembler.handle(event, into: &frames)
    }

    /// Starts or stops keeping the events read (as the assembler gets them: a time that went
    /// backwards is held at the last one), for a recording of the replay device.
    public mutating func capture(_ on: Bool) {
        if on {
            if captured == nil { captured = [] }
        } else {
            captured = nil
        }
    }

    /// Whether the events read are kept (``capture(_:)``).
    public var isCapturing: Bool { captured != nil }

    /// The events read since the last call (none when not capturing).
    public mutating func takeCaptured() -> [InputEvent] {
        guard let events = captured, !events.isEmpty else { return [] }
        captured = []
        return events
    }

    /// What the recording holds that no kernel would have sent, as a sentence; nil when nothing.
    /// Events for slots the panel does not have are dropped, as a kernel drops them (a recording
    /// claiming 10 000 contacts on a 10-slot panel gets at most 10 followed), and this says so.
    public var slotProblem: String? {
        let d = assembler.diagnostics
        guard d.eventsForInvalidSlots > 0 else { return nil }
        let count = assembler.slotCount
        let announced: String =
            if case .slots(let announced) = model.touchProtocol, announced != count {
                " (it announces \(announced); \(FrameAssembler.maximumSlots) at most are followed)"
            } else {
                ""
            }
        let highest = d.highestInvalidSlot >= 0 ? ", up to slot \(d.highestInvalidSlot)," : ""
        return "\(d.eventsForInvalidSlots) events for slots outside the panel's 0…\(count - 1)\(announced)\(highest) "
            + "were dropped, as the kernel drops them: the contacts they describe were not followed"
    }

    /// Ends the replay: cancels every touch still down, at the last event's time.
    public mutating func finish(into frames: inout TouchFrameBuffer) {
        assembler.cancelAll(at: lastTime ?? Timestamp(microseconds: 0), into: &frames)
    }
}
