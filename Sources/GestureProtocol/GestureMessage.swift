import GestureEngine

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
public struct GestureMessage: Hashable, Sendable {
    public static let type = "gesture"

    /// Increases by one for every `gesture` and `touch` some connection takes (docs/PROTOCOL.md,
    /// §5, the `seq` rule; GestureServer's `WireMapping`): a connection sees gaps where messages
    /// went to other connections only, or where coalescing left them out (a slow client).
    public var seq: UInt64
    /// The recognizer's name (configuration or `define`).
    public var name: String
    public var kind: GestureKind
    public var state: GestureState
    public var fingers: Int
    /// Touch ids taking part (at most 16 are listed; `fingers` is the true count).
    public var touches: [UInt32]
    /// The device's label (`event5`), as in `hello` and `device`.
    public var device: String
    /// The region the recognizer is attached to.
    public var region: String
    /// Kernel time (CLOCK_MONOTONIC) of the input that caused this report, in microseconds.
    public var timeUS: Int64
    public var position: XY
    public var positionMM: XY?
    public var translation: XY
    public var translationMM: XY?
    /// Per second.
    public var velocity: XY
    public var velocityMM: XY?
    public var scale: Double?
    /// Radians, positive clockwise on the surface.
    public var rotation: Double?
    public var scaleVelocity: Double?
    public var rotationVelocity: Double?
    public var direction: Direction?
    public var edge: Edge?
    public var shape: String?
    public var score: Double?

    public init(
        seq: UInt64, name: String, kind: GestureKind, state: GestureState, fingers: Int, touches: [UInt32],
        device: String, region: String, timeUS: Int64, position: XY, positionMM: XY? = nil,
        translation: XY = XY(x: 0, y: 0), translationMM: XY? = nil, velocity: XY = XY(x: 0, y: 0),
        velocityMM: XY? = nil, scale: Double? = nil, rotation: Double? = nil, scaleVelocity: Double? = nil,
        rotationVelocity: Double? = nil, direction: Direction? = nil, edge: Edge? = nil, shape: String? = nil,
        score: Double? = nil
    ) {
        self.seq = seq
        self.name = name
        self.kind = kind
        self.state = state
        self.fingers = fingers
        self.touches = touches
        self.device = device
        self.region = region
        self.timeUS = timeUS
        self.position = position
        self.positionMM = positionMM
        self.translation = translation
        self.translationMM = translationMM
        self.velocity = velocity
        self.velocityMM = velocityMM
        self.scale = scale
        self.rotation = rotation
        self.scaleVelocity = scaleVelocity
        self.rotationVelocity = rotationVelocity
        self.direction = direction
        self.edge = edge
        self.shape = shape
        self.score = score
    }

    /// The message for one engine report. `deviceLabel` is the label of `event.device`; `seq` is
    /// the publisher's counter. Numbers are rounded to six decimals (``WireNumber``); non-finite
    /// ones (which JSON cannot carry) become absent.
    public init(_ event: GestureEvent, deviceLabel: String, seq: UInt64) {
        func finite(_ v: Double?) -> Double? { v.flatMap { $0.isFinite ? WireNumber.rounded($0) : nil } }
        func finite(_ v: XY?) -> XY? { v.flatMap { $0.isFinite ? WireNumber.rounded($0) : nil } }
        self.init(
            seq: seq, name: event.name, kind: event.kind, state: event.state, fingers: event.fingers,
            touches: event.touches.map { $0.rawValue }, device: deviceLabel, region: event.region,
            timeUS: event.time.microseconds, position: WireNumber.rounded(XY(event.position)),
            positionMM: finite(event.positionMM.map(XY.init)), translation: WireNumber.rounded(XY(event.translation)),
            translationMM: finite(event.translationMM.map(XY.init)), velocity: WireNumber.rounded(XY(event.velocity)),
            velocityMM: finite(event.velocityMM.map(XY.init)), scale: finite(event.scale),
            rotation: finite(event.rotation), scaleVelocity: finite(event.scaleVelocity),
            rotationVelocity: finite(event.rotationVelocity), direction: event.direction, edge: event.edge,
            shape: event.shape, score: finite(event.score)
        )
    }
}

