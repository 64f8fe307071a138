import EvdevValues
import TouchValues

/// One device's recording, whichever file it came from (an evemu file, or a device of a
/// `libinput record` file): its description and its events, what a replay plays.
public struct Recording: Sendable {
    public enum Format: String, Sendable {
        case evemu, libinput
    }

    public let format: Format
    /// The device the recording was made on.
    public let description: DeviceCapabilities
    /// What udev said of the device (libinput recordings carry it; evemu files do not).
    public let udev: UdevHints
    private let storage: Storage

    private enum Storage: Sendable {
        /// Parsed lazily from the file's bytes.
        case evemu(EvemuRecording)
        /// Parsed and checked when the file was read.
        case events([InputEvent])
    }

    public init(_ evemu: EvemuRecording) {
        format = .evemu
        description = evemu.description
        udev = UdevHints()
        storage = .evemu(evemu)
    }

    public init(_ device: LibinputRecording.Device) {
        format = .libinput
        description = device.description
        udev = device.udev
        storage = .events(device.events)
    }

    /// A reader over the events, from the first.
    public func events() -> EventReader {
        switch storage {
        case .evemu(let evemu): EventReader(evemu: evemu.events(), list: nil)
        case .events(let events): EventReader(evemu: nil, list: events)
        }
    }

    /// Every event at once (tests, small files).
    public func allEvents() throws(LineError) -> [InputEvent] {
        var reader = events()
        var result: [InputEvent] = []
        while let event = try reader.next() { result.append(event) }
        return result
    }

    /// Reads the events one at a time. Only an evemu file's events can still fail (they are
    /// parsed as they are read); a libinput recording's were checked when the file was read.
    public struct EventReader: Sendable {
        // Two optionals rather than an enum: the evemu reader advances in place (the replay hot
        // path), without being copied out of an enum and back for every event.
        private var evemu: EvemuRecording.EventReader?
        private let list: [InputEvent]?
        private var index = 0

        fileprivate init(evemu: EvemuRecording.EventReader?, list: [InputEvent]?) {
            self.evemu = evemu
            self.list = list
        }

        /// The next event, or nil at the end.
        public mutating func next() throws(LineError) -> InputEvent? {
            if let list {
                guard index < list.count else { return nil }
                index += 1
                return list[index - 1]
            }
            return try evemu?.next()
        }
    }
}
