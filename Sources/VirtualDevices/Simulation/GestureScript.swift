import EvdevValues
import Glibc
import TouchValues

/// One moment of a simulated session.
public enum TimelineStep: Hashable, Sendable {
    /// At `time` after the start, exactly `contacts` are down.
    case frame(at: TimeSpan, contacts: [SimulatedContact])
    /// At `time` after the start, the device is unplugged (contacts still down are cut off).
    case unplug(at: TimeSpan)
    /// At `time` after the start, playback waits for a go-ahead (SIGUSR1 in `gestured simulate`);
    /// later steps keep their spacing. Contacts still down stay down.
    case pause(at: TimeSpan)
    /// At `time` after the start the script ends: a script that ends with `wait` keeps the device
    /// until then, so a reader sees the last gesture through before the device goes.
    case end(at: TimeSpan)

    public var time: TimeSpan {
        switch self {
        case .frame(let at, _), .unplug(let at), .pause(let at), .end(let at): at
        }
    }
}

/// The gesture-script language of `gestured simulate` (docs/INPUT.md, "Simulate scripts").
///
/// One step per line, `#` starts a comment. A step is a verb and `key=value` arguments; a bare
/// point (`0.3,0.6`) is `at` (for `pan`: `from`, then `to`), a bare duration (`250ms`, `1.5s`) is
/// `duration`, a bare word is the `direction`/`edge`. Positions are surface coordinates (0…1,
/// origin top-left). Gestures are 100 Hz contact frames with ±1 ms jitter and a 0.07 mm tremor
/// (deterministic for a given seed); consecutive gestures are 500 ms apart unless a `wait` sets
/// the gap.
///
/// ```
/// tap at=0.5,0.5 fingers=2
/// double-tap 0.2,0.8
/// long-press at=0.5,0.5 duration=900ms
/// pan from=0.2,0.5 to=0.8,0.5 fingers=3 duration=600ms
/// swipe up-left fingers=4
/// pinch in at=0.5,0.5          # or from=0.4 to=0.1 (finger spread, surface units)
/// rotate angle=-90 fingers=3
/// edge-swipe left
/// circle radius=0.2 direction=ccw
/// stuck at=0.5,0.95 duration=40s  # a ghost: lands, reports nothing more, lifts after 40 s
/// wait 1s
/// down id=1 at=0.4,0.4         # low level: contacts that stay down across lines
/// move id=1 to=0.6,0.4 duration=300ms
/// pause                        # waits for a go-ahead (SIGUSR1), contacts still down
/// unplug                       # the device disappears here, contacts still down
/// up id=1
/// ```
public struct GestureScript: Sendable {
    /// A parsed step.
    struct Step: Sendable {
        var verb: Verb
        var arguments: [String: String]
        var line: Int
    }

    enum Verb: String, CaseIterable, Sendable {
        case tap, doubleTap = "double-tap", longPress = "long-press", pan, swipe, pinch, rotate
        case edgeSwipe = "edge-swipe", circle, stuck, wait, down, move, up, pause, unplug

        var allowedKeys: Set<String> {
            switch self {
            case .tap: ["at", "fingers", "duration"]
            case .doubleTap: ["at", "fingers", "duration", "gap"]
            case .longPress: ["at", "fingers", "duration"]
            case .pan: ["from", "to", "fingers", "duration", "landing", "lifting"]
            case .swipe: ["direction", "at", "distance", "fingers", "duration", "landing", "lifting"]
            case .pinch: ["direction", "at", "from", "to", "fingers", "duration"]
            case .rotate: ["at", "angle", "radius", "fingers", "duration"]
            case .edgeSwipe: ["edge", "at", "distance", "fingers", "duration"]
            case .circle: ["at", "radius", "direction", "turns", "duration"]
            case .stuck: ["at", "duration"]
            case .wait: ["duration"]
            case .down: ["id", "at", "tool"]
            case .move: ["id", "to", "duration", "tool"]
            case .up: ["id"]
            case .pause, .unplug: []
            }
        }

