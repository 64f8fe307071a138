/// Identifies a touchscreen for the life of the daemon (never reused after removal).
public struct DeviceID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var rawValue: UInt32
    @inlinable public init(_ rawValue: UInt32) { self.rawValue = rawValue }
    @inlinable public static func < (lhs: DeviceID, rhs: DeviceID) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "device#\(rawValue)" }
}

/// Identifies one contact from the moment it lands until it lifts.
///
/// Unlike the kernel's ABS_MT_TRACKING_ID, which devices reuse freely, a `TouchID` handed out by
/// the frame assembler is never reused on a device while the daemon runs.
public struct TouchID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var rawValue: UInt32
    @inlinable public init(_ rawValue: UInt32) { self.rawValue = rawValue }
    @inlinable public static func < (lhs: TouchID, rhs: TouchID) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "touch#\(rawValue)" }
}

/// Where a touch is in its life in this frame.
public enum TouchPhase: UInt8, Hashable, Sendable, CustomStringConvertible {
    /// Landed in this frame.
    case began
    /// Down before this frame and moved (or changed size or pressure) in it.
    case moved
    /// Down, unchanged in this frame.
    case stationary
    /// Lifted in this frame; its last position is the one given.
    case ended
    /// Will not end normally: the palm flag went up, the device went away, or events were lost.
    case cancelled

    public var description: String {
        switch self {
        case .began: "began"
        case .moved: "moved"
        case .stationary: "stationary"
        case .ended: "ended"
        case .cancelled: "cancelled"
        }
    }

    /// Whether the touch is still down after this frame.
    @inlinable public var isLive: Bool {
        switch self {
        case .began, .moved, .stationary: true
        case .ended, .cancelled: false
        }
    }
}

/// What is touching the glass (ABS_MT_TOOL_TYPE).
public enum ToolType: String, Hashable, Sendable, CaseIterable, Codable {
    case finger
    case pen
    case palm
}

/// A contact's values in the device's own units, exactly as the kernel reported them.
///
/// The frame assembler fills ``Touch/raw`` for contacts it reads; the engine never looks at it and
/// hands it on unchanged in view events (held ones included), so the passthrough mirror device
/// forwards the panel's original values instead of inverting calibration and rotation
/// (docs/PASSTHROUGH.md).
public struct RawContact: Hashable, Sendable {
    /// ABS_MT_POSITION_X/Y (ABS_X/Y on single-touch panels).
    public var position: DevicePoint
    /// ABS_MT_TOUCH_MAJOR; 0 when the device has none.
    public var touchMajor: Int32
    /// ABS_MT_PRESSURE (ABS_PRESSURE on single-touch panels); 0 when the device has none.
    public var pressure: Int32

    @inlinable public init(position: DevicePoint, touchMajor: Int32 = 0, pressure: Int32 = 0) {
        self.position = position
        self.touchMajor = touchMajor
        self.pressure = pressure
    }
}

/// One contact in one frame.
///
/// The stored properties are declared in the order that packs them into 64 bytes (the small
/// fields fill the padding after the optional doubles): touches are copied on every frame.
public struct Touch: Hashable, Sendable {
    /// Calibrated and rotated surface position.
    public var position: SurfacePoint
    /// The contact's major axis (ABS_MT_TOUCH_MAJOR) when the device reports one and its size is
    /// known; palm rejection filters on it.
    public var contactSize: Millimeters?
    public var phase: TouchPhase
    public var tool: ToolType
    public var id: TouchID
    /// Pressure normalised to 0…1 when the device reports it.
    public var pressure: Double?
    /// The device's own values (nil for touches not read from a device: tests, synthesized input).
    public var raw: RawContact?

    @inlinable public init(
        id: TouchID, phase: TouchPhase, position: SurfacePoint, tool: ToolType = .finger,
        contactSize: Millimeters? = nil, pressure: Double? = nil, raw: RawContact? = nil
    ) {
        self.id = id
        self.raw = raw
        self.phase = phase
        self.position = position
        self.tool = tool
        self.contactSize = contactSize
        self.pressure = pressure
    }
}

/// Everything a device said between two SYN_REPORTs: every live touch (stationary ones too) plus
/// the ones that ended or were cancelled in this frame.
public struct TouchFrame: Sendable {
    public var device: DeviceID
    /// The kernel timestamp of the SYN_REPORT.
    public var time: Timestamp
    public var touches: [Touch]

    @inlinable public init(device: DeviceID, time: Timestamp, touches: [Touch]) {
        self.device = device
        self.time = time
        self.touches = touches
    }
}

/// What the engine knows about a touchscreen.
public struct DeviceDescriptor: Hashable, Sendable {
    public var id: DeviceID
    /// A short label, unique while the device is present: the event node's name (`event5`), or a
    /// recording's file name during replay. Protocol messages name devices by it.
    public var label: String
    /// The kernel's device name (`EVIOCGNAME`), for `when:`/`accepts:` device globs.
    public var name: String
    public var geometry: SurfaceGeometry

    public init(id: DeviceID, label: String, name: String, geometry: SurfaceGeometry) {
        self.id = id
        self.label = label
        self.name = name
        self.geometry = geometry
    }
}
