import GestureEngine
import GestureProtocol
import Glibc

/// What the actions client does about gesture reports: the core of `gestured actions`, with no
/// I/O. A `gesture` message goes in; the keys to tap, the clicks, the wheel motion and the
/// commands to start come out, in rule order. The caller carries them out (uinput, processes).
///
/// Each rule acts in one of two ways:
///
/// | rule | report | tracked (per device) | out |
/// |---|---|---|---|
/// | one-shot (`keys`, `click`, `run`) | its state (or the first report), filters pass | — | the action |
/// | follows (`scroll`, `keys` + `repeat`) | `began`, filters pass | idle → following | the motion so far |
/// | follows | `changed` | following | the motion since the last report |
/// | follows | `ended`, `cancelled` | following → idle | the last motion |
/// | follows | `changed`, `ended`, `cancelled` | idle | nothing (it began before this connection, or failed a filter) |
/// | follows | `began` | following (a report was missed) | restarts from this report |
///
/// Filters are checked on `began` only: a two-finger scroll that loses a finger keeps scrolling
/// until it ends. Motion is cumulative in every report (`translation`, `scale`, `rotation` since
/// the gesture began), so coalesced `changed` reports (a slow client, PROTOCOL.md) lose nothing:
/// the next report carries the motion of the ones left out.
///
/// Scrolling turns millimetres into high-resolution wheel units (120 a detent, as
/// `REL_WHEEL_HI_RES` counts), keeping the fraction of a unit for the next report, and derives
/// the legacy `REL_WHEEL` detents from them as the kernel's HID driver does (a detent each time
/// the accumulated high-resolution motion reaches 120). Over a whole gesture the wheel therefore
/// turns by the gesture's translation within less than one detent.
public struct ActionPlanner: Sendable {
    /// One thing to do.
    public enum Output: Hashable, Sendable {
        /// Press the keys in order, release them in reverse order.
        case keys([String])
        /// Press and release a button; at the gesture's `position` (surface coordinates) or at
        /// the cursor.
        case click(PointerButton, at: PointerPlace, position: XY)
        /// Turn the wheels; at the scroll's anchor (where the gesture began) or at the cursor.
        case wheel(WheelMotion, at: PointerPlace, position: XY)
        /// Start a command with these environment variables added; `rule` is its index.
        case run(Command, environment: [String: String], rule: Int)
        /// Do not start a command: the report has a value no daemon sends (its environment would
        /// carry it; ``GestureEnvironment``).
        case refuse(Command, GestureEnvironment.Refusal, rule: Int)
    }

    private let rules: [ActionRule]
    /// Rule indices by recognizer name.
    private let rulesByName: [String: [Int]]
    /// Rule indices by the panel's day they act on (`on: wake`, `idle`, `active`).
    private let rulesByPanelEvent: [PanelEventName: [Int]]
    /// The gestures being followed, by device and rule.
    private var following: [Follow: Progress] = [:]

    private struct Follow: Hashable {
        var device: String
        var rule: Int
    }

    private enum Progress {
        case scroll(ScrollProgress)
        case repeating(RepeatProgress)
    }

    public init(_ configuration: ActionsConfiguration) {
        rules = configuration.actions
        var byName: [String: [Int]] = [:]
        var byEvent: [PanelEventName: [Int]] = [:]
        for (i, rule) in rules.enumerated() {
            if let event = rule.panelEvent {
                byEvent[event, default: []].append(i)
            } else if rule.isNamedOnly {
                continue
            } else {
                byName[rule.recognizer, default: []].append(i)
            }
        }
        rulesByName = byName
        rulesByPanelEvent = byEvent
    }

    /// The actions for a panel's `wake`, `idle` or `active` message (anything else: none),
    /// appended to `out` in rule order: keys, or commands with the message in their environment.
    public func handle(panel message: ServerMessage, into out: inout [Output]) {
        var rules: [Int] = []
        handle(panel: message, into: &out, rules: &rules)
    }

    /// ``handle(panel:into:)``, also appending to `rules` the index of the rule each output comes
    /// from: what `gestured actions --dry-run` shows.
    public func handle(panel message: ServerMessage, into out: inout [Output], rules: inout [Int]) {
        let event: PanelEventName
        switch message {
        case .wake: event = .wake
        case .idle: event = .idle
        case .active: event = .active
        default: return
        }
        for i in rulesByPanelEvent[event] ?? [] {
            defer { rules.append(i) }
            switch self.rules[i].action {
            case .keys(let chord, _): out.append(.keys(chord.names))
            case .run(let command):
                switch Result(catching: { () throws(GestureEnvironment.Refusal) in
                    try GestureEnvironment.variables(panel: message)
                }) {
                case .success(let environment): out.append(.run(command, environment: environment, rule: i))
                case .failure(let refusal): out.append(.refuse(command, refusal, rule: i))
                }
            case .click, .scroll: preconditionFailure("a rule on a panel's day takes keys or a command")
            }
        }
    }

