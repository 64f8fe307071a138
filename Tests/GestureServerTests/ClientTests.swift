import Foundation
import GestureClient
import GestureEngine
import GestureProtocol
import GestureServer
import TestSupport
import Testing

extension SocketTests {
    /// The Swift client library, `gestured listen`, and the examples, against a real server.
    @Suite(.timeLimit(.minutes(10))) struct Clients {
        static let examples = SchemaValidator.repositoryRoot.appendingPathComponent("examples/clients")

        /// `gestured` sits next to the test bundle when `swift test` has built the package.
        static let gestured: String? = {
            let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            let candidate = bundle.appendingPathComponent("gestured").path
            return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
        }()

        @Test func `the Swift client subscribes, receives, pings and surfaces errors`() async throws {
            let refusal = SpecError(
                path: [.key("recognizers"), .index(0), .key("region")], message: "unknown region 'nowhere'")
            try await ServerFixture.with(delegate: TestDelegate(define: .reject(refusal))) { f in
                f.server.publish([.device(DeviceMessage(event: .added, device: Sample.device))])
                let received = try await GestureClient.connect(to: f.path) { client in
                    #expect(client.hello.protocolVersion == GestureProtocol.version)
                    try await client.subscribe(Subscription(kinds: [.swipe]))
                    try await client.ping()
                    let spec = RecognizerSpec(name: "mine", region: "nowhere", parameters: .tap(TapParameters()))
                    do {
                        try await client.define(Definitions(recognizers: [spec]))
                        Issue.record("the refused define succeeded")
                    } catch GestureClientError.refused(let error) {
                        #expect(error.code == .invalidDefinition)
                        #expect(error.path == "/recognizers/0/region")
                    }
                    f.server.publish([
                        .gesture(Sample.gesture(1), owner: .configuration),
                        .gesture(Sample.gesture(2, name: "swipe", kind: .swipe), owner: .configuration),
                    ])
                    var messages: [ServerMessage] = []
                    for try await message in client.messages {
                        messages.append(message)
                        if case .gesture = message { break }
                    }
                    return messages
                }
                // The device may have been announced before or after this connection's hello.
                let gestures = received.compactMap { if case .gesture(let g) = $0 { g.seq } else { nil } }
                #expect(gestures == [2])
            }
        }

        @Test func `the Swift client ends its messages after the server's shutdown error`() async throws {
            try await ServerFixture.with { f in
                try await GestureClient.connect(to: f.path) { client in
                    try await client.subscribe(Subscription())
                    await f.server.shutdown()
                    var last: ServerMessage?
                    for try await message in client.messages { last = message }
                    guard case .error(let error) = last else { throw Unexpected("no error before the end") }
                    #expect(error.code == .shutdown)
                }
            }
        }

        @Test func `the Swift client reports a missing socket`() async throws {
            do {
                try await GestureClient.connect(to: "/tmp/gestured-test-no-such.sock") { _ in }
                Issue.record("connected to nothing")
            } catch GestureClientError.cannotConnect(let path, let reason) {
                #expect(path == "/tmp/gestured-test-no-such.sock")
                #expect(reason.contains("No such file"))
            }
        }

        @Test func `the Python example subscribes and prints the gestures it is sent`() async throws {
            try await ServerFixture.with { f in
                let script = Self.examples.appendingPathComponent("python/gestured_client.py").path
                let child = try ChildProcess(["python3", script, "--socket", f.path, "--kind", "tap", "--count", "2"])
                defer { child.terminate() }
                try await child.waitForLines(2)  // hello, then the subscription's ok
                f.server.publish([
                    .gesture(Sample.gesture(1, name: "swipe", kind: .swipe), owner: .configuration),
                    .gesture(Sample.gesture(2), owner: .configuration),
                    .gesture(Sample.gesture(3), owner: .configuration),
                ])
                #expect(try await child.waitForExit() == 0, "\(child.lines)")
                let messages = try child.lines.map {
                    try JSONDecoder().decode(ServerMessage.self, from: Data($0.utf8))
                }
                #expect(messages.map(\.type) == ["hello", "ok", "gesture", "gesture"])
                #expect(messages.compactMap { if case .gesture(let g) = $0 { g.seq } else { nil } } == [UInt64(2), 3])
                child.lines.forEach(f.log.received)
            }
        }

        @Test func `the Python module's requests and errors work as documented`() async throws {
            try await ServerFixture.with(delegate: nil) { f in
                let directory = Self.examples.appendingPathComponent("python").path
                let program = """
                    import sys
                    sys.path.insert(0, sys.argv[1])
                    from gestured_client import GestureClient, ServerError
                    with GestureClient(sys.argv[2]) as client:
                        print(client.hello["protocol"])
                        print(client.ping()["type"])
                        try:
                            client.subscribe(kinds=["wave"])
                        except ServerError as error:
                            print(error.error["code"])
                        try:
                            client.define(recognizers=[{"name": "x", "kind": "tap"}])
                        except ServerError as error:
                            print(error.error["code"])
                    """
                let child = try ChildProcess(["python3", "-c", program, directory, f.path])
                #expect(try await child.waitForExit() == 0, "\(child.lines)")
                #expect(child.lines == ["1", "pong", "invalid-filter", "unavailable"])
            }
        }

        @Test func `the socat one-liner receives gestures after closing its input`() async throws {
            try await ServerFixture.with { f in
                let script = Self.examples.appendingPathComponent("socat.sh").path
                let child = try ChildProcess(["sh", script], environment: ["GESTURED_SOCKET": f.path])
                defer { child.terminate() }
                try await child.waitForLines(2)  // hello, ok
                f.server.publish([
                    .gesture(Sample.gesture(1, name: "pinch", kind: .pinch), owner: .configuration),
                    .gesture(Sample.gesture(2, name: "swipe", kind: .swipe), owner: .configuration),
                ])
                try await child.waitForLines(3)
                let lines = child.lines
                #expect(lines[0].contains(#""type":"hello""#))
                #expect(lines[1] == #"{"type":"ok"}"#)
                let gesture = try JSONDecoder().decode(GestureMessage.self, from: Data(lines[2].utf8))
                #expect(gesture.seq == 2)
                lines.forEach(f.log.received)
            }
        }

        @Test(.enabled(if: gestured != nil, "the gestured executable has not been built"))
        func `gestured listen prints JSON lines by default and readable lines with --pretty`() async throws {
            try await ServerFixture.with { f in
                let json = try ChildProcess([Self.gestured!, "listen", "--socket", f.path, "--kind", "swipe"])
                let pretty = try ChildProcess([Self.gestured!, "listen", "--socket", f.path, "--pretty"])
                defer {
                    json.terminate()
                    pretty.terminate()
                }
                try await json.waitForLines(1)  // hello, printed once subscribed
                try await pretty.output.wait(for: "the recognizer list") {
                    $0.lines.contains { $0.contains("recognizers:") }
                }
                f.server.publish([
                    .gesture(Sample.gesture(1), owner: .configuration),
                    .gesture(Sample.gesture(2, name: "swipe", kind: .swipe), owner: .configuration),
                ])
                try await json.waitForLines(2)
                let gesture = try JSONDecoder().decode(GestureMessage.self, from: Data(json.lines[1].utf8))
                #expect(gesture.seq == 2 && gesture.direction == .upLeft)
                json.lines.forEach(f.log.received)
                try await pretty.output.wait(for: "the swipe") { $0.lines.contains { $0.contains("swipe [swipe]") } }
                let swipe = try #require(pretty.lines.first { $0.contains("swipe [swipe]") })
                #expect(swipe.contains("recognized") && swipe.contains("direction up-left") && swipe.contains("#2"))
            }
        }

        @Test(.enabled(if: gestured != nil, "the gestured executable has not been built"))
        func `gestured listen fails clearly when the socket is absent`() async throws {
            let child = try ChildProcess([Self.gestured!, "listen", "--socket", "/tmp/gestured-test-no-such.sock"])
            #expect(try await child.waitForExit() != 0)
            #expect(child.lines.joined().contains("cannot connect to /tmp/gestured-test-no-such.sock"))
        }
    }
}
