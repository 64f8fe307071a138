import GestureEngine

/// `explain`: why a recognizer failed, waits, or was blocked or cancelled — the
/// engine's ``Explanation`` with its sentence for people.
///
/// ```json
/// {"check":"stroke-too-short","decision":"failed","device":"demo.evemu","key":"min-distance-mm","kind":"swipe","limit":20,"measured":12.3,"name":"next-page","region":"root","text":"swipe \"next-page\" failed at 1.104 s: stroke 12.3 mm < min-distance-mm 20","time_us":1104000,"type":"explain"}
/// {"decision":"blocked","device":"demo.evemu","kind":"swipe","name":"swipe","other":"pan","region":"root","rule":"R5","text":"swipe \"swipe\" blocked at 2.410 s: \"pan\" began first and they are not simultaneous (R5)","time_us":2410000,"type":"explain"}
/// ```
/// Sent only to connections that subscribed with `"explain": true` (and by `gestured replay
/// --explain`); it carries no `seq`, so the numbering of `gesture` and `touch` is the same with
/// or without it. docs/PROTOCOL.md §7 lists the decisions, checks and keys.
public struct ExplainMessage: Hashable, Sendable, Codable, TypedMessage {
    public static let type = "explain"
    /// Its `type` key (``MessageType``).
    var messageType = MessageType<ExplainMessage>()

    /// The recognizer the decision is about.
    public var name: String
    public var kind: GestureKind
    public var device: String
    public var region: String
    public var timeUS: Int64
    /// `failed`, `refused`, `ignored`, `stranded`, `gate`, `waits`, `released`,
    /// `requirement-succeeded`, `blocked`, `excluded`, `preempted`, `keeps-watching`,
    /// `simultaneous`, `delays-touch`, `holds-touch-end`, `claims-touch`, `fault`.
    public var decision: String
    /// `R1`…`R9`; absent for a failure of the recognizer's own checks on a frame.
    public var rule: String?
    /// A failed check (`stroke-too-short`), a gate condition (`min-fingers`), a filter
    /// (`tools`) or a fault (`device-removed`).
    public var check: String?
    /// The configuration key the limit comes from (`min-distance-mm`, `when.min-fingers`).
    public var key: String?
    public var measured: Double?
    public var limit: Double?
    /// The other recognizer of an R4–R6 decision.
    public var other: String?
    /// The touch an R1, R3, R8 or R9 decision is about.
    public var touch: UInt32?
    /// The decision as a sentence.
    public var text: String

    enum CodingKeys: String, CodingKey {
        case messageType = "type", name, kind, device, region, decision, rule, check, key, measured, limit, other
        case touch, text
        case timeUS = "time_us"
    }

    /// The message of an engine explanation on the device labelled `deviceLabel`: the reason's
    /// texts (``DecisionReason``) with the decision's values in their braces.
    public init(_ e: Explanation, deviceLabel: String) {
        let d = e.decision
        let reason = d.reason
        name = e.name
        kind = e.kind
        device = deviceLabel
        region = e.region
        timeUS = e.time.microseconds
        rule = e.rule?.description
        decision = reason.decision
        check = d.failure?.check.rawValue ?? reason.check
        key = d.failure.map { $0.key?.rawValue } ?? reason.key
        measured = d.failure?.measured ?? d.measured
        limit = d.failure?.limit ?? d.limit
        other = d.other
        touch = d.touch?.rawValue
        let values = Values(d, key: key)
        let sentence = values.fill(reason.sentence)
        var text = "\(e.kind.rawValue) \"\(e.name)\" \(values.fill(reason.verb)) at \(Self.seconds(timeUS))"
        text += sentence.hasPrefix(" ") ? sentence : ": " + sentence
        if let rule { text += " (\(rule))" }
        self.text = text
    }

    /// Kernel time as seconds with milliseconds (`1.104 s`).
    static func seconds(_ us: Int64) -> String {
        let ms = (us + (us >= 0 ? 500 : -500)) / 1000
        let fraction = String(abs(ms) % 1000)
        return (ms < 0 ? "-" : "") + "\(abs(ms) / 1000)." + String(repeating: "0", count: 3 - fraction.count)
            + fraction + " s"
    }

    /// A number with at most `decimals` decimals, trailing zeros dropped (`20`, `12.3`, `0.62`):
    /// how explanations (and `replay --svg`'s coordinates) write numbers.
    public static func number(_ x: Double, _ decimals: Int = 1) -> String {
        guard x.isFinite else { return "\(x)" }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = Int64((abs(x) * scale).rounded())
        var text = String(scaled)
        if decimals > 0 {
            if text.count <= decimals { text = String(repeating: "0", count: decimals - text.count + 1) + text }
            text.insert(".", at: text.index(text.endIndex, offsetBy: -decimals))
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return (x < 0 && scaled != 0 ? "-" : "") + text
    }
}

/// What a reason's braces stand for in one decision (``DecisionReason`` lists them).
private struct Values {
    let decision: Decision
    let key: String?

    init(_ decision: Decision, key: String?) {
        self.decision = decision
        self.key = key
    }

    /// `template` with each `{name}` replaced by its value; a name it does not know stays as it is.
    func fill(_ template: String) -> String {
        var text = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            text += rest[..<open]
            text += value(rest[rest.index(after: open)..<close]) ?? String(rest[open...close])
            rest = rest[rest.index(after: close)...]
        }
        return text + rest
    }

    private func value(_ name: Substring) -> String? {
        let measured = decision.failure?.measured ?? decision.measured ?? 0
        let limit = decision.failure?.limit ?? decision.limit ?? 0
        return switch name {
        case "m": Self.pair(measured, limit).0
        case "l": Self.pair(measured, limit).1
        case "rm": Self.pair(measured, limit, decimals: 3).0
        case "rl": Self.pair(measured, limit, decimals: 3).1
        case "key": key ?? ""
        case "fingers": Self.fingers(Int(measured))
        case "other": decision.other
        case "touch": decision.touch.map { "\($0.rawValue)" }
        case "tool": decision.tool?.rawValue
        case "check": decision.failure.map { fill($0.check.sentence) }
        default: nil
        }
    }

    static func fingers(_ n: Int) -> String { n == 1 ? "1 finger" : "\(n) fingers" }

    /// A measured value and its limit written with `decimals` decimals, or with as many more as
    /// it takes (up to 6, then in full) for two different numbers not to read the same and for
    /// neither to read 0 when it is not: a comparison must show why it failed (`size 0.004 mm <
    /// min-size-mm 0.01`, not `size 0 mm < min-size-mm 0`).
    static func pair(_ measured: Double, _ limit: Double, decimals: Int = 1) -> (String, String) {
        var decimals = decimals
        while true {
            let (m, l) = (ExplainMessage.number(measured, decimals), ExplainMessage.number(limit, decimals))
            let hidden = (m == l && measured != limit) || (m == "0" && measured != 0) || (l == "0" && limit != 0)
            if !hidden { return (m, l) }
            if decimals == 6 { return ("\(measured)", "\(limit)") }
            decimals += 1
        }
    }
}
