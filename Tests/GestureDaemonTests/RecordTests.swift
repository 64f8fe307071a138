import Foundation
import GestureProtocol
import Glibc
import TestSupport
import Testing

/// `gestured record` through the real daemon, on a replayed panel (`run --replay --loop`): the
/// file it writes replays to the gestures the daemon published while it recorded, and a user
/// who may not read the panel is refused. (The same through the kernel, with a grabbed uinput
/// panel, is EndToEndTests' "gestured record through a grabbed panel".)
@Suite("gestured record", .timeLimit(.minutes(10)))
struct RecordTests {
    static let fieldScript = DaemonProcessTests.repository.appendingPathComponent(
        "Tests/TouchInputTests/Fixtures/field.script")

    /// A session to replay: a lead tap, `quiet` of nothing (room for a recorder to start on a host
    /// at load 40; seconds, as simulate's `wait` takes them), then a gesture of each common kind
    /// (field.script), made offline by `gestured simulate --record`.
    static func session(in directory: String, quiet: Int = 15) async throws -> String {
        let gestures = try String(contentsOf: fieldScript, encoding: .utf8).split(separator: "\n")
            .filter { !$0.hasPrefix("#") && !$0.isEmpty }
        let script = directory + "/session.script"
        try (["tap at=0.1,0.1", "wait \(quiet)s"] + gestures).joined(separator: "\n").write(
            toFile: script, atomically: true, encoding: .utf8)
        let file = directory + "/session.evemu"
        let simulate = try ChildProcess([
            try DaemonProcessTests.gestured(), "simulate", "--profile", "kiosk-10", "--seed", "39", "--record", file,
            "--script", script,
        ])
        #expect(try await simulate.waitForExit() == 0, "\(simulate.lines)")
        return file
    }