        var isGesture: Bool {
            switch self {
            case .tap, .doubleTap, .longPress, .pan, .swipe, .pinch, .rotate, .edgeSwipe, .circle, .stuck: true
            case .wait, .down, .move, .up, .pause, .unplug: false
            }
        }
    }

    let steps: [Step]

    /// The time between two gestures when no `wait` says otherwise.
    public static let defaultGap = TimeSpan.milliseconds(500)
    /// Frame period of the simulated panel (100 Hz).
    public static let framePeriod = TimeSpan.milliseconds(10)

    /// Parses a script; every error names its line.
    public init(parsing text: String) throws(LineError) {
        var steps: [Step] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = index + 1
            let content = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let words = content.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            guard let first = words.first else { continue }
            guard let verb = Verb(rawValue: String(first)) else {
                let known = Verb.allCases.map(\.rawValue).joined(separator: ", ")
                throw LineError(
                    line: line,
                    "unknown step '\(first)'"
                        + NearestWord.hint(for: String(first), among: Verb.allCases.map(\.rawValue))
                        + " (expected one of: \(known))")
            }
            var arguments: [String: String] = [:]
            var barePoints = 0
            for word in words.dropFirst() {
                let key: String
                let value: String
                if let eq = word.firstIndex(of: "=") {
                    key = String(word[..<eq])
                    value = String(word[word.index(after: eq)...])
                } else if Self.point(String(word)) != nil {
                    key = verb == .pan ? (barePoints == 0 ? "from" : "to") : (verb == .move ? "to" : "at")
                    barePoints += 1
                    value = String(word)
                } else if Self.duration(String(word)) != nil {
                    key = "duration"
                    value = String(word)
                } else {
                    key = verb == .edgeSwipe ? "edge" : "direction"
                    value = String(word)
                }
                guard verb.allowedKeys.contains(key) else {
                    let allowed = verb.allowedKeys.sorted().joined(separator: ", ")
                    throw LineError(
                        line: line,
                        "'\(word)' is not an argument of \(verb.rawValue)"
                            + (allowed.isEmpty ? " (it takes none)" : " (it takes: \(allowed))"))
                }
                guard arguments[key] == nil else { throw LineError(line: line, "'\(key)' given twice") }
                arguments[key] = value
            }
            steps.append(Step(verb: verb, arguments: arguments, line: line))
        }
        self.steps = steps
        // Validate every argument now, so a bad script fails before any device is made.
        _ = try timeline(seed: 1)
    }

    /// Parses inline steps (one per command-line argument).
    public init(steps lines: [String]) throws(LineError) {
        try self.init(parsing: lines.joined(separator: "\n"))
    }

    // MARK: Values

    static func point(_ text: String) -> SurfacePoint? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let x = Double(parts[0]), let y = Double(parts[1]), (0...1).contains(x),
            (0...1).contains(y)
        else { return nil }
        return SurfacePoint(x: x, y: y)
    }

    /// Parses a duration: `250ms`, `1.5s` (0 to 3600 s).
    public static func duration(_ text: String) -> TimeSpan? {
        let number: Substring
        let scale: Double
        if text.hasSuffix("ms") {
            number = text.dropLast(2)
            scale = 1000
        } else if text.hasSuffix("s") {
            number = text.dropLast()
            scale = 1_000_000
        } else {
            return nil
        }
        guard let value = Double(number), value.isFinite, value >= 0, value <= 3600 else { return nil }
        return TimeSpan(microseconds: Int64((value * scale).rounded()))
    }

    // MARK: Timeline

    /// The frames of the script, with jitter from `seed`. `aspect` is the panel's height over its
    /// width on the glass: round shapes (pinch, rotate, circle) are drawn round on the glass, not
    /// in surface coordinates, as fingers would draw them (radii are in surface widths).
    public func timeline(seed: UInt64 = 1, aspect: Double = 1) throws(LineError) -> [TimelineStep] {
        var builder = TimelineBuilder(seed: seed)
        var previousWasGesture = false
        for step in steps {
            var a = Arguments(step: step)
            if step.verb.isGesture && previousWasGesture { builder.advance(by: Self.defaultGap) }
            switch step.verb {
            case .tap:
                let at = try a.point("at", default: SurfacePoint(x: 0.5, y: 0.5))
                let fingers = try a.fingers()
                let duration = try a.duration(default: .milliseconds(60))
                builder.hold(Self.row(at, fingers, along: SurfaceVector(dx: 1, dy: 0)), for: duration)
            case .doubleTap:
                let at = try a.point("at", default: SurfacePoint(x: 0.5, y: 0.5))
                let fingers = try a.fingers()
                let duration = try a.duration(default: .milliseconds(60))
                let gap = try a.span("gap", default: .milliseconds(120))
                let positions = Self.row(at, fingers, along: SurfaceVector(dx: 1, dy: 0))
                builder.hold(positions, for: duration)
                builder.advance(by: gap)
                builder.hold(positions, for: duration)
            case .longPress:
                let at = try a.point("at", default: SurfacePoint(x: 0.5, y: 0.5))
                let fingers = try a.fingers()
                let duration = try a.duration(default: .milliseconds(800))
                builder.hold(Self.row(at, fingers, along: SurfaceVector(dx: 1, dy: 0)), for: duration)
            case .pan:
                let from = try a.point("from", default: SurfacePoint(x: 0.3, y: 0.5))
                let to = try a.point("to", default: SurfacePoint(x: 0.7, y: 0.5))
                let fingers = try a.fingers()
                let duration = try a.duration(default: .milliseconds(600))
                try builder.stroke(
                    from: from, to: to, fingers: fingers, duration: duration, spread: try a.spread(),
                    line: step.line)
            case .swipe:
                let direction = try a.direction()
                let at = try a.point("at", default: SurfacePoint(x: 0.5, y: 0.5))
                let distance = try a.number("distance", default: 0.3, in: 0.01...1)
                let fingers = try a.fingers()
                let duration = try a.duration(default: .milliseconds(120))
                let half = direction * (distance / 2)
                try builder.stroke(
                    from: SurfacePoint(x: at.x - half.dx, y: at.y - half.dy),
                    to: SurfacePoint(x: at.x + half.dx, y: at.y + half.dy), fingers: fingers, duration: duration,
                    spread: try a.spread(), line: step.line)
            case .pinch:
                let inward = try a.word("direction", allowed: ["in", "out"], default: "in") == "in"
                let at = try a.point("at", default: SurfacePoint(x: 0.5, y: 0.5))
                let from = try a.number("from", default: inward ? 0.4 : 0.1, in: 0...1.5)
                let to = try a.number("to", default: inward ? 0.1 : 0.4, in: 0...1.5)
                let fingers = try a.fingers(default: 2, minimum: 2)
                let duration = try a.duration(default: .milliseconds(500))
                builder.move(fingers: fingers, duration: duration) { progress, finger in
                    let radius = (from + (to - from) * progress) / 2
                    let angle = Double(finger) * 2 * Double.pi / Double(fingers)
                    return SurfacePoint(x: at.x + radius * cos(angle), y: at.y + radius * sin(angle) / aspect)
                }
            case .rotate:
                let at = try a.point("at", default: SurfacePoint(x: 0.5, y: 0.5))
                let angle = try a.number("angle", default: 90, in: -3600...3600) * Double.pi / 180
                let radius = try a.number("radius", default: 0.12, in: 0.01...0.7)
                let fingers = try a.fingers(default: 2, minimum: 2)
                let duration = try a.duration(default: .milliseconds(600))
                builder.move(fingers: fingers, duration: duration) { progress, finger in
                    // y grows downwards, so a positive angle turns clockwise on screen.
                    let start = Double(finger) * 2 * Double.pi / Double(fingers) - Double.pi / 2
                    let θ = start + angle * progress
                    return SurfacePoint(x: at.x + radius * cos(θ), y: at.y + radius * sin(θ) / aspect)
                }
            case .edgeSwipe:
                let edge = try a.word("edge", allowed: ["left", "right", "top", "bottom"], default: nil)
                let along = try a.number("at", default: 0.5, in: 0...1)
                let distance = try a.number("distance", default: 0.3, in: 0.01...1)
                let fingers = try a.fingers()
                let duration = try a.duration(default: .milliseconds(250))
                // Real first contacts land a few tenths of a millimetre inside the edge.
                let inset = 0.002
                let (from, to): (SurfacePoint, SurfacePoint) =
                    switch edge {
                    case "left": (SurfacePoint(x: inset, y: along), SurfacePoint(x: distance, y: along))
                    case "right": (SurfacePoint(x: 1 - inset, y: along), SurfacePoint(x: 1 - distance, y: along))
                    case "top": (SurfacePoint(x: along, y: inset), SurfacePoint(x: along, y: distance))
                    default: (SurfacePoint(x: along, y: 1 - inset), SurfacePoint(x: along, y: 1 - distance))
                    }
                try builder.stroke(from: from, to: to, fingers: fingers, duration: duration, line: step.line)
            case .circle:
                let at = try a.point("at", default: SurfacePoint(x: 0.5, y: 0.5))
                let radius = try a.number("radius", default: 0.15, in: 0.01...0.5)
                let clockwise = try a.word("direction", allowed: ["cw", "ccw"], default: "cw") == "cw"
                let turns = try a.number("turns", default: 1, in: 0.1...10)
                let duration = try a.duration(default: .milliseconds(800))
                builder.move(fingers: 1, duration: duration) { progress, _ in
                    let θ = -Double.pi / 2 + (clockwise ? 1 : -1) * 2 * Double.pi * turns * progress
                    return SurfacePoint(x: at.x + radius * cos(θ), y: at.y + radius * sin(θ) / aspect)
                }
            case .stuck:
                let at = try a.point("at", default: SurfacePoint(x: 0.5, y: 0.5))
                builder.ghost(at, for: try a.duration(default: .milliseconds(35_000)))
            case .wait:
                builder.advance(by: try a.duration(default: nil))
            case .down:
                let id = try a.contactID()
                guard !builder.held.contains(where: { $0.id == builder.heldID(id) }) else {
                    throw LineError(line: step.line, "contact \(id) is already down")
                }
                let at = try a.point("at", default: nil)
                builder.held.append(SimulatedContact(id: builder.heldID(id), position: at, tool: try a.tool()))
                builder.emitAndStep()
            case .move:
                let id = try a.contactID()
                guard let index = builder.held.firstIndex(where: { $0.id == builder.heldID(id) }) else {
                    throw LineError(line: step.line, "contact \(id) is not down")
                }
                let to = try a.point("to", default: builder.held[index].position)
                let duration = try a.duration(default: .milliseconds(0))
                if let tool = try a.optionalTool() { builder.held[index].tool = tool }
                builder.slide(heldIndex: index, to: to, duration: duration)
            case .up:
                let id = try a.contactID()
                guard let index = builder.held.firstIndex(where: { $0.id == builder.heldID(id) }) else {
                    throw LineError(line: step.line, "contact \(id) is not down")
                }
                builder.held.remove(at: index)
                builder.emitAndStep()
            case .pause:
                builder.steps.append(.pause(at: TimeSpan(microseconds: builder.now.microseconds)))
            case .unplug:
                builder.unplug()
            }
            try a.finish()
            previousWasGesture = step.verb.isGesture
        }
        if steps.last?.verb == .wait {
            builder.steps.append(.end(at: TimeSpan(microseconds: builder.now.microseconds)))
        }
        return builder.steps
    }

    /// `fingers` positions in a row through `center`, perpendicular to `direction`, 0.05 apart.
    static func row(_ center: SurfacePoint, _ fingers: Int, along direction: SurfaceVector) -> [SurfacePoint] {
        let length = (direction.dx * direction.dx + direction.dy * direction.dy).squareRoot()
        let across = SurfaceVector(dx: -direction.dy / length, dy: direction.dx / length)
        return (0..<fingers).map { i in
            let offset = (Double(i) - Double(fingers - 1) / 2) * 0.05
            return SurfacePoint(x: center.x + across.dx * offset, y: center.y + across.dy * offset)
        }
    }
}

