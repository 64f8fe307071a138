import Foundation
import GestureClient
import GestureDaemon
import Glibc
import TestSupport
import Testing

/// Drop-in files (`gestured.yaml.d/*.yaml`) as an administrator uses them: `check-config` of the
/// set, `config --effective`, and a running daemon's reload after drop-ins come and go
/// (docs/CONFIGURATION.md, "Drop-in files"). The time limit is a hang guard: every step waits on
/// the event itself.
@Suite("drop-in configuration files", .timeLimit(.minutes(10)))
struct DropInTests {
    /// A directory with `gestured.yaml` holding `main`, and its drop-in directory.
    static func configuration(_ main: String) throws -> (directory: String, file: String) {
        let directory = try DaemonProcessTests.temporaryDirectory()
        let file = directory + "/gestured.yaml"
        try main.write(toFile: file, atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: file + ".d", withIntermediateDirectories: false)
        return (directory, file)
    }

    static func dropIn(_ file: String, _ name: String, _ text: String) throws {
        // Written beside and renamed into place, as configuration management does.
        let temporary = file + ".d/.\(name).tmp"
        try text.write(toFile: temporary, atomically: false, encoding: .utf8)
        #expect(rename(temporary, file + ".d/" + name) == 0)
    }

    static let main = """
        log-level: info
        socket:
          max-clients: 10
          max-clients-per-user: 5
        recognizers:
          - name: tap
            kind: tap
          - name: pan
            kind: pan
          - name: hold
            kind: long-press

        """

