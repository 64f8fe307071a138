import GestureEngine

/// A touchscreen as `hello` lists it and `device` announces it.
///
/// ```json
/// {"label":"event5","name":"ELAN Touchscreen","vendor":1267,"product":8760,
///  "size_mm":{"width":344,"height":194},"slots":10}
/// ```
public struct DeviceInfo: Hashable, Sendable {
    /// Unique while the device is present; every `gesture` and `touch` names its device by it.
    public var label: String
    /// The kernel's device name.
    public var name: String
    /// USB/HID vendor and product ids (decimal on the wire), when the device has them.
    public var vendor: Int?
    public var product: Int?
    /// The physical size, `null` when the panel does not say (then no `_mm` positions either).
    public var sizeMM: SizeMM?
    /// How many touches the device tracks at once.
    public var slots: Int

    public init(label: String, name: String, vendor: Int? = nil, product: Int? = nil, sizeMM: SizeMM?, slots: Int) {
        self.label = label
        self.name = name
        self.vendor = vendor
        self.product = product
        self.sizeMM = sizeMM
        self.slots = slots
    }

    /// The info of an engine device; the size comes from its geometry (real sizes only).
    public init(_ device: DeviceDescriptor, vendor: Int? = nil, product: Int? = nil, slots: Int) {
        let size = device.geometry.physicalSize.map { SizeMM(width: $0.width.value, height: $0.height.value) }
        self.init(label: device.label, name: device.name, vendor: vendor, product: product, sizeMM: size, slots: slots)
    }
}

extension DeviceInfo: Codable {
    enum CodingKeys: String, CodingKey {
        case label, name, vendor, product, sizeMM = "size_mm", slots
    }

    /// Decoded as the compiler makes it; encoded with `null` for what is unknown, so a client tells
    /// "unknown" from "not sent by this version".
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(label, forKey: .label)
        try c.encode(name, forKey: .name)
        try c.encode(vendor, forKey: .vendor)
        try c.encode(product, forKey: .product)
        try c.encode(sizeMM, forKey: .sizeMM)
        try c.encode(slots, forKey: .slots)
    }
}

/// `device`: a touchscreen appeared or went away.
///
/// ```json
/// {"type":"device","event":"added","device":{"label":"event5","name":"ELAN Touchscreen",…}}
/// ```
/// Sent to every connection, whatever it subscribed to. When a device goes away its active
/// gestures are `cancelled` (rule R9) before the `removed` message.
public struct DeviceMessage: Hashable, Sendable, Codable, TypedMessage {
    public static let type = "device"
    /// Its `type` key (``MessageType``).
    var messageType = MessageType<DeviceMessage>()

    public enum Event: String, Hashable, Sendable, Codable {
        case added
        case removed
    }

    public var event: Event
    public var device: DeviceInfo

    public init(event: Event, device: DeviceInfo) {
        self.event = event
        self.device = device
    }

    enum CodingKeys: String, CodingKey { case messageType = "type", event, device }
}
