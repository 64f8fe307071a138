import TouchValues

/// One evdev event as the kernel delivers it (`struct input_event`), from a live device or a
/// recording: the same value feeds the same ``FrameAssembler`` either way.
public struct InputEvent: Hashable, Sendable, CustomStringConvertible {
    /// The event's timestamp: CLOCK_MONOTONIC for live devices, the recording's clock in replay.
    public var time: Timestamp
    public var type: UInt16
    public var code: UInt16
    public var value: Int32

    @inlinable public init(time: Timestamp, type: UInt16, code: UInt16, value: Int32) {
        self.time = time
        self.type = type
        self.code = code
        self.value = value
    }

    public var description: String {
        "\(time) \(EventCode.typeName(type)) \(EventCode.codeName(type: type, code: code)) \(value)"
    }
}

/// The evdev constants gestured uses (linux/input-event-codes.h), spelled as Swift constants so
/// the pure parts (parser, assembler, classifier, encoders) stay free of C imports. A test checks every value
/// against the kernel header.
public enum EventCode {
    // Event types.
    public static let evSyn: UInt16 = 0x00
    public static let evKey: UInt16 = 0x01
    public static let evRel: UInt16 = 0x02
    public static let evAbs: UInt16 = 0x03
    public static let evMsc: UInt16 = 0x04
    public static let evSw: UInt16 = 0x05
    public static let evLed: UInt16 = 0x11
    public static let evSnd: UInt16 = 0x12
    public static let evRep: UInt16 = 0x14
    public static let evFf: UInt16 = 0x15
    public static let evMax: UInt16 = 0x1f

    // EV_SYN codes.
    public static let synReport: UInt16 = 0
    public static let synConfig: UInt16 = 1
    public static let synMTReport: UInt16 = 2
    public static let synDropped: UInt16 = 3

    // EV_KEY codes.
    public static let btnLeft: UInt16 = 0x110
    public static let btnRight: UInt16 = 0x111
    public static let btnMiddle: UInt16 = 0x112
    public static let btnJoystick: UInt16 = 0x120
    public static let btnToolPen: UInt16 = 0x140
    public static let btnToolRubber: UInt16 = 0x141
    public static let btnToolFinger: UInt16 = 0x145
    public static let btnTouch: UInt16 = 0x14a
    public static let btnStylus: UInt16 = 0x14b
    public static let btnToolDoubleTap: UInt16 = 0x14d
    public static let keyMax: UInt16 = 0x2ff

    // EV_REL codes.
    public static let relX: UInt16 = 0x00
    public static let relY: UInt16 = 0x01
    // Wheels: the legacy detents and their high-resolution counterparts, 120 units a detent.
    public static let relHWheel: UInt16 = 0x06
    public static let relWheel: UInt16 = 0x08
    public static let relWheelHiRes: UInt16 = 0x0b
    public static let relHWheelHiRes: UInt16 = 0x0c

    // EV_ABS codes.
    public static let absX: UInt16 = 0x00
    public static let absY: UInt16 = 0x01
    public static let absZ: UInt16 = 0x02
    public static let absPressure: UInt16 = 0x18
    public static let absMTSlot: UInt16 = 0x2f
    public static let absMTTouchMajor: UInt16 = 0x30
    public static let absMTTouchMinor: UInt16 = 0x31
    public static let absMTWidthMajor: UInt16 = 0x32
    public static let absMTWidthMinor: UInt16 = 0x33
    public static let absMTOrientation: UInt16 = 0x34
    public static let absMTPositionX: UInt16 = 0x35
    public static let absMTPositionY: UInt16 = 0x36
    public static let absMTToolType: UInt16 = 0x37
    public static let absMTBlobID: UInt16 = 0x38
    public static let absMTTrackingID: UInt16 = 0x39
    public static let absMTPressure: UInt16 = 0x3a
    public static let absMTDistance: UInt16 = 0x3b
    public static let absMax: UInt16 = 0x3f

    // EV_MSC codes.
    public static let mscScan: UInt16 = 0x04
    public static let mscTimestamp: UInt16 = 0x05

    // ABS_MT_TOOL_TYPE values.
    public static let mtToolFinger: Int32 = 0
    public static let mtToolPen: Int32 = 1
    public static let mtToolPalm: Int32 = 2

    // Input properties.
    public static let propPointer: UInt16 = 0x00
    public static let propDirect: UInt16 = 0x01
    public static let propButtonPad: UInt16 = 0x02
    public static let propSemiMT: UInt16 = 0x03
    public static let propAccelerometer: UInt16 = 0x06
    public static let propMax: UInt16 = 0x1f

