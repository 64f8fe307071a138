import Foundation
import TestSupport
import Testing

@testable import GestureEngine

/// R8's promise to the views (raw-touch subscribers and the passthrough mirror), checked on
/// random input under random configurations (``RandomTouchCase``): every kind, every flag
/// (delays-touches-began/ended, cancels-touches), every relation (requires-failure-of,
/// simultaneous-with, preempts), `when.max-fingers`, regions, palms, lost events.
///
/// For every case:
/// - **well-formed**: each touch's view events are `began`, `moved`*, then exactly one of `ended`
///   or `cancelled` — or nothing at all;
/// - **in time order**: across touches, view events come in non-decreasing time, never later than
///   they are emitted;
/// - **as they happened**: `began`, `moved` and `ended` carry the time and position of the frame
///   they come from (held events keep theirs), each move once; a `cancelled` carries the time of
///   what cancelled it: a claim, a cancelled touch, lost events;
/// - **claimed at that moment**: once a touch is listed in the `touches` of a gesture whose
///   recognizer cancels touches, the views get nothing more of it but the `cancelled` at the time
///   of that event (or what happened before it, released in order); a touch a recognizer with
///   delays-touches-began lists never reaches the views;
/// - **unclaimed is whole**: a touch nobody claims reaches the views unchanged (every move, its
///   end);
/// - nothing is left held once every finger lifted and every timer ran out;
/// - the engine's switches change nothing else: a case run with explanations emits the same
///   gestures and view events without them, one run without the views' moves the same as with
///   them, but the moves, and one run with some kinds' gesture events left out the same as with
///   them, but those events.
///
/// With a stage before the arena (``PanelSettings``, about half the cases), against a model of
/// it written here from docs/ARBITRATION.md ("Before the arena"), not taken from the engine:
/// - a contact that lands in a dead zone, one that wakes the screen and one that lands while a
///   wake's contacts are down reach nobody: no view event, no gesture lists them;
/// - a contact that stayed within the stuck limit's distance for its time is ended then, and
///   only then: the views get `cancelled` at that time (if they saw it) and nothing after, no
///   gesture decided afterwards lists it but as `cancelled`;
/// - a wake happens exactly when a touch lands with nothing else down while the screen was said
///   to be off (or the panel is idle, with `wakeAfterIdle`); idle exactly when the panel has been
///   without a touch for `idleAfter`, active at the next touch;
/// - and all of the above holds for the contacts that do pass.
///
/// `GESTURED_VIEW_CASES=N` runs N cases (default 3 000, drawn from one fixed base seed, so every
/// run checks the same cases, after the ``foundSeeds``); `GESTURED_VIEW_BASE_SEED=S` draws them
/// from another base;
/// `GESTURED_VIEW_SEED=S` runs the one case with seed S (what a failure prints) and prints its
/// configuration, its input and what the engine emitted (docs/TESTING.md).
@Suite("R8 on random input")
struct ViewStreamPropertyTests {
    static let defaultCases = 3_000
    static let defaultBaseSeed: UInt64 = 0x7669_6577_5f73_7472
    /// Cases a longer search found broken once, run first every time: a claim's cancels went out
    /// later when the views' moves waited in the queue than when there were none.
    static let foundSeeds: [UInt64] = [0x1963_5254_a78b_5056, 0x6c06_d796_f918_b8e3, 0x8703_c85d_2fe3_5cd1]