    /// The actions for one report, appended to `out` in rule order.
    public mutating func handle(_ g: GestureMessage, into out: inout [Output]) {
        var rules: [Int] = []
        handle(g, into: &out, rules: &rules)
    }

    /// ``handle(_:into:)``, also appending to `rules` the index of the rule each output comes
    /// from: what `gestured actions --dry-run` shows.
    public mutating func handle(_ g: GestureMessage, into out: inout [Output], rules: inout [Int]) {
        guard let indices = rulesByName[g.name] else { return }
        for i in indices {
            let before = out.count
            defer { rules.append(contentsOf: repeatElement(i, count: out.count - before)) }
            let rule = self.rules[i]
            if rule.followsGesture {
                follow(rule, i, g, into: &out)
            } else if rule.state.map({ $0 == g.state }) ?? (g.state == .recognized || g.state == .began),
                rule.passesFilters(g)
            {
                out.append(oneShot(rule, i, g))
            }
        }
    }

    /// The connection ended: what was being followed is forgotten (the daemon that comes back
    /// does not continue it, and a key is never left down: keys are tapped, not held).
    public mutating func reset() {
        following.removeAll()
    }

    /// How many gestures are being followed now.
    public var followingCount: Int { following.count }

    private func oneShot(_ rule: ActionRule, _ index: Int, _ g: GestureMessage) -> Output {
        switch rule.action {
        case .keys(let chord, _): .keys(chord.names)
        case .click(let click): .click(click.button, at: click.at, position: XY(g.position))
        case .run(let command):
            switch Result(catching: { () throws(GestureEnvironment.Refusal) in try GestureEnvironment.variables(g) }) {
            case .success(let environment): .run(command, environment: environment, rule: index)
            case .failure(let refusal): .refuse(command, refusal, rule: index)
            }
        case .scroll: preconditionFailure("scroll follows its gesture")
        }
    }

    private mutating func follow(_ rule: ActionRule, _ index: Int, _ g: GestureMessage, into out: inout [Output]) {
        let key = Follow(device: g.device, rule: index)
        switch g.state {
        case .began:
            guard rule.passesFilters(g) else {
                following[key] = nil
                return
            }
            switch rule.action {
            case .scroll(let scroll):
                following[key] = .scroll(ScrollProgress(scroll, anchor: XY(g.position)))
            case .keys(let chord, let repeating?):
                following[key] = .repeating(RepeatProgress(chord, repeating))
            case .keys(_, nil), .click, .run:
                preconditionFailure("a one-shot rule does not follow")
            }
            advance(key, g, into: &out)
        case .changed:
            advance(key, g, into: &out)
        case .ended, .cancelled:
            advance(key, g, into: &out)
            following[key] = nil
        case .recognized:
            // A discrete gesture has no motion to follow (the hello check warns about such rules).
            break
        }
    }

    private mutating func advance(_ key: Follow, _ g: GestureMessage, into out: inout [Output]) {
        switch following[key] {
        case .scroll(var progress):
            if let motion = progress.advance(to: Measure.translationMM(g)) {
                out.append(.wheel(motion, at: progress.scroll.at, position: progress.anchor))
            }
            following[key] = .scroll(progress)
        case .repeating(var progress):
            progress.advance(to: progress.measure(g), into: &out)
            following[key] = .repeating(progress)
        case nil:
            break
        }
    }
}

/// Wheel motion for one report, in the kernel's signs: `vertical` positive scrolls up (the wheel
/// turned away from the user), `horizontal` positive scrolls right. High-resolution units are
/// 120 a detent; `detents` are the legacy `REL_WHEEL`/`REL_HWHEEL` values sent beside them.
public struct WheelMotion: Hashable, Sendable {
    public var vertical: Int32
    public var verticalDetents: Int32
    public var horizontal: Int32
    public var horizontalDetents: Int32

    public init(vertical: Int32 = 0, verticalDetents: Int32 = 0, horizontal: Int32 = 0, horizontalDetents: Int32 = 0) {
        self.vertical = vertical
        self.verticalDetents = verticalDetents
        self.horizontal = horizontal
        self.horizontalDetents = horizontalDetents
    }

    /// High-resolution units per detent (linux/input-event-codes.h, REL_WHEEL_HI_RES).
    public static let unitsPerDetent: Int32 = 120
}

