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
public struct ExplainMessage: Hashable, Sendable, Codable {
    public static let type = "explain"

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
        case type, name, kind, device, region, decision, rule, check, key, measured, limit, other, touch, text
        case timeUS = "time_us"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try c.expectType(Self.type)
        name = try c.decode(String.self, forKey: .name)
        kind = try c.decode(GestureKind.self, forKey: .kind)
        device = try c.decode(String.self, forKey: .device)
        region = try c.decode(String.self, forKey: .region)
        timeUS = try c.decode(Int64.self, forKey: .timeUS)
        decision = try c.decode(String.self, forKey: .decision)
        rule = try c.decodeIfPresent(String.self, forKey: .rule)
        check = try c.decodeIfPresent(String.self, forKey: .check)
        key = try c.decodeIfPresent(String.self, forKey: .key)
        measured = try c.decodeIfPresent(Double.self, forKey: .measured)
        limit = try c.decodeIfPresent(Double.self, forKey: .limit)
        other = try c.decodeIfPresent(String.self, forKey: .other)
        touch = try c.decodeIfPresent(UInt32.self, forKey: .touch)
        text = try c.decode(String.self, forKey: .text)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Self.type, forKey: .type)
        try c.encode(name, forKey: .name)
        try c.encode(kind, forKey: .kind)
        try c.encode(device, forKey: .device)
        try c.encode(region, forKey: .region)
        try c.encode(timeUS, forKey: .timeUS)
        try c.encode(decision, forKey: .decision)
        try c.encodeIfPresent(rule, forKey: .rule)
        try c.encodeIfPresent(check, forKey: .check)
        try c.encodeIfPresent(key, forKey: .key)
        try c.encodeIfPresent(measured, forKey: .measured)
        try c.encodeIfPresent(limit, forKey: .limit)
        try c.encodeIfPresent(other, forKey: .other)
        try c.encodeIfPresent(touch, forKey: .touch)
        try c.encode(text, forKey: .text)
    }

    /// The message of an engine explanation on the device labelled `deviceLabel`.
    public init(_ e: Explanation, deviceLabel: String) {
        name = e.name
        kind = e.kind
        device = deviceLabel
        region = e.region
        timeUS = e.time.microseconds
        rule = e.rule?.description
        let reason = Reason(e.decision)
        decision = reason.decision
        check = reason.check
        key = reason.key
        measured = reason.measured
        limit = reason.limit
        other = reason.other
        touch = reason.touch
        var text = "\(e.kind.rawValue) \"\(e.name)\" \(reason.verb) at \(Self.seconds(timeUS))"
        text += reason.sentence.hasPrefix(" ") ? reason.sentence : ": " + reason.sentence
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

/// The parts of an explanation's message and its sentence.
private struct Reason {
    var decision: String
    var verb: String
    /// After `: ` (or directly, when it starts with a space).
    var sentence: String
    var check: String?
    var key: String?
    var measured: Double?
    var limit: Double?
    var other: String?
    var touch: UInt32?

    init(_ decision: Decision) {
        self.decision = ""
        verb = "failed"
        sentence = ""
        switch decision {
        case .failed(let failure, _):
            self.decision = "failed"
            check = failure.check.rawValue
            key = failure.key?.rawValue
            measured = failure.measured
            limit = failure.limit
            sentence = Self.sentence(failure)
        case .refused(let id, let refusal):
            self.decision = "refused"
            verb = "refused touch \(id.rawValue)"
            touch = id.rawValue
            switch refusal {
            case .tool(let tool):
                check = "tools"
                key = "accepts.tools"
                sentence = "tool \(tool.rawValue) is not in accepts.tools"
            case .contactSize(let size, let most):
                check = "max-contact-size-mm"
                key = "accepts.max-contact-size-mm"
                measured = size
                limit = most
                let (m, l) = Self.pair(size, most)
                sentence = "contact \(m) mm > accepts.max-contact-size-mm \(l)"
            case .device:
                check = "devices"
                key = "accepts.devices"
                sentence = "the device's name matches no glob of accepts.devices"
            }
        case .ignored(let id, let held):
            self.decision = "ignored"
            verb = "ignored touch \(id.rawValue)"
            touch = id.rawValue
            sentence =
                held
                ? "it waits for a recognizer it requires to fail and takes no new touches"
                : "it has decided and takes no new touch until all of its own have lifted"
        case .full(let id, let fingers):
            self.decision = "ignored"
            verb = "ignored touch \(id.rawValue)"
            touch = id.rawValue
            check = "max-fingers"
            measured = Double(fingers)
            limit = Double(fingers)
            sentence = "it is active with its most fingers (\(fingers)) down and takes no more"
        case .stranded:
            self.decision = "stranded"
            sentence = "all its touches lifted and no timer was left before it decided"
        case .gate(let gate):
            self.decision = "gate"
            switch gate {
            case .minFingers(let n, let least):
                check = "min-fingers"
                key = "when.min-fingers"
                measured = Double(n)
                limit = Double(least)
                sentence = "\(Self.fingers(n)) < when.min-fingers \(least)"
            case .maxFingers(let n, let most):
                check = "max-fingers"
                key = "when.max-fingers"
                measured = Double(n)
                limit = Double(most)
                sentence = "\(Self.fingers(n)) > when.max-fingers \(most)"
            case .startIn(let id):
                check = "start-in"
                key = "when.start-in"
                touch = id.rawValue
                sentence = "touch \(id.rawValue) landed outside when.start-in"
            case .device:
                check = "devices"
                key = "when.devices"
                sentence = "the device's name matches no glob of when.devices"
            case .clientConnected(let wanted):
                check = "client-connected"
                key = "when.client-connected"
                sentence =
                    wanted
                    ? "when.client-connected is true and no client is connected"
                    : "when.client-connected is false and a client is connected"
            }
        case .waits(let b):
            self.decision = "waits"
            verb = "waits"
            other = b
            sentence = " for \"\(b)\" to fail"
        case .released(let b):
            self.decision = "released"
            verb = "released"
            other = b
            sentence = "\"\(b)\", which it waited for, failed"
        case .requirementSucceeded(let b):
            self.decision = "requirement-succeeded"
            other = b
            sentence = "\"\(b)\", which it requires to fail, began or was recognized"
        case .blocked(let o):
            self.decision = "blocked"
            verb = "blocked"
            other = o
            sentence = "\"\(o)\" began first and they are not simultaneous"
        case .excluded(let o):
            self.decision = "excluded"
            other = o
            sentence = "\"\(o)\" took its touches and they are not simultaneous"
        case .preempted(let o):
            self.decision = "preempted"
            verb = "cancelled"
            other = o
            sentence = "\"\(o)\" preempts it"
        case .keepsWatching(let o):
            self.decision = "keeps-watching"
            verb = "keeps watching"
            other = o
            sentence = "\"\(o)\" took its touches, and it preempts \"\(o)\""
        case .simultaneous(let o):
            self.decision = "simultaneous"
            verb = "carries on"
            other = o
            sentence = "\"\(o)\" took its touches, and they are simultaneous"
        case .delaysTouch(let id):
            self.decision = "delays-touch"
            verb = "holds touch \(id.rawValue) from the views"
            touch = id.rawValue
            sentence = "it is undecided and delays-touches-began"
        case .holdsTouchEnd(let id):
            self.decision = "holds-touch-end"
            verb = "holds the end of touch \(id.rawValue) from the views"
            touch = id.rawValue
            sentence = "it is undecided and delays-touches-ended"
        case .claimsTouch(let id):
            self.decision = "claims-touch"
            verb = "takes touch \(id.rawValue) from the views"
            touch = id.rawValue
            sentence = "it won and cancels-touches"
        case .fault(let fault):
            self.decision = "fault"
            verb = "stopped"
            switch fault {
            case .deviceRemoved:
                check = "device-removed"
                sentence = "the device was removed"
            case .eventsLost:
                check = "events-lost"
                sentence = "events were lost (SYN_DROPPED)"
            case .reload:
                check = "reload"
                sentence = "the configuration was reloaded"
            case .touchCancelled(let id):
                check = "touch-cancelled"
                touch = id.rawValue
                sentence = "touch \(id.rawValue) was cancelled"
            case .definitionsRemoved:
                check = "definitions-removed"
                sentence = "its definitions were removed"
            }
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

    /// A failed check as a comparison: its sentence (``FailureCheck/sentence``) with what was
    /// measured, the limit and its key in place of the braces. Ratios and scores have three
    /// decimals, the rest one (more where the two would read the same).
    static func sentence(_ f: Failure) -> String {
        var text = ""
        var rest = Substring(f.check.sentence)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            text += rest[..<open]
            text += value(rest[rest.index(after: open)..<close], f) ?? String(rest[open...close])
            rest = rest[rest.index(after: close)...]
        }
        return text + rest
    }

    /// The value a sentence's `{name}` stands for; nil for a name it does not know.
    private static func value(_ name: Substring, _ f: Failure) -> String? {
        switch name {
        case "m": pair(f.measured, f.limit).0
        case "l": pair(f.measured, f.limit).1
        case "rm": pair(f.measured, f.limit, decimals: 3).0
        case "rl": pair(f.measured, f.limit, decimals: 3).1
        case "key": f.key?.rawValue ?? ""
        case "fingers": fingers(Int(f.measured))
        default: nil
        }
    }
}
