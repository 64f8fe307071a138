import GestureEngine

/// `touch`: one raw touch as a region's views see it (rule R8 of docs/ARBITRATION.md), sent to
/// clients that subscribed with `"touches": true`.
///
/// ```json
/// {"type":"touch","seq":43,"device":"event5","region":"root","touch":7,"phase":"moved",
///  "time_us":1234567890,"position":{"x":0.5,"y":0.25},"position_mm":{"x":172,"y":48.4},
///  "tool":"finger"}
/// ```
/// Touches may arrive later than the frame that caused them (`delays-touches-began`/`-ended`),
/// keep their original `time_us`, and a touch a recognizer claims with `cancels-touches` arrives
/// with phase `cancelled`.
///
/// The message is the engine's ``Touch`` (read through the message: `message.phase`,
/// `message.position`) with where and when it happened and what the wire adds: `seq`, the device's
/// label, the position in millimetres. Its numbers are rounded to six decimals, so a decoded
/// message equals the one sent. Each key is one line of ``fields(_:)``.
@dynamicMemberLookup
public struct TouchMessage: Hashable, Sendable {
    public static let type = "touch"

    /// Shares the counter of ``GestureMessage/seq``.
    public var seq: UInt64
    public var device: String
    /// The region the touch landed in.
    public var region: String
    /// The time of the frame that produced it (a held touch keeps it).
    public var time: Timestamp
    /// The touch as that frame had it: its id (unique on its device while the daemon runs), phase,
    /// position, tool, and contact size and pressure when the device reports them. The device's
    /// own values (``Touch/raw``) are not sent.
    public var touch: Touch
    /// The position in millimetres, when the device's physical size is known.
    public var positionMM: PhysicalPoint?

    public init(
        seq: UInt64, device: String, region: String, time: Timestamp, touch: Touch, positionMM: PhysicalPoint? = nil
    ) {
        self.seq = seq
        self.device = device
        self.region = region
        self.time = time
        self.touch = touch
        self.positionMM = positionMM
    }

    public subscript<Value>(dynamicMember field: WritableKeyPath<Touch, Value>) -> Value {
        get { touch[keyPath: field] }
        set { touch[keyPath: field] = newValue }
    }

    /// The message for one view event; `device` is the descriptor of `event.device` (its label
    /// names the device, its geometry gives millimetres when the size is known). Numbers are
    /// rounded as ``fields(_:)`` says (six decimals).
    public init(_ event: ViewTouchEvent, device: DeviceDescriptor, seq: UInt64) {
        var touch = event.touch
        touch.raw = nil
        self = TouchMessage(
            seq: seq, device: device.label, region: event.region, time: event.time, touch: touch,
            positionMM: device.geometry.physical(touch.position)
        ).roundedForWire()
    }
}

extension TouchMessage: WireMessage {
    /// The table of a `touch` line, in key order (as ``GestureMessage/fields(_:)``). `seq`,
    /// `device` and `position_mm` (the device's geometry) come from the mapping
    /// (``TouchMessage/init(_:device:seq:)``), the rest from the engine's view event.
    static func fields(_ v: inout some WireFieldVisitor<Self>) {
        v.field("device", \.device)
        v.field("phase", \.touch.phase)
        v.field("position", \.touch.position, .sixDecimals)
        v.field("position_mm", \.positionMM, .sixDecimals, absent: .null)
        v.field("pressure", \.touch.pressure, .sixDecimals, absent: .omitted)
        v.field("region", \.region)
        v.field("seq", \.seq)
        v.field("size_mm", \.touch.contactSize, .sixDecimals, absent: .omitted)
        v.field("time_us", \.time)
        v.field("tool", \.touch.tool)
        v.field("touch", \.touch.id)
        v.type()
    }

    static var blank: TouchMessage {
        TouchMessage(
            seq: 0, device: "", region: "", time: Timestamp(microseconds: 0),
            touch: Touch(id: TouchID(0), phase: .began, position: SurfacePoint(x: 0, y: 0)))
    }
}