extension GestureMessage: Codable {
    enum CodingKeys: String, CodingKey {
        case type, seq, name, kind, state, fingers, touches, device, region
        case timeUS = "time_us"
        case position, positionMM = "position_mm", translation, translationMM = "translation_mm"
        case velocity, velocityMM = "velocity_mm", scale, rotation
        case scaleVelocity = "scale_velocity", rotationVelocity = "rotation_velocity"
        case direction, edge, shape, score
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try c.expectType(Self.type)
        seq = try c.decode(UInt64.self, forKey: .seq)
        name = try c.decode(String.self, forKey: .name)
        kind = try c.decode(GestureKind.self, forKey: .kind)
        state = try c.decode(GestureState.self, forKey: .state)
        fingers = try c.decode(Int.self, forKey: .fingers)
        touches = try c.decodeIfPresent([UInt32].self, forKey: .touches) ?? []
        device = try c.decode(String.self, forKey: .device)
        region = try c.decode(String.self, forKey: .region)
        timeUS = try c.decode(Int64.self, forKey: .timeUS)
        position = try c.decode(XY.self, forKey: .position)
        positionMM = try c.decodeIfPresent(XY.self, forKey: .positionMM)
        translation = try c.decodeIfPresent(XY.self, forKey: .translation) ?? XY(x: 0, y: 0)
        translationMM = try c.decodeIfPresent(XY.self, forKey: .translationMM)
        velocity = try c.decodeIfPresent(XY.self, forKey: .velocity) ?? XY(x: 0, y: 0)
        velocityMM = try c.decodeIfPresent(XY.self, forKey: .velocityMM)
        scale = try c.decodeIfPresent(Double.self, forKey: .scale)
        rotation = try c.decodeIfPresent(Double.self, forKey: .rotation)
        scaleVelocity = try c.decodeIfPresent(Double.self, forKey: .scaleVelocity)
        rotationVelocity = try c.decodeIfPresent(Double.self, forKey: .rotationVelocity)
        direction = try c.decodeIfPresent(Direction.self, forKey: .direction)
        edge = try c.decodeIfPresent(Edge.self, forKey: .edge)
        shape = try c.decodeIfPresent(String.self, forKey: .shape)
        score = try c.decodeIfPresent(Double.self, forKey: .score)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Self.type, forKey: .type)
        try c.encode(seq, forKey: .seq)
        try c.encode(name, forKey: .name)
        try c.encode(kind, forKey: .kind)
        try c.encode(state, forKey: .state)
        try c.encode(fingers, forKey: .fingers)
        try c.encode(touches, forKey: .touches)
        try c.encode(device, forKey: .device)
        try c.encode(region, forKey: .region)
        try c.encode(timeUS, forKey: .timeUS)
        try c.encode(position, forKey: .position)
        // The millimetre keys are always there, `null` when unknown, so a client can tell
        // "this device has no known size" from "this daemon is too old to say".
        try c.encode(positionMM, forKey: .positionMM)
        try c.encode(translation, forKey: .translation)
        try c.encode(translationMM, forKey: .translationMM)
        try c.encode(velocity, forKey: .velocity)
        try c.encode(velocityMM, forKey: .velocityMM)
        try c.encodeIfPresent(scale, forKey: .scale)
        try c.encodeIfPresent(rotation, forKey: .rotation)
        try c.encodeIfPresent(scaleVelocity, forKey: .scaleVelocity)
        try c.encodeIfPresent(rotationVelocity, forKey: .rotationVelocity)
        try c.encodeIfPresent(direction, forKey: .direction)
        try c.encodeIfPresent(edge, forKey: .edge)
        try c.encodeIfPresent(shape, forKey: .shape)
        try c.encodeIfPresent(score, forKey: .score)
    }
}

extension KeyedDecodingContainer where Key: CodingKey {
    /// Checks the `type` key of a message decoded on its own (outside ``ServerMessage``).
    func expectType(_ type: String) throws {
        let key = Key(stringValue: "type")!
        let found = try decode(String.self, forKey: key)
        guard found == type else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "expected type '\(type)', found '\(found)'")
        }
    }
}
