import Foundation
import GestureClient
import GestureProtocol
import Glibc
import TestSupport
import Testing

/// The command line's limits, each checked in one place and refused the same way by every command
/// that takes the value: playback speeds (``PlaybackSpeed``), socket paths (``SocketPath``),
/// files that are not what they should be (recordings that are one endless line, a FIFO or a
/// device as the configuration).
@Suite("command-line limits", .timeLimit(.minutes(10)))
struct CommandLineLimitTests {
    static let recording = DaemonProcessTests.recording

    // MARK: --speed

    /// `simulate --speed 1e-17` trapped (Double to Int64 in SimulateCommand.swift) and `run`
    /// took `0x10` as 16 and reported `-1` as a missing value. Both commands now refuse every one
    /// of these with the same sentence; `run` alone offers `max`.
    @Test(
        "--speed outside 0.01…1000, or not a plain number, is refused alike by run and simulate",
        arguments: [
            "1e-17", "1e-14", "1e-12", "0.009", "1001", "1e300", "0", "-1", "0x10", "nan", "inf", "fast", "max",
        ])
    func speedRefused(speed: String) async throws {
        let gestured = try DaemonProcessTests.gestured()
        let directory = try DaemonProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let number = "a number from 0.01 to 1000 (times real time)"
        let simulate = try ChildProcess([
            gestured, "simulate", "--record", directory + "/x.evemu", "--speed", speed, "long-press duration=2s",
        ])
        defer { simulate.send(SIGKILL) }
        #expect(try await simulate.waitForExit() == 64, "\(simulate.lines)")
        #expect(
            simulate.lines.contains { $0.contains("'\(speed)'") && $0.contains("must be \(number)") },
            "\(simulate.lines)")
        guard speed != "max" else { return }
        let run = try ChildProcess([
            gestured, "run", "--socket", directory + "/g.sock", "--replay", Self.recording, "--speed", speed,
        ])
        defer { run.send(SIGKILL) }  // a run that takes the speed serves until stopped
        #expect(try await run.waitForExit() == 64, "\(run.lines)")
        #expect(
            run.lines.contains { $0.contains("'\(speed)'") && $0.contains("must be 'max' or \(number)") },
            "\(run.lines)")
    }

    @Test("the ends of the speed range record a script that replay takes", arguments: ["0.01", "1000", "1e3", "+2.5"])
    func speedAccepted(speed: String) async throws {
        let gestured = try DaemonProcessTests.gestured()
        let directory = try DaemonProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/x.evemu"
        let simulate = try ChildProcess([gestured, "simulate", "--record", file, "--speed", speed, "tap"])
        #expect(try await simulate.waitForExit() == 0, "\(simulate.lines)")
        let replay = try ChildProcess([gestured, "replay", file])
        #expect(try await replay.waitForExit() == 0, "\(replay.lines)")
    }

    // MARK: Socket paths

    /// A path of exactly `bytes` bytes in a fresh directory (its directory short, its name long).
    static func socketPath(bytes: Int) throws -> (directory: String, path: String) {
        let directory = try DaemonProcessTests.temporaryDirectory()
        let name = String(repeating: "s", count: bytes - directory.utf8.count - 1)
        return (directory, directory + "/" + name)
    }

    /// 104–107-byte paths: `run` bound a 105-byte one that no client (NIO caps paths at 103)
    /// could reach, and after a SIGKILL no restart could probe the stale socket ("File name too
    /// long"). Every command now refuses them with one sentence.
    @Test(
        "a socket path NIO cannot reach is refused by run, listen, actions and the client library",
        arguments: [104, 105, 107])
    func socketPathTooLong(bytes: Int) async throws {
        let gestured = try DaemonProcessTests.gestured()
        let (directory, path) = try Self.socketPath(bytes: bytes)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let says = "is \(bytes) bytes long; a Unix socket path may be at most 103 bytes"
        let run = try ChildProcess([gestured, "run", "--socket", path, "--replay", Self.recording])
        defer { run.send(SIGKILL) }  // a run that binds the path serves until stopped
        #expect(try await run.waitForExit() != 0, "\(run.lines)")
        #expect(run.lines.contains { $0.contains(says) }, "\(run.lines)")
        #expect(!FileManager.default.fileExists(atPath: path), "nothing bound")
        for command in ["listen", "actions"] {
            let client = try ChildProcess([gestured, command, "--socket", path])
            defer { client.send(SIGKILL) }
            #expect(try await client.waitForExit() == 64, "\(command): \(client.lines)")
            #expect(client.lines.contains { $0.contains(says) }, "\(command): \(client.lines)")
        }
        await #expect(throws: GestureClientError.cannotConnect(path: path, reason: "socket path '\(path)' \(says)")) {
            try await GestureClient.connect(to: path) { _ in }
        }
    }

    /// The longest path works end to end: the daemon binds it, a client reaches it, and after a
    /// SIGKILL a new daemon replaces the stale socket.
    @Test("a 103-byte socket path is served, and survives a SIGKILL and a restart")
    func longestSocketPath() async throws {
        let (directory, path) = try Self.socketPath(bytes: 103)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for _ in 0..<2 {
            let daemon = try await DaemonProcessTests.startDaemon([
                "--socket", path, "--replay", Self.recording, "--loop",
            ])
            defer { daemon.send(SIGKILL) }
            let version = try await GestureClient.connect(to: path) { client in
                try await client.ping()
                return client.hello.protocolVersion
            }
            #expect(version == GestureProtocol.version)
            daemon.send(SIGKILL)
            _ = try await daemon.waitForExit(within: .seconds(10))
        }
    }

    @Test("the configuration's socket path is held to the same limit, with its place in the file")
    func socketPathInConfiguration() async throws {
        let gestured = try DaemonProcessTests.gestured()
        let directory = try DaemonProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/gestured.yaml"
        let path = "/run/" + String(repeating: "d", count: 90) + "/g.sock"
        try "socket:\n  path: \(path)\n".write(toFile: config, atomically: true, encoding: .utf8)
        let check = try ChildProcess([gestured, "check-config", config])
        #expect(try await check.waitForExit() != 0)
        #expect(
            check.lines.contains {
                $0.hasPrefix(config + ":2:9: ") && $0.contains("the directory of socket path")
                    && $0.contains("at most 92 bytes")
            }, "\(check.lines)")
    }

    // MARK: Files

    /// A 50 MB recording that is one line was read whole (Foundation's Data, then a copy: 114 MB)
    /// before the parser's 4096-byte line limit refused it. It is refused once the line passes
    /// the limit: the command's peak memory stays what it is for any small file (19 MB measured
    /// for the debug build; the bound is 40). The peak is the kernel's `ru_maxrss` of the one
    /// child of a Python parent.
    @Test("a recording that is one long line is refused at the line limit, not read whole")
    func longRecordingLine() async throws {
        let gestured = try DaemonProcessTests.gestured()
        let directory = try DaemonProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/one-line.evemu"
        try Data("# ".utf8 + Array(repeating: UInt8(ascii: "x"), count: 50_000_000) + [0x0A]).write(
            to: URL(fileURLWithPath: file))
        let measured = try ChildProcess([
            "python3", "-c",
            """
            import resource, subprocess, sys
            p = subprocess.run(sys.argv[1:], capture_output=True, text=True)
            print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, p.stderr.strip())
            """,
            gestured, "replay", file,
        ])
        #expect(try await measured.waitForExit() == 0, "\(measured.lines)")
        let fields = measured.lines.first?.split(separator: " ", maxSplits: 2).map(String.init) ?? []
        #expect(fields.count == 3 && fields[0] == "1", "\(measured.lines)")
        #expect(fields.count == 3 && fields[2] == "gestured replay: \(file): line 1: line longer than 4096 bytes")
        #expect(
            fields.count == 3 && (Int(fields[1]) ?? .max) < 40_000, "peak RSS \(fields.dropFirst().first ?? "?") kB")
    }

    /// A file that never ends (`/dev/zero`) is read until its first line passes the limit, as a
    /// pipe is (`replay /dev/stdin`), and refused with the line (before: "cannot read the file",
    /// Foundation refusing anything but a regular file).
    @Test("a recording that is one endless line is refused at the line limit")
    func endlessRecordingLine() async throws {
        let gestured = try DaemonProcessTests.gestured()
        for command in [["replay", "/dev/zero"], ["simulate", "--recording", "/dev/zero"]] {
            let process = try ChildProcess([gestured] + command)
            let status = try await process.waitForExit(within: .seconds(60))
            #expect(status == 1, "\(command): \(process.lines)")
            #expect(
                process.lines.contains {
                    $0.contains("/dev/zero") && $0.contains("1") && $0.contains("longer than 4096 bytes")
                },
                "\(command): \(process.lines)")
        }
    }

    /// A file over its kind's limit: a sparse 1 GB file (its blocks never written) took `check-config`
    /// over 20 s and 3 GB before an error at 1:1, and `replay` read it whole too. Every command that
    /// takes a configuration, an actions file, an mqtt file, a recording or a script refuses it by its size,
    /// naming the file and the limit; none reads it (YAMLFileTests and RecordingFileTests show the
    /// reads), so each answers at once.
    @Test("a file over its kind's size limit is refused by every command that takes it, naming file and limit")
    func filesOverTheirLimit() async throws {
        let gestured = try DaemonProcessTests.gestured()
        let directory = try DaemonProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let big = directory + "/big"
        #expect(FileManager.default.createFile(atPath: big, contents: nil))
        #expect(truncate(big, 1 << 30) == 0)
        let configuration =
            "\(big):1:1: the file is 1073741824 bytes: a configuration file is at most 1 MiB (1048576 bytes)"
        let actions = "\(big):1:1: the file is 1073741824 bytes: an actions file is at most 1 MiB (1048576 bytes)"
        let mqtt = "\(big):1:1: the file is 1073741824 bytes: an mqtt file is at most 256 KiB (262144 bytes)"
        let recording = "\(big): the file is 1073741824 bytes, over the limit of 256 MiB (268435456 bytes)"
        let script = "\(big):1:1: the file is 1073741824 bytes: a gesture script is at most 1 MiB (1048576 bytes)"
        let socket = directory + "/g.sock"
        for (arguments, says) in [
            (["check-config", big], configuration),
            (["run", "--config", big, "--socket", socket], "gestured run: " + configuration),
            (["devices", "--config", big], configuration),
            (["replay", "--config", big, Self.recording], configuration),
            (["actions", "--config", big, "--socket", socket], "gestured actions: " + actions),
            (["mqtt", "--config", big, "--socket", socket], "gestured mqtt: " + mqtt),
            (["replay", big], "gestured replay: " + recording),
            (["run", "--replay", big, "--socket", socket], "gestured run: " + recording),
            (["simulate", "--recording", big], "gestured simulate: " + recording),
            (["simulate", "--script", big], "gestured simulate: " + script),
        ] {
            let process = try ChildProcess([gestured] + arguments)
            defer { process.send(SIGKILL) }
            #expect(try await process.waitForExit(within: .seconds(60)) == 1, "\(arguments): \(process.lines)")
            #expect(process.lines.contains { $0.hasSuffix(says) }, "\(arguments): \(process.lines)")
        }
    }

    /// A reload of a configuration over the limit keeps the running one, as any refused reload.
    @Test("SIGHUP with a configuration over the limit: refused by its size, the running one kept")
    func reloadOverTheLimit() async throws {
        let directory = try DaemonProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = directory + "/g.sock"
        let config = directory + "/gestured.yaml"
        let named = "recognizers:\n  - name: only-tap\n    kind: tap\n"
        try named.write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try await DaemonProcessTests.startDaemon([
            "--config", config, "--socket", socket, "--replay", Self.recording, "--loop",
        ])
        defer { daemon.send(SIGKILL) }
        #expect(truncate(config, 1 << 30) == 0)
        daemon.send(SIGHUP)
        try await daemon.output.wait(for: "the reload to be refused") { o in
            o.lines.contains {
                $0.contains("reload failed")
                    && $0.contains("\(config):1:1: the file is 1073741824 bytes: a configuration file is at most 1 MiB")
            }
        }
        let names = try await GestureClient.connect(to: socket) { client in client.hello.recognizers.map(\.name) }
        #expect(names == ["only-tap"])
        daemon.send(SIGTERM)
        #expect(try await daemon.waitForExit(within: .seconds(10)) == 0)
    }

    /// A FIFO or a device as the configuration was reported as "Permission denied"; a directory
    /// is said as the command's own word, with what to give instead (not `:1:1:`).
    @Test("a configuration that is not a regular file says what it is")
    func irregularConfiguration() async throws {
        let gestured = try DaemonProcessTests.gestured()
        let directory = try DaemonProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fifo = directory + "/gestured.yaml"
        #expect(mkfifo(fifo, 0o600) == 0)
        for (file, says) in [
            (fifo, "it is a named pipe (FIFO), not a regular file"),
            ("/dev/zero", "it is a character device, not a regular file"),
        ] {
            let check = try ChildProcess([gestured, "check-config", file])
            #expect(try await check.waitForExit(within: .seconds(60)) == 1, "\(file): \(check.lines)")
            #expect(
                check.lines.contains { $0 == "\(file):1:1: cannot read the file: \(says)" }, "\(file): \(check.lines)")
        }
        let check = try ChildProcess([gestured, "check-config", directory])
        #expect(try await check.waitForExit(within: .seconds(60)) == 1, "\(check.lines)")
        #expect(
            check.lines == ["gestured check-config: \(directory): a directory; give a configuration or actions file"])
    }
}
