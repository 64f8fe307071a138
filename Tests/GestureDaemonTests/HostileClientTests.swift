import Foundation
import Glibc
import TestSupport
import Testing

/// The real daemon against a hostile client (a Python socket, raw JSON lines)
/// would try it: definitions beyond the limits, a client that would silence everyone, a reload
/// under a client's feet.
@Suite("hostile clients", .timeLimit(.minutes(10)))
struct HostileClientTests {
    /// A client (``ScriptedClient``) that sends `requests`, then reads until a message of type
    /// `until` arrives (nil: it exits after the replies) or the daemon closes, giving up after
    /// 60 s of silence.
    static func start(_ socket: String, until type: String? = nil, _ requests: [String]) throws -> ChildProcess {
        try ScriptedClient.start(socket, timeout: 60, until: type.map { .type($0) } ?? .afterReplies, requests)
    }

    /// A fresh directory and a socket path in it.
    static func place() throws -> (directory: String, socket: String) {
        let directory = try DaemonProcessTests.temporaryDirectory()
        return (directory, directory + "/g.sock")
    }

    /// `gestured run` on `socket`, replaying the WeTab taps in a loop.
    static func daemon(_ socket: String, _ arguments: [String] = []) async throws -> ChildProcess {
        try await DaemonProcessTests.startDaemon(
            arguments + ["--socket", socket, "--replay", DaemonProcessTests.recording, "--loop"])
    }

    /// The JSON objects a client printed.
    static func messages(_ client: ChildProcess) -> [[String: Any]] {
        client.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// The reply to request `id`.
    static func reply(_ client: ChildProcess, id: String) -> [String: Any]? {
        messages(client).first { $0["id"] as? String == id }
    }

    /// The recognizer names a new connection's hello lists.
    static func listed(_ socket: String) async throws -> [String] {
        let probe = try ChildProcess(["python3", "-c", DaemonProcessTests.helloProbe, socket])
        #expect(try await probe.waitForExit() == 0, "\(probe.lines)")
        return probe.lines.first.map { $0.split(separator: ",").map(String.init) } ?? []
    }

    /// Asks until the daemon lists `recognizers` (a client's go once its close is handled), for
    /// at most a minute; the caller checks.
    static func settle(_ socket: String, to recognizers: [String]) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while try await listed(socket) != recognizers && ContinuousClock.now < deadline {}
    }