    @Test(
        "R8: views get every touch well-formed, in time order, with its own times; claimed touches are cancelled then")
    func viewStreams() throws {
        let environment = ProcessInfo.processInfo.environment
        if let text = environment["GESTURED_VIEW_SEED"] {
            let seed = try #require(Self.parseSeed(text), "GESTURED_VIEW_SEED=\(text) is not a number")
            let c = RandomTouchCase(seed: seed)
            print(Self.describe(c, try Self.run(c)))
            if let problem = try Self.problem(c) { Issue.record("case \(Self.hex(seed)): \(problem)") }
            return
        }
        let cases = environment["GESTURED_VIEW_CASES"].flatMap { Int($0) } ?? Self.defaultCases
        let base = environment["GESTURED_VIEW_BASE_SEED"].flatMap(Self.parseSeed) ?? Self.defaultBaseSeed
        var seeds = SplitMix64(seed: base)
        var failures = 0
        var touches = 0
        var panelCases = 0
        var stage = (ignored: 0, swallowed: 0, stuck: 0, wakes: 0, idles: 0)
        for i in 0..<(Self.foundSeeds.count + cases) {
            let seed = i < Self.foundSeeds.count ? Self.foundSeeds[i] : seeds.next()
            let c = RandomTouchCase(seed: seed)
            touches += c.contacts.count
            var fates = PanelFates()
            let found = try Self.problem(c, &fates)
            if c.panel.isActive { panelCases += 1 }
            stage.ignored += fates.dropped.values.count { $0 == PanelFates.deadZone }
            stage.swallowed += fates.dropped.values.count { $0 == PanelFates.wake }
            stage.stuck += fates.stuck.count
            stage.wakes += fates.wakes
            stage.idles += fates.idles
            guard let problem = found else { continue }
            failures += 1
            Issue.record(
                """
                case \(Self.hex(seed)): \(problem)
                replay: GESTURED_VIEW_SEED=\(Self.hex(seed)) swift test --filter ViewStreamPropertyTests
                """)
            if failures >= 3 { break }
        }
        // The cases must exercise what they check.
        #expect(failures > 0 || touches > cases * 3, "only \(touches) touches in \(cases) cases")
        // And the stage before the arena must have done each of its things, many times.
        let least = cases / 30
        #expect(
            failures > 0
                || (panelCases > cases / 3 && stage.ignored > least && stage.swallowed > least && stage.stuck > least
                    && stage.wakes > least && stage.idles > least),
            "\(panelCases) cases with a stage: \(stage)")
    }

    // MARK: - Running

    /// The first broken promise of the case, if any: R8's (``check(_:_:)``), or a difference
    /// that explaining or not reporting moves makes, where they must make none but their own
    /// events.
    static func problem(_ c: RandomTouchCase) throws -> String? {
        var fates = PanelFates()
        return try problem(c, &fates)
    }

    /// ``problem(_:)``, with what the stage before the arena did.
    static func problem(_ c: RandomTouchCase, _ fates: inout PanelFates) throws -> String? {
        let log = try run(c)
        if c.panel.isActive {
            var explaining = c
            explaining.explains = true
            if let problem = PanelModel.check(c, try run(explaining, keepingPanelExplanations: true), &fates) {
                return problem
            }
        }
        if let problem = check(c, log, fates) { return problem }
        if c.explains {
            var quiet = c
            quiet.explains = false
            let without = try run(quiet)
            if without != log { return "explaining changed what the engine emitted: " + difference(log, without, c) }
        }
        // Every other kind (which ones moves with the seed) makes no gesture event.
        var fewerKinds = c
        let kept = Set(GestureKind.allCases.filter { ($0.index + Int(c.seed % 2)) % 2 == 0 })
        fewerKinds.reportedKinds = kept
        let keptEvents = log.filter {
            if case .gesture(let g)? = $0.event { kept.contains(g.report.kind) } else { true }
        }
        let withFewerKinds = try run(fewerKinds)
        if withFewerKinds != keptEvents {
            return "leaving kinds out of the gesture events changed more than their events: "
                + difference(keptEvents, withFewerKinds, c)
        }
        if !c.reportsTouchMoves {
            var moving = c
            moving.reportsTouchMoves = true
            let withoutMoves = try run(moving).filter {
                if case .touch(let view)? = $0.event { view.touch.phase != .moved } else { true }
            }
            if withoutMoves != log {
                return "not reporting moves changed more than the moves: " + difference(withoutMoves, log, c)
            }
        }
        return nil
    }

    /// An event and when it was emitted; no event: events were lost here (a resync).
    struct Emitted: Equatable {
        var at: Timestamp
        var event: EngineEvent?
    }

    /// Runs the case, stepping through deadlines one at a time so each event's emission time is
    /// known. Explanations are left out, and so are the stage's explanations (contacts it kept from
    /// everyone) unless `keepingPanelExplanations`.
    static func run(_ c: RandomTouchCase, keepingPanelExplanations: Bool = false) throws -> [Emitted] {
        var engine = try GestureEngine(configuration: c.configuration)
        engine.reportsTouchMoves = c.reportsTouchMoves
        engine.explains = c.explains
        // Set before the device is added in half the cases, after it in the others: an arena
        // takes the engine's setting when it starts and when it changes.
        let early = c.seed % 4 < 2
        if early { engine.reportedKinds = c.reportedKinds }
        if c.panel.isActive {
            engine.addDevice(RandomTouchCase.device, panel: c.panel, at: RandomTouchCase.origin)
        } else {
            engine.addDevice(RandomTouchCase.device)
        }
        if !early { engine.reportedKinds = c.reportedKinds }
        var log: [Emitted] = []
        var stepper = DeadlineStepper { at, event in
            if case .explanation = event { return }
            if case .panel(let p) = event, p.isExplanation, !keepingPanelExplanations { return }
            log.append(Emitted(at: at, event: event))
        }
        for step in c.steps {
            switch step {
            case .frame(let frame):
                stepper.step(&engine, at: frame.time) { $0.process(frame, into: &$1) }
            case .resync(let time):
                stepper.advance(&engine, to: time)
                log.append(Emitted(at: time, event: nil))
                stepper.step(&engine, at: time) { $0.resync(RandomTouchCase.device.id, at: time, into: &$1) }
            case .wait(let time):
                stepper.advance(&engine, to: time)
            case .screen(let time, let isOn):
                stepper.advance(&engine, to: time)
                engine.screen(RandomTouchCase.device.id, isOn: isOn)
            }
        }
        if let left = engine.nextDeadline { throw CaseError("a timer is still set at \(c.ms(left)) after the end") }
        return log
    }

    struct CaseError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    // MARK: - Checking

    /// The first broken promise, if any; `fates`: what the stage before the arena did to
    /// contacts (checked against its model first).
    static func check(_ c: RandomTouchCase, _ log: [Emitted], _ fates: PanelFates = PanelFates()) -> String? {
        var specs: [String: RecognizerSpec] = [:]
        for spec in c.configuration.recognizers { specs[spec.name] = spec }

        // In time order, never ahead of emission.
        var latest = Timestamp(microseconds: Int64.min)
        for entry in log {
            guard case .touch(let view) = entry.event else { continue }
            if view.time < latest {
                return
                    "view \(view.touch.id.rawValue) \(view.touch.phase) at \(c.ms(view.time))"
                    + " after an event at \(c.ms(latest))"
            }
            if view.time > entry.at {
                return
                    "view \(view.touch.id.rawValue) \(view.touch.phase) at \(c.ms(view.time))"
                    + " emitted earlier, at \(c.ms(entry.at))"
            }
            latest = view.time
        }

        // Claims: the first event of each touch's claiming gestures, and touches a delaying
        // recognizer listed.
        var claims: [TouchID: [(index: Int, at: Timestamp, by: String)]] = [:]
        var delayedAway: [TouchID: String] = [:]
        for (i, entry) in log.enumerated() {
            guard case .gesture(let g) = entry.event, let spec = specs[g.name] else { continue }
            for id in g.touches {
                if spec.cancelsTouches { claims[id, default: []].append((i, entry.at, "\(g.name) \(g.state)")) }
                if spec.delaysTouchesBegan && delayedAway[id] == nil { delayedAway[id] = "\(g.name) \(g.state)" }
            }
        }

        let resyncs = log.indices.filter { log[$0].event == nil }

        // The stage's own: what it kept from everyone reaches no one; a stuck contact's gestures
        // after its end are only cancels.
        for (i, entry) in log.enumerated() {
            switch entry.event {
            case .touch(let view)?:
                if let why = fates.dropped[view.touch.id] {
                    return "touch \(view.touch.id.rawValue) (\(why)) reached the views: \(view.touch.phase)"
                }
                if let end = fates.stuck[view.touch.id], i > end.index,
                    view.time > end.time || (view.time == end.time && view.touch.phase != .cancelled)
                {
                    return
                        "touch \(view.touch.id.rawValue), ended as stuck at \(c.ms(end.time)), reached the views"
                        + " \(view.touch.phase) at \(c.ms(view.time))"
                }
            case .gesture(let g)?:
                for id in g.touches {
                    if let why = fates.dropped[id] { return "\(g.name) \(g.state) lists touch \(id.rawValue) (\(why))" }
                    // A report decided before the end may be released by it (R9: the recognizers
                    // it required fail; R4: a held one goes out with its own time) and is then
                    // cancelled; nothing decided after it.
                    if let end = fates.stuck[id], i > end.index, g.state != .cancelled, g.time >= end.time {
                        return "\(g.name) \(g.state) at \(c.ms(g.time)) lists touch \(id.rawValue), ended as stuck at \(c.ms(end.time))"
                    }
                }
            default:
                continue
            }
        }

        for var contact in c.contacts.values.sorted(by: { $0.id < $1.id }) {
            let id = contact.id
            if fates.dropped[id] != nil { continue }
            if let end = fates.stuck[id] {
                // Ended as the kernel would end it: cancelled then, with nothing after.
                contact.moves.removeAll { $0.time > end.time }
                contact.lifted = nil
                contact.cancelled = min(contact.cancelled ?? end.time, end.time)
            }
            let stream = log.enumerated().compactMap { i, entry -> (index: Int, view: ViewTouchEvent)? in
                if case .touch(let view) = entry.event, view.touch.id == id { (i, view) } else { nil }
            }
            // Lost events (R9) cut a touch the views had not finished: they get `cancelled` for
            // it if they saw it begin, and nothing more.
            let end = stream.last { $0.view.touch.phase == .ended || $0.view.touch.phase == .cancelled }?.index
            let fault = resyncs.first { log[$0].at > contact.landed && (end ?? Int.max) > $0 }.map { log[$0].at }
            let name = "touch \(id.rawValue)"
            func show(_ v: ViewTouchEvent) -> String { "\(v.touch.phase) at \(c.ms(v.time))" }

            // Well-formed.
            if let first = stream.first {
                guard first.view.touch.phase == .began else {
                    return "\(name): the views' first event is \(show(first.view))"
                }
                for (k, entry) in stream.enumerated().dropFirst() {
                    let phase = entry.view.touch.phase
                    let isLast = k == stream.count - 1
                    switch phase {
                    case .moved: if isLast { return "\(name): no end after \(show(entry.view))" }
                    case .ended, .cancelled:
                        if !isLast { return "\(name): \(show(stream[k + 1].view)) after \(show(entry.view))" }
                    case .began, .stationary: return "\(name): \(show(entry.view)) after its begin"
                    }
                }
                if stream.count == 1 { return "\(name): began at \(c.ms(first.view.time)) and never ended" }
            }

            // As they happened.
            var lastMove = Timestamp(microseconds: Int64.min)
            for entry in stream {
                let v = entry.view
                switch v.touch.phase {
                case .began:
                    if v.time != contact.landed || v.touch.position != contact.landing {
                        return
                            "\(name): began at \(c.ms(v.time)) \(v.touch.position),"
                            + " landed at \(c.ms(contact.landed)) \(contact.landing)"
                    }
                case .moved:
                    guard v.time > lastMove else { return "\(name): moved twice at \(c.ms(v.time))" }
                    lastMove = v.time
                    guard let move = contact.moves.first(where: { $0.time == v.time }),
                        move.position == v.touch.position
                    else {
                        return "\(name): moved at \(c.ms(v.time)) to \(v.touch.position), which it did not"
                    }
                case .ended:
                    guard let lift = contact.lifted, lift.time == v.time, lift.position == v.touch.position else {
                        return
                            "\(name): ended at \(c.ms(v.time)) \(v.touch.position);"
                            + " lifted \(contact.lifted.map { c.ms($0.time) } ?? "never")"
                    }
                case .cancelled:
                    let causes = (claims[id] ?? []).map(\.at) + [contact.cancelled, fault].compactMap { $0 }
                    if !causes.contains(v.time) {
                        return
                            "\(name): cancelled at \(c.ms(v.time)), when nothing cancelled it"
                            + " (claims, cancel, lost events: \(causes.map(c.ms)))"
                    }
                case .stationary:
                    return "\(name): a stationary view event"
                }
            }

            // Claimed at that moment: after the first claim, nothing but what came before it, or
            // the cancel at its time.
            if let claim = claims[id]?.first {
                for entry in stream where entry.index > claim.index {
                    let v = entry.view
                    if v.time > claim.at || (v.time == claim.at && v.touch.phase != .cancelled) {
                        return "\(name): \(show(v)) after \(claim.by) claimed it at \(c.ms(claim.at))"
                    }
                }
            }
            if let by = delayedAway[id], let seen = stream.first {
                return "\(name): the views saw it (\(show(seen.view))), but \(by) delays touches began and lists it"
            }

            // Unclaimed is whole.
            let claimed = claims[id] != nil || delayedAway[id] != nil || contact.cancelled != nil || fault != nil
            if !claimed {
                var expected = ["began at \(c.ms(contact.landed))"]
                if c.reportsTouchMoves { expected += contact.moves.map { "moved at \(c.ms($0.time))" } }
                if let lift = contact.lifted { expected.append("ended at \(c.ms(lift.time))") }
                let seen = stream.map { show($0.view) }
                if seen != expected {
                    return
                        "\(name), claimed by nobody, reached the views as [\(seen.joined(separator: ", "))],"
                        + " not [\(expected.joined(separator: ", "))]"
                }
            }
        }
        return nil
    }

    // MARK: - Reporting

    /// The first event where two runs differ, as `expected` / `actual`.
    static func difference(_ expected: [Emitted], _ actual: [Emitted], _ c: RandomTouchCase) -> String {
        let i = zip(expected, actual).enumerated().first { $1.0 != $1.1 }?.offset ?? min(expected.count, actual.count)
        func show(_ log: [Emitted]) -> String { i < log.count ? line(log[i], c) : "nothing" }
        return "event \(i): \(show(expected)) / \(show(actual))"
    }

    static func line(_ entry: Emitted, _ c: RandomTouchCase) -> String {
        switch entry.event {
        case nil:
            return "\(c.ms(entry.at)) resync"
        case .gesture(let g):
            return "\(c.ms(g.time)) \(g.name) \(g.state)"
                + " touches=\(g.touches.map { String($0.rawValue) }.joined(separator: ","))"
                + " (emitted at \(c.ms(entry.at)))"
        case .touch(let v):
            return "\(c.ms(v.time)) view \(v.touch.id.rawValue) \(v.touch.phase) (emitted at \(c.ms(entry.at)))"
        case .explanation?:
            return "explanation"
        case .panel(let p)?:
            return "\(c.ms(p.time)) panel \(p.what) (emitted at \(c.ms(entry.at)))"
        }
    }

    static func describe(_ c: RandomTouchCase, _ log: [Emitted]) -> String {
        var lines = ["case \(hex(c.seed)): reportsTouchMoves \(c.reportsTouchMoves), explains \(c.explains)"]
        for region in c.configuration.regions { lines.append("region \(region)") }
        for spec in c.configuration.recognizers {
            lines.append(
                "recognizer \(spec.name) region=\(spec.region) \(spec.parameters) cancels=\(spec.cancelsTouches) "
                    + "delaysBegan=\(spec.delaysTouchesBegan) delaysEnded=\(spec.delaysTouchesEnded) "
                    + "requires=\(spec.requiresFailureOf) simultaneous=\(spec.simultaneousWith) "
                    + "preempts=\(spec.preempts) when=\(spec.when.minFingers.map(String.init) ?? "-")…"
                    + (spec.when.maxFingers.map(String.init) ?? "-")
            )
        }
        lines.append("input:")
        lines += c.script
        lines.append("emitted:")
        lines += log.map { line($0, c) }
        return lines.joined(separator: "\n")
    }

    static func hex(_ seed: UInt64) -> String { "0x" + String(seed, radix: 16) }

    static func parseSeed(_ text: String) -> UInt64? {
        text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
    }
}
