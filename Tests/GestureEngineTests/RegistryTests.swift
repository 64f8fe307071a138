import Foundation
import GestureProtocol
import Testing

@testable import GestureEngine

/// The registry's tables (Definitions/GestureKinds.swift, each kind's `failures`): every failure a
/// kind's machine makes is in its table, names one of the kind's own keys, and has a sentence
/// that says the key. The scenarios and the R8 property test check every failure they see
/// against the tables (``unlisted(_:)``).
@Suite("Registry of kinds")
struct RegistryTests {
    /// Why an explanation's reason is not among the arena's (``DecisionReason/allCases``), or its
    /// failure not in its kind's table, if either is not.
    static func unlisted(_ event: EngineEvent) -> String? {
        guard case .explanation(let e) = event else { return nil }
        guard DecisionReason.allCases.contains(e.decision.reason) else {
            return "\(e.decision.reason.decision) (\(e.rule?.description ?? "no rule")), which DecisionReason.allCases "
                + "does not list"
        }
        guard let failure = e.decision.failure else { return nil }
        guard e.kind.failures.contains(where: { $0.check == failure.check && $0.key == failure.key }) else {
            return "\(e.kind.rawValue) failed with \(failure.check.rawValue) (key \(failure.key?.rawValue ?? "none")), "
                + "which its table of failures does not list"
        }
        return nil
    }

    @Test("a kind's parameters are of that kind", arguments: GestureKind.allCases)
    func parametersSayTheirKind(kind: GestureKind) {
        #expect(kind.visit(DefaultParameters()).kind == kind)
    }

    @Test("each kind is spelled once, and its spelling reads back as the kind")
    func spellings() throws {
        let spellings = GestureKind.allCases.map(\.rawValue)
        #expect(Set(spellings).count == spellings.count, "\(spellings)")
        for kind in GestureKind.allCases {
            #expect(GestureKind(rawValue: kind.rawValue) == kind)
            let decoded = try JSONDecoder().decode(GestureKind.self, from: Data("\"\(kind.rawValue)\"".utf8))
            #expect(decoded == kind && "\(kind)" == kind.rawValue)
        }
        #expect(GestureKind(rawValue: "wave") == nil)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(GestureKind.self, from: Data("\"wave\"".utf8)) }
    }

    @Test("parameters are equal when their kind and values are, and read back only as their own type")
    func parametersCompare() {
        var slow = TapParameters()
        slow.maxDuration = .milliseconds(900)
        let tap = RecognizerParameters.tap(TapParameters())
        #expect(tap == .tap(TapParameters()) && tap.hashValue == RecognizerParameters.tap(TapParameters()).hashValue)
        #expect(tap != .tap(slow))
        #expect(tap != .longPress(LongPressParameters()))
        #expect(tap.kind == .tap && tap.value(as: TapParameters.self) == TapParameters())
        #expect(tap.value(as: LongPressParameters.self) == nil)
    }

    @Test("every key a kind's failure names is one of the kind's own keys", arguments: GestureKind.allCases)
    func keysAreTheKinds(kind: GestureKind) {
        for (check, key) in kind.failures {
            guard let key else { continue }
            #expect(
                kind.parameterKeys.contains(key.rawValue),
                "\(kind.rawValue): \(check.rawValue) names \(key.rawValue), which is not one of its keys")
        }
    }

    @Test("a spelling names one check and one sentence, whichever kind's file declares it")
    func spellingsAreUnique() {
        var sentences: [String: String] = [:]
        for check in GestureKind.allCases.flatMap({ $0.failures.map(\.check) }) {
            let sentence = check.sentence
            #expect(
                sentences.updateValue(sentence, forKey: check.rawValue) ?? sentence == sentence,
                "\(check.rawValue) is declared twice, with different sentences")
        }
        let keys = Set(GestureKind.allCases.flatMap(\.parameterKeys))
        for key in ParameterKey.allCases {
            #expect(keys.contains(key.rawValue), "\(key.rawValue) is no kind's key")
        }
    }

    @Test("every failure in the tables has a sentence, and it says the key", arguments: GestureKind.allCases)
    func sentences(kind: GestureKind) {
        for (check, key) in kind.failures {
            let explanation = Explanation(
                name: "r", kind: kind, owner: .configuration, device: DeviceID(1), region: "root",
                time: Timestamp(microseconds: 0),
                decision: Decision(.failed, failure: Failure(check, key, measured: 1.25, limit: 2.5)))
            let text = ExplainMessage(explanation, deviceLabel: "panel").text
            let sentence = text.split(separator: ": ", maxSplits: 1).last.map(String.init) ?? ""
            #expect(
                !sentence.isEmpty && !sentence.contains("  ") && !sentence.contains("{"),
                "\(check.rawValue): \"\(text)\"")
            if let key {
                #expect(sentence.contains(key.rawValue), "\(check.rawValue): \"\(text)\" does not say \(key)")
            }
        }
    }
}

