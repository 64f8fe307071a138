import Foundation
import TestSupport
import Testing

/// Issue 11, must-show 3: two- to five-finger swipes in the 8 directions, the fingers landing one
/// after the other over 0–150 ms and lifting over 0–200 ms, each reported once, with its
/// direction and finger count. The swipes are drawn by `gestured simulate --record` (a kiosk-10
/// panel, 512 × 287 mm) and read back by `gestured replay`, with the built-in set and with a
/// user's four-finger swipe down.
@Suite("multi-finger swipes through simulate and replay", .timeLimit(.minutes(2)))
struct MultiFingerSwipeTests {
    static let directions = ["right", "down-right", "down", "down-left", "left", "up-left", "up", "up-right"]
    static let landings = [0, 50, 100, 150]
    static let liftings = [0, 100, 200]

    /// Every combination, in script order.
    static var swipes: [(direction: String, landing: Int, lifting: Int)] {
        directions.flatMap { d in landings.flatMap { l in liftings.map { (d, l, $0) } } }
    }

    /// Records the script's swipes with `fingers` fingers and replays them with `config` (nil: the
    /// built-in set); the `swipe`-kind messages, as "name fingers direction".
    static func swipes(fingers: Int, config: String? = nil) async throws -> [String] {
        let gestured = try DaemonProcessTests.gestured()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gestured-swipes-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = swipes.map { s in
            "swipe \(s.direction) fingers=\(fingers) distance=0.3 duration=250ms landing=\(s.landing)ms lifting=\(s.lifting)ms"
        }
        let scriptFile = folder.appendingPathComponent("swipes.gesture")
        try script.joined(separator: "\n").write(to: scriptFile, atomically: true, encoding: .utf8)
        let recording = folder.appendingPathComponent("swipes.evemu").path
        let simulate = try ChildProcess(
            [gestured, "simulate", "--profile", "kiosk-10", "--record", recording, "--script", scriptFile.path])
        #expect(try await simulate.waitForExit() == 0, "\(simulate.output.value.lines)")
        var arguments = [gestured, "replay", recording]
        if let config {
            let file = folder.appendingPathComponent("config.yaml")
            try config.write(to: file, atomically: true, encoding: .utf8)
            arguments += ["--config", file.path]
        }
        let replay = try ChildProcess(arguments)
        #expect(try await replay.waitForExit() == 0)
        return try replay.output.value.lines.compactMap { line in
            let m = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            guard m["type"] as? String == "gesture", m["kind"] as? String == "swipe" else { return nil }
            return "\(m["name"] as! String) \(m["fingers"] as! Int) \(m["direction"] as! String)"
        }
    }

    @Test("each swipe is one swipe with its direction and fingers (built-in set)", arguments: 2...5)
    func builtIn(fingers: Int) async throws {
        let reported = try await Self.swipes(fingers: fingers)
        let expected = Self.swipes.map { "swipe \(fingers) \($0.direction)" }
        #expect(reported == expected)
        for (i, (got, want)) in zip(reported, expected).enumerated() where got != want {
            let s = Self.swipes[i]
            Issue.record("swipe \(i) (\(s.direction), landing \(s.landing) ms, lifting \(s.lifting) ms): \(got)")
            break
        }
    }

    @Test("a user's four-finger swipe down fires on every four-finger swipe down, and on nothing else")
    func fourFingersDown() async throws {
        let config = "recognizers:\n  - {name: four-down, kind: swipe, min-fingers: 4, max-fingers: 4, directions: [down]}\n"
        let downs = Self.swipes.filter { $0.direction == "down" }.count
        #expect(try await Self.swipes(fingers: 4, config: config) == Array(repeating: "four-down 4 down", count: downs))
        #expect(try await Self.swipes(fingers: 3, config: config) == [])
    }
}
