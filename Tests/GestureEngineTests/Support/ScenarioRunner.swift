import Foundation
import GestureProtocol
import Testing

@testable import GestureEngine

/// Runs a scenario through a fresh engine and formats what it emitted, one line per event.
enum ScenarioRunner {
    struct Emitted {
        /// The virtual time at which the engine emitted it.
        var at: Timestamp
        /// An event, or a line of its own (a rejected definition).
        var event: EngineEvent?
        var note: String?
    }

    /// `explains`: run the engine with explanations on (they are listed only when the scenario
    /// says `show explanations`).
    static func run(_ scenario: Scenario, explains: Bool? = nil) throws -> [String] {
        EventFormatter(scenario: scenario).format(
            try emitted(scenario, explains: explains ?? scenario.showExplanations))
    }

    /// The gesture events of a script (header and steps of the scenario format, no `expect:`).
    static func gestures(_ script: String) throws -> [GestureEvent] {
        try emitted(Scenario.parse(script + "\nexpect:\n")).compactMap { entry in
            if case .gesture(let g) = entry.event { g } else { nil }
        }
    }

    /// Everything the engine emitted for the scenario, with when it was emitted.
    /// `finished` sees the engine after the last step.
    static func emitted(
        _ scenario: Scenario, explains: Bool = false, reportsTouchMoves: Bool = true,
        finished: (GestureEngine) -> Void = { _ in }
    ) throws -> [Emitted] {
        var engine = try GestureEngine(configuration: scenario.configuration)
        engine.explains = explains
        engine.reportsTouchMoves = reportsTouchMoves
        for device in scenario.devices { add(device.descriptor, scenario, to: &engine) }
        var log: [Emitted] = []
        var stepper = DeadlineStepper { at, event in log.append(Emitted(at: at, event: event)) }

        for step in scenario.steps {
            switch step {
            case .frame(let frame):
                stepper.step(&engine, at: frame.time) { $0.process(frame, into: &$1) }
            case .wait(let time):
                stepper.advance(&engine, to: time)
            case .addDevice(let descriptor):
                add(descriptor, scenario, to: &engine)
            case .removeDevice(let id, let time):
                stepper.step(&engine, at: time) { $0.removeDevice(id, at: time, into: &$1) }
            case .resync(let id, let time):
                stepper.step(&engine, at: time) { $0.resync(id, at: time, into: &$1) }
            case .reload(let configuration, let time):
                do {
                    let dropped = try stepper.step(&engine, at: time) {
                        try $0.reload(configuration, at: time, into: &$1)
                    }
                    for loss in dropped {
                        for item in loss.dropped {
                            log.append(
                                Emitted(
                                    at: time,
                                    note:
                                        "\(label(loss.owner)) lost \(item.kind.rawValue) '\(item.name)': \(item.reason)"
                                ))
                        }
                    }
                } catch {
                    log.append(Emitted(at: time, note: "reload refused: \(error)"))
                }
            case .define(let owner, let regions, let recognizers, let time):
                do {
                    try stepper.step(&engine, at: time) {
                        try $0.define(owner: owner, regions: regions, recognizers: recognizers, at: time, into: &$1)
                    }
                } catch {
                    log.append(Emitted(at: time, note: "define refused for \(label(owner)): \(error)"))
                }
            case .undefine(let owner, let time):
                stepper.step(&engine, at: time) { $0.removeDefinitions(of: owner, at: time, into: &$1) }
            case .clients(let n):
                engine.connectedClients = n
            case .screen(let device, let isOn):
                engine.screen(device, isOn: isOn)
            }
        }
        finished(engine)
        return log
    }

    /// A device with its panel settings, which it has from script time 0.
    private static func add(_ descriptor: DeviceDescriptor, _ scenario: Scenario, to engine: inout GestureEngine) {
        let panel = scenario.devices.first { $0.descriptor.id == descriptor.id }?.panel ?? PanelSettings()
        engine.addDevice(descriptor, panel: panel, at: Scenario.origin)
    }

