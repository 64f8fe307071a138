import EvdevValues
import Glibc
import TouchValues

/// A touchscreen made through uinput: the basis of `gestured simulate` and the real-kernel tests.
///
/// Created from a ``DeviceCapabilities`` (an evemu header or a ``DeviceProfile``); frames of
/// ``SimulatedContact``s are encoded as the kernel driver of such a panel would send them.
/// ``unplug()`` (or releasing the object) removes the device. Not Sendable: one owner.
public final class VirtualTouchscreen {
    public let description: DeviceCapabilities
    private var uinput: EvdevUinput
    private var encoder: ContactEncoder?
    private var events: [RawEvent] = []
    public private(set) var isPlugged = true
    /// The event node (`/dev/input/eventN`).
    public let devnode: String?
    public let syspath: String?

    /// Creates the device (needs write access to /dev/uinput).
    public init(description: DeviceCapabilities) throws(InputError) {
        uinput = try EvdevUinput(description: description)
        self.description = description
        encoder = ContactEncoder(description: description)
        devnode = uinput.devnode
        syspath = uinput.syspath
    }

    /// Creates a device of a built-in profile, named ``DeviceProfile/namePrefix`` + profile unless
    /// `name` is given.
    public convenience init(profile: DeviceProfile, name: String? = nil) throws(InputError) {
        try self.init(description: profile.capabilities(name: name))
    }

    /// The coordinate mapping the encoder uses (surface → device units).
    public var mapper: CoordinateMapper? { encoder?.mapper }

    /// Sends one frame in which exactly `contacts` are down (lifting those that are not).
    public func send(_ contacts: [SimulatedContact]) throws(InputError) {
        guard var encoder else { throw InputError(call: "send (device has no position axes)", errno: EINVAL) }
        events.removeAll(keepingCapacity: true)
        encoder.encode(contacts, into: &events)
        self.encoder = encoder
        for e in events { try uinput.write(type: e.type, code: e.code, value: e.value) }
    }

    /// Writes a raw event (recordings are replayed this way).
    public func write(_ event: RawEvent) throws(InputError) {
        try uinput.write(type: event.type, code: event.code, value: event.value)
    }

    /// Removes the device from the system, as if its cable were pulled.
    public func unplug() {
        uinput.destroy()
        isPlugged = false
    }
}