    /// The times (µs) of an evemu file's events.
    static func eventTimes(_ path: String) throws -> [Int64] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").compactMap { line in
            guard line.hasPrefix("E: "), let stamp = line.split(separator: " ").dropFirst().first else { return nil }
            let parts = stamp.split(separator: ".")
            guard parts.count == 2, let seconds = Int64(parts[0]), let micros = Int64(parts[1]) else { return nil }
            return seconds * 1_000_000 + micros
        }
    }

    /// The type, code and value of an evemu file's events, as written.
    static func eventCodes(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("E: ") }
            .map { $0.split(separator: " ").dropFirst(2).prefix(3).joined(separator: " ") }
    }

    /// A gesture line as it compares between the daemon and a replay: without what numbers it
    /// within one process (`seq`, the touch ids) and the device's label (the file's name), its
    /// keys sorted; and when its first touch landed.
    static func comparable(_ line: Substring) throws -> (line: String, start: Int64) {
        var object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        for key in ["seq", "touches", "device"] { object[key] = nil }
        let start = try #require(object["start_time_us"] as? NSNumber).int64Value
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return (String(decoding: data, as: UTF8.self), start)
    }

    @Test("a recording made through the daemon replays to the gestures the daemon published while it recorded")
    func recordThenReplay() async throws {
        let gestured = try DaemonProcessTests.gestured()
        let directory = try DaemonProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let session = try await Self.session(in: directory)
        let sessionTimes = try Self.eventTimes(session)
        // The lead tap's events: those before the quiet seconds.
        let lead = try #require(sessionTimes.indices.dropLast().first { sessionTimes[$0 + 1] - sessionTimes[$0] > 2_000_000 }) + 1
        let socket = directory + "/g.sock"
        let daemon = try await DaemonProcessTests.startDaemon([
            "--socket", socket, "--replay", session, "--loop", "--speed", "1",
        ])
        defer { daemon.send(SIGKILL) }

        // A recording ends with its pass (the replay device goes); one that began before the
        // gestures after the quiet seconds holds all of them. The first begins in the first
        // pass's quiet seconds unless the host takes longer than that to start it; the next ones
        // at the start of the next pass, or in its quiet seconds. They run one after another in
        // a shell of their own, each started as the one before ends, until one holds the
        // gestures: when the next one starts depends on the host, not on when this test's task
        // next gets a thread (in a whole `swift test` on a loaded 2-core host that was later
        // than the quiet seconds, pass after pass).
        let output = directory + "/recorded.evemu"
        let recorders = try ChildProcess([
            "/bin/sh", "-c",
            #"""
            for attempt in 1 2 3 4 5 6; do
                "$0" record --socket "$1" --explain -o "$2" > "$2.log" 2>&1 || { echo "record failed:"; cat "$2.log"; exit 1; }
                events=$(grep -c '^E: ' "$2")
                echo "attempt $attempt: $events events"
                [ "$events" -ge "$3" ] && exit 0
            done
            echo "no recording in $attempt passes began before the session's gestures"
            exit 2
            """#,
            gestured, socket, output, "\(sessionTimes.count - lead)",
        ])
        defer { recorders.send(SIGKILL) }
        let status = try await recorders.waitForExit(within: .seconds(540))
        guard status == 0 else {
            Issue.record("the recorders ended with \(status): \(recorders.lines)")
            return
        }
        let recorded = try Self.eventTimes(output)
        #expect(recorded.count >= sessionTimes.count - lead, "\(recorders.lines)")
        let summary = try #require(
            try String(contentsOfFile: output + ".log", encoding: .utf8).split(separator: "\n").last)
        #expect(summary.contains("\(recorded.count) events of session.evemu written to \(output)"), "\(summary)")
        #expect(summary.contains("the panel went away"), "\(summary)")
        let count = recorded.count
        try await daemon.output.wait(for: "the daemon to log the recording's end") { o in
            o.lines.contains {
                $0.contains("recording stopped") && $0.contains("events=\(count) ")
                    && $0.contains("reason=device-removed")
            }
        }
        #expect(daemon.lines.contains { $0.contains("recording started") && $0.contains("allowed=root") })

        // What the daemon published while it recorded, kept in the file (--explain)...
        let text = try String(contentsOfFile: output, encoding: .utf8)
        let first = try #require(recorded.first)
        let live = try text.split(separator: "\n").filter { $0.hasPrefix("# gestured: ") }
            .map { $0.dropFirst("# gestured: ".count) }
            .filter { $0.contains(#""type":"gesture""#) }
            .map(Self.comparable)
            .filter { $0.start >= first }.map(\.line)
        // ...is what `gestured replay` makes of the file, in the same order and at the same times.
        let replay = try ChildProcess([gestured, "replay", output])
        #expect(try await replay.waitForExit() == 0)
        let replayed = try replay.lines.filter { $0.hasPrefix("{") }.map { try Self.comparable($0[...]).line }
        #expect(live.count >= 7, "the session's gestures were published: \(live.count)")
        let difference = replayed.indices.first { $0 < live.count && replayed[$0] != live[$0] }
        #expect(
            replayed.count == live.count && difference == nil,
            """
            replayed \(replayed.count) gestures, the daemon published \(live.count); first difference at \
            \(difference.map { "\($0): \(replayed[$0]) against \(live[$0])" } ?? "none")
            """)
        // The same events (type, code, value), and their times: a pass after the first plays on
        // the session's clock moved on by whole passes, one shift for all.
        #expect(try Self.eventCodes(output) == Array(try Self.eventCodes(session).suffix(recorded.count)))
        let shifts = Set(zip(recorded, sessionTimes.suffix(recorded.count)).map { $0 - $1 })
        #expect(shifts.count == 1, "the file holds the session's last events, at their times, in order: \(shifts.sorted().prefix(3))")
    }

    /// Runs `arguments` as user and group `nobody` (65534) without supplementary groups: a user
    /// who may not read the test's panel (a replayed recording readable by root only).
    static func asNobody(_ arguments: [String]) throws -> ChildProcess {
        try ChildProcess(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + arguments)
    }

    @Test(
        "a user who may not read the panel is refused, and the daemon says so; record-group lets them in",
        .enabled(if: getuid() == 0, "switching the client to another user needs root"))
    func refusedThenAllowedByRecordGroup() async throws {
        let gestured = try DaemonProcessTests.gestured()
        let directory = try DaemonProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Others may reach the socket (mode 0666 in a searchable directory), not read the panel.
        chmod(directory, 0o755)
        // A pass longer than this suite's time limit: the allowed recording, 300 ms long, ends by
        // its duration however long the steps before it take, never at a pass boundary (where
        // the replayed panel goes away and comes back, which ends a recording too).
        let session = try await Self.session(in: directory, quiet: 600)
        chmod(session, 0o600)
        let socket = directory + "/g.sock"
        let config = directory + "/gestured.yaml"
        try "socket:\n  mode: \"0666\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try await DaemonProcessTests.startDaemon([
            "--config", config, "--socket", socket, "--replay", session, "--loop", "--speed", "1",
        ])
        defer { daemon.send(SIGKILL) }

        let refused = try Self.asNobody([gestured, "record", "--socket", socket, "-o", "/dev/null"])
        #expect(try await refused.waitForExit() == 1)
        #expect(
            refused.lines.contains { $0.contains("permission-denied") && $0.contains("user 65534 may not read the panel") },
            "\(refused.lines)")
        try await daemon.output.wait(for: "the daemon to log the refusal") { o in
            o.lines.contains { $0.contains("recording refused") && $0.contains("uid=65534") }
        }
        #expect(!daemon.lines.contains { $0.contains("recording started") })

        // The configuration names nobody's group: after a reload, the same user records.
        try "socket:\n  mode: \"0666\"\nrecord-group: \"65534\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        daemon.send(SIGHUP)
        try await daemon.output.wait(for: "the reload") { o in o.lines.contains { $0.contains("configuration reloaded") } }
        let allowed = try Self.asNobody([gestured, "record", "--socket", socket, "--duration", "300ms", "-o", "/dev/null"])
        #expect(try await allowed.waitForExit(within: .seconds(60)) == 0, "\(allowed.lines)")
        #expect(allowed.lines.last?.contains("its duration ran out") == true, "\(allowed.lines)")
        try await daemon.output.wait(for: "the daemon to log who recorded") { o in
            o.lines.contains {
                $0.contains("recording started") && $0.contains("uid=65534") && $0.contains("record-group")
            } && o.lines.contains { $0.contains("recording stopped") && $0.contains("reason=duration") }
        }
    }
}
