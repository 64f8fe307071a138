import Foundation
import Testing

@testable import GestureEngine

/// Where the scenario files are (next to this test target's sources).
enum ScenarioFiles {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scenarios")

    /// The scenario files' names; throws when the folder cannot be listed (it moved).
    static func all() throws -> [String] {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        return files.filter { $0.hasSuffix(".scenario") }.map { String($0.dropLast(".scenario".count)) }.sorted()
    }

    /// Runs `Scenarios/<name>.scenario` and records the difference from its expected lines.
    /// With GESTURED_UPDATE_SCENARIOS=1 the expected part is rewritten instead (review the diff!).
    /// A view event of a touch that moved or stayed.
    static func isMove(_ event: EngineEvent?) -> Bool {
        guard case .touch(let view)? = event else { return false }
        return view.touch.phase == .moved || view.touch.phase == .stationary
    }

    static func check(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let url = directory.appendingPathComponent(name + ".scenario")
        let text = try String(contentsOf: url, encoding: .utf8)
        let scenario = try Scenario.parse(text)
        let actual = try ScenarioRunner.run(scenario)
        // Explaining changes nothing else: the same events with explanations on as off.
        var quiet = scenario
        quiet.showExplanations = false
        let withExplanations = try ScenarioRunner.run(quiet, explains: true)
        let without = try ScenarioRunner.run(quiet, explains: false)
        if withExplanations != without {
            let diff = lineDiff(expected: without, actual: withExplanations)
            Issue.record(
                "\(name).scenario: explaining changed the events (- without, + with):\n\(diff)",
                sourceLocation: sourceLocation)
        }
        // Not telling the views of moves changes nothing else either (``GestureEngine/reportsTouchMoves``,
        // off in the daemon while no one takes raw touches): the same events but those.
        let formatter = EventFormatter(scenario: quiet)
        let moving = try ScenarioRunner.emitted(quiet).filter { !Self.isMove($0.event) }
        let notMoving = try ScenarioRunner.emitted(quiet, reportsTouchMoves: false)
        if formatter.format(moving) != formatter.format(notMoving) {
            let diff = lineDiff(expected: formatter.format(moving), actual: formatter.format(notMoving))
            Issue.record(
                "\(name).scenario: without the views' moves, other events changed (- with, + without):\n\(diff)",
                sourceLocation: sourceLocation)
        }
        guard actual != scenario.expected else { return }
        if ProcessInfo.processInfo.environment["GESTURED_UPDATE_SCENARIOS"] == "1" {
            let body = actual.map(align).joined(separator: "\n")
            try (scenario.script + "\n" + body + "\n").write(to: url, atomically: true, encoding: .utf8)
            return
        }
        let diff = lineDiff(expected: scenario.expected, actual: actual)
        Issue.record(
            "\(name).scenario: the engine's events differ (- expected, + actual):\n\(diff)",
            sourceLocation: sourceLocation)
    }

    /// Pads the time column so goldens line up (spaces are not significant when comparing).
    private static func align(_ line: String) -> String {
        guard let space = line.firstIndex(of: " ") else { return line }
        let time = String(line[..<space])
        let padded: String = time.padding(toLength: max(time.count, 11), withPad: " ", startingAt: 0)
        return padded + String(line[space...])
    }
}
