import GestureEngine
import GestureProtocol

/// The environment variables a command gets for the gesture that started it (docs/ACTIONS.md).
/// A field the report does not have (a tap's direction) is not set.
///
/// Every value is one the protocol can say: names as the configuration spells them, a device
/// label without control characters and at most ``maximumLabelBytes`` long, numbers written
/// here. A report with anything else (a newline and `LD_PRELOAD=…`, `r;$(id)`, 100 000 bytes:
/// not the daemon's) is refused, not passed to a command.
public enum GestureEnvironment {
    /// The longest device label passed: a file name's (NAME_MAX), for a replayed recording's.
    public static let maximumLabelBytes = 255

    /// A report value that no daemon sends, and so no command gets.
    public struct Refusal: Error, Hashable, Sendable, CustomStringConvertible {
        /// The variable it would have set (`GESTURED_DEVICE`).
        public var variable: String
        /// What is wrong with it.
        public var problem: String

        public var description: String { "\(variable) \(problem)" }
    }

    /// `GESTURED_NAME`, `GESTURED_KIND`, `GESTURED_STATE`, `GESTURED_FINGERS`, `GESTURED_X`…, or
    /// the first value that the protocol cannot say.
    public static func variables(_ g: GestureMessage) throws(Refusal) -> [String: String] {
        try checkName(g.name, "GESTURED_NAME")
        try checkName(g.region, "GESTURED_REGION")
        if let shape = g.shape { try checkName(shape, "GESTURED_SHAPE") }
        try checkLabel(g.device, "GESTURED_DEVICE")
        var v: [String: String] = [
            "GESTURED_NAME": g.name,
            "GESTURED_KIND": g.kind.rawValue,
            "GESTURED_STATE": g.state.rawValue,
            "GESTURED_FINGERS": String(g.fingers),
            "GESTURED_DEVICE": g.device,
            "GESTURED_REGION": g.region,
            "GESTURED_SEQ": String(g.seq),
            "GESTURED_TIME_US": String(g.time.microseconds),
            "GESTURED_X": number(g.position.x),
            "GESTURED_Y": number(g.position.y),
            "GESTURED_TRANSLATION_X": number(g.translation.dx),
            "GESTURED_TRANSLATION_Y": number(g.translation.dy),
        ]
        if let p = g.positionMM {
            v["GESTURED_X_MM"] = number(p.x.value)
            v["GESTURED_Y_MM"] = number(p.y.value)
        }
        if let t = g.translationMM {
            v["GESTURED_TRANSLATION_X_MM"] = number(t.dx.value)
            v["GESTURED_TRANSLATION_Y_MM"] = number(t.dy.value)
        }
        v["GESTURED_DIRECTION"] = g.direction?.rawValue
        v["GESTURED_EDGE"] = g.edge?.rawValue
        v["GESTURED_SHAPE"] = g.shape
        v["GESTURED_SCALE"] = g.scale.map(number)
        v["GESTURED_ROTATION"] = g.rotation.map(number)
        return v
    }

    /// `GESTURED_EVENT` (`wake`, `idle`, `active`), `GESTURED_DEVICE`, `GESTURED_TIME_US`, and
    /// `GESTURED_TOUCH` (wake, active), `GESTURED_CAUSE`, `GESTURED_X`, `GESTURED_Y` (wake),
    /// `GESTURED_IDLE_MS` (idle): a panel's day; or the first value that the protocol cannot say.
    public static func variables(panel message: ServerMessage) throws(Refusal) -> [String: String] {
        var v = ["GESTURED_EVENT": message.type]
        switch message {
        case .wake(let w):
            try checkLabel(w.device, "GESTURED_DEVICE")
            v["GESTURED_DEVICE"] = w.device
            v["GESTURED_TIME_US"] = String(w.time.microseconds)
            v["GESTURED_TOUCH"] = String(w.touch.rawValue)
            v["GESTURED_CAUSE"] = w.cause.rawValue
            v["GESTURED_X"] = number(w.position.x)
            v["GESTURED_Y"] = number(w.position.y)
        case .idle(let i):
            try checkLabel(i.device, "GESTURED_DEVICE")
            v["GESTURED_DEVICE"] = i.device
            v["GESTURED_TIME_US"] = String(i.time.microseconds)
            v["GESTURED_IDLE_MS"] = String(i.afterMS)
        case .active(let a):
            try checkLabel(a.device, "GESTURED_DEVICE")
            v["GESTURED_DEVICE"] = a.device
            v["GESTURED_TIME_US"] = String(a.time.microseconds)
            v["GESTURED_TOUCH"] = String(a.touch.rawValue)
        default:
            break
        }
        return v
    }

    /// `GESTURED_EVENT` (`mqtt`), `GESTURED_RULE`, `GESTURED_TOPIC`, `GESTURED_PAYLOAD`: a rule that
    /// `gestured mqtt` runs for a message on one of its inbound topics. Every value is the mqtt
    /// file's own (the message matched its topic and payload exactly), never the broker's text.
    public static func variables(rule: String, topic: String, payload: String) -> [String: String] {
        [
            "GESTURED_EVENT": ActionRule.namedOnly, "GESTURED_RULE": rule, "GESTURED_TOPIC": topic,
            "GESTURED_PAYLOAD": payload,
        ]
    }

    /// Names of recognizers, regions and shape templates: the configuration's spelling.
    static func checkName(_ name: String, _ variable: String) throws(Refusal) {
        guard !RegionSpec.isValidName(name) else { return }
        throw Refusal(
            variable: variable,
            problem: "\(describe(name)) is not a name the daemon sends (1 to 64 letters, digits, '-', '_' or '.')")
    }

    /// Device labels: an event node's name, or a replayed recording's file name.
    static func checkLabel(_ label: String, _ variable: String) throws(Refusal) {
        let bytes = label.utf8.count
        if label.isEmpty || bytes > maximumLabelBytes {
            throw Refusal(
                variable: variable,
                problem: "is \(bytes) bytes long: a device label the daemon sends has 1 to \(maximumLabelBytes)")
        }
        if label.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw Refusal(
                variable: variable,
                problem: "\(describe(label)) holds a control character, which no device label the daemon sends has")
        }
    }

    /// A refused value for the journal: quoted with its control characters escaped, shortened.
    static func describe(_ value: String) -> String {
        var shown = ""
        for scalar in value.unicodeScalars.prefix(64) {
            shown += scalar.properties.generalCategory == .control ? scalar.escaped(asASCII: true) : String(scalar)
        }
        let more = value.unicodeScalars.count > 64 ? "… (\(value.utf8.count) bytes)" : ""
        return "'\(shown)'\(more)"
    }

    /// A number as the wire writes it (at most six decimals, no exponent for ordinary values).
    static func number(_ x: Double) -> String {
        let rounded = WireNumber.rounded(x)
        return rounded == rounded.rounded() && abs(rounded) < 1e15 ? String(Int64(rounded)) : String(rounded)
    }
}