/// The arena's reasons (``DecisionReason``): declared beside the rules that give them, said by
/// `explain` from their texts alone.
@Suite("Reasons of arbitration decisions")
struct DecisionReasonTests {
    /// A decision of `reason` with a value for every brace.
    static func decision(_ reason: DecisionReason) -> Decision {
        let failed = reason == .failed || reason == .failedAtDeadline
        return Decision(
            reason, failure: failed ? Failure(.moved, .slop, measured: 3.5, limit: 3) : nil, other: "other",
            touch: TouchID(7), measured: 3, limit: 2, tool: .palm)
    }

    @Test("every reason's verb and sentence fill, and a reason that names a key says it")
    func sentences() {
        for reason in DecisionReason.allCases {
            let explanation = Explanation(
                name: "r", kind: .tap, owner: .configuration, device: DeviceID(1), region: "root",
                time: Timestamp(microseconds: 0), decision: Self.decision(reason))
            let message = ExplainMessage(explanation, deviceLabel: "panel")
            #expect(!message.text.contains("{") && !message.text.contains("  "), "\(reason): \"\(message.text)\"")
            #expect(message.decision == reason.decision && message.rule == reason.rule?.description)
            if let key = reason.key {
                #expect(message.text.contains(key) && message.key == key, "\(reason): \"\(message.text)\"")
            }
            #expect(message.check == Self.decision(reason).failure?.check.rawValue ?? reason.check, "\(reason)")
        }
    }

    @Test("no two reasons are the same decision, rule, verb and sentence")
    func distinct() {
        let all = DecisionReason.allCases
        for (i, a) in all.enumerated() {
            for b in all[(i + 1)...] {
                #expect(
                    a.decision != b.decision || a.rule != b.rule || a.verb != b.verb || a.sentence != b.sentence,
                    "\(a) is listed twice")
            }
        }
    }
}

/// What the registry answers for a kind beyond its machine (the server's template limits, the
/// replay's picture, the names of the shapes it reports): a kind whose keys say it has templates
/// or an edge band answers for them, and no other kind does. A kind that forgets its answer (the
/// defaults say "none") fails here.
extension RegistryTests {
    @Test(
        "a kind with templates counts them, prepares them and names them; no other kind does",
        arguments: GestureKind.allCases)
    func templates(kind: GestureKind) {
        let parameters = kind.visit(DefaultParameters())
        let hasTemplates = kind.parameterKeys.contains("templates")
        #expect(
            (parameters.templateCount > 0) == hasTemplates, "\(kind.rawValue): \(parameters.templateCount) templates")
        let names = parameters.prepared?.shapeNames ?? []
        #expect(names.isEmpty != hasTemplates, "\(kind.rawValue): reports shapes named \(names)")
    }

    @Test("a kind with an edge band draws it at its own key; no other kind draws one", arguments: GestureKind.allCases)
    func edgeBands(kind: GestureKind) {
        let bands = kind.visit(DefaultParameters()).edgeBands
        #expect(bands.isEmpty != kind.parameterKeys.contains(ParameterKey.band.rawValue), "\(kind.rawValue): \(bands)")
        for band in bands {
            #expect(kind.parameterKeys.contains(band.key.rawValue), "\(kind.rawValue): \(band.key) is not its key")
        }
    }
}

private struct DefaultParameters: KindVisitor {
    func visit<Kind: KindDefinition>(_: Kind.Type) -> RecognizerParameters {
        RecognizerParameters(Kind.self, Kind.Parameters())
    }
}