/// One scroll in progress: the translation already turned into wheel motion, and the remainders.
struct ScrollProgress {
    let scroll: Scroll
    let anchor: XY
    /// The translation (mm) already accounted for.
    private var last = XY(x: 0, y: 0)
    /// Fractions of a high-resolution unit not sent yet.
    private var fraction = XY(x: 0, y: 0)
    /// High-resolution units sent since the last whole detent, per axis (the HID driver's
    /// `wheel_accumulated`).
    private var accumulatedV: Int32 = 0
    private var accumulatedH: Int32 = 0

    init(_ scroll: Scroll, anchor: XY) {
        self.scroll = scroll
        self.anchor = anchor
    }

    /// The wheel motion that brings the scroll to `translation`; nil when it is less than one
    /// high-resolution unit on every axis.
    mutating func advance(to translation: XY) -> WheelMotion? {
        let dx = translation.x - last.x
        let dy = translation.y - last.y
        last = translation
        let perMM = Double(WheelMotion.unitsPerDetent) / scroll.mmPerDetent
        // Natural: content follows the fingers, so fingers moving down scroll up (wheel +) and
        // fingers moving right scroll left (hwheel −). Otherwise the other way round.
        let sign: Double = scroll.natural ? 1 : -1
        var motion = WheelMotion()
        if scroll.axis != .horizontal {
            motion.vertical = Self.whole(sign * dy * perMM, carrying: &fraction.y)
            motion.verticalDetents = Self.detents(motion.vertical, accumulated: &accumulatedV)
        }
        if scroll.axis != .vertical {
            motion.horizontal = Self.whole(-sign * dx * perMM, carrying: &fraction.x)
            motion.horizontalDetents = Self.detents(motion.horizontal, accumulated: &accumulatedH)
        }
        return motion == WheelMotion() ? nil : motion
    }

    /// The whole units of `units` plus the carried fraction; the new fraction is carried on.
    private static func whole(_ units: Double, carrying fraction: inout Double) -> Int32 {
        let total = units + fraction
        let whole = total.rounded(.towardZero)
        fraction = total - whole
        return Int32(clamping: Int64(max(min(whole, 1e9), -1e9)))
    }

    /// Legacy detents for `units` more high-resolution units, as hid-input.c derives REL_WHEEL
    /// from REL_WHEEL_HI_RES: accumulate, send the whole detents, keep the rest.
    private static func detents(_ units: Int32, accumulated: inout Int32) -> Int32 {
        accumulated += units
        let detents = accumulated / WheelMotion.unitsPerDetent
        accumulated -= detents * WheelMotion.unitsPerDetent
        return detents
    }
}

/// Repeated keys in progress: where the gesture started on the repeat's measure, and how many
/// steps were sent (forward positive).
struct RepeatProgress {
    let chord: KeyChord
    let repeating: KeyRepeat
    private var origin: Double?
    private var steps = 0

    init(_ chord: KeyChord, _ repeating: KeyRepeat) {
        self.chord = chord
        self.repeating = repeating
    }

    /// The gesture's position on the repeat's measure, in steps (fractional).
    func measure(_ g: GestureMessage) -> Double {
        switch repeating.step {
        case .millimetres(let mm, let along):
            let t = Measure.translationMM(g)
            let projected: Double =
                switch along {
                case .up: -t.y
                case .down: t.y
                case .left: -t.x
                case .right: t.x
                case .upLeft, .upRight, .downLeft, .downRight: 0
                }
            return projected / mm
        case .degrees(let degrees):
            return (g.rotation ?? 0) * 180 / Double.pi / degrees
        case .scale(let factor):
            return Glibc.log(max(g.scale ?? 1, 1e-6)) / Glibc.log(factor)
        }
    }

    /// Sends a chord per whole step between the steps sent and `position` (toward zero: a step
    /// counts once it is complete), forward or back.
    mutating func advance(to position: Double, into out: inout [ActionPlanner.Output]) {
        let origin = self.origin ?? position
        self.origin = origin
        let target = Int(max(min(position - origin, 1e6), -1e6).rounded(.towardZero))
        while steps < target {
            steps += 1
            out.append(.keys(chord.names))
        }
        while steps > target {
            steps -= 1
            if let reverse = repeating.reverse { out.append(.keys(reverse.names)) }
        }
    }
}

/// Measures read from a report.
enum Measure {
    /// A panel of unknown size counts as the engine's nominal one (344 mm wide, 16:9).
    static let assumedSizeMM = XY(x: 344, y: 193.5)

    /// The translation in millimetres: the report's, or the surface translation on the nominal
    /// panel when the device's size is unknown.
    static func translationMM(_ g: GestureMessage) -> XY {
        g.translationMM.map(XY.init) ?? XY(x: g.translation.dx * assumedSizeMM.x, y: g.translation.dy * assumedSizeMM.y)
    }
}
