import Foundation
import TestSupport

@testable import GestureEngine

/// A scenario file: a script of touches and waits, then the events the engine must emit.
/// The format is specified in Scenarios/README.md; this type parses and synthesizes it.
struct Scenario {
    struct Device {
        var label: String
        var descriptor: DeviceDescriptor
        /// The stage before its arena (`panel` in the header).
        var panel = PanelSettings()
    }

    enum Step {
        case frame(TouchFrame)
        case wait(until: Timestamp)
        case addDevice(DeviceDescriptor)
        case removeDevice(DeviceID, at: Timestamp)
        case resync(DeviceID, at: Timestamp)
        case reload(EngineConfiguration, at: Timestamp)
        case define(Owner, regions: [RegionSpec], recognizers: [RecognizerSpec], at: Timestamp)
        case undefine(Owner, at: Timestamp)
        case clients(Int)
        /// What the caller read of a panel's screen (`screen on|off`).
        case screen(DeviceID, isOn: Bool)
    }

    struct ParseError: Error, CustomStringConvertible {
        var line: Int
        var message: String
        var description: String { "line \(line): \(message)" }
    }

    /// Script time 0 in kernel time (any value works; kernel clocks are far from zero).
    static let origin = Timestamp(microseconds: 1_000_000_000)

    var configuration = EngineConfiguration.default
    var devices: [Device] = []
    var showTouches = false
    var showAllChanges = false
    /// Run the engine with explanations on and list them (``GestureEngine/explains``).
    var showExplanations = false
    var steps: [Step] = []
    var expected: [String] = []
    /// The text up to and including the `expect:` line (for rewriting the golden part).
    var script = ""

    var deviceLabels: [DeviceID: String] {
        Dictionary(uniqueKeysWithValues: devices.map { ($0.descriptor.id, $0.label) })
    }

    // MARK: - Parsing

    struct LiveTouch {
        var id: UInt32
        var position: SurfacePoint
        var tool: ToolType
        var size: Millimeters?
    }

    fileprivate struct Parser {
        var scenario = Scenario()
        var configurationStarted = false
        var stepsStarted = false
        var now: Int64 = 0
        var current = 0
        var live: [DeviceID: [LiveTouch]] = [:]
        var synthesizer = StrokeSynthesizer()
        var line = 0
        var nextDeviceID: UInt32 = 1

        func fail(_ message: String) -> ParseError { ParseError(line: line, message: message) }
    }

    static func parse(_ text: String) throws -> Scenario {
        var p = Parser()
        var inExpect = false
        var scriptLines: [Substring] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            p.line = index + 1
            if inExpect {
                let trimmed = raw.trimmingCharacters(in: .whitespaces)
                if !trimmed.isEmpty && !trimmed.hasPrefix("#") { p.scenario.expected.append(normalize(trimmed)) }
                continue
            }
            scriptLines.append(raw)
            var content = Substring(raw)
            if let hash = content.firstIndex(of: "#") { content = content[..<hash] }
            let trimmed = content.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            if trimmed == "expect:" {
                inExpect = true
                continue
            }
            try p.parseLine(trimmed)
        }
        guard inExpect else { throw ParseError(line: p.line, message: "missing 'expect:' section") }
        if p.scenario.devices.isEmpty { p.addDefaultDevice() }
        p.scenario.script = scriptLines.joined(separator: "\n")
        return p.scenario
    }

    /// Collapses runs of spaces, so expected lines may be aligned freely.
    static func normalize(_ line: String) -> String {
        line.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }
}

extension Scenario.Parser {
    mutating func addDefaultDevice() {
        addDevice(
            label: "panel",
            geometry: SurfaceGeometry(physicalSize: PhysicalSize(width: Millimeters(344), height: Millimeters(194))),
            name: "panel")
    }

    mutating func addDevice(label: String, geometry: SurfaceGeometry, name: String) {
        let descriptor = DeviceDescriptor(id: DeviceID(nextDeviceID), label: label, name: name, geometry: geometry)
        nextDeviceID += 1
        scenario.devices.append(Scenario.Device(label: label, descriptor: descriptor))
        live[descriptor.id] = []
    }

