import Foundation
import Glibc
import TestSupport
import Testing

/// The real daemon replaying a real swipe (tablets-indirect-touch, MIT)
/// that a configuration asks too much of. One client subscribes with `explain` and receives the
/// reason the swipe failed; another, connected all along with the same filters but no `explain`,
/// receives exactly the lines the first one receives minus the explanations — the same bytes,
/// `seq` included — so explanations cost the others nothing, not even a number.
@Suite("subscribe with explain", .timeLimit(.minutes(10)))
struct LiveExplainTests {
    /// A raw client: connects, sends one request, prints every line it reads, as read.
    static let client = """
        import socket, sys
        s = socket.socket(socket.AF_UNIX)
        s.connect(sys.argv[1])
        f = s.makefile("rwb", buffering=0)
        f.readline()
        f.write((sys.argv[2] + "\\n").encode())
        for line in f:
            sys.stdout.write(line.decode())
            sys.stdout.flush()
        """

    /// Both clients take the same gestures; not `changed` ones, which a client that reads late
    /// may get coalesced (docs/PROTOCOL.md §9), so the two streams could differ for that reason.
    static func subscribe(explain: Bool) -> String {
        #"{"type":"subscribe","kinds":["swipe","pan"],"states":["began","ended","cancelled","recognized"]"#
            + (explain ? #","explain":true}"# : "}")
    }

    @Sendable static func failures(_ lines: [String]) -> [String] {
        lines.filter {
            $0.contains(#""type":"explain""#) && $0.contains(#""name":"next-page""#)
                && $0.contains(#""decision":"failed""#)
        }
    }

    @Sendable static func gestures(_ lines: [String]) -> [String] {
        lines.filter { $0.contains(#""type":"gesture""#) }
    }

    /// The `seq` of a line.
    @Sendable static func seq(_ line: String) -> Int? {
        guard let range = line.range(of: #""seq":"#) else { return nil }
        return Int(line[range.upperBound...].prefix { $0.isNumber })
    }

    @Test("an explain subscriber gets the swipe's failure; a plain one gets the same bytes without it")
    func explainedAndPlain() async throws {
        let directory = try DaemonProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = directory + "/g.sock"
        let recording = directory + "/swipe.evemu"
        try Data(xzDecompressed(ReplayExplainTests.fixture)).write(to: URL(fileURLWithPath: recording))
        let config = directory + "/gestured.yaml"
        try """
            devices:
              - {match: {}, force-touchscreen: true}
            recognizers:
              - {name: next-page, kind: swipe, directions: [right], min-distance-mm: 400}
              - {name: pan, kind: pan, simultaneous-with: [next-page]}

            """.write(toFile: config, atomically: true, encoding: .utf8)

        let daemon = try await DaemonProcessTests.startDaemon([
            "--config", config, "--socket", socket, "--replay", recording, "--loop", "--speed", "4",
        ])
        defer { daemon.send(SIGKILL) }
        let plain = try ChildProcess([
            "python3", "-c", Self.client, socket, Self.subscribe(explain: false),
        ])
        defer { plain.terminate() }
        try await plain.output.wait(for: "the plain subscription", within: .seconds(60)) { o in
            o.lines.contains { $0.contains(#""type":"ok""#) }
        }
        let explained = try ChildProcess([
            "python3", "-c", Self.client, socket, Self.subscribe(explain: true),
        ])
        defer { explained.terminate() }

        // Six failures of the swipe explained: several passes of the recording seen by both.
        let failures = Self.failures
        try await explained.output.wait(for: "six explained swipe failures", within: .seconds(90)) { o in
            failures(o.lines).count >= 6
        }
        let failure = try #require(failures(explained.lines).first)
        #expect(failure.contains(#""check":"stroke-too-short""#) && failure.contains(#""key":"min-distance-mm""#))
        #expect(failure.contains(#""limit":400"#) && failure.contains(#"mm < min-distance-mm 400"#))
        #expect(!plain.lines.contains { $0.contains(#""type":"explain""#) })

        // The plain client's lines are the explained client's without its explanations, byte
        // for byte, over every `seq` both received (the plain one connected first).
        let gestures = Self.gestures
        let seq = Self.seq
        let lastExplained = try #require(failures(explained.lines).last)
        let lastFailure = try #require(explained.lines.lastIndex(of: lastExplained))
        let shared = gestures(Array(explained.lines[..<lastFailure]))
        let first = try #require(shared.first.flatMap(seq))
        let last = try #require(shared.last.flatMap(seq))
        try await plain.output.wait(for: "the plain client to reach seq \(last)", within: .seconds(60)) { o in
            gestures(o.lines).contains { (seq($0) ?? 0) >= last }
        }
        let plainShare = gestures(plain.lines).filter { (seq($0) ?? -1) >= first && (seq($0) ?? Int.max) <= last }
        #expect(shared.count >= 8)
        #expect(plainShare == shared)

        let traffic = TrafficLog()
        (explained.lines + plain.lines).filter { $0.hasPrefix("{") }.forEach(traffic.received)
        traffic.sent(Self.subscribe(explain: true))
        try traffic.validate()
    }
}
