import EvdevValues

/// Built-in descriptions of virtual touchscreens, each modelled on panels of the corpus, for
/// `gestured simulate` and the real-kernel tests. Every profile's name starts with
/// ``namePrefix`` and ends with its own name, so tests can tell their devices apart; all use bus
/// BUS_VIRTUAL and vendor ``vendor`` so no hwdb quirk for a real product applies to them.
public enum DeviceProfile: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    /// 10 slots, 0…32767 with resolution (512×287 mm, like the Advanced Silicon 23" panels),
    /// touch major, pressure and tool type.
    case kiosk10 = "kiosk-10"
    /// 10 slots, 0…32767 without resolution (most eGalax, CVTouch, e4 panels): size unknown.
    case noResolution10 = "no-resolution-10"
    /// 2 slots, 1920×1080 units at 4 units/mm (the Quanta/TPV optical panels).
    case optical2 = "optical-2"
    /// 60 slots, 0…32767, no resolution, touch major (3M, Zytronic, iKAIST).
    case large60 = "large-60"
    /// ABS_X/ABS_Y + BTN_TOUCH + ABS_PRESSURE only, no INPUT_PROP_DIRECT: a resistive kiosk panel.
    case resistive = "resistive"
    /// Multitouch protocol A without slots (the N-Trig of the Dell XT2): read through mtdev.
    case protocolA = "protocol-a"
    /// Not a touchscreen: a touchpad (BTN_TOOL_FINGER, no INPUT_PROP_DIRECT), for skip tests.
    case touchpad = "touchpad"

    public static let namePrefix = "gestured virtual "
    /// BUS_VIRTUAL.
    public static let bus: UInt16 = 0x06
    /// "ge" in ASCII: not a registered USB vendor.
    public static let vendor: UInt16 = 0x6765

    public var description: String { rawValue }

    /// One sentence for `gestured simulate --help` and docs.
    public var summary: String {
        switch self {
        case .kiosk10: "10 slots, 512×287 mm (resolution), pressure, touch major, tool type"
        case .noResolution10: "10 slots, 0…32767, resolution 0 (size unknown)"
        case .optical2: "2 slots, 1920×1080 at 4 units/mm (480×270 mm)"
        case .large60: "60 slots, 0…32767, resolution 0, touch major"
        case .resistive: "single touch (ABS_X/Y + BTN_TOUCH + pressure), no INPUT_PROP_DIRECT"
        case .protocolA: "multitouch protocol A (no slots), 9600×7200, read through mtdev"
        case .touchpad: "a touchpad, not a touchscreen (skipped by discovery)"
        }
    }

    /// The device's capabilities (name = ``namePrefix`` + raw value unless `name` is given).
    public func capabilities(name: String? = nil) -> DeviceCapabilities {
        var d = DeviceCapabilities(
            name: name ?? Self.namePrefix + rawValue,
            id: InputID(bustype: Self.bus, vendor: Self.vendor, product: product, version: 1))
        func axis(_ code: UInt16, _ max: Int32, resolution: Int32 = 0, fuzz: Int32 = 0) {
            d.addAxis(code, AbsInfo(minimum: 0, maximum: max, fuzz: fuzz, resolution: resolution))
        }
        func multitouch(slots: Int32, x: Int32, y: Int32, xRes: Int32, yRes: Int32) {
            d.properties.insert(EventCode.propDirect)
            d.addCode(EventCode.evKey, EventCode.btnTouch)
            axis(EventCode.absX, x, resolution: xRes)
            axis(EventCode.absY, y, resolution: yRes)
            axis(EventCode.absMTSlot, slots - 1)
            axis(EventCode.absMTPositionX, x, resolution: xRes)
            axis(EventCode.absMTPositionY, y, resolution: yRes)
            axis(EventCode.absMTTrackingID, 65535)
        }
        switch self {
        case .kiosk10:
            multitouch(slots: 10, x: 32767, y: 32767, xRes: 64, yRes: 114)
            axis(EventCode.absMTTouchMajor, 255)
            axis(EventCode.absMTPressure, 255)
            axis(EventCode.absMTToolType, Int32(EventCode.mtToolPalm))
        case .noResolution10:
            multitouch(slots: 10, x: 32767, y: 32767, xRes: 0, yRes: 0)
        case .optical2:
            multitouch(slots: 2, x: 1919, y: 1079, xRes: 4, yRes: 4)
        case .large60:
            multitouch(slots: 60, x: 32767, y: 32767, xRes: 0, yRes: 0)
            axis(EventCode.absMTTouchMajor, 32767, fuzz: 255)
        case .resistive:
            d.addCode(EventCode.evKey, EventCode.btnTouch)
            axis(EventCode.absX, 4095)
            axis(EventCode.absY, 4095)
            axis(EventCode.absPressure, 255)
        case .protocolA:
            d.properties.insert(EventCode.propDirect)
            d.addCode(EventCode.evKey, EventCode.btnTouch)
            axis(EventCode.absX, 9600, fuzz: 0)
            axis(EventCode.absY, 7200, fuzz: 0)
            axis(EventCode.absMTPositionX, 9600)
            axis(EventCode.absMTPositionY, 7200)
            axis(EventCode.absMTTouchMajor, 9600)
        case .touchpad:
            d.addCode(EventCode.evKey, EventCode.btnLeft)
            d.addCode(EventCode.evKey, EventCode.btnTouch)
            d.addCode(EventCode.evKey, EventCode.btnToolFinger)
            d.addCode(EventCode.evKey, EventCode.btnToolDoubleTap)
            axis(EventCode.absX, 1200, resolution: 12)
            axis(EventCode.absY, 800, resolution: 12)
            axis(EventCode.absMTSlot, 4)
            axis(EventCode.absMTPositionX, 1200, resolution: 12)
            axis(EventCode.absMTPositionY, 800, resolution: 12)
            axis(EventCode.absMTTrackingID, 65535)
        }
        return d
    }

    private var product: UInt16 {
        UInt16(Self.allCases.firstIndex(of: self)! + 1)
    }
}