    func time(_ ms: Double) -> Timestamp { Scenario.origin + TimeSpan(microseconds: Int64((ms * 1000).rounded())) }

    mutating func parseLine(_ text: String) throws {
        var words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        // Directives of the header.
        switch words[0] {
        case "config", "recognizer", "region", "policy", "device", "panel", "rate", "jitter", "seed", "show":
            guard !stepsStarted else { throw fail("'\(words[0])' belongs in the header, before the first step") }
            try parseDirective(words, text)
            return
        default:
            break
        }
        if scenario.devices.isEmpty { addDefaultDevice() }
        stepsStarted = true
        if let t = try parseTime(words[0]) {
            guard t >= now else { throw fail("time goes backwards (\(words[0]))") }
            now = t
            words.removeFirst()
            guard !words.isEmpty else { throw fail("a time needs a step after it") }
        }
        let at = Scenario.origin + TimeSpan(microseconds: now)
        switch words[0] {
        case "wait":
            guard words.count == 2, let span = parseDuration(words[1]) else { throw fail("expected 'wait <duration>'") }
            now += span.microseconds
            scenario.steps.append(.wait(until: Scenario.origin + TimeSpan(microseconds: now)))
        case "remove-device", "resync", "add-device":
            guard words.count == 2, let device = scenario.devices.first(where: { $0.label == words[1] }) else {
                throw fail("expected '\(words[0]) <device label>'")
            }
            let id = device.descriptor.id
            switch words[0] {
            case "remove-device":
                scenario.steps.append(.removeDevice(id, at: at))
                live[id] = []
            case "resync":
                scenario.steps.append(.resync(id, at: at))
            default:
                scenario.steps.append(.addDevice(device.descriptor))
            }
        case "reload":
            let rest = text[text.range(of: "reload")!.upperBound...].trimmingCharacters(in: .whitespaces)
            let configuration: EngineConfiguration
            switch rest {
            case "default": configuration = .default
            case "empty": configuration = EngineConfiguration()
            default: configuration = try decode(EngineConfiguration.self, rest)
            }
            scenario.steps.append(.reload(configuration, at: at))
        case "define", "undefine":
            guard words.count >= 3, words[1] == "client", let n = UInt64(words[2]) else {
                throw fail("expected '\(words[0]) client <number> …'")
            }
            if words[0] == "undefine" {
                scenario.steps.append(.undefine(.client(n), at: at))
            } else {
                let json = text[text.range(of: words[2])!.upperBound...].trimmingCharacters(in: .whitespaces)
                let definitions = try decode(EngineConfiguration.self, json)
                scenario.steps.append(
                    .define(.client(n), regions: definitions.regions, recognizers: definitions.recognizers, at: at))
            }
        case "clients":
            guard words.count == 2, let n = Int(words[1]) else { throw fail("expected 'clients <count>'") }
            scenario.steps.append(.clients(n))
        case "screen":
            guard words.count == 2 || (words.count == 4 && words[2] == "on"), ["on", "off"].contains(words[1]),
                let device = words.count == 4
                    ? scenario.devices.first(where: { $0.label == words[3] }) : scenario.devices.first
            else { throw fail("expected 'screen on|off [on <device>]'") }
            scenario.steps.append(.screen(device.descriptor.id, isOn: words[1] == "on"))
        default:
            try parseActions(words.joined(separator: " ").split(separator: ";").map(String.init))
        }
    }

