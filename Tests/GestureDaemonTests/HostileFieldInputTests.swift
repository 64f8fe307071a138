import Foundation
import Glibc
import TestSupport
import Testing

/// What a panel, a recording or a configuration may say, and what the commands make of it: a
/// panel's name shown and never obeyed by the operator's terminal, settings that cannot mean what
/// they say refused at their line, recordings whose size or number of devices would make the
/// answer itself the problem held to a bound, tracking ids that cannot make more fingers than a
/// panel has slots. Each through the built `gestured`, as an operator meets it.
@Suite("hostile panels, recordings and settings", .timeLimit(.minutes(10)))
struct HostileFieldInputTests {
    static let field = DaemonProcessTests.repository.appendingPathComponent(
        "Tests/TouchInputTests/Fixtures/field.evemu")

    /// field.evemu's description (10 slots), its `N:` line replaced when `name` is given.
    static func description(name: String? = nil) throws -> [String] {
        try String(contentsOf: field, encoding: .utf8).split(separator: "\n").map(String.init)
            .filter { ["N:", "I:", "P:", "B:", "A:"].contains($0.prefix(2)) }
            .map { line in name.map { line.hasPrefix("N:") ? "N: \($0)" : line } ?? line }
    }

    @Test("status and listen show a panel's name with its escapes spelled out, never sent to the terminal")
    func escapesInANameAreShown() async throws {
        let gestured = try DaemonProcessTests.gestured()
        let directory = try DaemonProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A panel that retitles the operator's terminal: OSC 0 … BEL, and a C1 CSI.
        let name = "evil\u{1b}]0;owned\u{07}\u{9b}2J"
        let recording = directory + "/evil.evemu"
        let events = try String(contentsOf: Self.field, encoding: .utf8).split(separator: "\n")
            .filter { $0.hasPrefix("E: ") }.map(String.init)
        try (["# EVEMU 1.3"] + Self.description(name: name) + events).joined(separator: "\n").appending("\n")
            .write(toFile: recording, atomically: true, encoding: .utf8)
        let socket = directory + "/g.sock"
        let daemon = try await DaemonProcessTests.startDaemon([
            "--socket", socket, "--replay", recording, "--loop",
        ])
        defer { daemon.send(SIGKILL) }
        for arguments in [["status", "--socket", socket], ["listen", "--pretty", "--socket", socket]] {
            let command = try ChildProcess([gestured] + arguments)
            defer { command.send(SIGKILL) }
            try await command.output.wait(for: "the panel's line") { o in
                o.ended || o.lines.contains { $0.contains("evil") }
            }
            let line = try #require(command.lines.first { $0.contains("evil") }, "\(command.lines)")
            #expect(line.contains(#""evil\x1b]0;owned\x07\u{9b}2J""#), "\(line)")
            #expect(
                !command.lines.joined().unicodeScalars.contains { $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) })
        }
    }

    @Test("a group given as a gid no group has is refused at its line, as an unknown name is")
    func gidWithoutAGroup() async throws {
        // The highest gid: no system names a group so.
        let path = try ConfigCommandTests.write("log-level: info\nrecord-group: \"4294967294\"\n")
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let check = try await ConfigCommandTests.gestured("check-config", path)
        #expect(check.status == 1)
        #expect(check.output.hasPrefix("\(path):2:15: no group has gid 4294967294"), "\(check.output)")
        try "touches-group: \"4294967294\"\n".write(toFile: path, atomically: true, encoding: .utf8)
        let touches = try await ConfigCommandTests.gestured("check-config", path)
        #expect(touches.status == 1 && touches.output.hasPrefix("\(path):1:16: no group has gid"), "\(touches.output)")
        // A gid a group has is taken (0: root's).
        try "record-group: \"0\"\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try await ConfigCommandTests.gestured("check-config", path).status == 0)
    }

    @Test(
        "dead zones that together cover the whole panel are refused at their key",
        arguments: [
            "[{x: 0, y: 0, width: 1, height: 1}]",
            "[{x: 0, y: 0, width: 0.5, height: 1}, {x: 0.4, y: 0, width: 0.6, height: 0.7}, {x: 0.5, y: 0.6, width: 0.5, height: 0.4}]",
        ])
    func deadZonesCoveringThePanel(zones: String) async throws {
        let path = try ConfigCommandTests.write("devices:\n  - match: {name: \"*\"}\n    ignore: \(zones)\n")
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let check = try await ConfigCommandTests.gestured("check-config", path)
        #expect(check.status == 1)
        #expect(
            check.output.hasPrefix(
                "\(path):3:13: the dead zones cover the whole panel: no contact would reach anything"),
            "\(check.output)")
        // One sliver left uncovered is a panel that can be touched.
        try "devices:\n  - match: {name: \"*\"}\n    ignore: [{x: 0, y: 0, width: 1, height: 0.99}]\n".write(
            toFile: path, atomically: true, encoding: .utf8)
        #expect(try await ConfigCommandTests.gestured("check-config", path).status == 0)
    }

    @Test("a libinput recording of 10 000 devices is refused in a sentence, naming a few of them")
    func thousandsOfDevices() async throws {
        let directory = try DaemonProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Keyboards, each a device of its own: none is a touchscreen.
        var text = "version: 1\nndevices: 10000\ndevices:\n"
        for n in 0..<10_000 {
            text += """
                - node: /dev/input/event\(n)
                  evdev:
                    name: "keyboard number \(n)"
                    id: [3, 1, 1, 1]
                    codes: {0: [0], 1: [30]}
                    properties: []
                  events: []

                """
        }
        let path = directory + "/many.yml"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let replay = try await ConfigCommandTests.gestured("replay", path)
        #expect(replay.status != 0)
        // The output only in a shortened form: it is the thing that must not be long.
        let (bytes, start, end) = (replay.output.utf8.count, replay.output.prefix(300), replay.output.suffix(300))
        #expect(bytes < 4096, "\(bytes) bytes of error")
        let named = start.contains("no touchscreen among the recording's 10000 devices")
        #expect(named, "\(start)")
        let counted = end.contains("and 9992 more")
        #expect(counted, "\(end)")
    }

    @Test("a libinput recording over its limit is refused by its size before it is parsed")
    func largeLibinputRecording() async throws {
        let directory = try DaemonProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // YAML for its first block, then 96 MiB of nothing (sparse): under the evemu limit.
        let path = directory + "/big.yml"
        try "version: 1\ndevices:\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(truncate(path, 96 << 20) == 0)
        let replay = try await ConfigCommandTests.gestured("replay", path)
        #expect(replay.status != 0)
        #expect(
            replay.output.contains("the file is 100663296 bytes, over the limit of 64 MiB (67108864 bytes)"),
            "\(replay.output)")
    }

    @Test("10 000 tracking ids through a 10-slot panel in 100 reports are explained as at most ten fingers")
    func trackingIDsBeyondTheSlots() async throws {
        let directory = try DaemonProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var lines = ["# EVEMU 1.3"] + (try Self.description())
        var id = 1
        for frame in 1...100 {
            let time = String(format: "%.6f", Double(frame) * 0.008)
            // A hundred contacts through slot 0 between two reports, the last one staying.
            lines.append("E: \(time) 0003 002f 0")
            for _ in 0..<100 {
                lines.append("E: \(time) 0003 0039 \(id)")
                lines.append("E: \(time) 0003 0035 \(3000 + id % 200)")
                lines.append("E: \(time) 0003 0036 16000")
                id += 1
            }
            if frame == 1 { lines.append("E: \(time) 0001 014a 1") }
            lines.append("E: \(time) 0000 0000 0")
        }
        let path = directory + "/ids.evemu"
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let replay = try ChildProcess([try DaemonProcessTests.gestured(), "replay", "--explain", path])
        #expect(try await replay.waitForExit(within: .seconds(300)) == 0)
        let counts = replay.lines.compactMap { line -> Int? in
            guard let range = line.range(of: #"\d+ fingers down"#, options: .regularExpression) else { return nil }
            return Int(line[range].prefix { $0.isNumber })
        }
        #expect(counts.allSatisfy { $0 <= 10 }, "at most \(counts.max() ?? 0) fingers down")
    }
}
