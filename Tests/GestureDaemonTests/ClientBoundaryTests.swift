import Foundation
import Glibc
import TestSupport
import Testing

/// The boundaries between clients against the real daemon, as a hostile local client (a Python
/// socket, raw JSON lines) tried them: one client's definitions must not silence the operator's
/// gestures, nor another client's, nor tell another client its names (docs/ARBITRATION.md,
/// "Client recognizers"). The daemon replays the WeTab taps in a loop: taps on both halves.
@Suite("client boundaries", .timeLimit(.minutes(10)))
struct ClientBoundaryTests {
    /// A client (``ScriptedClient``) that sends `requests`, then waits for `count` `recognized`
    /// gestures of each of `names` (none: it exits after the replies), giving up after 30 s of
    /// silence.
    static func start(
        _ socket: String, waitFor names: [String] = [], count: Int = 1, _ requests: [String]
    ) throws
        -> ChildProcess
    {
        try ScriptedClient.start(
            socket, timeout: 30, until: names.isEmpty ? .afterReplies : .gestures(names, count: count), requests)
    }

    /// A client that defines `definitions` and stays connected.
    static func squatter(_ socket: String, _ definitions: String) async throws -> ChildProcess {
        let client = try ScriptedClient.start(
            socket, timeout: 30, until: .never, [#"{"type":"define","id":"d",\#(definitions)}"#])
        try await client.output.wait(for: "the define's reply") { $0.lines.contains("replied") }
        #expect(client.lines.contains { $0.contains(#""id":"d""#) && $0.contains(#""type":"ok""#) }, "\(client.lines)")
        return client
    }

    static func daemon(_ socket: String, _ arguments: [String] = []) async throws -> ChildProcess {
        try await DaemonProcessTests.startDaemon(
            arguments + ["--socket", socket, "--replay", DaemonProcessTests.recording, "--loop", "--speed", "4"])
    }

    /// A client's region over the whole surface (no recognizers, default z) hid the
    /// configuration's regions from every touch, and their taps stopped. Hit-testing now gives
    /// the configuration's recognizers touches among its own regions only.
    @Test("a client's region over everything silences none of the configuration's regions")
    func regionCoversNothing() async throws {
        let directory = try DaemonProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = directory + "/g.sock"
        let config = directory + "/gestured.yaml"
        try """
        regions:
          - {name: left, rect: {x: 0, y: 0, width: 0.5, height: 1}}
          - {name: right, rect: {x: 0.5, y: 0, width: 0.5, height: 1}}
        recognizers:
          - {name: l-tap, kind: tap, region: left}
          - {name: r-tap, kind: tap, region: right}
          - {name: r-long-press, kind: long-press, region: right}
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try await Self.daemon(socket, ["--config", config])
        defer { daemon.send(SIGKILL) }
        let cover = try await Self.squatter(
            socket, #""regions":[{"name":"cover","rect":{"x":0,"y":0,"width":1,"height":1}}]"#)
        defer { cover.send(SIGKILL) }
        let watcher = try Self.start(
            socket, waitFor: ["l-tap", "r-tap"], count: 2, [#"{"type":"subscribe","id":"s"}"#])
        #expect(try await watcher.waitForExit(within: .seconds(60)) == 0, "\(watcher.lines.suffix(5))")
        daemon.send(SIGTERM)
        #expect(try await daemon.waitForExit(within: .seconds(5)) == 0)
    }

    /// Client A's long presses that begin after 1 ms whatever moves, and its pan that
    /// begins at the first motion, made client B's own tap fail on every touch (R5 between
    /// clients). Two clients' recognizers now never arbitrate.
    @Test("one client's greedy recognizers leave another client's tap alone")
    func clientsDoNotArbitrate() async throws {
        let directory = try DaemonProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = directory + "/g.sock"
        let daemon = try await Self.daemon(socket)
        defer { daemon.send(SIGKILL) }
        // `mine` for one finger: the name the other client wants too.
        let greedy = (1...5).map {
            #"{"name":"\#($0 == 1 ? "mine" : "lp\($0)")","kind":"long-press","fingers":\#($0),"min-duration-ms":1,"slop-mm":10000}"#
        }
        let hog = try await Self.squatter(
            socket,
            #""recognizers":[\#(greedy.joined(separator: ",")),{"name":"hog","kind":"pan","start-distance-mm":0}]"#)
        defer { hog.send(SIGKILL) }
        let other = try Self.start(
            socket, waitFor: ["mine"], count: 3,
            [
                #"{"type":"define","id":"d","recognizers":[{"name":"mine","kind":"tap"}]}"#,
                #"{"type":"subscribe","id":"s"}"#,
            ])
        #expect(try await other.waitForExit(within: .seconds(60)) == 0, "\(other.lines.suffix(5))")
        // Its own `mine`, a tap; the hog's `mine`, a long press, goes to the hog only.
        let mine = other.lines.filter { $0.contains(#""type":"gesture""#) && $0.contains(#""name":"mine""#) }
        #expect(!mine.isEmpty && mine.allSatisfy { $0.contains(#""kind":"tap""#) }, "\(mine.prefix(3))")
        daemon.send(SIGTERM)
        #expect(try await daemon.waitForExit(within: .seconds(5)) == 0)
    }

    /// A client subscribed with explanations got lines naming another client's
    /// recognizer (`"tap" carries on beside "secret-lp"`, 118 in 11 s). An explanation about or
    /// naming a client's recognizer now goes to that client only.
    @Test("explanations never name another client's recognizer")
    func explanationsStayWithTheirClient() async throws {
        let directory = try DaemonProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = directory + "/g.sock"
        let daemon = try await Self.daemon(socket)
        defer { daemon.send(SIGKILL) }
        let secret = try await Self.squatter(
            socket, #""recognizers":[{"name":"secret-lp","kind":"long-press","min-duration-ms":1,"slop-mm":100}]"#)
        defer { secret.send(SIGKILL) }
        let other = try Self.start(
            socket, waitFor: ["tap"], count: 4, [#"{"type":"subscribe","id":"s","explain":true}"#])
        #expect(try await other.waitForExit(within: .seconds(60)) == 0, "\(other.lines.suffix(5))")
        let explanations = other.lines.filter { $0.contains(#""type":"explain""#) }
        #expect(explanations.count > 10, "the subscriber is explained the configuration's decisions")
        #expect(
            !explanations.contains { $0.contains("secret-lp") },
            "\(explanations.filter { $0.contains("secret-lp") }.prefix(3))")
        daemon.send(SIGTERM)
        #expect(try await daemon.waitForExit(within: .seconds(5)) == 0)
    }
}