    static func label(_ owner: Owner) -> String {
        switch owner {
        case .configuration: "configuration"
        case .client(let n): "client\(n)"
        }
    }
}

/// The text of emitted events: one line each, the numbers a reader needs to check the rules.
struct EventFormatter {
    let scenario: Scenario

    func format(_ log: [ScenarioRunner.Emitted]) -> [String] {
        // Runs of `changed` (per recognizer) and view `moved` (per touch) collapse into one line
        // at the last of the run, unless the scenario asks to see every change.
        var keys: [String?] = log.map { key($0.event) }
        if scenario.showAllChanges { keys = keys.map { _ in nil } }
        var nextOfKey: [Int?] = Array(repeating: nil, count: log.count)
        var last: [String: Int] = [:]
        for i in log.indices.reversed() {
            if let k = identity(log[i].event) {
                nextOfKey[i] = last[k]
                last[k] = i
            }
        }
        var run: [String: Int] = [:]
        var lines: [String] = []
        for (i, entry) in log.enumerated() {
            if let note = entry.note {
                lines.append(Scenario.normalize("\(ms(entry.at)) \(note)"))
                continue
            }
            guard let event = entry.event else { continue }
            if case .touch = event, !scenario.showTouches { continue }
            if case .explanation = event, !scenario.showExplanations { continue }
            if case .panel(let p) = event, p.isExplanation, !scenario.showExplanations { continue }
            if let k = keys[i] {
                let count = (run[k] ?? 0) + 1
                if let next = nextOfKey[i], keys[next] == k {
                    run[k] = count
                    continue
                }
                run[k] = nil
                lines.append(line(event, at: entry.at, repeated: count))
            } else {
                lines.append(line(event, at: entry.at, repeated: 1))
            }
        }
        return lines
    }

    /// The run key of collapsible events.
    private func key(_ event: EngineEvent?) -> String? {
        switch event {
        case .gesture(let g) where g.state == .changed: identity(event)
        case .touch(let t) where t.touch.phase == .moved: identity(event)
        default: nil
        }
    }

    /// Which recognizer or touch an event is about.
    private func identity(_ event: EngineEvent?) -> String? {
        switch event {
        case .gesture(let g): "g \(g.device.rawValue) \(ScenarioRunner.label(g.owner)) \(g.name)"
        case .touch(let t): "t \(t.device.rawValue) \(t.touch.id.rawValue)"
        case .explanation, .panel, nil: nil
        }
    }

    private func ms(_ t: Timestamp) -> String {
        let us = (t - Scenario.origin).microseconds
        return us % 1000 == 0 ? "\(us / 1000)ms" : String(format: "%.3fms", Double(us) / 1000)
    }

    private func point(_ p: SurfacePoint) -> String { String(format: "%.3f,%.3f", p.x, p.y) }

