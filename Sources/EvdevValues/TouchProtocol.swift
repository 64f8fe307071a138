/// How a touchscreen reports its contacts.
public enum TouchProtocol: Hashable, Sendable, CustomStringConvertible {
    /// Multitouch protocol B: ABS_MT_SLOT + ABS_MT_TRACKING_ID (nearly every panel since 2010).
    case slots(count: Int)
    /// Multitouch protocol A: anonymous contacts separated by SYN_MT_REPORT, converted through mtdev.
    case protocolA
    /// ABS_X/ABS_Y and a touch button only: one contact (resistive kiosk panels).
    case singleTouch(button: UInt16)

    public var description: String {
        switch self {
        case .slots(let count): "multitouch, \(count) slots"
        case .protocolA: "multitouch protocol A (through mtdev)"
        case .singleTouch(let button): "single touch (\(EventCode.codeName(type: EventCode.evKey, code: button)))"
        }
    }
}