/// Reads one step's arguments, remembering which were used.
private struct Arguments {
    let step: GestureScript.Step
    var used: Set<String> = []

    init(step: GestureScript.Step) { self.step = step }

    mutating func raw(_ key: String) -> String? {
        used.insert(key)
        return step.arguments[key]
    }

    func error(_ key: String, _ expected: String) -> LineError {
        LineError(line: step.line, "\(key)=\(step.arguments[key] ?? "") is not \(expected)")
    }

    mutating func point(_ key: String, default value: SurfacePoint?) throws(LineError) -> SurfacePoint {
        guard let text = raw(key) else {
            guard let value else { throw LineError(line: step.line, "\(step.verb.rawValue) needs \(key)=X,Y") }
            return value
        }
        guard let p = GestureScript.point(text) else { throw error(key, "a point X,Y with 0 ≤ X,Y ≤ 1") }
        return p
    }

    mutating func span(_ key: String, default value: TimeSpan?) throws(LineError) -> TimeSpan {
        guard let text = raw(key) else {
            guard let value else {
                throw LineError(line: step.line, "\(step.verb.rawValue) needs a \(key) (e.g. 300ms)")
            }
            return value
        }
        guard let d = GestureScript.duration(text) else { throw error(key, "a duration such as 250ms or 1.5s") }
        return d
    }

