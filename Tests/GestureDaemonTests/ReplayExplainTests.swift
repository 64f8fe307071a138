import Foundation
import GestureDaemon
import GestureEngine
import GestureProtocol
import TestSupport
import Testing
import TouchInput

/// `gestured replay --explain` — the gesture lines plus `explain` lines, on a real
/// recording (tablets-indirect-touch, MIT: Fixtures/README.md) whose swipe a configuration asks
/// too much of.
@Suite("replay --explain")
struct ReplayExplainTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/tablets-indirect-touch/intuos5_single-top-swipe.evemu.xz")

    /// The lines `gestured replay [--explain]` prints for the fixture with `recognizers` (YAML).
    static func replay(_ recognizers: String, explain: Bool) throws -> [String] {
        let yaml = "devices:\n  - {match: {}, force-touchscreen: true}\nrecognizers:\n" + recognizers
        let configuration = try ConfigurationLoader.parse(Data(yaml.utf8), file: "test.yaml")
        var replay = try OfflineReplay(configuration: configuration, includeTouches: false, includeExplanations: explain)
        let recording = try EvemuRecording(bytes: xzDecompressed(fixture))
        var lines: [String] = []
        try replay.play(OfflineReplay.Input(label: "swipe.evemu", recording: recording)) {
            lines.append(String(decoding: $0.dropLast(), as: UTF8.self))
        }
        return lines
    }

    static func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test("a swipe asked to be 400 mm long says it failed, with the stroke's length and the key")
    func failedSwipe() throws {
        let lines = try Self.replay(
            "  - {name: next-page, kind: swipe, directions: [right], min-distance-mm: 400}\n", explain: true)
        let explanations = try lines.map(Self.object).filter { $0["type"] as? String == "explain" }
        let failure = try #require(explanations.first { $0["name"] as? String == "next-page" })
        #expect(failure["decision"] as? String == "failed")
        #expect(failure["check"] as? String == "stroke-too-short")
        #expect(failure["key"] as? String == "min-distance-mm")
        #expect(failure["limit"] as? Double == 400)
        let measured = try #require(failure["measured"] as? Double)
        // The stroke crosses most of the assumed 344 mm panel (RealStrokeTests: a swipe right).
        #expect(measured > 100 && measured < 400)
        let text = try #require(failure["text"] as? String)
        #expect(text.hasPrefix("swipe \"next-page\" failed at "))
        // The sentence names the same numbers (to 0.1 mm) and the key.
        let reason = try #require(text.split(separator: ": ", maxSplits: 1).last)
        let words = reason.split(separator: " ")
        #expect(words.count == 6 && words[0] == "stroke" && words[2] == "mm" && words[3] == "<")
        #expect(words.dropFirst(4).joined(separator: " ") == "min-distance-mm 400")
        #expect(abs((Double(words[1]) ?? 0) - measured) <= 0.05)
        // Every line is the protocol's.
        try SchemaValidator.validate(sent: [], received: lines, invalid: [], sourceLocation: #_sourceLocation)
    }

    @Test("explanations come in the order of the decisions and change nothing else, seq included")
    func nothingElseChanges() throws {
        let recognizers = """
              - {name: pan, kind: pan}
              - {name: flick, kind: swipe}
              - {name: press, kind: tap, slop-mm: 50, max-duration-ms: 5000}

            """
        let with = try Self.replay(recognizers, explain: true)
        let without = try Self.replay(recognizers, explain: false)
        let explained = with.filter { $0.contains("\"type\":\"explain\"") }
        #expect(!explained.isEmpty)
        #expect(with.filter { !$0.contains("\"type\":\"explain\"") } == without)
        let times = try explained.map { try #require(Self.object($0)["time_us"] as? Int) }
        #expect(times == times.sorted())
        // The pan took the touch: the swipe and the tap were excluded by it (R5).
        let excluded = try explained.map(Self.object).filter { $0["decision"] as? String == "excluded" }
        #expect(Set(excluded.compactMap { $0["name"] as? String }) == ["flick", "press"])
        #expect(excluded.allSatisfy { $0["rule"] as? String == "R5" && $0["other"] as? String == "pan" })
    }

    @Test("the schema lists every decision and every check an explanation can name")
    func schemaListsEveryCheck() throws {
        let schema = try Self.object(String(contentsOfFile: SchemaValidator.schemaPath, encoding: .utf8))
        let defs = try #require(schema["$defs"] as? [String: Any])
        let explain = try #require(defs["explain"] as? [String: Any])
        let properties = try #require(explain["properties"] as? [String: Any])
        let check = try #require(properties["check"] as? [String: Any])
        let listed = Set(try #require(check["enum"] as? [String]))
        for failure in FailureCheck.allCases {
            #expect(listed.contains(failure.rawValue), "\(failure.rawValue) is missing from the schema")
        }
        let decision = try #require(properties["decision"] as? [String: Any])
        let decisions = Set(try #require(decision["enum"] as? [String]))
        for reason in DecisionReason.allCases {
            #expect(decisions.contains(reason.decision), "decision \(reason.decision) is missing from the schema")
            if let arenaCheck = reason.check {
                #expect(listed.contains(arenaCheck), "\(arenaCheck) (\(reason)) is missing from the schema")
            }
        }
    }
}
