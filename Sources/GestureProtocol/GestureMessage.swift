import GestureEngine

/// `gesture`: one report of a recognizer.
///
/// ```json
/// {"type":"gesture","seq":42,"name":"swipe","kind":"swipe","state":"recognized","fingers":2,
///  "touches":[7,8],"device":"event5","region":"root","time_us":1234567890,
///  "position":{"x":0.61,"y":0.4},"position_mm":{"x":209.8,"y":77.4},
///  "translation":{"x":0.3,"y":0.01},"translation_mm":{"x":103.2,"y":1.9},
///  "velocity":{"x":1.9,"y":0.05},"velocity_mm":{"x":653.6,"y":9.7},"direction":"right"}
/// ```
/// Positions are in surface coordinates (0…1, origin top-left) and, under the `_mm` keys, in
/// millimetres; the `_mm` keys are always present and `null` when the device's physical size is
/// unknown. Kind-specific keys (`scale`, `rotation`, `direction`, `edge`, `shape`, `score`, …)
/// are present only when the recognizer reports them.
///
/// The message is the engine's ``GestureReport`` (read through the message: `message.name`,
/// `message.position`) with what the wire adds: `seq` and the device's label. Its numbers are
/// rounded to six decimals, so a decoded message equals the one sent. Each key is one line of
/// ``fields(_:)``.
@dynamicMemberLookup
public struct GestureMessage: Hashable, Sendable {
    public static let type = "gesture"

    /// Increases by one for every `gesture` and `touch` some connection takes (docs/PROTOCOL.md,
    /// §5, the `seq` rule; GestureServer's `WireMapping`): a connection sees gaps where messages
    /// went to other connections only, or where coalescing left them out (a slow client).
    public var seq: UInt64
    /// The device's label (`event5`), as in `hello` and `device`.
    public var device: String
    /// What the recognizer reported, its numbers rounded to six decimals.
    public var report: GestureReport

    public init(seq: UInt64, device: String, report: GestureReport) {
        self.seq = seq
        self.device = device
        self.report = report
    }

    public subscript<Value>(dynamicMember field: WritableKeyPath<GestureReport, Value>) -> Value {
        get { report[keyPath: field] }
        set { report[keyPath: field] = newValue }
    }

    /// The message for one engine report. `deviceLabel` is the label of `event.device`; `seq` is
    /// the publisher's counter. Numbers are rounded as ``fields(_:)`` says (six decimals; a
    /// non-finite optional one, which JSON cannot carry, becomes absent).
    public init(_ event: GestureEvent, deviceLabel: String, seq: UInt64) {
        self = GestureMessage(seq: seq, device: deviceLabel, report: event.report).roundedForWire()
    }
}

extension GestureMessage: WireMessage {
    /// The table of a `gesture` line, in key order: each key, where its value comes from, its
    /// rounding and, for a key a message may lack, how a line shows that. `seq` and `device` come
    /// from the mapping (``GestureMessage/init(_:deviceLabel:seq:)``), the rest from the engine's
    /// report.
    static func fields(_ v: inout some WireFieldVisitor<Self>) {
        v.field("device", \.device)
        v.field("direction", \.report.direction, absent: .omitted)
        v.field("edge", \.report.edge, absent: .omitted)
        v.field("fingers", \.report.fingers)
        v.field("kind", \.report.kind)
        v.field("name", \.report.name)
        v.field("position", \.report.position, .sixDecimals)
        v.field("position_mm", \.report.positionMM, .sixDecimals, absent: .null)
        v.field("region", \.report.region)
        v.field("rotation", \.report.rotation, .sixDecimals, absent: .omitted)
        v.field("rotation_velocity", \.report.rotationVelocity, .sixDecimals, absent: .omitted)
        v.field("scale", \.report.scale, .sixDecimals, absent: .omitted)
        v.field("scale_velocity", \.report.scaleVelocity, .sixDecimals, absent: .omitted)
        v.field("score", \.report.score, .sixDecimals, absent: .omitted)
        v.field("seq", \.seq)
        v.field("shape", \.report.shape, absent: .omitted)
        v.field("start_time_us", \.report.startTime)
        v.field("state", \.report.state)
        v.field("time_us", \.report.time)
        v.field("touches", \.report.touches)
        v.field("translation", \.report.translation, .sixDecimals)
        v.field("translation_mm", \.report.translationMM, .sixDecimals, absent: .null)
        v.type()
        v.field("velocity", \.report.velocity, .sixDecimals)
        v.field("velocity_mm", \.report.velocityMM, .sixDecimals, absent: .null)
    }

    static var blank: GestureMessage {
        GestureMessage(
            seq: 0, device: "",
            report: GestureReport(
                name: "", kind: .tap, state: .recognized, region: "", fingers: 0, time: Timestamp(microseconds: 0),
                position: SurfacePoint(x: 0, y: 0)))
    }
}