    mutating func duration(default value: TimeSpan?) throws(LineError) -> TimeSpan {
        try span("duration", default: value)
    }

    /// `landing` and `lifting`: how long the fingers take to land one after the other before the
    /// stroke and to lift one after the other after it (0: all at once).
    mutating func spread() throws(LineError) -> Spread {
        Spread(
            landing: try span("landing", default: .milliseconds(0)), lifting: try span("lifting", default: .milliseconds(0)))
    }

    mutating func number(
        _ key: String, default value: Double, in range: ClosedRange<Double>
    ) throws(LineError) -> Double {
        guard let text = raw(key) else { return value }
        guard let n = Double(text), range.contains(n) else {
            throw error(key, "a number from \(range.lowerBound) to \(range.upperBound)")
        }
        return n
    }

    mutating func fingers(default value: Int = 1, minimum: Int = 1) throws(LineError) -> Int {
        guard let text = raw("fingers") else { return value }
        guard let n = Int(text), (minimum...10).contains(n) else {
            throw error("fingers", "a count from \(minimum) to 10")
        }
        return n
    }

    mutating func word(_ key: String, allowed: [String], default value: String?) throws(LineError) -> String {
        guard let text = raw(key) else {
            guard let value else {
                throw LineError(
                    line: step.line, "\(step.verb.rawValue) needs \(key) (\(allowed.joined(separator: ", ")))")
            }
            return value
        }
        guard allowed.contains(text) else { throw error(key, "one of \(allowed.joined(separator: ", "))") }
        return text
    }

