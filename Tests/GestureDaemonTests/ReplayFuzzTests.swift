import Foundation
import Glibc
import TestSupport
import Testing

/// Replay fuzzing: damaged recordings and odd speeds through the real daemon
/// (`gestured run --replay FILE --speed S [--loop]`), not only through the parser
/// (`EvemuFuzzTests`). A recording the parser takes may still fail halfway (events are read
/// lazily) or carry clocks that jump by centuries, and the replay driver's pacing arithmetic runs
/// on both. Every run must end one of three ways: refused at start with a message naming the
/// file (exit 1) or the speed (exit 64); or running, answering a `ping` (which goes through the
/// input thread), and exiting 0 on SIGTERM. Unpaced runs are first played to the end of a pass
/// (or to where the replay stops, with its reason, once). No crash, no trap, no hang.
///
/// CI runs 128 inputs; `GESTURED_REPLAY_FUZZ_ITERATIONS=N` runs more (docs/INPUT.md, "Fuzzing").
@Suite("replay fuzzing", .timeLimit(.minutes(10)))
struct ReplayFuzzTests {
    static var iterations: Int {
        ProcessInfo.processInfo.environment["GESTURED_REPLAY_FUZZ_ITERATIONS"].flatMap { Int($0) } ?? 128
    }

    /// Daemons run at once (the other suites run beside these).
    static let parallel = 2

    static func seeds() throws -> [[UInt8]] {
        let fixtures = DaemonProcessTests.repository.appendingPathComponent("Tests/TouchInputTests/Fixtures")
        return [
            Array(try Data(contentsOf: fixtures.appendingPathComponent("wetab.event"))),
            Array(try Data(contentsOf: fixtures.appendingPathComponent("ntrig-dell-xt2.event"))),
            Array(try ReplayDriverTests.farFutureText().utf8),
        ]
    }

    /// Mostly unpaced (the whole recording gets played); otherwise a speed from the documented
    /// range, log-uniform, or one outside it (those whose pacing arithmetic trapped before, and
    /// words).
    static func speed(_ rng: inout SplitMix64) -> String {
        switch rng.next() % 10 {
        case 0..<5: return "max"
        case 5..<8:
            let exponent = -2 + 5 * Double(rng.next() % 1_000_000) / 1_000_000
            return String(format: "%.4g", pow(10, exponent))
        default:
            let outside = ["1e300", "1e-300", "1e15", "1e-14", "0", "-1", "1001", "nan", "inf", "fast"]
            return outside[Int(rng.next() % UInt64(outside.count))]
        }
    }

    enum Outcome: Equatable {
        case refused(status: Int32)
        case ran(toTheEnd: Bool)
    }

