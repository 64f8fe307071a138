import EvdevValues

/// Why a device is not used as a touchscreen; shown by `gestured devices` and logged.
public enum SkipReason: Hashable, Sendable, CustomStringConvertible {
    /// Neither ABS_X/ABS_Y nor ABS_MT_POSITION_X/Y.
    case noPositionAxes
    /// BTN_TOOL_FINGER without INPUT_PROP_DIRECT: the pointer moves relative to the contact.
    case touchpad
    /// A pen or stylus device (BTN_TOOL_PEN / BTN_STYLUS).
    case tabletPen
    /// Absolute axes with mouse buttons and no BTN_TOUCH (VM tablets, some old resistive panels in
    /// mouse emulation); a device setting with `forceTouchscreen` accepts it as single-touch.
    case absolutePointer
    /// Absolute axes but neither BTN_TOUCH nor INPUT_PROP_DIRECT (joysticks, accelerometers…).
    case notDirect
    /// Slots without ABS_MT_TRACKING_ID: contacts cannot be followed.
    case slotsWithoutTrackingID
    /// udev knows the device and says it is not a touchscreen (`ID_INPUT_*` names what it is).
    case notATouchscreen(udevType: String)
    /// A device setting disabled it.
    case disabledByConfiguration
    /// The event node could not be opened or read.
    case cannotOpen(String)
    /// A passthrough mirror made by gestured (docs/PASSTHROUGH.md): reading it would feed the
    /// daemon its own output.
    case passthroughMirror
    /// A position axis whose range is empty or reversed (`maximum` ≤ `minimum`): no position it
    /// reports can be placed on the panel.
    case emptyAxisRange(axis: String, minimum: Int32, maximum: Int32)

    public var description: String {
        switch self {
        case .noPositionAxes: "no position axes (neither ABS_X/ABS_Y nor ABS_MT_POSITION_X/Y)"
        case .touchpad: "touchpad (BTN_TOOL_FINGER without INPUT_PROP_DIRECT)"
        case .tabletPen: "tablet pen or stylus (BTN_TOOL_PEN / BTN_STYLUS)"
        case .absolutePointer:
            "absolute pointer with mouse buttons and no BTN_TOUCH (set force-touchscreen to use it as a single-touch panel)"
        case .notDirect: "absolute axes without BTN_TOUCH or INPUT_PROP_DIRECT"
        case .slotsWithoutTrackingID: "multitouch slots without ABS_MT_TRACKING_ID"
        case .notATouchscreen(let udevType): "not a touchscreen according to udev (\(udevType))"
        case .disabledByConfiguration: "disabled by configuration"
        case .cannotOpen(let why): "cannot open: \(why)"
        case .passthroughMirror: "a gestured passthrough mirror (never read back)"
        case .emptyAxisRange(let axis, let minimum, let maximum):
            "its \(axis) axis has no range (minimum \(minimum), maximum \(maximum)): "
                + "no position it reports can be placed on the panel"
        }
    }

    /// A short stable key for JSON output.
    public var key: String {
        switch self {
        case .noPositionAxes: "no-position-axes"
        case .touchpad: "touchpad"
        case .tabletPen: "tablet-pen"
        case .absolutePointer: "absolute-pointer"
        case .notDirect: "not-direct"
        case .slotsWithoutTrackingID: "slots-without-tracking-id"
        case .notATouchscreen: "not-a-touchscreen"
        case .disabledByConfiguration: "disabled"
        case .cannotOpen: "cannot-open"
        case .passthroughMirror: "passthrough-mirror"
        case .emptyAxisRange: "empty-axis-range"
        }
    }
}

/// Decides from capabilities alone whether a device is a touchscreen and how it reports contacts.
///
/// The rules follow udev's `input_id` builtin (the source of `ID_INPUT_TOUCHSCREEN`), so the
/// fallback without udevd agrees with udev: pen → tablet; BTN_TOOL_FINGER without
/// INPUT_PROP_DIRECT → touchpad; absolute X/Y with mouse buttons → pointer; otherwise BTN_TOUCH or
/// INPUT_PROP_DIRECT → touchscreen. Pre-3.x recordings (3M, WeTab) lack INPUT_PROP_DIRECT but have
/// BTN_TOUCH and are touchscreens; "Anton Touch Pad" has INPUT_PROP_DIRECT and is one too.
public enum DeviceClassifier {
    /// The verdict for `description`; `forceTouchscreen` accepts absolute pointers and indirect
    /// devices as touchscreens (a device setting for panels in mouse emulation).
    public static func classify(
        _ description: DeviceCapabilities, forceTouchscreen: Bool = false
    ) -> Result<TouchProtocol, SkipReason> {
        let d = description
        let isDirect = d.has(property: EventCode.propDirect)
        let hasSingle = d.hasAxis(EventCode.absX) && d.hasAxis(EventCode.absY)
        var hasMT = d.hasAxis(EventCode.absMTPositionX) && d.hasAxis(EventCode.absMTPositionY)
        // udev: a device that claims every axis up to ABS_MT_SLOT (joystick junk) is not multitouch.
        if hasMT && d.hasAxis(EventCode.absMTSlot) && d.hasAxis(EventCode.absMTSlot - 1) { hasMT = false }
        guard hasSingle || hasMT else { return .failure(.noPositionAxes) }

        let key = EventCode.evKey
        let hasTouch = d.has(key, EventCode.btnTouch)
        let hasPen = d.has(key, EventCode.btnToolPen) || d.has(key, EventCode.btnStylus)
        let fingerButNoPen = d.has(key, EventCode.btnToolFinger) && !d.has(key, EventCode.btnToolPen)
        let mouseButton = (EventCode.btnLeft..<EventCode.btnJoystick).first { d.has(key, $0) }

        if !forceTouchscreen {
            if hasPen { return .failure(.tabletPen) }
            if fingerButNoPen && !isDirect { return .failure(.touchpad) }
            if !hasMT && mouseButton != nil && !hasTouch { return .failure(.absolutePointer) }
            if !hasTouch && !isDirect { return .failure(.notDirect) }
        }

        if hasMT {
            if let slots = d.slotCount {
                guard d.hasAxis(EventCode.absMTTrackingID) else { return .failure(.slotsWithoutTrackingID) }
                return .success(.slots(count: slots))
            }
            return .success(.protocolA)
        }
        let button = hasTouch ? EventCode.btnTouch : (mouseButton ?? EventCode.btnTouch)
        return .success(.singleTouch(button: button))
    }
}
