import GestureActions
import GestureEngine
import GestureProtocol
import TestSupport
import Testing

/// Gesture reports to feed the planner.
enum Report {
    static func gesture(
        _ name: String, _ kind: GestureKind, _ state: GestureState, seq: UInt64 = 1, fingers: Int = 1,
        device: String = "event5", position: XY = XY(x: 0.25, y: 0.75), translationMM: XY? = XY(x: 0, y: 0),
        direction: Direction? = nil, edge: Edge? = nil, scale: Double? = nil, rotation: Double? = nil
    ) -> GestureMessage {
        var report = GestureReport(
            name: name, kind: kind, state: state, region: "root", fingers: fingers, touches: TouchIDList([TouchID(1)]),
            time: Timestamp(microseconds: 1_000_000 + Int64(seq) * 8000),
            position: SurfacePoint(x: position.x, y: position.y))
        report.positionMM = PhysicalPoint(x: Millimeters(position.x * 344), y: Millimeters(position.y * 194))
        report.translationMM = translationMM.map { PhysicalVector(dx: Millimeters($0.x), dy: Millimeters($0.y)) }
        report.scale = scale
        report.rotation = rotation
        report.direction = direction
        report.edge = edge
        return GestureMessage(seq: seq, device: device, report: report)
    }

    /// A pan: began, changed through `path` (cumulative translations, mm), ended at the last.
    static func pan(_ path: [XY], name: String = "pan", fingers: Int = 2, device: String = "event5") -> [GestureMessage]
    {
        path.enumerated().map { i, t in
            let state: GestureState = i == 0 ? .began : i == path.count - 1 ? .ended : .changed
            return gesture(name, .pan, state, seq: UInt64(i + 1), fingers: fingers, device: device, translationMM: t)
        }
    }
}

extension ActionPlanner {
    /// Everything the planner does for `reports`, in order.
    mutating func outputs(_ reports: [GestureMessage]) -> [Output] {
        var out: [Output] = []
        for r in reports { handle(r, into: &out) }
        return out
    }
}

extension [ActionPlanner.Output] {
    var wheel: WheelMotion {
        var sum = WheelMotion()
        for case .wheel(let m, _, _) in self {
            sum.vertical += m.vertical
            sum.verticalDetents += m.verticalDetents
            sum.horizontal += m.horizontal
            sum.horizontalDetents += m.horizontalDetents
        }
        return sum
    }

    var keys: [[String]] { compactMap { if case .keys(let k) = $0 { k } else { nil } } }
}

@Suite("action planner: gesture message in, actions out")
struct ActionPlannerTests {
    static let reload = ActionRule(
        recognizer: "swipe", direction: .down, fingers: 3,
        action: .keys(KeyChord(["KEY_LEFTCTRL", "KEY_R"]), repeating: nil))

    @Test("a shortcut acts on the swipe its filters name, and on no other")
    func shortcutFilters() {
        var planner = ActionPlanner(ActionsConfiguration(actions: [Self.reload]))
        let out = planner.outputs([
            Report.gesture("swipe", .swipe, .recognized, fingers: 3, direction: .down),
            Report.gesture("swipe", .swipe, .recognized, fingers: 2, direction: .down),
            Report.gesture("swipe", .swipe, .recognized, fingers: 3, direction: .up),
            Report.gesture("edge", .edgeSwipe, .began, fingers: 3, direction: .down),
        ])
        #expect(out == [.keys(["KEY_LEFTCTRL", "KEY_R"])])
    }

