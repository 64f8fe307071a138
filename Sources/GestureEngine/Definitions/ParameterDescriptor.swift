// The parameters of each recognizer kind, described once. A kind's parameters are a plain struct
// (``TapParameters`` and the rest) whose stored properties carry the defaults; its `descriptors`
// say, one line per key, how the key is spelled, its unit, what it accepts and what it means.
// Decoding, encoding, validation (of specs built in code) and the reference table in
// docs/CONFIGURATION.md all read the descriptors, so a rule is written in one place and a
// parameter is added as one stored property plus one descriptor line.

/// A kind's parameters: a value with defaults, described key by key.
protocol DescribedParameters: Hashable, Sendable {
    init()
    /// Every key of the kind, in the order they are decoded, encoded and documented.
    static var descriptors: [ParameterDescriptor<Self>] { get }
}

/// What is wrong with a parameter: where below its key (empty: the key itself) and why.
struct ParameterProblem: Equatable {
    var path: [SpecPathComponent] = []
    var message: String
}

/// One key of a kind's parameters.
struct ParameterDescriptor<Parameters: DescribedParameters> {
    /// The key in files and requests (`slop-mm`).
    let key: String
    /// The unit, for the reference table (the key's name carries it too).
    let unit: String
    /// What the key accepts, in the words its error uses after "expected".
    let accepts: String
    /// What the key means, one line, for the reference table.
    let meaning: String
    /// The key's default as a file would spell it, for the reference table.
    let defaultText: (Parameters) -> String
    /// Reads the key (absent: the default) into the parameters, or throws at the key.
    let decode: (inout Parameters, KeyedDecodingContainer<AnyCodingKey>) throws -> Void
    let encode: (Parameters, inout KeyedEncodingContainer<AnyCodingKey>) throws -> Void
    /// The first rule the value breaks (checked when decoding and when validating).
    let problem: (Parameters) -> ParameterProblem?
}

extension DescribedParameters {
    static var keyNames: [String] { descriptors.map(\.key) }

    /// Decodes every key of the kind from the recognizer's own mapping (the caller rejects keys
    /// that belong to no one).
    init(decodingFrom decoder: any Decoder) throws {
        self.init()
        let c = try decoder.container(keyedBy: AnyCodingKey.self)
        for descriptor in Self.descriptors { try descriptor.decode(&self, c) }
    }

    func encodeParameters(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: AnyCodingKey.self)
        for descriptor in Self.descriptors { try descriptor.encode(self, &c) }
    }

    /// The first key whose value breaks its rule, as a path from the recognizer and a message.
    func problem() -> (path: [SpecPathComponent], message: String)? {
        for descriptor in Self.descriptors {
            if let problem = descriptor.problem(self) {
                return ([.key(descriptor.key)] + problem.path, problem.message)
            }
        }
        return nil
    }
}

// MARK: - Kinds of keys

extension ParameterDescriptor {
    /// A key whose value is written as `Written` (milliseconds for a ``TimeSpan``). `check` sees
    /// the written value and the parameters decoded so far (a maximum checks its minimum);
    /// `fallback` gives the default when it depends on other keys (else the stored default).
    /// `inherits`: an earlier key whose value this one takes when that key is written and this
    /// one is not (a key split off an older one keeps what a file written for the older one meant).
    static func value<Written: Codable>(
        _ key: String, unit: String, accepts: String, _ meaning: String,
        read: @escaping (Parameters) -> Written, write: @escaping (inout Parameters, Written) -> Void,
        fallback: ((Parameters) -> Written)? = nil, inherits: String? = nil, spell: @escaping (Written) -> String,
        check: @escaping (Written, Parameters) -> ParameterProblem?
    ) -> Self {
        ParameterDescriptor(
            key: key, unit: unit, accepts: accepts, meaning: meaning,
            defaultText: { spell(read($0)) },
            decode: { parameters, c in
                let codingKey = AnyCodingKey(stringValue: key)
                let older = inherits.map { AnyCodingKey(stringValue: $0) }
                let inherited = older.flatMap { c.contains($0) ? try? c.decode(Written.self, forKey: $0) : nil }
                let value =
                    try c.decodeLocated(Written.self, forKey: codingKey) ?? inherited
                    ?? (fallback ?? read)(parameters)
                if let problem = check(value, parameters) {
                    throw DecodingError.dataCorrupted(
                        DecodingError.Context(
                            codingPath: c.codingPath + [codingKey] + problem.path.map(\.codingKey),
                            debugDescription: problem.message))
                }
                write(&parameters, value)
            },
            encode: { parameters, c in try c.encode(read(parameters), forKey: AnyCodingKey(stringValue: key)) },
            problem: { check(read($0), $0) })
    }

