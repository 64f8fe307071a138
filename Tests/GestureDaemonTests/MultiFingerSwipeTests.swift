import Foundation
import TestSupport
import Testing

/// Two- to five-finger swipes in the 8 directions, the fingers landing one
/// after the other over 0–150 ms and lifting over 0–200 ms, each reported once, with its
/// direction and finger count. The swipes are drawn by `gestured simulate --record` (a kiosk-10
/// panel, 512 × 287 mm) and read back by `gestured replay`, with the built-in set and with a
/// user's four-finger swipe down. The limit is a hang guard: each slow-drag case runs a `simulate`
/// and eight `replay` processes, in parallel with the others, and takes up to ~110 s on a loaded
/// 2-core host.
@Suite("multi-finger swipes through simulate and replay", .timeLimit(.minutes(10)))
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
        let script = swipes.map { s in
            "swipe \(s.direction) fingers=\(fingers) distance=0.3 duration=250ms landing=\(s.landing)ms lifting=\(s.lifting)ms"
        }
        return try await replay(script, profile: "kiosk-10", config: config).filter { $0.kind == "swipe" }.map(\.line)
    }

    /// One gesture message: "name fingers direction".
    struct Reported {
        var kind: String
        var line: String
    }

    /// Draws `script` on a `profile` panel with `gestured simulate --record`, replays the recording
    /// with each of `configs` (YAML; nil: the built-in set) through `gestured replay`, and returns,
    /// for each, the gestures recognized or begun.
    static func replay(_ script: [String], profile: String, configs: [String?]) async throws -> [[Reported]] {
        let gestured = try DaemonProcessTests.gestured()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gestured-swipes-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let scriptFile = folder.appendingPathComponent("swipes.gesture")
        try script.joined(separator: "\n").write(to: scriptFile, atomically: true, encoding: .utf8)
        let recording = folder.appendingPathComponent("swipes.evemu").path
        let simulate = try ChildProcess(
            [gestured, "simulate", "--profile", profile, "--record", recording, "--script", scriptFile.path])
        #expect(try await simulate.waitForExit() == 0, "\(simulate.output.value.lines)")
        var results: [[Reported]] = []
        for config in configs {
            var arguments = [gestured, "replay", recording]
            if let config {
                let file = folder.appendingPathComponent("config.yaml")
                try config.write(to: file, atomically: true, encoding: .utf8)
                arguments += ["--config", file.path]
            }
            let replay = try ChildProcess(arguments)
            #expect(try await replay.waitForExit() == 0)
            results.append(
                try replay.output.value.lines.compactMap { line in
                    let m = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                    guard m["type"] as? String == "gesture", m["state"] as? String != "changed",
                        m["state"] as? String != "ended"
                    else { return nil }
                    let direction = m["direction"] as? String ?? ""
                    return Reported(
                        kind: m["kind"] as! String,
                        line: "\(m["name"] as! String) \(m["fingers"] as! Int) \(direction)")
                })
        }
        return results
    }

    static func replay(_ script: [String], profile: String, config: String? = nil) async throws -> [Reported] {
        try await replay(script, profile: profile, configs: [config])[0]
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

    // MARK: - Slow multi-finger swipes

    /// Panels: one that reports its size (512 × 287 mm) and one that does not (measured against
    /// the assumed 344 mm width; its axes are square, so 344 × 344 mm).
    static let panels: [(profile: String, width: Double, height: Double)] = [
        ("kiosk-10", 512, 287), ("no-resolution-10", 344, 344),
    ]
    static let speeds = [30.0, 45.0, 60.0]
    static let spreads = [0, 75, 150]

    /// Drags of `fingers` fingers, 45 mm on the panel at 30–60 mm/s in each direction, the
    /// fingers landing and lifting 0–150 ms apart; each as (direction, its script line).
    static func slowDrags(fingers: Int, width: Double, height: Double) -> [(direction: String, line: String)] {
        var drags: [(direction: String, line: String)] = []
        for (i, direction) in directions.enumerated() {
            for (j, speed) in speeds.enumerated() {
                let spread = spreads[(i + j) % spreads.count]
                let component: Double = direction.contains("-") ? 0.5.squareRoot() : 1
                let dx: Double = direction.contains("right") || direction.contains("left") ? component : 0
                let dy: Double = direction.contains("up") || direction.contains("down") ? component : 0
                // Surface units along the script's unit direction that make 45 mm on this panel.
                let squared: Double = (dx * width) * (dx * width) + (dy * height) * (dy * height)
                let distance: Double = 45 / squared.squareRoot()
                let ms = Int((45 / speed * 1000).rounded())
                let line =
                    "swipe \(direction) fingers=\(fingers) distance=\(distance) duration=\(ms)ms landing=\(spread)ms lifting=\(spread)ms"
                drags.append((direction, line))
            }
        }
        return drags
    }

    @Test(
        "3, 4 and 5 fingers dragged 45 mm at 30–60 mm/s, landing and lifting up to 150 ms apart: a user's swipe for that count and direction fires on each, and on nothing else",
        arguments: [0, 1], [3, 4, 5])
    func slowMultiFingerSwipes(panel: Int, fingers: Int) async throws {
        let (profile, width, height) = Self.panels[panel]
        let drags = Self.slowDrags(fingers: fingers, width: width, height: height)
        let configs: [String?] = Self.directions.map { direction in
            "recognizers:\n  - {name: swipe-\(fingers)-\(direction), kind: swipe, min-fingers: \(fingers), max-fingers: \(fingers), directions: [\(direction)]}\n"
        }
        let results = try await Self.replay(drags.map(\.line), profile: profile, configs: configs)
        for (direction, reported) in zip(Self.directions, results) {
            let expected = drags.filter { $0.direction == direction }.map { _ in
                "swipe-\(fingers)-\(direction) \(fingers) \(direction)"
            }
            #expect(reported.map(\.line) == expected, "\(profile), \(fingers) fingers, \(direction)")
        }
    }

    @Test("the built-in set: each slow 3-finger drag is one swipe; 1- and 2-finger drags at 30–60 mm/s are pans")
    func slowDragsBuiltIn() async throws {
        let (profile, width, height) = Self.panels[0]
        let three = Self.slowDrags(fingers: 3, width: width, height: height)
        let reported = try await Self.replay(three.map(\.line), profile: profile)
        #expect(reported.filter { $0.kind == "swipe" }.map(\.line) == three.map { "swipe 3 \($0.direction)" })
        for fingers in [1, 2] {
            let drags = Self.slowDrags(fingers: fingers, width: width, height: height)
            let gestures = try await Self.replay(drags.map(\.line), profile: profile)
            #expect(gestures.filter { $0.kind == "swipe" }.isEmpty, "\(fingers) fingers: \(gestures.map(\.line))")
            #expect(gestures.filter { $0.kind == "pan" }.count == drags.count, "\(fingers) fingers")
        }
    }

    @Test("quick taps, 2- to 4-finger taps and pinches of 2 to 4 fingers give no multi-finger swipe (built-in set)")
    func noMultiFingerSwipe() async throws {
        let script = [
            "tap at=0.3,0.3", "tap at=0.6,0.3 duration=30ms", "tap at=0.5,0.5 fingers=2", "tap at=0.5,0.6 fingers=3",
            "tap at=0.4,0.6 fingers=4 duration=80ms", "double-tap at=0.5,0.5 fingers=2", "pinch in fingers=2",
            "pinch out fingers=3", "pinch in fingers=4", "pinch out at=0.3,0.6 fingers=4 duration=300ms",
        ]
        for panel in Self.panels {
            let gestures = try await Self.replay(script, profile: panel.profile)
            let swipes = gestures.filter { $0.kind == "swipe" }.map(\.line)
            #expect(swipes.isEmpty, "\(panel.profile): \(swipes)")
        }
    }
}