    @Test("without a state a rule acts on the first report: recognized, or began of a continuous gesture")
    func defaultState() {
        let rules = [
            ActionRule(recognizer: "long-press", action: .click(Click(.right))),
            ActionRule(recognizer: "tap", action: .keys(KeyChord(["KEY_ENTER"]), repeating: nil)),
            ActionRule(recognizer: "edge", state: .ended, action: .keys(KeyChord(["KEY_ESC"]), repeating: nil)),
        ]
        var planner = ActionPlanner(ActionsConfiguration(actions: rules))
        let out = planner.outputs([
            Report.gesture("long-press", .longPress, .began, position: XY(x: 0.5, y: 0.25)),
            Report.gesture("long-press", .longPress, .changed),
            Report.gesture("long-press", .longPress, .ended),
            Report.gesture("tap", .tap, .recognized),
            Report.gesture("edge", .edgeSwipe, .began),
            Report.gesture("edge", .edgeSwipe, .ended),
        ])
        #expect(
            out == [
                .click(.right, at: .gesture, position: XY(x: 0.5, y: 0.25)), .keys(["KEY_ENTER"]), .keys(["KEY_ESC"]),
            ])
    }

    @Test("every rule that matches acts, in file order")
    func fileOrder() {
        let rules = [
            ActionRule(recognizer: "tap", action: .keys(KeyChord(["KEY_A"]), repeating: nil)),
            ActionRule(recognizer: "tap", action: .run(Command(["/bin/true"]))),
            ActionRule(recognizer: "tap", action: .click(Click(.left, at: .cursor))),
        ]
        var planner = ActionPlanner(ActionsConfiguration(actions: rules))
        let out = planner.outputs([Report.gesture("tap", .tap, .recognized)])
        #expect(out.count == 3)
        #expect(out[0] == .keys(["KEY_A"]))
        guard case .run(let command, let environment, 1) = out[1] else {
            Issue.record("expected the command second: \(out)")
            return
        }
        #expect(command == Command(["/bin/true"]) && environment["GESTURED_NAME"] == "tap")
        #expect(out[2] == .click(.left, at: .cursor, position: XY(x: 0.25, y: 0.75)))
    }

    @Test("a command's environment carries the gesture's fields; fields it lacks are not set")
    func environment() throws {
        let swipe = Report.gesture("swipe", .swipe, .recognized, seq: 42, fingers: 3, direction: .left)
        let v = try GestureEnvironment.variables(swipe)
        #expect(v["GESTURED_NAME"] == "swipe" && v["GESTURED_KIND"] == "swipe" && v["GESTURED_STATE"] == "recognized")
        #expect(v["GESTURED_DIRECTION"] == "left" && v["GESTURED_FINGERS"] == "3" && v["GESTURED_SEQ"] == "42")
        #expect(v["GESTURED_X"] == "0.25" && v["GESTURED_Y"] == "0.75" && v["GESTURED_X_MM"] == "86")
        #expect(
            v["GESTURED_TIME_US"] == "1336000" && v["GESTURED_DEVICE"] == "event5" && v["GESTURED_REGION"] == "root")
        #expect(v["GESTURED_EDGE"] == nil && v["GESTURED_SCALE"] == nil && v["GESTURED_SHAPE"] == nil)
        let pinch = try GestureEnvironment.variables(Report.gesture("pinch", .pinch, .began, scale: 1.5))
        #expect(pinch["GESTURED_SCALE"] == "1.5" && pinch["GESTURED_DIRECTION"] == nil)
    }

    /// A fake daemon's reports put a newline and `LD_PRELOAD=…`, `r;$(id)` and 100 000 bytes in
    /// GESTURED_DEVICE and GESTURED_REGION, and commands got them. The daemon only ever sends
    /// the protocol's spellings; anything else refuses the command, naming the variable.
    @Test(
        "a report value the protocol cannot say refuses the command instead of reaching its environment",
        arguments: [
            (
                "device", "event5\nLD_PRELOAD=/tmp/evil.so",
                "GESTURED_DEVICE 'event5\\nLD_PRELOAD=/tmp/evil.so' holds a control character, which no device label the daemon sends has"
            ),
            (
                "device", String(repeating: "d", count: 100_000),
                "GESTURED_DEVICE is 100000 bytes long: a device label the daemon sends has 1 to 255"
            ),
            ("device", "", "GESTURED_DEVICE is 0 bytes long: a device label the daemon sends has 1 to 255"),
            (
                "region", "r;$(id)",
                "GESTURED_REGION 'r;$(id)' is not a name the daemon sends (1 to 64 letters, digits, '-', '_' or '.')"
            ),
            (
                "name", "tap\u{0}x",
                "GESTURED_NAME 'tap\\0x' is not a name the daemon sends (1 to 64 letters, digits, '-', '_' or '.')"
            ),
            (
                "shape", "circle\nX=1",
                "GESTURED_SHAPE 'circle\\nX=1' is not a name the daemon sends (1 to 64 letters, digits, '-', '_' or '.')"
            ),
        ])
    func refusedEnvironment(field: String, value: String, says: String) {
        var g = Report.gesture("tap", .tap, .recognized)
        switch field {
        case "device": g.device = value
        case "region": g.region = value
        case "name": g.name = value
        default: g.shape = value
        }
        let command = Command(["/usr/bin/systemctl", "start", "admin-menu"])
        var planner = ActionPlanner(
            ActionsConfiguration(actions: [ActionRule(recognizer: g.name, action: .run(command))]))
        let out = planner.outputs([g])
        guard case .refuse(let refused, let refusal, 0) = out.first, out.count == 1 else {
            Issue.record("expected the command refused: \(out)")
            return
        }
        #expect(refused == command)
        #expect(refusal.description == says)
    }

    @Test("a replayed recording's file name is a device label: spaces and punctuation pass")
    func fileNameLabel() throws {
        let v = try GestureEnvironment.variables(
            Report.gesture("tap", .tap, .recognized, device: "kiosk (2) – é.evemu"))
        #expect(v["GESTURED_DEVICE"] == "kiosk (2) – é.evemu")
    }

    // MARK: - Scrolling

    static let scroll = ActionRule(recognizer: "pan", fingers: 2, action: .scroll(Scroll(mmPerDetent: 10)))

    @Test("a natural two-finger scroll: fingers down 25 mm turn the wheel up 2.5 detents, in hi-res units")
    func naturalScroll() {
        var planner = ActionPlanner(ActionsConfiguration(actions: [Self.scroll]))
        let out = planner.outputs(
            Report.pan([XY(x: 0, y: 3), XY(x: 0, y: 10), XY(x: 0, y: 17.5), XY(x: 0, y: 25)]))
        // 3 mm → 36 units; 7 mm → 84 (120: a detent); 7.5 → 90; 7.5 → 90 (240: the second detent).
        #expect(
            out == [
                .wheel(WheelMotion(vertical: 36), at: .gesture, position: XY(x: 0.25, y: 0.75)),
                .wheel(WheelMotion(vertical: 84, verticalDetents: 1), at: .gesture, position: XY(x: 0.25, y: 0.75)),
                .wheel(WheelMotion(vertical: 90), at: .gesture, position: XY(x: 0.25, y: 0.75)),
                .wheel(WheelMotion(vertical: 90, verticalDetents: 1), at: .gesture, position: XY(x: 0.25, y: 0.75)),
            ])
        #expect(planner.followingCount == 0, "the pan ended")
    }

    @Test("not natural, and per axis: the wheel turns the other way; axis keeps only its wheel")
    func scrollDirections() {
        func total(_ scroll: Scroll) -> WheelMotion {
            var planner = ActionPlanner(
                ActionsConfiguration(actions: [ActionRule(recognizer: "pan", action: .scroll(scroll))]))
            return planner.outputs(Report.pan([XY(x: 0, y: 0), XY(x: 30, y: 20)])).wheel
        }
        #expect(
            total(Scroll()) == WheelMotion(vertical: 240, verticalDetents: 2, horizontal: -360, horizontalDetents: -3))
        #expect(
            total(Scroll(natural: false))
                == WheelMotion(vertical: -240, verticalDetents: -2, horizontal: 360, horizontalDetents: 3))
        #expect(total(Scroll(axis: .vertical)) == WheelMotion(vertical: 240, verticalDetents: 2))
        #expect(total(Scroll(axis: .horizontal)) == WheelMotion(horizontal: -360, horizontalDetents: -3))
    }

    @Test(
        "a scroll's filters are checked when it begins: a finger more later keeps it, a pan begun with one is never one"
    )
    func filtersAtBegan() {
        var planner = ActionPlanner(ActionsConfiguration(actions: [Self.scroll]))
        var reports = Report.pan([XY(x: 0, y: 0), XY(x: 0, y: 10), XY(x: 0, y: 20)])
        reports[1].fingers = 3
        #expect(planner.outputs(reports).wheel.vertical == 240)
        #expect(planner.outputs(Report.pan([XY(x: 0, y: 0), XY(x: 0, y: 20)], fingers: 1)).isEmpty)
    }

    @Test("a pan that began before the connection (changed without began) does not scroll; reset forgets")
    func noBegan() {
        var planner = ActionPlanner(ActionsConfiguration(actions: [Self.scroll]))
        #expect(
            planner.outputs(Array(Report.pan([XY(x: 0, y: 0), XY(x: 0, y: 10), XY(x: 0, y: 20)]).dropFirst())).isEmpty)
        _ = planner.outputs([Report.pan([XY(x: 0, y: 5)])[0]])
        #expect(planner.followingCount == 1)
        planner.reset()
        #expect(planner.followingCount == 0)
        #expect(
            planner.outputs([Report.gesture("pan", .pan, .changed, fingers: 2, translationMM: XY(x: 0, y: 40))]).isEmpty
        )
    }

    @Test("two panels scroll apart")
    func twoDevices() {
        var planner = ActionPlanner(ActionsConfiguration(actions: [Self.scroll]))
        let a = Report.pan([XY(x: 0, y: 0), XY(x: 0, y: 10), XY(x: 0, y: 20)], device: "event5")
        let b = Report.pan([XY(x: 0, y: 0), XY(x: 0, y: -10), XY(x: 0, y: -30)], device: "event6")
        let out = planner.outputs([a[0], b[0], a[1], b[1], a[2], b[2]])
        #expect(out.wheel.vertical == 240 - 360)
    }

    @Test("a pan of unknown size scrolls by the nominal panel (344 × 193.5 mm)")
    func unknownSize() {
        var planner = ActionPlanner(
            ActionsConfiguration(actions: [ActionRule(recognizer: "pan", action: .scroll(Scroll()))]))
        var reports = Report.pan([XY(x: 0, y: 0), XY(x: 0, y: 0)])
        for i in reports.indices { reports[i].translationMM = nil }
        reports[1].translation = SurfaceVector(dx: 0, dy: 0.2)
        #expect(planner.outputs(reports).wheel.vertical == Int32((0.2 * 193.5 * 12).rounded(.towardZero)))
    }

    /// The invariant behind "wheel events whose sum matches the pan's translation within one
    /// detent": over any pan, any mm per detent, with `changed` reports dropped at random (a slow
    /// client's coalescing), the high-resolution total is the translation to within one unit, and
    /// the legacy detents are the high-resolution total to within one detent.
    @Test("property: the wheel turns by the pan's translation, within one hi-res unit and one detent")
    func scrollSumProperty() {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        for _ in 0..<2000 {
            let mmPerDetent = Double.random(in: 0.5...50, using: &random)
            let natural = Bool.random(using: &random)
            var path: [XY] = [XY(x: 0, y: 0)]
            for _ in 0..<Int.random(in: 1...60, using: &random) {
                let last = path.last!
                path.append(
                    XY(
                        x: last.x + Double.random(in: -8...8, using: &random),
                        y: last.y + Double.random(in: -8...8, using: &random)))
            }
            var reports = Report.pan(path)
            let kept =
                [reports.first!] + reports.dropFirst().dropLast().filter { _ in Bool.random(using: &random) } + [
                    reports.last!
                ]
            reports = reports.count == 1 ? reports : kept
            var planner = ActionPlanner(
                ActionsConfiguration(actions: [
                    ActionRule(recognizer: "pan", action: .scroll(Scroll(natural: natural, mmPerDetent: mmPerDetent)))
                ]))
            let sum = planner.outputs(reports).wheel
            let end = path.last!
            let sign = natural ? 1.0 : -1.0
            let expectedV = sign * end.y * 120 / mmPerDetent
            let expectedH = -sign * end.x * 120 / mmPerDetent
            let ok =
                abs(Double(sum.vertical) - expectedV) < 1 && abs(Double(sum.horizontal) - expectedH) < 1
                && abs(sum.verticalDetents * 120 - sum.vertical) < 120
                && abs(sum.horizontalDetents * 120 - sum.horizontal) < 120
            #expect(ok, "seed \(seed): \(sum) for \(end) at \(mmPerDetent) mm per detent, natural \(natural)")
            if !ok { return }
        }
    }

    // MARK: - Repeated keys

    @Test("a pinch repeats zoom keys per 25 % of scale, and the reverse keys on the way back")
    func pinchRepeat() {
        let rule = ActionRule(
            recognizer: "pinch",
            action: .keys(
                KeyChord(["KEY_LEFTCTRL", "KEY_EQUAL"]),
                repeating: KeyRepeat(step: .scale(1.25), reverse: KeyChord(["KEY_LEFTCTRL", "KEY_MINUS"]))))
        var planner = ActionPlanner(ActionsConfiguration(actions: [rule]))
        let scales = [1.0, 1.2, 1.3, 1.6, 1.2, 0.7]
        let reports = scales.enumerated().map { i, s in
            Report.gesture("pinch", .pinch, i == 0 ? .began : i == scales.count - 1 ? .ended : .changed, scale: s)
        }
        let steps = planner.outputs(reports).keys.map { $0[1] }
        // 1.3 ≥ 1.25: one step; 1.6 ≥ 1.5625: two; 1.2 < 1.25: back to none; 0.7 ≤ 0.8: one back.
        #expect(steps == ["KEY_EQUAL", "KEY_EQUAL", "KEY_MINUS", "KEY_MINUS", "KEY_MINUS"])
    }

    @Test("a three-finger pan up sends a key per 10 mm up; without reverse keys, the way back sends nothing")
    func panRepeat() {
        let rule = ActionRule(
            recognizer: "pan",
            action: .keys(KeyChord(["KEY_VOLUMEUP"]), repeating: KeyRepeat(step: .millimetres(10, along: .up))))
        var planner = ActionPlanner(ActionsConfiguration(actions: [rule]))
        let out = planner.outputs(
            Report.pan([XY(x: 0, y: 0), XY(x: 3, y: -25), XY(x: 0, y: -5), XY(x: 0, y: -21), XY(x: 0, y: -21)]))
        #expect(out.keys == Array(repeating: ["KEY_VOLUMEUP"], count: 4))
    }

    @Test("a rotation repeats per 15 degrees clockwise")
    func rotateRepeat() {
        let rule = ActionRule(
            recognizer: "rotate",
            action: .keys(
                KeyChord(["KEY_VOLUMEUP"]),
                repeating: KeyRepeat(step: .degrees(15), reverse: KeyChord(["KEY_VOLUMEDOWN"]))))
        var planner = ActionPlanner(ActionsConfiguration(actions: [rule]))
        let radians = [0.0, 0.3, 0.55, -0.3].map { $0 }
        let reports = radians.enumerated().map { i, r in
            Report.gesture("rotate", .rotate, i == 0 ? .began : i == 3 ? .ended : .changed, rotation: r)
        }
        // 0.3 rad = 17.2°: 1; 0.55 = 31.5°: 2; −0.3 = −17.2°: −1 (three back).
        #expect(
            planner.outputs(reports).keys.map(\.[0]) == ["KEY_VOLUMEUP", "KEY_VOLUMEUP"]
                + Array(repeating: "KEY_VOLUMEDOWN", count: 3))
    }
}