    mutating func parseDirective(_ words: [String], _ text: String) throws {
        let rest = text.dropFirst(words[0].count).trimmingCharacters(in: .whitespaces)
        switch words[0] {
        case "config":
            guard !configurationStarted else { throw fail("'config' must come before 'recognizer' and 'region'") }
            switch rest {
            case "default": scenario.configuration = .default
            case "empty": scenario.configuration = EngineConfiguration()
            default: throw fail("expected 'config default' or 'config empty'")
            }
        case "recognizer":
            configurationStarted = true
            scenario.configuration.recognizers.append(try decode(RecognizerSpec.self, rest))
        case "region":
            configurationStarted = true
            scenario.configuration.regions.append(try decode(RegionSpec.self, rest))
        case "policy":
            configurationStarted = true
            scenario.configuration.clients = try decode(ClientPolicy.self, rest)
        case "device":
            guard words.count >= 3 else {
                throw fail("expected 'device <label> <W>x<H>mm | unknown-size [aspect <h/w>]'")
            }
            var name = words[1]
            var geometry: SurfaceGeometry
            var i = 3
            if words[2] == "unknown-size" {
                var aspect = 9.0 / 16.0
                if words.count >= 5 && words[3] == "aspect", let a = Double(words[4]) {
                    aspect = a
                    i = 5
                }
                geometry = SurfaceGeometry(unknownSizeWithAspect: aspect)
            } else {
                let size = words[2].replacingOccurrences(of: "mm", with: "").split(separator: "x")
                guard size.count == 2, let w = Double(size[0]), let h = Double(size[1]) else {
                    throw fail("expected a size like 344x194mm")
                }
                geometry = SurfaceGeometry(physicalSize: PhysicalSize(width: Millimeters(w), height: Millimeters(h)))
            }
            while i < words.count {
                guard words[i].hasPrefix("name=") else { throw fail("unexpected '\(words[i])'") }
                name = String(words[i].dropFirst(5))
                i += 1
            }
            addDevice(label: words[1], geometry: geometry, name: name)
        case "panel":
            if scenario.devices.isEmpty { addDefaultDevice() }
            try parsePanel(words.dropFirst(), into: &scenario.devices[scenario.devices.count - 1].panel)
        case "rate":
            guard let hz = Double(rest.replacingOccurrences(of: "Hz", with: "")), hz > 0 else {
                throw fail("expected 'rate <n>Hz'")
            }
            synthesizer.rate = hz
        case "jitter":
            guard let mm = Double(rest.replacingOccurrences(of: "mm", with: "")), mm >= 0 else {
                throw fail("expected 'jitter <n>mm'")
            }
            synthesizer.jitter = Millimeters(mm)
        case "seed":
            guard let seed = UInt64(rest) else { throw fail("expected 'seed <number>'") }
            synthesizer.random = SplitMix64(seed: seed)
        default:  // show
            for option in words.dropFirst() {
                switch option {
                case "touches": scenario.showTouches = true
                case "changes": scenario.showAllChanges = true
                case "explanations": scenario.showExplanations = true
                default: throw fail("expected 'show touches', 'show changes' and/or 'show explanations'")
                }
            }
        }
    }

    /// `panel ignore=<x>,<y>,<w>,<h>… stuck=<after>/<within>mm idle=<duration> wake-after-idle
    /// screen-wake`: the stage before the last device's arena.
    func parsePanel(_ words: ArraySlice<String>, into panel: inout PanelSettings) throws {
        for word in words {
            let parts = word.split(separator: "=", maxSplits: 1).map(String.init)
            switch (parts[0], parts.count) {
            case ("ignore", 2):
                let v = parts[1].split(separator: ",").compactMap { Double($0) }
                guard v.count == 4 else { throw fail("expected 'ignore=<x>,<y>,<width>,<height>'") }
                panel.deadZones.append(SurfaceRect(x: v[0], y: v[1], width: v[2], height: v[3]))
            case ("stuck", 2):
                let limit = parts[1].split(separator: "/").map(String.init)
                guard limit.count == 2, let after = parseDuration(limit[0]), limit[1].hasSuffix("mm"),
                    let within = Double(limit[1].dropLast(2))
                else { throw fail("expected 'stuck=<duration>/<n>mm'") }
                panel.stuckContact = StuckContactLimit(after: after, within: Millimeters(within))
            case ("idle", 2):
                guard let after = parseDuration(parts[1]) else { throw fail("expected 'idle=<duration>'") }
                panel.idleAfter = after
            case ("wake-after-idle", 1):
                panel.wakeAfterIdle = true
            case ("screen-wake", 1):
                panel.screenWake = true
            default:
                throw fail("unknown panel setting '\(word)' (ignore=, stuck=, idle=, wake-after-idle, screen-wake)")
            }
        }
    }

