import Foundation
import TestSupport
import Testing

/// `gestured config --default` and `gestured check-config` as users run them.
@Suite("gestured config and check-config", .timeLimit(.minutes(10)))
struct ConfigCommandTests {
    static let golden = DaemonProcessTests.repository.appendingPathComponent(
        "Tests/GestureDaemonTests/Golden/config-default.yaml")

    /// Runs `gestured ARGS…`: its exit status and output (standard output and error together).
    static func gestured(_ arguments: String...) async throws -> (status: Int32, output: String) {
        let child = try ChildProcess([try DaemonProcessTests.gestured()] + arguments)
        let status = try await child.waitForExit()
        return (status, child.lines.map { $0 + "\n" }.joined())
    }

    static func write(_ text: String) throws -> String {
        let directory = try DaemonProcessTests.temporaryDirectory()
        let path = directory + "/gestured.yaml"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Users keep this output as their configuration file and diff it across upgrades: a change
    /// must be deliberate. When the built-in set changes on purpose, regenerate the file with
    /// `swift run gestured config --default > Tests/GestureDaemonTests/Golden/config-default.yaml`.
    @Test("config --default prints the golden file, byte for byte")
    func defaultConfiguration() async throws {
        let (status, output) = try await Self.gestured("config", "--default")
        #expect(status == 0)
        #expect(output == (try String(contentsOf: Self.golden, encoding: .utf8)))
    }

    @Test("check-config refuses a socket group this system does not have, as run does")
    func unknownGroup() async throws {
        let group = "gestured-no-such-group-\(getpid())"
        let path = try Self.write("socket:\n  group: \(group)\n")
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let check = try await Self.gestured("check-config", path)
        #expect(check.status == 1)
        #expect(check.output == "\(path):2:10: no group named '\(group)'\n")
        let run = try await Self.gestured("run", "--config", path, "--socket", path + ".sock")
        #expect(run.status == 1)
        #expect(run.output.contains("\(path):2:10: no group named '\(group)'"), "\(run.output)")
    }

    @Test("check-config refuses `recognizers:` without a value and says what to write")
    func recognizersWithoutValue() async throws {
        let path = try Self.write("recognizers:\n#  - name: pan\n#    kind: pan\n")
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let check = try await Self.gestured("check-config", path)
        #expect(check.status == 1)
        #expect(
            check.output
                == "\(path):1:1: 'recognizers' has no value: list recognizers, write 'recognizers: []' for none, "
                + "or remove the key to run the built-in set\n")
    }

    /// A device setting the device side refuses is refused by the configuration's check, with the
    /// device side's own sentence, where the file says it: `check-config`, `run` and `replay` alike.
    /// (`size-mm` took 0–5000 mm a side when decoded and 20–2500 mm, aspect at most 4:1, on the
    /// device; `replay` then ignored it without a word.)
    @Test(
        "a device setting check-config accepts is one run and replay honour, and one they refuse they refuse alike",
        arguments: [
            ("devices:\n  - size-mm: {width: 4000, height: 10}\n", "2:14", "each side must be 20–2500 mm"),
            ("devices:\n  - size-mm: {width: 2000, height: 100}\n", "2:14", "aspect ratio above 4:1"),
            ("devices:\n  - rotation: 45\n", "2:15", "0, 90, 180 or 270"),
            ("devices:\n  - calibration: [1, 0, 0]\n", "2:18", "6 numbers"),
            ("devices:\n  - match: {usb: \"0eef:72a1:1\"}\n", "2:18", "vendor:product in hex"),
        ])
    func deviceSettingsRefusedAlike(yaml: String, at location: String, says: String) async throws {
        let path = try Self.write(yaml)
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let check = try await Self.gestured("check-config", path)
        #expect(check.status == 1, "\(check.output)")
        #expect(check.output.hasPrefix("\(path):\(location): ") && check.output.contains(says), "\(check.output)")
        let message = check.output.trimmingCharacters(in: .newlines)
        let recording = DaemonProcessTests.repository.appendingPathComponent("examples/recordings/demo.evemu").path
        let replay = try await Self.gestured("replay", "--config", path, recording)
        #expect(replay.status != 0 && replay.output.contains(message), "\(replay.output)")
        let run = try await Self.gestured("run", "--config", path, "--socket", path + ".sock", "--replay", recording)
        #expect(run.status == 1 && run.output.contains(message), "\(run.output)")
    }
}