    /// One run of the daemon on `recording`; records an issue for anything but the three endings.
    static func run(
        _ recording: [UInt8], speed: String, loop: Bool, in directory: String, input: Int
    ) async throws -> Outcome {
        let file = directory + "/fuzz-\(input).event"
        let socket = directory + "/g.sock"
        try Data(recording).write(to: URL(fileURLWithPath: file))
        defer { unlink(file) }
        // `--speed=S`: a negative one would read as an option.
        let arguments = ["run", "--socket", socket, "--replay", file, "--speed=\(speed)"] + (loop ? ["--loop"] : [])
        let what = "input \(input) (gestured \(arguments.joined(separator: " ")))"
        let daemon = try ChildProcess([try DaemonProcessTests.gestured()] + arguments)
        defer { daemon.send(SIGKILL) }
        func report(_ problem: String) {
            Issue.record(
                "\(what): \(problem); last lines \(daemon.lines.suffix(5))\n\(String(decoding: recording.prefix(3000), as: UTF8.self))"
            )
        }
        try await daemon.output.wait(for: "\(what): ready or an exit", within: .seconds(60)) { o in
            o.status != nil || o.lines.contains { $0.contains("ready") }
        }
        if daemon.output.value.status != nil {
            let status = try await daemon.waitForExit()
            // A recording the parser refuses is named by its path (`FILE: line N: …`, or
            // `FILE:LINE:COLUMN: …` when a mutation made it read as YAML), one that is no
            // touchscreen by its name.
            let says = status == 64 ? "is invalid for '--speed <N|max>': must be" : "fuzz-\(input).event:"
            if ![1, 64].contains(status) || !daemon.lines.contains(where: { $0.contains(says) }) {
                report("exit status \(status) without '\(says)…'")
            }
            return .refused(status: status)
        }
        let unpaced = speed == "max"
        if unpaced {
            try await daemon.output.wait(for: "\(what): a pass's end", within: .seconds(60)) { o in
                o.status != nil || o.lines.contains { $0.contains("replay pass done") || $0.contains("replay stopped") }
            }
        }
        // The client reads while it waits: a short recording looped fast adds and removes its
        // device many times a second, and a client that does not read is (rightly) cut off with
        // `overflow` once its queue is full. It is a process of its own: a reader in this one
        // shares the test runner's few threads with every other suite, and on a loaded host it
        // read nothing for a minute (input 3 overflowed before its pong came).
        let client = try ChildProcess([
            "python3", "-c",
            """
            import json, socket, sys
            s = socket.socket(socket.AF_UNIX); s.settimeout(240); s.connect(sys.argv[1])
            f = s.makefile("rwb", buffering=0)
            f.readline()
            f.write(b'{"type":"ping","id":"fuzz"}\\n')
            for line in f:
                if json.loads(line).get("type") == "pong":
                    print("pong", flush=True)
                    break
            """,
            socket,
        ])
        defer { client.send(SIGKILL) }
        let clientStatus = try await client.waitForExit(within: .seconds(300))
        if clientStatus != 0 || !client.lines.contains("pong") {
            report("no pong: client exit \(clientStatus), \(client.lines.suffix(3))")
        }
        daemon.send(SIGTERM)
        let status = try await daemon.waitForExit(within: .seconds(60))
        if status != 0 { report("exit status \(status) after SIGTERM") }
        if let fatal = daemon.lines.first(where: { $0.contains("Fatal error") }) { report(fatal) }
        let stops = daemon.lines.filter { $0.contains("replay stopped") }.count
        if stops > 1 { report("the replay stopped \(stops) times") }
        return .ran(toTheEnd: unpaced)
    }

    @Test("mutated recordings at any speed, looped or not, never crash or hang the daemon")
    func mutatedReplays() async throws {
        let seeds = try Self.seeds()
        let outcomes = try await withThrowingTaskGroup(of: [Outcome].self) { group in
            for worker in 0..<Self.parallel {
                group.addTask {
                    let directory = try DaemonProcessTests.temporaryDirectory()
                    defer { try? FileManager.default.removeItem(atPath: directory) }
                    var outcomes: [Outcome] = []
                    for input in stride(from: worker, to: Self.iterations, by: Self.parallel) {
                        // A generator per input: input N is the same whichever worker runs it.
                        var rng = SplitMix64(seed: 0x7265_706C_6179 &+ UInt64(input))
                        let recording = RecordingMutation.mutate(seeds[input % seeds.count], &rng)
                        let speed = Self.speed(&rng)
                        let loop = rng.next() % 2 == 0
                        outcomes.append(
                            try await Self.run(recording, speed: speed, loop: loop, in: directory, input: input))
                    }
                    return outcomes
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        // Every ending must occur, or the mutations and speeds are not reaching the driver.
        let refusedRecordings = outcomes.filter { $0 == .refused(status: 1) }.count
        let played = outcomes.filter { $0 == .ran(toTheEnd: true) }.count
        let paced = outcomes.filter { $0 == .ran(toTheEnd: false) }.count
        #expect(refusedRecordings > 0 && played > 0 && paced > 0, "\(refusedRecordings) \(played) \(paced)")
        print(
            "replay fuzzing: \(outcomes.count) inputs: \(refusedRecordings) recordings refused, "
                + "\(outcomes.filter { $0 == .refused(status: 64) }.count) speeds refused, \(played) played to a pass's end "
                + "(unpaced), \(paced) paced")
    }
}
