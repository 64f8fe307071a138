import Foundation
import GestureEngine
import GestureMetrics
import GestureProtocol
import TestSupport
import Testing
import TouchInput

@testable import GestureDaemon

/// `gestured replay` with a kiosk's day configured (docs/CONFIGURATION.md): `wake`, `idle` and
/// `active` lines as the socket sends them, and with `--explain` a `contact` line saying why each
/// touch was swallowed, ignored or ended; everything else as the socket's schema says.
@Suite("replay: a kiosk's day")
struct PanelReplayTests {
    static let demo = SchemaValidator.repositoryRoot.appendingPathComponent("examples/recordings/demo.evemu")

    static func replay(_ yaml: String, _ recording: EvemuRecording, label: String, explain: Bool, touches: Bool = true)
        throws -> [[String: Any]]
    {
        let configuration = try ConfigurationLoader.parse(Data(yaml.utf8), file: "test.yaml")
        var replay = try OfflineReplay(configuration: configuration, includeTouches: touches, includeExplanations: explain)
        var lines: [String] = []
        try replay.play(OfflineReplay.Input(label: label, recording: recording)) {
            lines.append(String(decoding: $0.dropLast(), as: UTF8.self))
        }
        try SchemaValidator.validate(sent: [], received: lines, invalid: [], sourceLocation: #_sourceLocation)
        return try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    static func type(_ m: [String: Any]) -> String { m["type"] as? String ?? "" }
    static func touchIDs(_ m: [String: Any]) -> [Int] {
        switch type(m) {
        case "gesture": m["touches"] as? [Int] ?? []
        case "touch": [m["touch"] as? Int ?? -1]
        default: []
        }
    }

    /// demo.evemu: a gesture every 0.5 s or so; idle after 0.4 s, each first touch after it a wake;
    /// the lower 40 % of the panel a dead zone.
    static let kiosk = """
        idle-after-ms: 400
        wake-after-idle: true
        devices:
          - match: {}
            ignore:
              - {x: 0, y: 0.6, width: 1, height: 0.4}

        """

    @Test("idle, active and wake lines; a swallowed or ignored touch in no gesture and no touch line; explained")
    func demo() throws {
        let recording = try EvemuRecording(bytes: Array(try Data(contentsOf: Self.demo)))
        let explained = try Self.replay(Self.kiosk, recording, label: "demo.evemu", explain: true)
        let plain = try Self.replay(Self.kiosk, recording, label: "demo.evemu", explain: false)
        // Explaining adds the contact lines and changes nothing else.
        #expect(plain.count == explained.filter { Self.type($0) != "contact" && Self.type($0) != "explain" }.count)

        let wakes = plain.filter { Self.type($0) == "wake" }
        let idles = plain.filter { Self.type($0) == "idle" }
        let actives = plain.filter { Self.type($0) == "active" }
        #expect(wakes.count >= 3 && wakes.allSatisfy { $0["cause"] as? String == "idle" })
        #expect(idles.count >= wakes.count && actives.count >= wakes.count)
        #expect(idles.allSatisfy { $0["after_ms"] as? Int == 400 && $0["device"] as? String == "demo.evemu" })
        let contacts = explained.filter { Self.type($0) == "contact" }
        let swallowed = Set(contacts.filter { $0["decision"] as? String == "swallowed" }.compactMap { $0["touch"] as? Int })
        let ignored = Set(contacts.filter { $0["decision"] as? String == "ignored" }.compactMap { $0["touch"] as? Int })
        #expect(Set(wakes.compactMap { $0["touch"] as? Int }).isSubset(of: swallowed))
        // Touches 5, 6, 10, 11 and 14 land below y = 0.6 (the list above the test).
        #expect(ignored == [5, 6, 10, 11, 14], "\(ignored)")
        #expect(swallowed.isDisjoint(with: ignored) && !swallowed.isEmpty)
        for contact in contacts where contact["decision"] as? String == "ignored" {
            #expect(contact["zone"] as? Int == 0)
            #expect((contact["text"] as? String)?.contains("dead zone 0") == true)
        }
        // Kept from everyone: no gesture lists them, the views never hear of them.
        let kept = swallowed.union(ignored)
        for m in explained where !Set(Self.touchIDs(m)).isDisjoint(with: kept) {
            Issue.record("a line names a touch kept from everyone: \(m)")
        }
        // What passes still makes gestures: the second tap of the double tap, 0.2 s after the first
        // (which woke the panel), is a tap of its own.
        #expect(plain.contains { Self.type($0) == "gesture" && $0["name"] as? String == "tap" && Self.touchIDs($0) == [3] })
    }

    @Test("a contact held still past the limit: the long press it began is cancelled, and replay --explain says why")
    func stuck() throws {
        // The demo's device, one contact: lands at 1 s, trembles 0.1 mm, lifts at 4 s.
        let header = try String(contentsOf: Self.demo, encoding: .utf8).split(separator: "\n")
            .filter { !$0.hasPrefix("E:") }.joined(separator: "\n")
        var events = ["E: 1.000000 0003 002f 0", "E: 1.000000 0003 0039 1", "E: 1.000000 0003 0035 9830",
            "E: 1.000000 0003 0036 13107", "E: 1.000000 0001 014a 1", "E: 1.000000 0000 0000 0",
            "E: 1.100000 0003 0035 9836", "E: 1.100000 0000 0000 0", "E: 1.200000 0003 0035 9830",
            "E: 1.200000 0000 0000 0", "E: 4.000000 0003 0039 -1", "E: 4.000000 0001 014a 0",
            "E: 4.000000 0000 0000 0"]
        events = events.map { $0.replacingOccurrences(of: "  ", with: " ") }
        let recording = try EvemuRecording(bytes: Array((header + "\n" + events.joined(separator: "\n") + "\n").utf8))
        let yaml = "stuck-contact: {after-ms: 1500}\n"
        let lines = try Self.replay(yaml, recording, label: "ghost.evemu", explain: true)
        let ended = try #require(lines.first { Self.type($0) == "contact" })
        #expect(ended["decision"] as? String == "ended" && ended["touch"] as? Int == 1)
        #expect(ended["time_us"] as? Int == 2_500_000 && ended["still_ms"] as? Int == 1500 && ended["repeats"] as? Int == 0)
        #expect((ended["text"] as? String)?.hasPrefix("touch 1 ended at 2.500 s: it stayed still for 1.500 s") == true)
        let gestures = lines.filter { Self.type($0) == "gesture" }.map { "\($0["name"]!) \($0["state"]!) \($0["time_us"]!)" }
        #expect(gestures == ["long-press began 1500000", "long-press cancelled 2500000"], "\(gestures)")
        let touches = lines.filter { Self.type($0) == "touch" }.map { "\($0["phase"]!) \($0["time_us"]!)" }
        // The long press took it from the views as it began; nothing of it reaches them after.
        #expect(touches == ["began 1000000", "moved 1100000", "moved 1200000", "cancelled 1500000"], "\(touches)")
    }

    @Test("each panel event is counted as its declaration says, in all and on its panel, explaining or not")
    func counted() throws {
        let recording = try EvemuRecording(bytes: Array(try Data(contentsOf: Self.demo)))
        let configuration = try ConfigurationLoader.parse(Data(Self.kiosk.utf8), file: "test.yaml")
        var counts: [Counts] = []
        var lines: [[String: Any]] = []
        for explain in [true, false] {
            var replay = try OfflineReplay(configuration: configuration, includeTouches: false, includeExplanations: explain)
            let path = replay.path
            var messages: [[String: Any]] = []
            // The panel's own counts, as of each frame (it is gone when the recording ends).
            var panel: Counts?
            try replay.play(OfflineReplay.Input(label: "demo.evemu", recording: recording), observe: { device, _ in
                panel = path.counts(of: device.id)
            }) { messages.append((try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any]) ?? [:]) }
            if explain { lines = messages }
            counts.append(path.counts)
            // One panel: what it counted is all that was counted (screen reads are the daemon's).
            let own = try #require(panel)
            for counter in Counter.allCases where counter.isPanelDay && counter != .screenReads {
                #expect(own[counter] == path.counts[counter], "\(counter)")
            }
        }
        #expect(counts[0] == counts[1], "explaining changes nothing counted")
        func count(_ type: String, _ key: String, _ value: String) -> UInt64 {
            UInt64(lines.filter { m in Self.type(m) == type && m[key] as? String == value }.count)
        }
        let c = counts[0]
        #expect(c[.wakesIdle] == count("wake", "cause", "idle") && c[.wakesIdle] >= 3)
        #expect(c[.wakesScreenOff] == count("wake", "cause", "screen-off"))
        #expect(c[.contactsSwallowed] == count("contact", "decision", "swallowed") && c[.contactsSwallowed] > 0)
        #expect(c[.contactsIgnored] == count("contact", "decision", "ignored") && c[.contactsIgnored] == 5)
        #expect(c[.stuckContactsEnded] == count("contact", "decision", "ended"))
        #expect(c[.framesRead] > 0 && c[.touchesRead] > 0)
    }
}