    /// A whole number within `range`: `noun` names it in the error ("a tap count").
    static func count(
        _ key: String, _ path: WritableKeyPath<Parameters, Int>, _ range: ClosedRange<Int>, noun: String,
        _ meaning: String
    ) -> Self {
        let accepts = "\(noun) from \(range.lowerBound) to \(range.upperBound)"
        return value(
            key, unit: "count", accepts: accepts, meaning, read: { $0[keyPath: path] },
            write: { $0[keyPath: path] = $1 }, spell: { "\($0)" },
            check: { n, _ in range.contains(n) ? nil : ParameterProblem(message: "expected \(accepts)") })
    }

    /// A finger count (1 to 10: two hands).
    static func fingers(_ key: String, _ path: WritableKeyPath<Parameters, Int>, _ meaning: String) -> Self {
        value(
            key, unit: "count", accepts: FingerCount.accepts, meaning, read: { $0[keyPath: path] },
            write: { $0[keyPath: path] = $1 }, spell: { "\($0)" },
            check: { n, _ in FingerCount.problem(n).map { ParameterProblem(message: $0) } })
    }

    /// `min-fingers` of a kind that needs at least `least` fingers (`what` names the gesture in
    /// the error: "a pinch").
    static func minFingers(
        _ path: WritableKeyPath<Parameters, Int>, least: Int = 1, for what: String = "", _ meaning: String
    ) -> Self {
        value(
            "min-fingers", unit: "count",
            accepts: least > 1 ? "\(FingerCount.accepts), at least \(least)" : FingerCount.accepts, meaning,
            read: { $0[keyPath: path] }, write: { $0[keyPath: path] = $1 }, spell: { "\($0)" },
            check: { n, _ in FingerCount.problem(n, least: least, for: what).map { ParameterProblem(message: $0) } })
    }

    /// `max-fingers`, at least `min-fingers` (which comes first); absent, at least the minimum.
    static func maxFingers(
        _ path: WritableKeyPath<Parameters, Int>, atLeast min: WritableKeyPath<Parameters, Int>, _ meaning: String
    ) -> Self {
        value(
            "max-fingers", unit: "count", accepts: "\(FingerCount.accepts), at least min-fingers", meaning,
            read: { $0[keyPath: path] }, write: { $0[keyPath: path] = $1 },
            fallback: { Swift.max($0[keyPath: path], $0[keyPath: min]) }, spell: { "\($0)" },
            check: { n, parameters in
                FingerCount.problem(max: n, min: parameters[keyPath: min]).map { ParameterProblem(message: $0) }
            })
    }

    /// A duration, written in whole milliseconds within `range`.
    static func milliseconds(
        _ key: String, _ path: WritableKeyPath<Parameters, TimeSpan>, range: ClosedRange<Int64> = 1...60_000,
        inherits: String? = nil, _ meaning: String
    ) -> Self {
        let accepts = "milliseconds from \(range.lowerBound) to \(range.upperBound)"
        return value(
            key, unit: "ms", accepts: accepts, meaning, read: { $0[keyPath: path].microseconds / 1000 },
            write: { $0[keyPath: path] = .milliseconds($1) }, inherits: inherits, spell: { "\($0)" },
            check: { ms, _ in range.contains(ms) ? nil : ParameterProblem(message: "expected \(accepts)") })
    }

    /// `settle-ms`: how long after the first finger the others may land before the gesture may
    /// start with the count (later ones still count until the hand has moved 8 mm; 0: no waiting,
    /// the count at the landing).
    static func settle(_ path: WritableKeyPath<Parameters, TimeSpan>) -> Self {
        milliseconds(
            "settle-ms", path, range: 0...1000,
            "how long the fingers may take to land before the gesture starts; later ones count until the hand moves 8 mm"
        )
    }

    /// A length (or, with `unit` "mm/s", a speed) above 0 — or from 0 when `allowZero` — up to 10 m.
    static func millimetres(
        _ key: String, _ path: WritableKeyPath<Parameters, Millimeters>, unit: String = "mm", allowZero: Bool = false,
        inherits: String? = nil, _ meaning: String
    ) -> Self {
        value(
            key, unit: unit, accepts: Length.accepts(allowZero: allowZero), meaning, read: { $0[keyPath: path].value },
            write: { $0[keyPath: path] = Millimeters($1) }, inherits: inherits, spell: spellNumber,
            check: { mm, _ in Length.problem(mm, allowZero: allowZero).map { ParameterProblem(message: $0) } })
    }