    static func taps(_ prefix: String, _ count: Int) -> String {
        (0..<count).map { #"{"name":"\#(prefix)-\#($0)","kind":"tap","simultaneous-with":["*"]}"# }
            .joined(separator: ",")
    }

    /// 64 observer taps from each of many clients made every frame quadratic and the
    /// daemon minutes late. All clients together may now define 256 recognizers: the fifth
    /// client gets `too-many-recognizers`, the others keep theirs, and when they leave the
    /// daemon lists only its own again.
    @Test("clients together may not define more than max_client_definitions recognizers")
    func totalRecognizerLimit() async throws {
        let (directory, socket) = try Self.place()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let daemon = try await Self.daemon(socket)
        defer { daemon.send(SIGKILL) }
        let configurationOnly = try await Self.listed(socket)
        var clients: [ChildProcess] = []
        defer { for client in clients { client.send(SIGKILL) } }
        for n in 0..<5 {
            let client = try Self.start(
                socket, until: "never",
                [#"{"type":"define","id":"d","recognizers":[\#(Self.taps("c\(n)", 64))]}"#])
            clients.append(client)
            try await client.output.wait(for: "client \(n)'s reply") { $0.lines.contains("replied") }
        }
        for client in clients.prefix(4) { #expect(Self.reply(client, id: "d")?["type"] as? String == "ok") }
        let refused = Self.reply(clients[4], id: "d")
        #expect(refused?["code"] as? String == "too-many-recognizers", "\(String(describing: refused))")
        #expect((refused?["message"] as? String)?.contains("at most 256 recognizers") == true)
        #expect(try await Self.listed(socket).count == configurationOnly.count + 256)

        // SIGKILL: a SIGTERM the test runner ignores is ignored by its children too.
        for client in clients { client.send(SIGKILL) }
        try await Self.settle(socket, to: configurationOnly)
        #expect(try await Self.listed(socket) == configurationOnly, "the clients' recognizers go with them")
        daemon.send(SIGTERM)
        #expect(try await daemon.waitForExit(within: .seconds(5)) == 0)
    }

    /// The input thread could be stuck for minutes while `ping` still got
    /// its `pong` from the socket's thread. A `ping` now goes through the input thread behind
    /// everything queued before it, so a `define` and a `ping` written together are answered in
    /// that order (before: `pong` first, straight from the server, while the define waited).
    @Test("pong comes through the input thread, after the define written before it")
    func pongThroughTheInputThread() async throws {
        let (directory, socket) = try Self.place()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let daemon = try await Self.daemon(socket)
        defer { daemon.send(SIGKILL) }
        let define = #"{"type":"define","id":"d","recognizers":[\#(Self.taps("o", 64))]}"#
        let client = try ChildProcess([
            "python3", "-c",
            """
            import socket, sys
            s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rwb", buffering=0)
            f.readline()
            f.write(sys.argv[2].encode() + b"\\n" + b'{"type":"ping","id":"p"}\\n')
            # The replies; device messages of the looping replay may come between them.
            replies = 0
            while replies < 2:
                line = f.readline().decode().rstrip()
                if '"id"' in line: print(line); replies += 1
            """,
            socket, define,
        ])
        #expect(try await client.waitForExit() == 0, "\(client.lines)")
        #expect(Self.messages(client).map { $0["id"] as? String } == ["d", "p"], "\(client.lines)")
        #expect(Self.messages(client).map { $0["type"] as? String } == ["ok", "pong"])
        daemon.send(SIGTERM)
        #expect(try await daemon.waitForExit(within: .seconds(5)) == 0)
    }

    /// Bounded templates and the client policy, as `invalid-definition`.
    @Test(
        "a define over the template bound, or one that would preempt or wait on the configuration, is refused",
        arguments: [
            (
                #"{"name":"s","kind":"shape","templates":[\#((0..<17).map { #"{"name":"t\#($0)","points":[[0,0],[1,0],[1,1]]}"# }.joined(separator: ","))]}"#,
                "/recognizers", "at most 16 per connection"
            ),
            (#"{"name":"grab","kind":"pan","preempts":["*"]}"#, "/recognizers/0/preempts/0", "may-preempt"),
            (#"{"name":"grab","kind":"pan","preempts":["pan"]}"#, "/recognizers/0/preempts/0", "may-preempt"),
            (
                #"{"name":"late","kind":"tap","requires-failure-of":["double-tap"]}"#,
                "/recognizers/0/requires-failure-of/0", "may-require-failure"
            ),
        ])
    func refusedDefinitions(recognizer: String, path: String, says: String) async throws {
        let (directory, socket) = try Self.place()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let daemon = try await Self.daemon(socket)
        defer { daemon.send(SIGKILL) }
        let client = try Self.start(socket, [#"{"type":"define","id":"d","recognizers":[\#(recognizer)]}"#])
        #expect(try await client.waitForExit() == 0, "\(client.lines)")
        let reply = Self.reply(client, id: "d")
        #expect(reply?["code"] as? String == "invalid-definition", "\(String(describing: reply))")
        #expect(reply?["path"] as? String == path)
        #expect((reply?["message"] as? String)?.contains(says) == true, "\(String(describing: reply))")
        daemon.send(SIGTERM)
        #expect(try await daemon.waitForExit(within: .seconds(5)) == 0)
    }

    /// A reload dropped all of a client's definitions, even those that still fit, and
    /// told it nothing. Now it keeps what fits and sends `dropped` with what went and why.
    @Test("a reload keeps a client's definitions that still fit and tells it which it dropped")
    func reloadTellsTheClient() async throws {
        let (directory, socket) = try Self.place()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/gestured.yaml"
        let grant = "clients: {may-require-failure: true}\n"
        try (grant + "recognizers:\n  - {name: tap, kind: tap}\n  - {name: double-tap, kind: tap, taps: 2}\n").write(
            toFile: config, atomically: true, encoding: .utf8)
        let daemon = try await Self.daemon(socket, ["--config", config])
        defer { daemon.send(SIGKILL) }
        let client = try Self.start(
            socket, until: "never",
            [
                #"{"type":"define","id":"d","recognizers":[{"name":"after-double","kind":"tap","requires-failure-of":["double-tap"]},{"name":"mine","kind":"swipe"}]}"#
            ])
        defer { client.send(SIGKILL) }
        try await client.output.wait(for: "the define's reply") { $0.lines.contains("replied") }
        #expect(Self.reply(client, id: "d")?["type"] as? String == "ok")
        try (grant + "recognizers:\n  - {name: tap, kind: tap}\n").write(
            toFile: config, atomically: true, encoding: .utf8)
        daemon.send(SIGHUP)
        try await client.output.wait(for: "the client to hear of it") { o in
            o.lines.contains { $0.contains(#""type":"dropped""#) }
        }
        let dropped = try #require(Self.messages(client).last { $0["type"] as? String == "dropped" })
        let definitions = try #require(dropped["definitions"] as? [[String: Any]])
        #expect(definitions.map { $0["name"] as? String } == ["after-double"])
        #expect(definitions.first?["kind"] as? String == "recognizer")
        #expect((definitions.first?["reason"] as? String)?.contains("unknown recognizer 'double-tap'") == true)
        #expect(try await Self.listed(socket) == ["tap", "mine"], "what still fits stays")
        client.send(SIGKILL)
        daemon.send(SIGTERM)
        #expect(try await daemon.waitForExit(within: .seconds(5)) == 0)
        // What the daemon sent is what the protocol's schema says.
        let traffic = TrafficLog()
        client.lines.filter { $0.hasPrefix("{") }.forEach(traffic.received)
        try traffic.validate()
    }
}