    /// The highest code of each event type (`*_MAX`), nil for types this module does not know.
    public static func maximumCode(ofType type: UInt16) -> UInt16? {
        switch type {
        case evSyn: 0x0f
        case evKey: keyMax
        case evRel: 0x0f
        case evAbs: absMax
        case evMsc: 0x07
        case evSw: 0x11
        case evLed: 0x0f
        case evSnd: 0x07
        case evRep: 0x01
        case evFf: 0x7f
        default: nil
        }
    }

    /// A readable name for an event type, for logs and reports.
    public static func typeName(_ type: UInt16) -> String {
        switch type {
        case evSyn: "EV_SYN"
        case evKey: "EV_KEY"
        case evRel: "EV_REL"
        case evAbs: "EV_ABS"
        case evMsc: "EV_MSC"
        case evSw: "EV_SW"
        case evLed: "EV_LED"
        case evSnd: "EV_SND"
        case evRep: "EV_REP"
        case evFf: "EV_FF"
        default: "type 0x\(String(type, radix: 16))"
        }
    }

    private static let absNames: [UInt16: String] = [
        absX: "ABS_X", absY: "ABS_Y", absZ: "ABS_Z", absPressure: "ABS_PRESSURE", 0x1c: "ABS_TOOL_WIDTH",
        0x28: "ABS_MISC", absMTSlot: "ABS_MT_SLOT", absMTTouchMajor: "ABS_MT_TOUCH_MAJOR",
        absMTTouchMinor: "ABS_MT_TOUCH_MINOR", absMTWidthMajor: "ABS_MT_WIDTH_MAJOR",
        absMTWidthMinor: "ABS_MT_WIDTH_MINOR", absMTOrientation: "ABS_MT_ORIENTATION",
        absMTPositionX: "ABS_MT_POSITION_X", absMTPositionY: "ABS_MT_POSITION_Y", absMTToolType: "ABS_MT_TOOL_TYPE",
        absMTBlobID: "ABS_MT_BLOB_ID", absMTTrackingID: "ABS_MT_TRACKING_ID", absMTPressure: "ABS_MT_PRESSURE",
        absMTDistance: "ABS_MT_DISTANCE",
    ]
    private static let keyNames: [UInt16: String] = [
        btnLeft: "BTN_LEFT", btnRight: "BTN_RIGHT", btnMiddle: "BTN_MIDDLE", btnToolPen: "BTN_TOOL_PEN",
        btnToolRubber: "BTN_TOOL_RUBBER", btnToolFinger: "BTN_TOOL_FINGER", btnTouch: "BTN_TOUCH",
        btnStylus: "BTN_STYLUS", btnToolDoubleTap: "BTN_TOOL_DOUBLETAP", 0x14e: "BTN_TOOL_TRIPLETAP",
        0x14f: "BTN_TOOL_QUADTAP", 0x148: "BTN_TOOL_QUINTTAP",
    ]
    private static let synNames: [UInt16: String] = [
        synReport: "SYN_REPORT", synConfig: "SYN_CONFIG", synMTReport: "SYN_MT_REPORT", synDropped: "SYN_DROPPED",
    ]

    /// A readable name for a code (`ABS_MT_SLOT`), or its number when this module has no name for it.
    public static func codeName(type: UInt16, code: UInt16) -> String {
        let name: String? =
            switch type {
            case evSyn: synNames[code]
            case evKey: keyNames[code]
            case evAbs: absNames[code]
            case evMsc: code == mscScan ? "MSC_SCAN" : code == mscTimestamp ? "MSC_TIMESTAMP" : nil
            default: nil
            }
        return name ?? "0x\(String(code, radix: 16))"
    }

    /// A readable name for an input property.
    public static func propertyName(_ property: UInt16) -> String {
        switch property {
        case propPointer: "INPUT_PROP_POINTER"
        case propDirect: "INPUT_PROP_DIRECT"
        case propButtonPad: "INPUT_PROP_BUTTONPAD"
        case propSemiMT: "INPUT_PROP_SEMI_MT"
        case 0x04: "INPUT_PROP_TOPBUTTONPAD"
        case 0x05: "INPUT_PROP_POINTING_STICK"
        case propAccelerometer: "INPUT_PROP_ACCELEROMETER"
        default: "property 0x\(String(property, radix: 16))"
        }
    }
}
