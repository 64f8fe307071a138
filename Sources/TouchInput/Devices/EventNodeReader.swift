import EvdevValues
import Glibc
import TouchValues

/// Reads any event node through libevdev, event by event, with CLOCK_MONOTONIC timestamps: what
/// a tool (or a test) that watches a keyboard or a pointer needs, where ``TouchDevice`` assembles
/// touch frames. Not Sendable: one owner.
public final class EventNodeReader {
    private var handle: EvdevHandle
    public let fileDescriptor: Int32
    public let path: String

    /// Opens `path` non-blocking.
    public init(path: String) throws(InputError) {
        handle = try EvdevHandle(path: path)
        try handle.useMonotonicClock()
        fileDescriptor = handle.fd
        self.path = path
    }

    /// The device's name, ids and codes.
    public var capabilities: DeviceCapabilities { handle.description() }

    /// The next event, nil when none is waiting; SYN_DROPPED and the resync events are passed on
    /// as they come. Throws when the device is gone or unreadable.
    public func next() throws(InputError) -> InputEvent? {
        switch handle.next(syncing: false) {
        case .event(let e), .sync(let e): return e
        case .drained: return nil
        case .failed(let errno): throw InputError(call: "libevdev_next_event", path: path, errno: errno)
        }
    }
}
