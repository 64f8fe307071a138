import GestureActions
import GestureEngine
import GestureProtocol
import TestSupport
import Testing

/// Rules on a panel's day (`on: wake`, `idle`, `active`; docs/ACTIONS.md): read from the file,
/// planned, and run by `gestured actions` over a real socket.
@Suite("actions on a panel's day")
struct PanelActionsTests {
    static let file = """
        actions:
          - on: idle
            run: ["/usr/bin/wlopm", "--off", "*"]
          - on: wake
            shell: "wlopm --on '*'"
          - on: active
            keys: [KEY_HOMEPAGE]
          - on: swipe
            keys: [KEY_F5]

        """

    @Test("on: wake, idle and active read as the panel's day; they need no subscription")
    func reads() throws {
        let loaded = try parse(Self.file)
        let rules = loaded.configuration.actions
        #expect(rules.map(\.panelEvent) == [.idle, .wake, .active, nil])
        #expect(loaded.configuration.recognizerNames == ["swipe"])
    }

    @Test(
        "a gesture's filter or an action that needs a gesture is refused on a panel's day, at its place",
        arguments: [
            ("actions:\n  - on: idle\n    state: began\n    keys: [KEY_A]\n", 3, 12, "'state' is a gesture's"),
            ("actions:\n  - on: wake\n    fingers: 2\n    keys: [KEY_A]\n", 3, 14, "'fingers' is a gesture's"),
            ("actions:\n  - on: active\n    click: right\n", 3, 12, "'on: active' takes keys, run or shell"),
            ("actions:\n  - on: idle\n    scroll: {}\n", 3, 13, "'scroll' needs a gesture"),
        ])
    func refused(text: String, line: Int, column: Int, says: String) {
        do {
            _ = try parse(text)
            Issue.record("accepted")
        } catch {
            #expect("\(error)".contains("actions.yaml:\(line):\(column): "), "\(error)")
            #expect("\(error)".contains(says), "\(error)")
        }
    }

    @Test("the planner runs each rule's command with the message in its environment, keys as keys")
    func plans() throws {
        let planner = ActionPlanner(try parse(Self.file).configuration)
        var out: [ActionPlanner.Output] = []
        planner.handle(
            panel: .idle(IdleMessage(device: "event5", time: Timestamp(microseconds: 9_000_000), afterMS: 300_000)),
            into: &out)
        planner.handle(
            panel: .wake(
                WakeMessage(
                    device: "event5", time: Timestamp(microseconds: 9_500_000), touch: TouchID(7),
                    position: SurfacePoint(x: 0.25, y: 0.5), cause: .screenOff)), into: &out)
        planner.handle(
            panel: .active(ActiveMessage(device: "event5", time: Timestamp(microseconds: 9_500_000), touch: TouchID(7))),
            into: &out)
        #expect(out.count == 3)
        guard out.count == 3, case .run(let off, let idle, 0) = out[0], case .run(let on, let wake, 1) = out[1] else {
            Issue.record("\(out)")
            return
        }
        #expect(off.arguments == ["/usr/bin/wlopm", "--off", "*"] && on.isShell)
        #expect(
            idle == [
                "GESTURED_EVENT": "idle", "GESTURED_DEVICE": "event5", "GESTURED_TIME_US": "9000000",
                "GESTURED_IDLE_MS": "300000",
            ])
        #expect(wake["GESTURED_EVENT"] == "wake" && wake["GESTURED_CAUSE"] == "screen-off")
        #expect(wake["GESTURED_TOUCH"] == "7" && wake["GESTURED_X"] == "0.25" && wake["GESTURED_Y"] == "0.5")
        #expect(out[2] == .keys(["KEY_HOMEPAGE"]))
    }

    @Test("a daemon recognizer named like a panel's day: a warning, as no rule can name it")
    func collision() throws {
        let loaded = try parse(Self.file)
        let warnings = ActionsCheck.warnings(
            loaded, against: [RecognizerSummary(name: "idle", kind: .tap, owner: .configuration, region: "root")])
        #expect(warnings.contains { $0.contains("'on: idle' acts on the panel's idle message") })
        #expect(warnings.count == 2, "the swipe rule's recognizer is missing too: \(warnings)")
    }
}
