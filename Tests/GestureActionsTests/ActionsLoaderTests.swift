import GestureActions
import GestureEngine
import GestureProtocol
import TestSupport
import Testing
import VirtualDevices

/// Parses actions text with libevdev's key names, as `gestured actions` does.
func parse(_ text: String) throws(ActionsFileError) -> LoadedActions {
    try ActionsLoader.parse(Array(text.utf8), file: "actions.yaml") {
        EventCode.code(ofType: EventCode.evKey, named: $0) != nil
    }
}

/// The error text for `text`, or nil when it parses.
func problem(_ text: String) -> String? {
    do {
        _ = try parse(text)
        return nil
    } catch {
        return error.description
    }
}

@Suite("actions file")
struct ActionsLoaderTests {
    /// The end of every unknown-key-name message.
    static let names =
        "keys are named as in linux/input-event-codes.h, such as KEY_LEFTCTRL, KEY_R, KEY_F5, KEY_VOLUMEUP"

    @Test("a whole file reads into its rules, defaults filled in, each rule's position kept")
    func wholeFile() throws {
        let loaded = try parse(
            """
            socket: /run/gestured/gestured.sock
            daemon-user: kiosk-daemon
            commands: {timeout-ms: 3000, max-running: 2}
            actions:
              - on: reload
                direction: down
                fingers: 3
                keys: [KEY_LEFTCTRL, KEY_R]
              - on: long-press
                click: right
              - on: pan
                fingers: 2
                scroll: {}
              - on: pinch
                keys: [KEY_LEFTCTRL, KEY_EQUAL]
                repeat: {every-scale: 1.25, reverse: [KEY_LEFTCTRL, KEY_MINUS]}
              - on: edge-swipe
                edge: top
                state: ended
                run: ["/usr/bin/systemctl", "--user", "start", "admin-menu"]
              - on: circle
                shell: "echo $GESTURED_NAME"
              - on: tap
                click: {button: middle, at: cursor}
            """)
        let c = loaded.configuration
        #expect(
            c.socket == "/run/gestured/gestured.sock" && c.commands == CommandSettings(timeoutMS: 3000, maxRunning: 2))
        #expect(c.daemonUser == "kiosk-daemon")
        #expect(
            c.actions == [
                ActionRule(
                    recognizer: "reload", direction: .down, fingers: 3,
                    action: .keys(KeyChord(["KEY_LEFTCTRL", "KEY_R"]), repeating: nil)),
                ActionRule(recognizer: "long-press", action: .click(Click(.right))),
                ActionRule(recognizer: "pan", fingers: 2, action: .scroll(Scroll())),
                ActionRule(
                    recognizer: "pinch",
                    action: .keys(
                        KeyChord(["KEY_LEFTCTRL", "KEY_EQUAL"]),
                        repeating: KeyRepeat(step: .scale(1.25), reverse: KeyChord(["KEY_LEFTCTRL", "KEY_MINUS"])))),
                ActionRule(
                    recognizer: "edge-swipe", state: .ended, edge: .top,
                    action: .run(Command(["/usr/bin/systemctl", "--user", "start", "admin-menu"]))),
                ActionRule(recognizer: "circle", action: .run(Command(shell: "echo $GESTURED_NAME"))),
                ActionRule(recognizer: "tap", action: .click(Click(.middle, at: .cursor))),
            ])
        #expect(loaded.ruleLocations.first == "actions.yaml:5:9" && loaded.ruleLocations.last == "actions.yaml:23:9")
        #expect(c.keyNames == ["KEY_LEFTCTRL", "KEY_R", "KEY_EQUAL", "KEY_MINUS"])
        #expect(c.pointerPlaces == [.gesture, .cursor])
    }

    @Test(
        "bad files are refused with FILE:LINE:COLUMN at the fault",
        arguments: [
            // An unknown key name: at the name, with the form names take.
            (
                "actions:\n  - on: swipe\n    keys: [KEY_LEFTCTRL, KEY_RR]\n",
                "actions.yaml:3:26: unknown key name 'KEY_RR': \(Self.names)"
            ),
            (
                "actions:\n  - on: swipe\n    keys: [ctrl, r]\n",
                "actions.yaml:3:12: unknown key name 'ctrl': \(Self.names) (upper case, with the KEY_ prefix)"
            ),
            (
                "actions:\n  - on: swipe\n    keys: [BTN_RIGHT]\n",
                "actions.yaml:3:12: unknown key name 'BTN_RIGHT': \(Self.names) (buttons are 'click' actions)"
            ),
            (
                "actions:\n  - on: pinch\n    keys: [KEY_A]\n    repeat: {every-scale: 1.5, reverse: [KEY_NOPE]}\n",
                "actions.yaml:4:42: unknown key name 'KEY_NOPE': \(Self.names)"
            ),
            (
                "actions:\n  - on: swipe\n    keys: [KEY_A, KEY_A]\n",
                "actions.yaml:3:11: expected a list of 1 to 8 different key names, such as [KEY_LEFTCTRL, KEY_R]"
            ),
            // The rule's shape.
            (
                "actions:\n  - on: swipe\n    keys: [KEY_A]\n    click: left\n",
                "actions.yaml:4:12: a rule has one action; 'click' is a second one, beside 'keys'"
            ),
            (
                "actions:\n  - on: swipe\n    direction: down\n",
                "actions.yaml:2:5: a rule needs one action: one of keys, click, scroll, run, shell"
            ),
            (
                "actions:\n  - direction: down\n    keys: [KEY_A]\n",
                "actions.yaml:2:5: a rule needs 'on': the name of the recognizer it acts on, or wake, idle, active or mqtt"
            ),
            (
                "actions:\n  - on: pan\n    state: changed\n    scroll: {}\n",
                "actions.yaml:3:12: 'state: changed' does not go with 'scroll': "
                    + "it follows the gesture from began to its end"
            ),
            (
                "actions:\n  - on: pan\n    click: left\n    repeat: {every-mm: 5, along: up}\n",
                "actions.yaml:4:13: 'repeat' goes with 'keys' (it repeats them)"
            ),
            (
                "actions:\n  - on: pan\n    keys: [KEY_A]\n    repeat: {every-mm: 5}\n",
                "actions.yaml:4:13: 'every-mm' needs 'along': the direction of a step forward (up, down, left or right)"
            ),
            (
                "actions:\n  - on: swipe\n    direction: sideways\n    keys: [KEY_A]\n",
                "actions.yaml:3:16: unknown direction 'sideways' "
                    + "(expected one of: up, down, left, right, up-left, up-right, down-left, down-right)"
            ),
            (
                "actions:\n  - on: tap\n    click: rigth\n",
                "actions.yaml:3:12: unknown button 'rigth'; did you mean 'right'? (expected one of: left, right, middle)"
            ),
            (
                "actions:\n  - on: tap\n    run: []\n",
                "actions.yaml:3:10: expected a program and its arguments, "
                    + "such as [\"/usr/bin/systemctl\", \"--user\", \"restart\", \"kiosk\"]"
            ),
            (
                "actions:\n  - on: pan\n    scroll: {mm-per-detent: 0}\n",
                "actions.yaml:3:29: expected millimetres from 0.5 to 500 (found '0')"
            ),
            (
                "actions:\n  - on: tap\n    fingers: 11\n    click: left\n",
                "actions.yaml:3:14: expected 1 to 10 fingers (found '11')"
            ),
            // The file's shape.
            (
                "actoins: []\n",
                "actions.yaml:1:1: unknown key 'actoins' in the actions file; did you mean 'actions'? "
                    + "(expected one of: actions, commands, daemon-user, socket)"
            ),
            (
                "socket: /tmp/g.sock\n",
                "actions.yaml:1:1: the actions file needs 'actions': "
                    + "a list of rules such as {on: swipe, direction: down, keys: [KEY_LEFTCTRL, KEY_R]}"
            ),
            (
                // The limit of every gestured socket path (SocketPath), said as everywhere else.
                "socket: /tmp/ssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssss\nactions: []\n",
                "actions.yaml:1:9: socket path '/tmp/ssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssss' is 105 bytes long; "
                    + "a Unix socket path may be at most 103 bytes"
            ),
            (
                "daemon-user: \"kiosk; rm\"\nactions: []\n",
                "actions.yaml:1:14: expected a user name (letters, digits, '_', '-', '.', at most 32) or a uid "
                    + "(found 'kiosk; rm')"
            ),
            (
                "commands: {max-running: 0}\nactions: []\n",
                "actions.yaml:1:25: expected a number from 1 to 64 (found '0')"
            ),
            (
                "actions:\n  - on: [tap\n",
                "actions.yaml:3:1: the list that '[' opens at line 2, column 9 is not closed here: its items need "
                    + "',' between them and ']' after the last (libyaml: did not find expected ',' or ']')"
            ),
            ("", "actions.yaml:1:1: the file is empty: it needs 'actions'"),
        ])
    func refused(text: String, expected: String) {
        #expect(problem(text) == expected)
    }

    /// A NUL passed `check-config` and cut the command where the kernel ends a C string
    /// (`/bin/echo\0garbage` ran `/bin/echo`, `echo a\0; echo hidden` ran `echo a`); a 50 MB
    /// `shell:` passed too, though the kernel refuses an argument over 128 KiB. Each is refused
    /// at its place in the file, before anything runs.
    @Test(
        "an argument the kernel cannot pass is refused at its place: a NUL, more than 128 KiB, too many bytes in all",
        arguments: [
            (
                "actions:\n  - on: tap\n    run: [\"/bin/echo\", \"/bin/echo\\0garbage\"]\n",
                "actions.yaml:3:24: a NUL character cannot be passed to a program (the kernel ends the argument there)"
            ),
            (
                "actions:\n  - on: tap\n    shell: \"echo a\\0; echo hidden\"\n",
                "actions.yaml:3:12: a NUL character cannot be passed to a program (the kernel ends the argument there)"
            ),
            (
                "actions:\n  - on: tap\n    shell: " + String(repeating: "x", count: 131_072) + "\n",
                "actions.yaml:3:12: an argument of 131072 bytes: the kernel passes at most 131071 in one "
                    + "(MAX_ARG_STRLEN, 128 KiB with its NUL)"
            ),
            (
                "actions:\n  - on: tap\n    run: [/bin/true, &a " + String(repeating: "y", count: 100_000)
                    + String(repeating: ", *a", count: 10) + "]\n",
                "actions.yaml:3:10: the arguments take 1100125 bytes to pass (each with its NUL and pointer): "
                    + "at most 1048576, so that they and the environment fit the kernel's limit"
            ),
            (
                "actions:\n  - on: tap\n    region: \"a\\nb\"\n    click: left\n",
                "actions.yaml:3:13: expected a region name (1 to 64 letters, digits, '-', '_' or '.') (found 'a\nb')"
            ),
        ])
    func argumentsTheKernelCannotPass(text: String, expected: String) {
        #expect(problem(text) == expected)
    }

    @Test("an argument of 131071 bytes, the kernel's most, is taken")
    func longestArgument() throws {
        let line = String(repeating: "x", count: 131_071)
        let loaded = try parse("actions:\n  - on: tap\n    shell: \(line)\n")
        #expect(loaded.configuration.actions.first?.action == .run(Command(shell: line)))
    }

    @Test("a file that is not UTF-8 is refused where the first bad byte is")
    func notUTF8() {
        var bytes = Array("actions:\n  - on: t".utf8)
        bytes.append(0xff)
        #expect(throws: ActionsFileError(file: "f", line: 2, column: 10, message: "the file is not valid UTF-8")) {
            try ActionsLoader.parse(bytes, file: "f") { _ in true }
        }
    }

    @Test("check-config tells an actions file by its top-level 'actions'")
    func tellsApart() {
        #expect(ActionsLoader.isActionsFile("actions: []\n"))
        #expect(ActionsLoader.isActionsFile("socket: /x\nactions:\n  - on: tap\n    click: left\n"))
        #expect(!ActionsLoader.isActionsFile("recognizers: []\n"))
        #expect(!ActionsLoader.isActionsFile("- actions\n"))
        #expect(!ActionsLoader.isActionsFile("actions: [\n"))
    }

    @Test("a rule may have a name; 'on: mqtt' rules have one and act only when gestured mqtt names them")
    func namedRules() throws {
        let loaded = try parse(
            """
            actions:
              - on: wake
                name: screen-on
                run: ["/usr/bin/wlopm", "--on", "*"]
              - on: mqtt
                name: dashboard-next
                keys: [KEY_LEFTCTRL, KEY_TAB]
              - on: tap
                keys: [KEY_A]
            """)
        let c = loaded.configuration
        #expect(c.rule(named: "dashboard-next")?.isNamedOnly == true)
        #expect(c.rule(named: "screen-on")?.panelEvent == .wake)
        #expect(c.rule(named: "tap") == nil)
        #expect(c.recognizerNames == ["tap"])
        // The planner never acts on an 'on: mqtt' rule, whatever the daemon sends.
        var planner = ActionPlanner(c)
        var out: [ActionPlanner.Output] = []
        planner.handle(Report.gesture("mqtt", .tap, .recognized), into: &out)
        planner.handle(Report.gesture("tap", .tap, .recognized), into: &out)
        #expect(out == [.keys(["KEY_A"])])
        // A daemon recognizer called mqtt is one no rule can name.
        let warnings = ActionsCheck.warnings(
            loaded, against: [RecognizerSummary(name: "mqtt", kind: .tap, owner: .configuration, region: "root")])
        #expect(
            warnings.contains { $0.hasPrefix("actions.yaml:5:9: 'on: mqtt' acts when gestured mqtt names the rule") })
    }

    @Test(
        "named rules: what is refused, at its line and column",
        arguments: [
            (
                "actions:\n  - on: mqtt\n    keys: [KEY_A]\n",
                "actions.yaml:2:5: a rule 'on: mqtt' needs 'name': what gestured mqtt's inbound topics call it"
            ),
            (
                "actions:\n  - on: mqtt\n    name: x\n    click: left\n",
                "actions.yaml:4:12: 'on: mqtt' takes keys, run or shell: 'click' needs a gesture"
            ),
            (
                "actions:\n  - on: mqtt\n    name: x\n    fingers: 2\n    keys: [KEY_A]\n",
                "actions.yaml:4:14: 'fingers' is a gesture's; 'on: mqtt' acts when gestured mqtt names the rule"
            ),
            (
                "actions:\n  - on: tap\n    name: \"a b\"\n    keys: [KEY_A]\n",
                "actions.yaml:3:11: expected a rule name (1 to 64 letters, digits, '-', '_' or '.') (found 'a b')"
            ),
            (
                "actions:\n  - on: tap\n    name: x\n    keys: [KEY_A]\n  - on: mqtt\n    name: x\n    keys: [KEY_B]\n",
                "actions.yaml:6:11: a second rule named 'x' (the first is at actions.yaml:3:11): a name calls one rule"
            ),
        ])
    func namedRuleMistakes(text: String, expected: String) {
        #expect(problem(text) == expected)
    }
}