    static let directions: [String: SurfaceVector] = [
        "right": SurfaceVector(dx: 1, dy: 0), "left": SurfaceVector(dx: -1, dy: 0),
        "down": SurfaceVector(dx: 0, dy: 1), "up": SurfaceVector(dx: 0, dy: -1),
        "up-right": SurfaceVector(dx: 0.5.squareRoot(), dy: -0.5.squareRoot()),
        "up-left": SurfaceVector(dx: -0.5.squareRoot(), dy: -0.5.squareRoot()),
        "down-right": SurfaceVector(dx: 0.5.squareRoot(), dy: 0.5.squareRoot()),
        "down-left": SurfaceVector(dx: -0.5.squareRoot(), dy: 0.5.squareRoot()),
    ]

    mutating func direction() throws(LineError) -> SurfaceVector {
        let word = try word("direction", allowed: Self.directions.keys.sorted(), default: nil)
        return Self.directions[word]!
    }

    mutating func contactID() throws(LineError) -> Int {
        guard let text = raw("id") else { throw LineError(line: step.line, "\(step.verb.rawValue) needs id=N") }
        guard let n = Int(text), (0...1000).contains(n) else { throw error("id", "a contact number from 0 to 1000") }
        return n
    }

    mutating func optionalTool() throws(LineError) -> ToolType? {
        guard let text = raw("tool") else { return nil }
        guard let tool = ToolType(rawValue: text) else { throw error("tool", "finger, pen or palm") }
        return tool
    }