    /// A plain number that `isValid` accepts; `accepts` says which, as its error will.
    static func number(
        _ key: String, _ path: WritableKeyPath<Parameters, Double>, unit: String, accepts: String, _ meaning: String,
        where isValid: @escaping (Double) -> Bool
    ) -> Self {
        value(
            key, unit: unit, accepts: accepts, meaning, read: { $0[keyPath: path] },
            write: { $0[keyPath: path] = $1 }, spell: spellNumber,
            check: { v, _ in isValid(v) ? nil : ParameterProblem(message: "expected \(accepts)") })
    }

    /// An angle in degrees above 0 and at most `upTo`.
    static func degrees(
        _ key: String, _ path: WritableKeyPath<Parameters, Double>, upTo limit: Double, _ meaning: String
    ) -> Self {
        number(
            key, path, unit: "°", accepts: "degrees above 0 and at most \(spellNumber(limit))", meaning,
            where: { $0 > 0 && $0 <= limit })
    }

    /// A ratio above 0 and at most 1.
    static func ratio(_ key: String, _ path: WritableKeyPath<Parameters, Double>, _ meaning: String) -> Self {
        number(
            key, path, unit: "ratio", accepts: "a ratio above 0 and at most 1", meaning, where: { $0 > 0 && $0 <= 1 })
    }

    /// A non-empty set of words (directions, edges), written as a list in declaration order.
    static func choices<Choice: Codable & CaseIterable & Hashable & RawRepresentable<String>>(
        _ key: String, _ path: WritableKeyPath<Parameters, Set<Choice>>, noun: String, _ meaning: String
    ) -> Self {
        value(
            key, unit: "list", accepts: "at least one \(noun)", meaning,
            read: { set in Choice.allCases.filter { set[keyPath: path].contains($0) } },
            write: { $0[keyPath: path] = Set($1) },
            spell: {
                $0.count == Choice.allCases.count ? "all \($0.count)" : $0.map(\.rawValue).joined(separator: ", ")
            },
            check: { list, _ in list.isEmpty ? ParameterProblem(message: "expected at least one \(noun)") : nil })
    }
}

/// The one rule for finger counts, whatever key gives them (a kind's `fingers`, `min-fingers`,
/// `max-fingers`, and `when`'s): 1 to 10, two hands.
enum FingerCount {
    static let range = 1...10
    static let accepts = "a finger count from \(range.lowerBound) to \(range.upperBound)"

    /// Why `n` cannot be a finger count (of a gesture that needs at least `least`, named `what`:
    /// "a pinch"); nil when it can.
    static func problem(_ n: Int, least: Int = 1, for what: String = "") -> String? {
        guard range.contains(n) else { return "expected \(accepts)" }
        guard n >= least else { return "expected at least \(least) fingers for \(what)" }
        return nil
    }

    /// Why `n` cannot be a `max-fingers` above `min-fingers` `min`; nil when it can.
    static func problem(max n: Int, min: Int) -> String? {
        if let problem = problem(n) { return problem }
        return n >= min ? nil : "expected max-fingers ≥ min-fingers (\(min))"
    }
}

/// The one rule for lengths in millimetres (and speeds in mm/s), whatever key gives them: above
/// 0 (or from 0, where zero means "none") up to 10 m.
enum Length {
    static let most = 10_000.0

    static func accepts(allowZero: Bool) -> String { "millimetres from \(allowZero ? 0 : 0.01) to 10000" }

    /// Why `mm` cannot be such a length; nil when it can.
    static func problem(_ mm: Double, allowZero: Bool = false) -> String? {
        (mm > 0 || (allowZero && mm == 0)) && mm <= most ? nil : "expected \(accepts(allowZero: allowZero))"
    }
}

/// A number as a configuration file would show it: `3`, `22.5`.
private func spellNumber(_ value: Double) -> String {
    // Text, not arithmetic: the engine links no libm (rounding would need it).
    let text = String(value)
    return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
}

extension SpecPathComponent {
    /// As a coding key, for errors thrown while decoding.
    var codingKey: any CodingKey {
        switch self {
        case .key(let k): AnyCodingKey(stringValue: k)
        case .index(let i): AnyCodingKey(intValue: i)!
        }
    }
}