    private func line(_ event: EngineEvent, at: Timestamp, repeated: Int) -> String {
        var parts: [String] = []
        let time: Timestamp
        switch event {
        case .gesture(let g):
            time = g.time
            parts.append(ms(g.time))
            parts.append(g.name)
            parts.append(repeated > 1 ? "\(g.state.rawValue)×\(repeated)" : g.state.rawValue)
            parts.append("fingers=\(g.fingers)")
            parts.append("touches=" + g.touches.map { String($0.rawValue) }.joined(separator: ","))
            parts.append("at=\(point(g.position))")
            if g.kind.isContinuous || g.kind == .swipe {
                if let mm = g.translationMM {
                    parts.append(String(format: "translation=%+.1f,%+.1fmm", mm.dx.value, mm.dy.value))
                } else {
                    parts.append(String(format: "translation=%+.3f,%+.3f", g.translation.dx, g.translation.dy))
                }
            }
            if let s = g.scale { parts.append(String(format: "scale=%.2f", s)) }
            if let r = g.rotation { parts.append(String(format: "rotation=%+.0f°", r * 180 / Double.pi)) }
            if let d = g.direction { parts.append("direction=\(d.rawValue)") }
            if let e = g.edge { parts.append("edge=\(e.rawValue)") }
            if let shape = g.shape { parts.append("shape=\(shape)") }
            if let score = g.score { parts.append(String(format: "score=%.2f", score)) }
            if g.region != RegionSpec.rootName { parts.append("region=\(g.region)") }
            if g.owner != .configuration { parts.append("owner=\(ScenarioRunner.label(g.owner))") }
            if scenario.devices.count > 1 { parts.append("device=\(scenario.deviceLabels[g.device] ?? "?")") }
        case .touch(let t):
            time = t.time
            parts.append(ms(t.time))
            parts.append("view")
            parts.append(String(t.touch.id.rawValue))
            parts.append(repeated > 1 ? "\(t.touch.phase)×\(repeated)" : t.touch.phase.description)
            parts.append("at=\(point(t.touch.position))")
            if t.touch.tool != .finger { parts.append("tool=\(t.touch.tool.rawValue)") }
            if t.region != RegionSpec.rootName { parts.append("region=\(t.region)") }
            for own in t.clientRegions { parts.append("\(ScenarioRunner.label(own.owner))-region=\(own.name)") }
            if scenario.devices.count > 1 { parts.append("device=\(scenario.deviceLabels[t.device] ?? "?")") }
        case .explanation(var e):
            // The sentence as a client reads it, with the script's time (from 0).
            time = e.time
            e.time = Timestamp(microseconds: (e.time - Scenario.origin).microseconds)
            let label = scenario.deviceLabels[e.device] ?? "?"
            parts.append(ms(time))
            parts.append("explain")
            parts.append(ExplainMessage(e, deviceLabel: label).text)
            if e.audience != .configuration { parts.append("to=\(ScenarioRunner.label(e.audience))") }
            if scenario.devices.count > 1 { parts.append("device=\(label)") }
        case .panel(let e):
            time = e.time
            parts.append(ms(e.time))
            switch e.what {
            case .woken(let id, let p, let cause):
                parts += ["woken", String(id.rawValue), "at=\(point(p))", "cause=\(cause.rawValue)"]
            case .idle(let after):
                parts += ["idle", "after=\(ms(Scenario.origin + after))"]
            case .active(let id):
                parts += ["active", String(id.rawValue)]
            case .stuckEnded(let id, let p, let still, let repeats):
                parts += [
                    "stuck", String(id.rawValue), "at=\(point(p))", "still=\(ms(Scenario.origin + still))",
                    "repeats=\(repeats)",
                ]
            case .swallowed, .ignored:
                // The sentence as a client reads it (the protocol's `contact`), with the script's time.
                var local = e
                local.time = Timestamp(microseconds: (e.time - Scenario.origin).microseconds)
                parts += ["contact", local.declared(deviceLabel: "").sentence]
            }
            if scenario.devices.count > 1 { parts.append("device=\(scenario.deviceLabels[e.device] ?? "?")") }
        }
        if time != at { parts.append("(emitted at \(ms(at)))") }
        return parts.joined(separator: " ")
    }
}

/// A line diff (longest common subsequence) for failure messages: `-` expected, `+` actual.
func lineDiff(expected: [String], actual: [String]) -> String {
    let n = expected.count
    let m = actual.count
    var lcs = Array(repeating: Array(repeating: 0, count: m + 1), count: n + 1)
    for i in stride(from: n - 1, through: 0, by: -1) {
        for j in stride(from: m - 1, through: 0, by: -1) {
            lcs[i][j] = expected[i] == actual[j] ? lcs[i + 1][j + 1] + 1 : max(lcs[i + 1][j], lcs[i][j + 1])
        }
    }
    var out: [String] = []
    var i = 0
    var j = 0
    while i < n || j < m {
        if i < n && j < m && expected[i] == actual[j] {
            out.append("  " + expected[i])
            i += 1
            j += 1
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            out.append("+ " + actual[j])
            j += 1
        } else {
            out.append("- " + expected[i])
            i += 1
        }
    }
    return out.joined(separator: "\n")
}
