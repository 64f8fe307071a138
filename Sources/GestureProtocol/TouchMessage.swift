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
public struct TouchMessage: Hashable, Sendable {
    public static let type = "touch"

    /// Shares the counter of ``GestureMessage/seq``.
    public var seq: UInt64
    public var device: String
    /// The region the touch landed in.
    public var region: String
    /// The touch id: unique on its device while the daemon runs.
    public var touch: UInt32
    public var phase: TouchPhase
    public var timeUS: Int64
    public var position: XY
    public var positionMM: XY?
    public var tool: ToolType
    /// The contact's major axis in millimetres, when the device reports it.
    public var sizeMM: Double?
    /// 0…1, when the device reports pressure.
    public var pressure: Double?

    public init(
        seq: UInt64, device: String, region: String, touch: UInt32, phase: TouchPhase, timeUS: Int64,
        position: XY, positionMM: XY? = nil, tool: ToolType = .finger, sizeMM: Double? = nil, pressure: Double? = nil
    ) {
        self.seq = seq
        self.device = device
        self.region = region
        self.touch = touch
        self.phase = phase
        self.timeUS = timeUS
        self.position = position
        self.positionMM = positionMM
        self.tool = tool
        self.sizeMM = sizeMM
        self.pressure = pressure
    }

    /// The message for one view event; `device` is the descriptor of `event.device` (its label
    /// names the device, its geometry gives millimetres when the size is known). Numbers are
    /// rounded to six decimals (``WireNumber``).
    public init(_ event: ViewTouchEvent, device: DeviceDescriptor, seq: UInt64) {
        let t = event.touch
        self.init(
            seq: seq, device: device.label, region: event.region, touch: t.id.rawValue, phase: t.phase,
            timeUS: event.time.microseconds, position: WireNumber.rounded(XY(t.position)),
            positionMM: WireNumber.rounded(
                device.geometry.physical(t.position).map(XY.init).flatMap { $0.isFinite ? $0 : nil }),
            tool: t.tool, sizeMM: WireNumber.rounded(t.contactSize.flatMap { $0.value.isFinite ? $0.value : nil }),
            pressure: WireNumber.rounded(t.pressure.flatMap { $0.isFinite ? $0 : nil })
        )
    }

    /// The wire spelling of a phase.
    static func spelling(_ phase: TouchPhase) -> String { phase.description }

    static func phase(_ spelling: String) -> TouchPhase? {
        switch spelling {
        case "began": .began
        case "moved": .moved
        case "stationary": .stationary
        case "ended": .ended
        case "cancelled": .cancelled
        default: nil
        }
    }
}

extension TouchMessage: Codable {
    enum CodingKeys: String, CodingKey {
        case type, seq, device, region, touch, phase
        case timeUS = "time_us"
        case position, positionMM = "position_mm", tool
        case sizeMM = "size_mm", pressure
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try c.expectType(Self.type)
        seq = try c.decode(UInt64.self, forKey: .seq)
        device = try c.decode(String.self, forKey: .device)
        region = try c.decode(String.self, forKey: .region)
        touch = try c.decode(UInt32.self, forKey: .touch)
        let spelling = try c.decode(String.self, forKey: .phase)
        guard let phase = Self.phase(spelling) else {
            throw DecodingError.dataCorruptedError(
                forKey: .phase, in: c, debugDescription: "unknown touch phase '\(spelling)'")
        }
        self.phase = phase
        timeUS = try c.decode(Int64.self, forKey: .timeUS)
        position = try c.decode(XY.self, forKey: .position)
        positionMM = try c.decodeIfPresent(XY.self, forKey: .positionMM)
        tool = try c.decode(ToolType.self, forKey: .tool)
        sizeMM = try c.decodeIfPresent(Double.self, forKey: .sizeMM)
        pressure = try c.decodeIfPresent(Double.self, forKey: .pressure)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Self.type, forKey: .type)
        try c.encode(seq, forKey: .seq)
        try c.encode(device, forKey: .device)
        try c.encode(region, forKey: .region)
        try c.encode(touch, forKey: .touch)
        try c.encode(Self.spelling(phase), forKey: .phase)
        try c.encode(timeUS, forKey: .timeUS)
        try c.encode(position, forKey: .position)
        try c.encode(positionMM, forKey: .positionMM)
        try c.encode(tool, forKey: .tool)
        try c.encodeIfPresent(sizeMM, forKey: .sizeMM)
        try c.encodeIfPresent(pressure, forKey: .pressure)
    }
}
