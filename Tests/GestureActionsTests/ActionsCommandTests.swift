import Foundation
import GestureActions
import Glibc
import TestSupport
import Testing

/// `gestured actions` and `gestured check-config` on actions files, as users run them.
@Suite("gestured actions and check-config on actions files", .timeLimit(.minutes(10)))
struct ActionsCommandTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Runs a command line: its exit status and output (standard output and error together).
    static func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let child = try ChildProcess(arguments)
        let status = try await child.waitForExit()
        return (status, child.lines.map { $0 + "\n" }.joined())
    }

    static func gestured(_ arguments: String...) async throws -> (status: Int32, output: String) {
        try await run([try ChildProcess.builtExecutable("gestured")] + arguments)
    }

    static func write(_ text: String) throws -> String {
        var template = Array("/tmp/gactcmd.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp failed") }
        let path = String(cString: made) + "/actions.yaml"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("check-config takes examples/actions.yaml as an actions file")
    func example() async throws {
        let path = Self.repository.appendingPathComponent("examples/actions.yaml").path
        let check = try await Self.gestured("check-config", path)
        #expect(check.status == 0)
        #expect(
            check.output
                == "\(path): valid actions file: 5 rules on 5 recognizers, 4 keys\ndrop-ins (\(path).d/): none\n")
    }

    @Test(
        "the kiosk-day recipes pass check-config, and DEPLOYMENT.md shows them as they are",
        arguments: ["labwc-wlopm", "x11-xset", "rpi-backlight"])
    func kioskDayRecipes(recipe: String) async throws {
        let deployment = try String(
            contentsOf: Self.repository.appendingPathComponent("docs/DEPLOYMENT.md"), encoding: .utf8)
        for file in ["gestured.yaml", "actions.yaml"] {
            let path = Self.repository.appendingPathComponent("examples/kiosk-day/\(recipe)/\(file)").path
            let text = try String(contentsOfFile: path, encoding: .utf8)
            let (status, output) = try await Self.gestured("check-config", path)
            // The screen's file is the kiosk's (a DRM connector, a backlight): on a machine without
            // it, check-config refuses that path and nothing else.
            let screen = text.firstMatch(of: /screen: \{[a-z-]+: (\/[^}]+)\}/).map { String($0.1) }
            if let screen, access(screen, F_OK) != 0 {
                #expect(status == 1, "\(output)")
                #expect(output.contains(": cannot use \(screen) as the screen's ") && output.contains("No such file"))
                #expect(output.split(separator: "\n").count == 1, "\(output)")
            } else {
                #expect(status == 0, "\(output)")
                #expect(output.contains(file == "actions.yaml" ? "valid actions file" : "valid: "), "\(output)")
            }
            #expect(deployment.contains("```yaml\n" + text + "```"), "DEPLOYMENT.md does not show \(recipe)/\(file) as it is")
        }
    }

    @Test("an unknown key name: check-config and actions both refuse it at FILE:LINE:COLUMN, exit 1")
    func unknownKeyName() async throws {
        let path = try Self.write("actions:\n  - on: swipe\n    keys: [KEY_LEFTCTRL, KEY_RR]\n")
        let message =
            "\(path):3:26: unknown key name 'KEY_RR': keys are named as in linux/input-event-codes.h, "
            + "such as KEY_LEFTCTRL, KEY_R, KEY_F5, KEY_VOLUMEUP\n"
        let check = try await Self.gestured("check-config", path)
        #expect(check.status == 1 && check.output == message)
        let actions = try await Self.gestured("actions", "--config", path, "--socket", "/nonexistent/g.sock")
        #expect(actions.status == 1 && actions.output == "gestured actions: " + message)
    }

    @Test("an actions file that cannot be read: FILE:1:1 and why, in the system's words")
    func unreadable() async throws {
        let check = try await Self.gestured("actions", "--config", "/nonexistent/actions.yaml")
        #expect(check.status == 1)
        #expect(
            check.output
                == "gestured actions: /nonexistent/actions.yaml:1:1: cannot read the file: No such file or directory\n")
    }

    /// A SIGHUP finding the file over its limit (here a sparse 1 GB file) keeps the running
    /// rules, as any refused reload does, and says why with the file's path.
    @Test("a reload of an actions file over the size limit is refused by its size; actions keeps running")
    func reloadOverTheLimit() async throws {
        let path = try Self.write("actions:\n  - on: tap\n    run: [/bin/true]\n")
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let actions = try ChildProcess([
            try ChildProcess.builtExecutable("gestured"), "actions", "--config", path, "--socket",
            "/nonexistent/g.sock",
        ])
        defer { actions.send(SIGKILL) }
        try await actions.output.wait(for: "started") { $0.lines.contains { $0.contains("started") } }
        #expect(truncate(path, 1 << 30) == 0)
        actions.send(SIGHUP)
        try await actions.output.wait(for: "the reload to be refused") { o in
            o.lines.contains {
                $0.contains("reload refused, the running actions stay")
                    && $0.contains("\(path):1:1: the file is 1073741824 bytes: an actions file is at most 1 MiB")
            }
        }
        actions.send(SIGTERM)
        #expect(try await actions.waitForExit() == 0, "\(actions.lines)")
    }

    @Test(
        "without /dev/uinput, actions that need a keyboard stop at start with what to do",
        .enabled(if: access("/dev/uinput", F_OK) != 0, "this machine has /dev/uinput (the VM suite checks EACCES)"))
    func noUinput() async throws {
        let path = try Self.write("actions:\n  - on: tap\n    keys: [KEY_ENTER]\n")
        let actions = try await Self.gestured("actions", "--config", path, "--socket", "/nonexistent/g.sock")
        #expect(actions.status == 1)
        #expect(
            actions.output.contains("cannot create the virtual keyboard: /dev/uinput does not exist"),
            "\(actions.output)")
    }

    static func dropIn(_ file: String, _ name: String, _ text: String) throws {
        try FileManager.default.createDirectory(atPath: file + ".d", withIntermediateDirectories: true)
        let temporary = file + ".d/.\(name).tmp"
        try text.write(toFile: temporary, atomically: false, encoding: .utf8)
        #expect(rename(temporary, file + ".d/" + name) == 0)
    }

    static let rules = """
        actions:
          - on: swipe
            direction: up
            run: [/bin/echo, up]
          - on: swipe
            direction: down
            run: [/bin/echo, down]
          - on: tap
            run: [/bin/echo, tap]

        """

    @Test(
        "drop-ins replace and remove rules by their condition and add new ones; check-config and config --effective take the set"
    )
    func dropIns() async throws {
        let path = try Self.write(Self.rules)
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try Self.dropIn(
            path, "10-site.yaml",
            """
            actions:
              - on: swipe
                direction: down
                run: [/bin/echo, site-down]
              - on: long-press
                run: [/bin/echo, hold]
            remove:
              actions: [{on: tap}]
            commands:
              max-running: 2
            """)
        let check = try await Self.gestured("check-config", path)
        #expect(
            check.output
                == "\(path): valid actions file: 3 rules on 2 recognizers, 0 keys\ndrop-ins (\(path).d/): 10-site.yaml\n"
        )
        let effective = try await Self.gestured("config", "--effective", path)
        #expect(effective.status == 0, "\(effective.output)")
        let printed = (path as NSString).deletingLastPathComponent + "/effective.yaml"
        try effective.output.write(toFile: printed, atomically: true, encoding: .utf8)
        let again = try await Self.gestured("check-config", printed)
        #expect(again.status == 0 && again.output.hasPrefix("\(printed): valid actions file: 3 rules on 2 recognizers"))
        let merged = try ActionsLoader.parse(try ActionsLoader.read(path)) { _ in true }
        let reread = try ActionsLoader.parse(try ActionsLoader.read(printed)) { _ in true }
        #expect(reread.configuration == merged.configuration)
        #expect(merged.configuration.commands.maxRunning == 2)
        #expect(
            merged.configuration.actions.map { "\($0.action)" }.map { $0.contains("site-down") }
                == [false, true, false])
        #expect(merged.ruleLocations == ["\(path):2:9", "\(path).d/10-site.yaml:2:9", "\(path).d/10-site.yaml:5:9"])

        // A rule with no `on`, and a removal of a condition no rule has: at the drop-in.
        try Self.dropIn(path, "20-bad.yaml", "remove:\n  actions: [{on: swipe, direction: left}]\n")
        let refused = try await Self.gestured("check-config", path)
        #expect(
            refused.status == 1
                && refused.output
                    == "\(path).d/20-bad.yaml:2:13: no rule {on: 'swipe', direction: 'left'} to remove in 'actions' "
                    + "(of the file and the drop-ins before this one)\n"
        )
        try Self.dropIn(path, "20-bad.yaml", "actions:\n  - run: [/bin/true]\n")
        let nameless = try await Self.gestured("check-config", path)
        #expect(
            nameless.output.hasPrefix("\(path).d/20-bad.yaml:2:5: a rule in a drop-in needs 'on'"), "\(nameless.output)"
        )
    }

    @Test(
        "an actions drop-in another user owns or may write is refused by check-config and actions, with its path",
        .enabled(if: getuid() == 0, "giving a file to another user needs root"))
    func untrustedDropIn() async throws {
        let path = try Self.write("actions:\n  - on: tap\n    run: [/bin/true]\n")
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        // What another user could make `actions` run with the kiosk user's rights.
        try Self.dropIn(path, "50-other.yaml", "actions:\n  - on: swipe\n    shell: touch /tmp/owned\n")
        let dropIn = path + ".d/50-other.yaml"
        #expect(chown(dropIn, 65534, 65534) == 0)
        let owned = "\(dropIn):1:1: a drop-in owned by uid 65534 is not read"
        let check = try await Self.gestured("check-config", path)
        #expect(check.status == 1 && check.output.hasPrefix(owned), "\(check.output)")
        // Killed if it runs after all (with the other user's rule).
        let actions = try ChildProcess([
            try ChildProcess.builtExecutable("gestured"), "actions", "--config", path, "--socket",
            "/nonexistent/g.sock",
        ])
        defer { actions.send(SIGKILL) }
        #expect(try await actions.waitForExit() == 1)
        #expect(actions.lines.first?.hasPrefix("gestured actions: " + owned) == true, "\(actions.lines.prefix(3))")
        #expect(chown(dropIn, 0, 0) == 0 && chmod(path + ".d", 0o757) == 0)
        let open = try await Self.gestured("check-config", path)
        #expect(
            open.status == 1
                && open.output.hasPrefix(
                    "\(path).d:1:1: a drop-in directory that every user may write (mode 0757) is not read"),
            "\(open.output)")
        #expect(chmod(path + ".d", 0o755) == 0)
        #expect(try await Self.gestured("check-config", path).status == 0)
    }

    @Test("SIGHUP reads the drop-ins again: one added counts, a broken one keeps the running rules, one removed goes")
    func reloadDropIns() async throws {
        let path = try Self.write("actions:\n  - on: tap\n    run: [/bin/true]\n")
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let actions = try ChildProcess([
            try ChildProcess.builtExecutable("gestured"), "actions", "--config", path, "--socket",
            "/nonexistent/g.sock",
        ])
        defer { actions.send(SIGKILL) }
        try await actions.output.wait(for: "started") { $0.lines.contains { $0.contains("started") } }
        #expect(
            actions.lines.contains { $0.contains("started") && $0.contains("rules=1") && !$0.contains("drop-ins=") })
        @Sendable func reloads(_ o: ChildProcess.Output) -> [String] {
            o.lines.filter { $0.contains("actions reloaded") }
        }

        try Self.dropIn(path, "10-site.yaml", "actions:\n  - on: swipe\n    run: [/bin/true]\n")
        actions.send(SIGHUP)
        try await actions.output.wait(for: "the reload with the drop-in") {
            reloads($0).count == 1
        }
        #expect(reloads(actions.output.value)[0].hasSuffix("drop-ins=\(path).d/10-site.yaml file=\(path) rules=2"))

        try Self.dropIn(path, "20-bad.yaml", "actions:\n  - on: hold\n    run: [/bin/true]\n    click: left\n")
        actions.send(SIGHUP)
        try await actions.output.wait(for: "the reload to be refused") { o in
            o.lines.contains {
                $0.contains("reload refused, the running actions stay")
                    && $0.contains("\(path).d/20-bad.yaml:3:10: a rule has one action")
            }
        }

        #expect(unlink(path + ".d/20-bad.yaml") == 0 && unlink(path + ".d/10-site.yaml") == 0)
        actions.send(SIGHUP)
        try await actions.output.wait(for: "the reload without drop-ins") {
            reloads($0).count == 2
        }
        #expect(reloads(actions.output.value)[1].hasSuffix(" file=\(path) rules=1"), "\(actions.lines.suffix(2))")
        actions.send(SIGTERM)
        #expect(try await actions.waitForExit() == 0, "\(actions.lines)")
    }
}
