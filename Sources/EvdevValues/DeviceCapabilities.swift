/// One absolute axis as the kernel describes it (`struct input_absinfo`).
public struct AbsInfo: Hashable, Sendable {
    public var value: Int32
    public var minimum: Int32
    public var maximum: Int32
    public var fuzz: Int32
    public var flat: Int32
    /// Units per millimetre (units per radian for ABS_MT_ORIENTATION); 0 when the device does not say.
    public var resolution: Int32

    public init(
        value: Int32 = 0, minimum: Int32, maximum: Int32, fuzz: Int32 = 0, flat: Int32 = 0, resolution: Int32 = 0
    ) {
        self.value = value
        self.minimum = minimum
        self.maximum = maximum
        self.fuzz = fuzz
        self.flat = flat
        self.resolution = resolution
    }

    /// `maximum - minimum`, computed without overflow.
    public var range: Int64 { Int64(maximum) - Int64(minimum) }
}

/// The kernel's `struct input_id`.
public struct InputID: Hashable, Sendable, CustomStringConvertible {
    public var bustype: UInt16
    public var vendor: UInt16
    public var product: UInt16
    public var version: UInt16

    public init(bustype: UInt16 = 0, vendor: UInt16 = 0, product: UInt16 = 0, version: UInt16 = 0) {
        self.bustype = bustype
        self.vendor = vendor
        self.product = product
        self.version = version
    }

    /// `vendor:product` in four-digit hex, the form `lsusb` prints and device matching takes.
    public var vendorProduct: String { "\(Self.hex4(vendor)):\(Self.hex4(product))" }

    public var description: String { "bus \(Self.hex4(bustype)) \(vendorProduct) version \(Self.hex4(version))" }

    /// `v` in four hex digits (`0eef`).
    package static func hex4(_ v: UInt16) -> String {
        let digits = String(v, radix: 16)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

/// What an input device is: its name, ids, properties, supported event codes and axis ranges.
///
/// Read from a live device through libevdev, parsed from an evemu description, or built from a
/// ``DeviceProfile``; it is what the classifier judges, what the coordinate pipeline reads its
/// ranges from, and what a uinput device is created from. (The engine's ``DeviceDescriptor`` is
/// another thing: a touchscreen's label, name and size once it has been chosen.)
public struct DeviceCapabilities: Hashable, Sendable {
    public var name: String
    public var id: InputID
    /// Input properties (INPUT_PROP_*).
    public var properties: Set<UInt16>
    /// Supported codes per event type (EV_SYN is implied and not required here).
    public var codes: [UInt16: Set<UInt16>]
    /// Axis descriptions, one per supported EV_ABS code.
    public var absInfo: [UInt16: AbsInfo]

    public init(
        name: String, id: InputID = InputID(), properties: Set<UInt16> = [], codes: [UInt16: Set<UInt16>] = [:],
        absInfo: [UInt16: AbsInfo] = [:]
    ) {
        self.name = name
        self.id = id
        self.properties = properties
        self.codes = codes
        self.absInfo = absInfo
    }

    /// Whether the device reports `code` of event `type`.
    public func has(_ type: UInt16, _ code: UInt16) -> Bool { codes[type]?.contains(code) ?? false }

    /// Whether the device reports absolute axis `code` (a code with an absinfo).
    public func hasAxis(_ code: UInt16) -> Bool { absInfo[code] != nil }

    /// Whether the device has input property `property`.
    public func has(property: UInt16) -> Bool { properties.contains(property) }

    /// Adds an absolute axis (and the EV_ABS code for it).
    public mutating func addAxis(_ code: UInt16, _ info: AbsInfo) {
        absInfo[code] = info
        codes[EventCode.evAbs, default: []].insert(code)
    }

    /// Adds a supported code of a non-absolute event type.
    public mutating func addCode(_ type: UInt16, _ code: UInt16) {
        codes[type, default: []].insert(code)
    }

    /// The number of multitouch slots the device announces (ABS_MT_SLOT maximum + 1), nil without slots.
    public var slotCount: Int? {
        guard let slot = absInfo[EventCode.absMTSlot], slot.maximum >= 0 else { return nil }
        return Int(slot.maximum) + 1
    }
}
