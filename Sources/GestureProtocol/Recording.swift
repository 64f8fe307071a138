import EvdevValues
import GestureEngine

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a `record` request asks for (docs/PROTOCOL.md, "record"): the panel's raw events, as the
/// daemon reads them, streamed to this connection until it sends `stop-recording`, the duration
/// ends, the panel goes, or the connection closes.
///
/// ```json
/// {"type":"record","id":1,"device":"event5","duration_ms":60000}
/// ```
public struct RecordOptions: RequestFields {
    /// The panel: its label (`event5`, as in `hello` and `device`) or its node
    /// (`/dev/input/event5`); nil when the daemon has exactly one.
    public var device: String?
    /// How long to record (ms); nil: until `stop-recording` or the connection closes.
    public var durationMS: Int?

    public init(device: String? = nil, durationMS: Int? = nil) {
        self.device = device
        self.durationMS = durationMS
    }

    /// The longest recording one request may ask for: a day.
    public static let maximumDurationMS = 86_400_000

    public enum Keys: String, CaseIterable {
        case device
        case durationMS = "duration_ms"
    }

    /// Decodes the options from a `record` object; every problem is an `invalid-message` error
    /// naming its key.
    public init(from object: KeyedDecodingContainer<AnyCodingKey>, id: RequestID?) throws(ErrorMessage) {
        let deviceKey = AnyCodingKey(stringValue: Keys.device.rawValue)
        if object.contains(deviceKey) {
            guard let device = try? object.decode(String.self, forKey: deviceKey),
                !device.isEmpty, device.utf8.count <= 4096
            else {
                throw ErrorMessage(
                    code: .invalidMessage, message: "'device' must be a device label or node of 1 to 4096 bytes",
                    id: id, path: "/device")
            }
            self.device = device
        }
        let durationKey = AnyCodingKey(stringValue: Keys.durationMS.rawValue)
        if object.contains(durationKey) {
            guard let duration = try? object.decode(Int.self, forKey: durationKey),
                (1...Self.maximumDurationMS).contains(duration)
            else {
                throw ErrorMessage(
                    code: .invalidMessage,
                    message: "'duration_ms' must be a whole number of milliseconds from 1 to \(Self.maximumDurationMS)",
                    id: id, path: "/duration_ms")
            }
            durationMS = duration
        }
    }

    public func encode(into c: inout KeyedEncodingContainer<AnyCodingKey>) throws {
        try c.encodeIfPresent(device, forKey: AnyCodingKey(stringValue: Keys.device.rawValue))
        try c.encodeIfPresent(durationMS, forKey: AnyCodingKey(stringValue: Keys.durationMS.rawValue))
    }
}

/// `recording`: a recording of a panel started (the answer to `record`, with the panel's
/// description) or stopped (with how many events it sent and why it ended; the answer to
/// `stop-recording` when that ended it).
///
/// ```json
/// {"description":{…},"device":"event5","event":"started","id":1,"type":"recording"}
/// {"device":"event5","event":"stopped","events":5812,"id":2,"reason":"requested","type":"recording"}
/// ```
public struct RecordingMessage: Hashable, Sendable {
    public static let type = "recording"

    public enum Event: String, Hashable, Sendable, Codable {
        case started, stopped
    }

    /// Why a recording ended.
    public enum StopReason: String, Hashable, Sendable, Codable, CaseIterable {
        /// The client sent `stop-recording`.
        case requested
        /// Its `duration_ms` ran out.
        case duration
        /// The panel went away (unplugged, or a replayed recording ended).
        case deviceRemoved = "device-removed"
        /// The daemon is stopping.
        case daemonStopping = "daemon-stopping"
    }

    public var event: Event
    /// The panel's label.
    public var device: String
    /// The request this answers (`record` for `started`, `stop-recording` for `stopped`).
    public var id: RequestID?
    /// `started`: what the panel is, as the kernel describes it (an evemu file's header).
    public var description: DeviceCapabilities?
    /// `stopped`: the events sent in `raw` messages.
    public var events: Int?
    /// `stopped`: why.
    public var reason: StopReason?

    /// The start of a recording of `device`, answering the request `id`.
    public static func started(device: String, description: DeviceCapabilities, id: RequestID?) -> RecordingMessage {
        RecordingMessage(event: .started, device: device, id: id, description: description)
    }

    /// The end of a recording of `device` after `events` events.
    public static func stopped(device: String, events: Int, reason: StopReason, id: RequestID?) -> RecordingMessage {
        RecordingMessage(event: .stopped, device: device, id: id, events: events, reason: reason)
    }

    public init(
        event: Event, device: String, id: RequestID? = nil, description: DeviceCapabilities? = nil,
        events: Int? = nil, reason: StopReason? = nil
    ) {
        self.event = event
        self.device = device
        self.id = id
        self.description = description
        self.events = events
        self.reason = reason
    }
}

