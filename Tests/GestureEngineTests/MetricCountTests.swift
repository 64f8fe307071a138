import Testing

@testable import GestureEngine

/// What the engine counts for the daemon's metrics: failures (``GestureEngine/failureCounts``) by
/// kind and the recognizer's own check, the rest as `arbitration`; reports
/// (``GestureEngine/reportCounts``) by recognizer and state, equal to the gesture events it
/// emitted. Both kept across a reload and after the device goes.
@Suite("Metric counts")
struct MetricCountTests {
    static func counts(_ script: String) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        _ = try ScenarioRunner.emitted(Scenario.parse("config default\n" + script + "\nexpect:\n")) { engine in
            for failure in engine.failureCounts { counts["\(failure.kind.rawValue) \(failure.reason)", default: 0] += failure.count }
        }
        return counts
    }

    /// The engine's report counts and the gesture events it emitted, each as `name state` → count.
    static func reports(_ script: String) throws -> (counted: [String: Int], emitted: [String: Int]) {
        var counted: [String: Int] = [:]
        var emitted: [String: Int] = [:]
        let log = try ScenarioRunner.emitted(Scenario.parse(script + "\nexpect:\n")) { engine in
            for report in engine.reportCounts {
                counted["\(report.recognizer) \(report.state.rawValue)", default: 0] += report.count
            }
        }
        for entry in log {
            guard case .gesture(let g) = entry.event else { continue }
            let name = if case .client = g.owner { "" } else { g.name }
            emitted["\(name) \(g.state.rawValue)", default: 0] += 1
        }
        return (counted, emitted)
    }

    @Test("reports are counted as they are emitted, over a reload and a device's removal")
    func reportsEqualEvents() throws {
        let drag = "down 1 at 0.3,0.5\n+20ms stroke 1 to 0.6,0.5 over 300ms\n+10ms up 1\n+1s wait 1s\n"
        let tap = "down 1 at 0.5,0.5\n+60ms up 1\n+1s wait 1s\n"
        let (counted, emitted) = try Self.reports(
            "config default\n0ms " + drag + "+0ms " + tap + "+0ms reload default\n+10ms " + drag + "+0ms remove-device panel")
        #expect(!emitted.isEmpty)
        #expect(counted == emitted)
        #expect((counted["pan changed"] ?? 0) > 2, "\(counted)")
    }

    @Test("a finger that drags fails the taps and the long-press on their own check")
    func dragFailsTheStationaryKinds() throws {
        let counts = try Self.counts("0ms down 1 at 0.3,0.5\n+20ms move 1 to 0.5,0.5\n+600ms up 1\nwait 1s")
        // The default set's one-finger taps: `tap` and `double-tap`.
        #expect((counts["tap moved"] ?? 0) >= 2, "\(counts)")
        #expect(counts["long-press moved"] == 1, "\(counts)")
        #expect(counts.keys.allSatisfy { !$0.hasPrefix("pan ") }, "the pan began and ended: no failure \(counts)")
    }

    @Test("a tap: the pan did not move far enough, the long-press lifted too soon")
    func tapCompanions() throws {
        let counts = try Self.counts("0ms down 1 at 0.5,0.5\n+60ms up 1\nwait 1s")
        #expect(counts["pan not-far-enough"] == 1, "\(counts)")
        #expect(counts["long-press lifted-too-soon"] == 1, "\(counts)")
        #expect(counts.values.allSatisfy { $0 > 0 })
    }

    @Test("counts carry over a reload and stay after the device goes")
    func keptAcrossReloadAndRemoval() throws {
        let drag = "down 1 at 0.3,0.5\n+20ms move 1 to 0.5,0.5\n+600ms up 1\n+1s wait 1s\n"
        let once = try Self.counts("0ms " + drag)
        let twice = try Self.counts("0ms " + drag + "+0ms reload default\n+10ms " + drag + "+0ms remove-device panel")
        #expect(twice["tap moved"] == 2 * (once["tap moved"] ?? 0), "\(once) \(twice)")
        #expect(twice["long-press moved"] == 2 * (once["long-press moved"] ?? 0), "\(once) \(twice)")
    }
}
