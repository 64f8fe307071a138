import Foundation
import Testing

/// Simulated: the hooked flick of docs/RECOGNIZERS.md ("swipe") — a
/// 20 mm hook at ~230 mm/s, 60° or 90° to either side of the flick, then 100 mm at ~800 mm/s —
/// drawn by `gestured simulate --record` in each of the 8 directions on a panel that reports its
/// size and on one that does not, and read back by `gestured replay` with the built-in set and
/// with a user's only recognizer, a swipe in any direction: one swipe each, in the flick's
/// direction. (The end-to-end suite plays the 90° hooks on a uinput panel: `GestureTests`.)
@Suite("hooked flicks through simulate and replay", .timeLimit(.minutes(10)))
struct HookedFlickTests {
    /// Screen angles (y down) of the directions, in the order `MultiFingerSwipeTests` names them.
    static let degrees: [(String, Double)] = [
        ("right", 0), ("down-right", 45), ("down", 90), ("down-left", 135), ("left", 180), ("up-left", -135),
        ("up", -90), ("up-right", -45),
    ]

    /// The flicks on a `width` × `height` mm panel, each as (direction, its low-level steps).
    static func flicks(width: Double, height: Double) -> [(direction: String, steps: [String])] {
        degrees.flatMap { direction, angle in
            [-90.0, -60, 60, 90].map { hook in
                func point(_ degrees: Double, _ mm: Double, from p: (Double, Double)) -> (Double, Double) {
                    let a = degrees * Double.pi / 180
                    return (p.0 + mm * cos(a) / width, p.1 + mm * sin(a) / height)
                }
                func text(_ p: (Double, Double)) -> String { String(format: "%.4f,%.4f", p.0, p.1) }
                let start = (0.5, 0.5)
                let turn = point(angle + hook, 20, from: start)
                let end = point(angle, 100, from: turn)
                let steps = [
                    "down id=1 at=\(text(start))", "move id=1 to=\(text(turn)) duration=87ms",
                    "move id=1 to=\(text(end)) duration=125ms", "up id=1", "wait 700ms",
                ]
                return (direction, steps)
            }
        }
    }

    @Test(
        "a hooked flick is one swipe in the flick's direction, 8 directions, hooks of 60° and 90° to either side",
        arguments: MultiFingerSwipeTests.panels.indices)
    func hookedFlicks(panel: Int) async throws {
        let (profile, width, height) = MultiFingerSwipeTests.panels[panel]
        let flicks = Self.flicks(width: width, height: height)
        let results = try await MultiFingerSwipeTests.replay(
            flicks.flatMap(\.steps), profile: profile,
            configs: [nil, "recognizers:\n  - {name: flick, kind: swipe}\n"])
        let builtIn = results[0].filter { $0.kind == "swipe" }.map(\.line)
        #expect(builtIn == flicks.map { "swipe 1 \($0.direction)" }, "\(profile), built-in set")
        let user = results[1].filter { $0.kind == "swipe" }.map(\.line)
        #expect(user == flicks.map { "flick 1 \($0.direction)" }, "\(profile), one recognizer")
    }
}