    mutating func tool() throws(LineError) -> ToolType { try optionalTool() ?? .finger }

    /// Arguments given but not used by this step (cannot happen after parsing; kept as a guard).
    func finish() throws(LineError) {
        if let unused = Set(step.arguments.keys).subtracting(used).sorted().first {
            throw LineError(line: step.line, "'\(unused)' does not apply here")
        }
    }
}

/// How the fingers of a stroke land and lift, as a hand does: one after the other, evenly over
/// `landing`, where the stroke starts (it moves once the last has landed), and over `lifting`
/// after the stroke (the last to land lifts first, the others held still).
private struct Spread {
    var landing: TimeSpan
    var lifting: TimeSpan
    static let none = Spread(landing: .milliseconds(0), lifting: .milliseconds(0))

    /// Finger `i` of `count`'s share of a span: 0 for the first, the whole span for the last.
    static func share(_ span: TimeSpan, _ i: Int, of count: Int) -> TimeSpan {
        count > 1 ? TimeSpan(microseconds: span.microseconds * Int64(i) / Int64(count - 1)) : .milliseconds(0)
    }
}

/// Accumulates timeline steps with a deterministic jitter.
private struct TimelineBuilder {
    var steps: [TimelineStep] = []
    /// Time since the start (a Timestamp whose origin is the start of the script).
    var now = Timestamp(microseconds: 0)
    var held: [SimulatedContact] = []
    private var nextID = 1
    private var rng: SplitMix64

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    /// Low-level contact ids live in their own range so they never collide with gesture fingers.
    func heldID(_ id: Int) -> Int { 1_000_000 + id }

    mutating func advance(by span: TimeSpan) { now = now + span }

    mutating func emit(_ extra: [SimulatedContact] = []) {
        steps.append(.frame(at: TimeSpan(microseconds: now.microseconds), contacts: held + extra))
    }

    /// A low-level step's frame, then one frame period so the next frame comes later.
    mutating func emitAndStep() {
        emit()
        now = now + period()
    }

    mutating func unplug() {
        steps.append(.unplug(at: TimeSpan(microseconds: now.microseconds)))
        held.removeAll()
    }

    /// The next frame period: 10 ms ± 1 ms.
    mutating func period() -> TimeSpan {
        TimeSpan(microseconds: 9_000 + Int64(rng.next() % 2_001))
    }

    /// ±0.0002 surface units (0.07 mm on a 344 mm panel) of tremor.
    private mutating func tremor() -> Double { (Double(rng.next() % 2_001) - 1_000) / 5_000_000 }

    private mutating func ids(_ count: Int) -> [Int] {
        defer { nextID += count }
        return Array(nextID..<nextID + count)
    }