/// Written by hand: the description is a nested object (a table of fields suits the flat
/// messages sent for every frame; this one is sent twice a recording).
extension RecordingMessage: Codable {
    enum CodingKeys: String, CodingKey { case type, event, device, id, description, events, reason }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try c.expectType(Self.type)
        event = try c.decode(Event.self, forKey: .event)
        device = try c.decode(String.self, forKey: .device)
        id = try c.decodeIfPresent(RequestID.self, forKey: .id)
        description = try c.decodeIfPresent(WireDescription.self, forKey: .description)?.capabilities
        events = try c.decodeIfPresent(Int.self, forKey: .events)
        reason = try c.decodeIfPresent(StopReason.self, forKey: .reason)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Self.type, forKey: .type)
        try c.encode(event, forKey: .event)
        try c.encode(device, forKey: .device)
        try c.encodeIfPresent(id, forKey: .id)
        try c.encodeIfPresent(description.map(WireDescription.init), forKey: .description)
        try c.encodeIfPresent(events, forKey: .events)
        try c.encodeIfPresent(reason, forKey: .reason)
    }
}

/// A device description on the wire: what an evemu file's `N:`, `I:`, `P:`, `B:` and `A:` lines
/// say, as JSON (event types and axis codes as decimal keys).
private struct WireDescription: Codable {
    struct ID: Codable {
        var bustype: UInt16
        var vendor: UInt16
        var product: UInt16
        var version: UInt16
    }

    struct Axis: Codable {
        var minimum: Int32
        var maximum: Int32
        var fuzz: Int32
        var flat: Int32
        var resolution: Int32
    }

    var name: String
    var id: ID
    var properties: [UInt16]
    /// Supported codes per event type (`"1"`: keys, `"3"`: absolute axes).
    var codes: [String: [UInt16]]
    /// Each absolute axis's range, by code.
    var axes: [String: Axis]

    init(_ d: DeviceCapabilities) {
        name = d.name
        id = ID(bustype: d.id.bustype, vendor: d.id.vendor, product: d.id.product, version: d.id.version)
        properties = d.properties.sorted()
        codes = Dictionary(uniqueKeysWithValues: d.codes.filter { !$0.value.isEmpty }.map { (String($0.key), $0.value.sorted()) })
        axes = Dictionary(
            uniqueKeysWithValues: d.absInfo.map {
                (
                    String($0.key),
                    Axis(
                        minimum: $0.value.minimum, maximum: $0.value.maximum, fuzz: $0.value.fuzz,
                        flat: $0.value.flat, resolution: $0.value.resolution)
                )
            })
    }

    var capabilities: DeviceCapabilities {
        get throws {
            var d = DeviceCapabilities(
                name: name, id: InputID(bustype: id.bustype, vendor: id.vendor, product: id.product, version: id.version),
                properties: Set(properties))
            for (type, list) in codes {
                guard let type = UInt16(type) else { throw WireValueProblem(message: "event type '\(type)' is not a number") }
                for code in list { d.addCode(type, code) }
            }
            for (code, axis) in axes {
                guard let code = UInt16(code) else { throw WireValueProblem(message: "axis '\(code)' is not a number") }
                d.addAxis(
                    code,
                    AbsInfo(
                        minimum: axis.minimum, maximum: axis.maximum, fuzz: axis.fuzz, flat: axis.flat,
                        resolution: axis.resolution))
            }
            return d
        }
    }
}

/// `raw`: events of a panel being recorded, as the daemon read them (before they were assembled
/// into frames), in order; one message for each read of the panel. Sent to the connections
/// recording it only.
///
/// ```json
/// {"device":"event5","events":[[1234567890,3,57,12],[1234567890,3,53,2048],[1234567890,0,0,0]],"type":"raw"}
/// ```
/// Each event is `[time_us, type, code, value]`: the kernel's timestamp (CLOCK_MONOTONIC µs, the
/// same clock as `time_us` in `gesture` messages), and its type, code and value.
public struct RawMessage: Hashable, Sendable {
    public static let type = "raw"

    public var device: String
    public var events: [InputEvent]

    public init(device: String, events: [InputEvent]) {
        self.device = device
        self.events = events
    }
}

extension RawMessage: WireMessage {
    static func fields(_ v: inout some WireFieldVisitor<Self>) {
        v.field("device", \.device)
        v.field("events", \.events)
        v.type()
    }

    static var blank: RawMessage { RawMessage(device: "", events: []) }
}

/// An evdev event as `[time_us, type, code, value]`.
extension InputEvent: WireValue {
    var wire: [Int64] { [time.microseconds, Int64(type), Int64(code), Int64(value)] }

    init(wire: [Int64]) throws {
        guard wire.count == 4, let type = UInt16(exactly: wire[1]), let code = UInt16(exactly: wire[2]),
            let value = Int32(exactly: wire[3])
        else {
            throw WireValueProblem(message: "an event is [time_us, type, code, value] with a 16-bit type and code and a 32-bit value")
        }
        self.init(time: Timestamp(microseconds: wire[0]), type: type, code: code, value: value)
    }

    func write(to writer: inout JSONWriter) {
        writer.raw("[")
        writer.integer(time.microseconds)
        writer.raw(",")
        writer.integer(Int(type))
        writer.raw(",")
        writer.integer(Int(code))
        writer.raw(",")
        writer.integer(Int(value))
        writer.raw("]")
    }
}

/// A list of values, as a JSON array.
extension Array: WireValue where Element: WireValue {
    var wire: [Element.Wire] { map(\.wire) }

    init(wire: [Element.Wire]) throws {
        self = try wire.map { try Element(wire: $0) }
    }

    func write(to writer: inout JSONWriter) throws {
        writer.raw("[")
        for (i, element) in enumerated() {
            if i > 0 { writer.raw(",") }
            try element.write(to: &writer)
        }
        writer.raw("]")
    }
}