    func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(json.utf8))
        } catch {
            throw fail("bad JSON: \(error)")
        }
    }

    /// `120ms` (absolute), `+16ms` (after the previous step), `1.5s`; nil when not a time.
    func parseTime(_ word: String) throws -> Int64? {
        guard let first = word.first, first == "+" || first.isNumber else { return nil }
        let relative = first == "+"
        guard let span = parseDuration(relative ? String(word.dropFirst()) : word) else {
            throw fail("expected a time like 120ms, +16ms or 1.5s, not '\(word)'")
        }
        return relative ? now + span.microseconds : span.microseconds
    }

    func parseDuration(_ word: String) -> TimeSpan? {
        if word.hasSuffix("ms"), let v = Double(word.dropLast(2)) {
            return TimeSpan(microseconds: Int64((v * 1000).rounded()))
        }
        if word.hasSuffix("s"), let v = Double(word.dropLast(1)) {
            return TimeSpan(microseconds: Int64((v * 1_000_000).rounded()))
        }
        return nil
    }

    /// `0.5,0.25` (surface units) or `120mm,40mm` (from the top-left corner).
    func parsePoint(_ word: String, _ device: Scenario.Device) throws -> SurfacePoint {
        let parts = word.split(separator: ",")
        let size = device.descriptor.geometry.measuringSize
        func value(_ s: Substring, _ extent: Double) -> Double? {
            if s.hasSuffix("mm"), let mm = Double(s.dropLast(2)) { return mm / extent }
            return Double(s)
        }
        guard parts.count == 2, let x = value(parts[0], size.width.value), let y = value(parts[1], size.height.value),
            (0...1).contains(x), (0...1).contains(y)
        else { throw fail("expected a point like 0.5,0.25 or 120mm,40mm inside the surface, not '\(word)'") }
        return SurfacePoint(x: x, y: y)
    }

    mutating func parseActions(_ actions: [String]) throws {
        // Group by device; immediate actions make one frame at `now`, motions make frames after.
        var immediate: [Int: [(String, [String])]] = [:]
        var motions: [Int: [TouchMotion]] = [:]
        for action in actions {
            var words = action.split(separator: " ").map(String.init)
            guard !words.isEmpty else { throw fail("empty step between ';'") }
            var device = current
            if let on = words.firstIndex(of: "on"), on + 1 < words.count {
                guard let d = scenario.devices.firstIndex(where: { $0.label == words[on + 1] }) else {
                    throw fail("unknown device '\(words[on + 1])'")
                }
                device = d
                words.removeSubrange(on...(on + 1))
            }
            guard words.count >= 2, let id = UInt32(words[1]) else {
                throw fail("expected '<action> <touch id> …' in '\(action)'")
            }
            let d = scenario.devices[device]
            switch words[0] {
            case "down", "move", "up", "cancel":
                immediate[device, default: []].append((words[0], words))
            case "stroke":
                guard words.count >= 6, words[2] == "to", words[4] == "over", let span = parseDuration(words[5]) else {
                    throw fail("expected 'stroke <id> to <point> over <duration> [profile]'")
                }
                motions[device, default: []].append(
                    TouchMotion(
                        id: id, path: .line(to: try parsePoint(words[3], d)), duration: span,
                        profile: try profile(words, 6)))
            case "arc":
                guard words.count >= 8, words[2] == "around", words[4] == "by", words[6] == "over",
                    let degrees = Double(words[5].replacingOccurrences(of: "deg", with: "")),
                    let span = parseDuration(words[7])
                else {
                    throw fail(
                        "expected 'arc <id> around <point> by <degrees>deg over <duration> [scale <k>] [profile]'")
                }
                var next = 8
                var factor = 1.0
                if next + 1 < words.count, words[next] == "scale" {
                    guard let k = Double(words[next + 1]), k > 0 else { throw fail("expected 'scale <factor>'") }
                    factor = k
                    next += 2
                }
                motions[device, default: []].append(
                    TouchMotion(
                        id: id,
                        path: .arc(
                            center: try parsePoint(words[3], d), radians: degrees * Double.pi / 180, scale: factor),
                        duration: span, profile: try profile(words, next)))
            case "wiggle":
                guard words.count == 4, words[2] == "over", let span = parseDuration(words[3]) else {
                    throw fail("expected 'wiggle <id> over <duration>'")
                }
                motions[device, default: []].append(TouchMotion(id: id, path: .still, duration: span, profile: .linear))
            default:
                throw fail("unknown step '\(words[0])'")
            }
        }
        for device in immediate.keys.sorted() { try immediateFrame(device, immediate[device]!) }
        var end = now
        for device in motions.keys.sorted() { end = max(end, try motionFrames(device, motions[device]!)) }
        now = end
    }

    func profile(_ words: [String], _ index: Int) throws -> StrokeProfile {
        guard index < words.count else { return .drag }
        guard let p = StrokeProfile(rawValue: words[index]) else {
            throw fail(
                "unknown profile '\(words[index])' (\(StrokeProfile.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        return p
    }

    mutating func immediateFrame(_ device: Int, _ actions: [(String, [String])]) throws {
        let d = scenario.devices[device]
        var touches = live[d.descriptor.id] ?? []
        var phases: [UInt32: TouchPhase] = [:]
        for (verb, words) in actions {
            let id = UInt32(words[1])!
            let index = touches.firstIndex { $0.id == id }
            switch verb {
            case "down":
                guard words.count >= 4, words[2] == "at" else {
                    throw fail("expected 'down <id> at <point> [tool=…] [size=…mm]'")
                }
                var touch = Scenario.LiveTouch(id: id, position: try parsePoint(words[3], d), tool: .finger, size: nil)
                for option in words.dropFirst(4) {
                    if option.hasPrefix("tool="), let tool = ToolType(rawValue: String(option.dropFirst(5))) {
                        touch.tool = tool
                    } else if option.hasPrefix("size="),
                        let mm = Double(option.dropFirst(5).replacingOccurrences(of: "mm", with: ""))
                    {
                        touch.size = Millimeters(mm)
                    } else {
                        throw fail("unknown option '\(option)'")
                    }
                }
                if let index { touches.remove(at: index) }  // a device reusing an id without a lift
                touches.append(touch)
                phases[id] = .began
            case "move":
                guard words.count == 4, words[2] == "to" else { throw fail("expected 'move <id> to <point>'") }
                let p = try parsePoint(words[3], d)
                if let index {
                    touches[index].position = p
                } else {
                    // A touch the script never put down: already down when the device appeared
                    // or when events were lost, reported as moving.
                    touches.append(Scenario.LiveTouch(id: id, position: p, tool: .finger, size: nil))
                }
                phases[id] = .moved
            default:  // up, cancel
                guard index != nil else { throw fail("touch \(id) is not down") }
                phases[id] = verb == "up" ? .ended : .cancelled
            }
        }
        let time = Scenario.origin + TimeSpan(microseconds: now)
        let frame = TouchFrame(
            device: d.descriptor.id, time: time,
            touches: touches.map { t in
                Touch(
                    id: TouchID(t.id), phase: phases[t.id] ?? .stationary, position: t.position, tool: t.tool,
                    contactSize: t.size)
            })
        scenario.steps.append(.frame(frame))
        live[d.descriptor.id] = touches.filter { phases[$0.id]?.isLive ?? true }
    }

    mutating func motionFrames(_ device: Int, _ motions: [TouchMotion]) throws -> Int64 {
        let d = scenario.devices[device]
        var touches = live[d.descriptor.id] ?? []
        var origins: [UInt32: SurfacePoint] = [:]
        for motion in motions {
            guard let t = touches.first(where: { $0.id == motion.id }) else {
                throw fail("touch \(motion.id) is not down")
            }
            origins[motion.id] = t.position
        }
        let size = d.descriptor.geometry.measuringSize
        let frames = synthesizer.frames(motions, from: origins, size: size)
        for (offset, positions) in frames {
            for i in touches.indices { if let p = positions[touches[i].id] { touches[i].position = p } }
            let frame = TouchFrame(
                device: d.descriptor.id, time: Scenario.origin + TimeSpan(microseconds: now + offset.microseconds),
                touches: touches.map { t in
                    Touch(
                        id: TouchID(t.id), phase: positions[t.id] != nil ? .moved : .stationary, position: t.position,
                        tool: t.tool, contactSize: t.size)
                })
            scenario.steps.append(.frame(frame))
        }
        live[d.descriptor.id] = touches
        return now + (frames.last?.offset.microseconds ?? 0)
    }
}