    @Test("drop-ins add, replace and remove recognizers by name, override scalars; check-config says which it read")
    func addReplaceRemove() async throws {
        let (directory, file) = try Self.configuration(Self.main)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Self.dropIn(
            file, "10-site.yaml",
            """
            recognizers:
              - name: three-finger-swipe
                kind: swipe
                min-fingers: 3
                max-fingers: 3
              - name: hold
                kind: long-press
                min-duration-ms: 800
            remove:
              recognizers: [pan]
            """)
        try Self.dropIn(file, "20-host.yaml", "log-level: debug\nsocket:\n  max-clients: 20\n")
        let loaded = try ConfigurationLoader.loadSet(contentsOf: file)
        let configuration = loaded.configuration
        #expect(loaded.files == [file, file + ".d/10-site.yaml", file + ".d/20-host.yaml"])
        #expect(configuration.recognizers?.map(\.name) == ["tap", "hold", "three-finger-swipe"])
        #expect(configuration.logLevel == .debug)
        #expect(configuration.socket.maxClients == 20, "the drop-in's value")
        #expect(configuration.socket.maxClientsPerUser == 5, "the file's, beside the drop-in's key")
        let hold = try #require(configuration.recognizers?.first { $0.name == "hold" })
        let alone = try ConfigurationLoader.parse(
            Data("recognizers:\n  - name: hold\n    kind: long-press\n    min-duration-ms: 800\n".utf8),
            file: "hold.yaml")
        #expect(alone.recognizers == [hold], "the drop-in's hold, whole")

        let check = try await ConfigCommandTests.gestured("check-config", file)
        #expect(check.status == 0)
        #expect(
            check.output
                == "\(file): valid: 3 recognizers, 0 regions, 0 device entries\n"
                + "drop-ins (\(file).d/): 10-site.yaml, 20-host.yaml\n")
    }

    @Test("config --effective prints the merged set as YAML that check-config accepts and that loads the same")
    func effective() async throws {
        let (directory, file) = try Self.configuration(Self.main)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Self.dropIn(
            file, "10-site.yaml",
            """
            regions:
              - name: keypad
                rect: {x: 0.1, y: 0.5, width: 0.3, height: 0.4}
            devices:
              - match: {usb: "0eef:72a1"}
                rotation: 90
            socket:
              mode: "0640"
            remove:
              recognizers: [hold]
            """)
        try Self.dropIn(file, "20-host.yaml", "devices:\n  - match: {usb: '0eef:72a1'}\n    rotation: 180\n")
        let effective = try await ConfigCommandTests.gestured("config", "--effective", file)
        #expect(effective.status == 0, "\(effective.output)")
        #expect(
            effective.output.contains(
                "# Read, in this order: \(file), \(file).d/10-site.yaml, \(file).d/20-host.yaml\n"),
            "\(effective.output)")
        let printed = directory + "/effective.yaml"
        try effective.output.write(toFile: printed, atomically: true, encoding: .utf8)
        let check = try await ConfigCommandTests.gestured("check-config", printed)
        #expect(check.status == 0, "\(check.output)")
        let merged = try ConfigurationLoader.load(contentsOf: file)
        #expect(try ConfigurationLoader.load(contentsOf: printed) == merged)
        #expect(merged.devices.map(\.rotation.rawValue) == [180])
        #expect(merged.socket.mode == 0o640)
        #expect(merged.recognizers?.map(\.name) == ["tap", "pan"])
        #expect(merged.regions.map(\.name) == ["keypad"])
    }

    @Test(
        "a drop-in onto a file without recognizers adds to the built-in set; an error there points at `config --default`"
    )
    func ontoTheBuiltInSet() async throws {
        let (directory, file) = try Self.configuration("log-level: info\n")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Self.dropIn(
            file, "10.yaml", "recognizers:\n  - name: three-finger-swipe\n    kind: swipe\n    min-fingers: 3\n")
        let builtIn = DaemonConfiguration.builtIn.recognizers?.map(\.name) ?? []
        #expect(
            try ConfigurationLoader.load(contentsOf: file).recognizers?.map(\.name) == builtIn + ["three-finger-swipe"])
        // The built-in pan is simultaneous with the circle: removing the circle breaks it, at the
        // line of `gestured config --default` that names it.
        try Self.dropIn(file, "20.yaml", "remove:\n  recognizers: [circle]\n")
        let check = try await ConfigCommandTests.gestured("check-config", file)
        let printed = try await ConfigCommandTests.gestured("config", "--default")
        let lines = printed.output.split(separator: "\n", omittingEmptySubsequences: false)
        let at = try #require(lines.indices.first { lines[$0] == "  - circle" })
        #expect(check.status == 1)
        #expect(check.output == "<built-in: gestured config --default>:\(at + 1):5: unknown recognizer 'circle'\n")
    }

    @Test("an error in a drop-in is reported at the drop-in's FILE:LINE:COLUMN, by check-config and run alike")
    func errorInADropIn() async throws {
        let (directory, file) = try Self.configuration(Self.main)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Self.dropIn(file, "10-good.yaml", "log-level: debug\n")
        try Self.dropIn(file, "20-bad.yaml", "recognizers:\n  - name: tap\n    kind: tap\n    tapz: 2\n")
        let message = "\(file).d/20-bad.yaml:4:5: unknown key 'tapz' in a tap recognizer"
        let check = try await ConfigCommandTests.gestured("check-config", file)
        #expect(check.status == 1 && check.output.hasPrefix(message), "\(check.output)")
        let run = try await ConfigCommandTests.gestured("run", "--config", file, "--socket", directory + "/g.sock")
        #expect(run.status == 1 && run.output.contains(message), "\(run.output)")
        try Self.dropIn(file, "20-bad.yaml", "remove:\n  recognizers: [tap, swipe]\n")
        let removal = try await ConfigCommandTests.gestured("check-config", file)
        #expect(
            removal.output
                == "\(file).d/20-bad.yaml:2:22: no recognizer 'swipe' to remove in 'recognizers' "
                + "(of the file and the drop-ins before this one)\n")
        let effective = try await ConfigCommandTests.gestured("config", "--effective", file)
        #expect(effective.status == 1 && effective.output == removal.output)
    }

    @Test(
        "a drop-in others may write is refused with its path and reason by check-config, run and a reload",
        .enabled(if: getuid() == 0, "giving a file to another group needs root"))
    func writableByOthers() async throws {
        let (directory, file) = try Self.configuration("recognizers:\n  - name: tap\n    kind: tap\n")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = directory + "/g.sock"
        let dropIn = file + ".d/10-site.yaml"
        // What a world-writable drop-in could do: open the socket to every user.
        try Self.dropIn(file, "10-site.yaml", "socket:\n  mode: \"0666\"\n")
        // Group `nogroup` is nobody's private group.
        #expect(chown(dropIn, 0, 65534) == 0 && chmod(dropIn, 0o664) == 0)
        let reason = "\(dropIn):1:1: a drop-in that its group (gid 65534) may write (mode 0664) is not read"
        let check = try await ConfigCommandTests.gestured("check-config", file)
        #expect(check.status == 1 && check.output.hasPrefix(reason), "\(check.output)")
        // Killed if it runs after all (a daemon that took the drop-in).
        let run = try ChildProcess([try DaemonProcessTests.gestured(), "run", "--config", file, "--socket", socket])
        defer { run.send(SIGKILL) }
        #expect(try await run.waitForExit() == 1)
        #expect(run.lines.contains { $0.contains(reason) }, "\(run.lines.prefix(3))")

        // A daemon running without it keeps its configuration when a reload finds it.
        #expect(chmod(dropIn, 0o644) == 0)
        let daemon = try await DaemonProcessTests.startDaemon([
            "--config", file, "--socket", socket, "--replay", DaemonProcessTests.recording, "--loop",
        ])
        defer { daemon.send(SIGKILL) }
        var info = stat()
        #expect(stat(socket, &info) == 0 && info.st_mode & 0o777 == 0o666, "the drop-in, trusted, applies")
        #expect(chmod(file + ".d", 0o777) == 0)
        daemon.send(SIGHUP)
        try await daemon.output.wait(for: "the reload to be refused") { o in
            o.lines.contains {
                $0.contains("reload failed")
                    && $0.contains(
                        "\(file).d:1:1: a drop-in directory that every user may write (mode 0777) is not read")
            }
        }
        #expect(try await Self.recognizers(socket) == ["tap"])
        daemon.send(SIGTERM)
        #expect(try await daemon.waitForExit(within: .seconds(10)) == 0)
    }

    /// The recognizer names a new connection's `hello` lists.
    static func recognizers(_ socket: String) async throws -> [String] {
        try await GestureClient.connect(to: socket) { client in client.hello.recognizers.map(\.name) }
    }

    /// The drop-ins `gestured status --json` says the running configuration was merged from.
    static func statusDropIns(_ socket: String) async throws -> [String]? {
        let status = try await ConfigCommandTests.gestured("status", "--socket", socket, "--json")
        #expect(status.status == 0, "\(status.output)")
        let object = try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any]
        let configuration = try #require(object?["configuration"] as? [String: Any], "\(status.output)")
        return configuration["drop_ins"] as? [String]
    }

    @Test("SIGHUP picks up a drop-in added, refuses a broken one (the running set stays), and drops one removed")
    func reload() async throws {
        let (directory, file) = try Self.configuration("recognizers:\n  - name: tap\n    kind: tap\n")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = directory + "/g.sock"
        let daemon = try await DaemonProcessTests.startDaemon([
            "--config", file, "--socket", socket, "--replay", DaemonProcessTests.recording, "--loop",
        ])
        defer { daemon.send(SIGKILL) }
        #expect(daemon.lines.contains { $0.contains("ready") && $0.contains("configuration=\(file)") })
        #expect(try await Self.recognizers(socket) == ["tap"])
        func reloads() -> Int { daemon.lines.filter { $0.contains("configuration reloaded") }.count }

        // Added.
        try Self.dropIn(file, "10-site.yaml", "recognizers:\n  - name: hold\n    kind: long-press\n")
        daemon.send(SIGHUP)
        try await daemon.output.wait(for: "the reload with the drop-in") { o in
            o.lines.contains {
                $0.contains("configuration reloaded") && $0.contains("configuration=\(file),\(file).d/10-site.yaml")
            }
        }
        #expect(try await Self.recognizers(socket) == ["tap", "hold"])
        #expect(try await Self.statusDropIns(socket) == [file + ".d/10-site.yaml"])

        // Broken: refused where the drop-in says it, and the running configuration stays.
        try Self.dropIn(file, "20-bad.yaml", "recognizers:\n  - name: swipe\n    kind: swype\n")
        daemon.send(SIGHUP)
        try await daemon.output.wait(for: "the reload to be refused") { o in
            o.lines.contains { $0.contains("reload failed") && $0.contains("\(file).d/20-bad.yaml:3:11: ") }
        }
        #expect(try await Self.recognizers(socket) == ["tap", "hold"])

        // Both removed: the file alone again.
        #expect(unlink(file + ".d/20-bad.yaml") == 0 && unlink(file + ".d/10-site.yaml") == 0)
        let before = reloads()
        daemon.send(SIGHUP)
        try await daemon.output.wait(for: "the reload without drop-ins") { o in
            o.lines.filter { $0.contains("configuration reloaded") }.count > before
        }
        #expect(
            daemon.lines.last { $0.contains("configuration reloaded") }?.hasSuffix(
                "configuration=\(file) recognizers=1") == true, "\(daemon.lines.suffix(3))")
        #expect(try await Self.recognizers(socket) == ["tap"])
        #expect(try await Self.statusDropIns(socket) == nil)
        daemon.send(SIGTERM)
        #expect(try await daemon.waitForExit(within: .seconds(10)) == 0)
    }
}