    private mutating func contacts(_ ids: [Int], _ positions: [SurfacePoint], tremble: Bool) -> [SimulatedContact] {
        var result: [SimulatedContact] = []
        for (id, p) in zip(ids, positions) {
            let x = tremble ? p.x + tremor() : p.x
            let y = tremble ? p.y + tremor() : p.y
            result.append(SimulatedContact(id: id, position: SurfacePoint(x: min(max(x, 0), 1), y: min(max(y, 0), 1))))
        }
        return result
    }

    /// A contact that lands at `position` and reports nothing more — no tremor, no frame — until it
    /// lifts `duration` later: what a panel's ghost contact looks like.
    mutating func ghost(_ position: SurfacePoint, for duration: TimeSpan) {
        emit(contacts(ids(1), [position], tremble: false))
        now = now + duration
        emit()
        now = now + period()
    }

    /// Fingers down at `positions` for `duration`, reporting every frame period, then lifted.
    mutating func hold(_ positions: [SurfacePoint], for duration: TimeSpan) {
        move(count: positions.count, duration: duration) { _, finger in positions[finger] }
    }

    /// All fingers follow `path(progress, finger)` from progress 0 to 1 over `duration`.
    mutating func move(fingers: Int, duration: TimeSpan, path: (Double, Int) -> SurfacePoint) {
        move(count: fingers, duration: duration, path: path)
    }

    private mutating func move(
        count: Int, duration: TimeSpan, spread: Spread = .none, path: (Double, Int) -> SurfacePoint
    ) {
        let fingers = ids(count)
        func positions(_ progress: Double) -> [SurfacePoint] { (0..<count).map { path(progress, $0) } }
        if spread.landing.microseconds > 0 {
            // One frame as each finger lands, at its moment; the stroke starts a frame later.
            let landing = now
            let starts = positions(0)
            for i in 0..<count {
                now = landing + Spread.share(spread.landing, i, of: count)
                emit(contacts(Array(fingers[...i]), Array(starts[...i]), tremble: false))
            }
            now = now + period()
        }
        let start = now
        emit(contacts(fingers, positions(0), tremble: false))
        while true {
            let next = now + period()
            if next - start >= duration { break }
            now = next
            emit(
                contacts(
                    fingers, positions(Double((now - start).microseconds) / Double(duration.microseconds)),
                    tremble: true))
        }
        now = start + duration
        let last = positions(1)
        if duration.microseconds > 0 { emit(contacts(fingers, last, tremble: false)) }
        now = now + period()
        // The last to land lifts first; the others stay still until their turn.
        let end = now
        for remaining in stride(from: count - 1, through: 1, by: -1) where spread.lifting.microseconds > 0 {
            now = end + Spread.share(spread.lifting, count - 1 - remaining, of: count)
            emit(contacts(Array(fingers[..<remaining]), Array(last[..<remaining]), tremble: false))
        }
        now = end + spread.lifting
        emit()
    }

    /// A straight stroke of `fingers` fingers side by side.
    mutating func stroke(
        from: SurfacePoint, to: SurfacePoint, fingers: Int, duration: TimeSpan, spread: Spread = .none, line: Int
    ) throws(LineError) {
        let direction = to - from
        guard direction.dx != 0 || direction.dy != 0 else {
            throw LineError(line: line, "from and to are the same point")
        }
        let starts = GestureScript.row(from, fingers, along: direction)
        move(count: fingers, duration: duration, spread: spread) { progress, finger in
            starts[finger] + direction * progress
        }
    }

    /// Moves one held contact to `to` over `duration`.
    mutating func slide(heldIndex index: Int, to: SurfacePoint, duration: TimeSpan) {
        let from = held[index].position
        let start = now
        while duration.microseconds > 0 {
            let next = now + period()
            if next - start >= duration { break }
            now = next
            let progress = Double((now - start).microseconds) / Double(duration.microseconds)
            held[index].position = from + (to - from) * progress
            emit()
        }
        now = start + duration
        held[index].position = to
        emitAndStep()
    }
}

/// A small deterministic generator (SplitMix64) so a seed always gives the same jitter.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
