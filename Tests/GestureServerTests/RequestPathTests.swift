import Foundation
import GestureEngine
import GestureProtocol
import Logging
import NIOCore
import TestSupport
import Testing

@testable import GestureServer

/// How a request line becomes work (docs/PROTOCOL.md §9, CONTRIBUTING.md "Adding a request
/// type"): the server thread reads a line's head — its `type` and `id` — and refuses what it can
/// on that alone (a `define` the connection may not make, or not now), answers a request of
/// nothing but `type` and `id` (a `ping`), and has everything else decoded, and a `define`
/// admitted against the limits, on the decoder's thread while the connection waits.
@Suite struct RequestPathTests {
    // MARK: The head

    static func head(_ line: String) -> RequestHead? {
        Array(line.utf8).withUnsafeBytes { RequestHead.scan($0) }
    }

    @Test(arguments: [
        (#"{"type":"ping","id":"hb-1"}"#, "ping", RequestID.string("hb-1"), true),
        (#" { "id" : -42 , "type" : "unsubscribe" } "#, "unsubscribe", .number(-42), true),
        (#"{"type":"ping"}"#, "ping", nil, true),
        (#"{"type":"define","id":3,"regions":[{"name":"a","type":"x"}],"recognizers":[]}"#, "define", .number(3), false),
        (#"{"regions":[{"id":"x"}],"id":"late","type":"define"}"#, "define", .string("late"), false),
        (#"{"type":"subscribe","id":"é","kinds":["tap"]}"#, "subscribe", .string("é"), false),
        (#"{"type":"define","id":1,"regions":[{"name":"#, "define", .number(1), false),
    ])
    func `the head is read from the outer object, whatever the other values hold`(
        line: String, type: String, id: RequestID?, whole: Bool
    ) throws {
        let head = try #require(Self.head(line))
        #expect(head == RequestHead(type: type, id: id, isWhole: whole))
    }

    @Test(arguments: [
        #"[{"type":"ping"}]"#, #"{"id":1}"#, #"{"type":"ping","type":"ping"}"#, #"{"type":"ping","id":1,"id":2}"#,
        #"{"t\u0079pe":"ping"}"#, #"{"type":"p\u0069ng"}"#, #"{"type":"ping","id":"a\"b"}"#, #"{"type":"ping","id":1.0}"#,
        #"{"type":"ping","id":1e3}"#, #"{"type":"ping","id":01}"#, #"{"type":"ping","id":9223372036854775808}"#,
        #"{"type":7}"#, #"{"type":"ping","id":null}"#, #"{"type":"ping"} x"#, #"{"type":"ping","#,
        #"{"type":"define","regions":[{"#, #"{"type":"define","id":1,"#,
    ])
    func `a line whose head is not certain is left to the decoder`(line: String) {
        #expect(Self.head(line) == nil)
    }

    /// The head agrees with the decoder on every line the decoder accepts, and a whole head is
    /// the very request the decoder reads: over random lines made from requests and their parts,
    /// mutated. Prints the seed and the line of a disagreement.
    @Test(arguments: 0..<8)
    func `the head says what the decoder reads, or nothing`(run: Int) throws {
        let seed = 0x6865_6164_0000_0000 &+ UInt64(run)
        var rng = SplitMix64(seed: seed)
        var (agreed, whole) = (0, 0)
        for n in 0..<2000 {
            let bytes = RandomRequestLine.make(&rng)
            let head = bytes.withUnsafeBytes { RequestHead.scan($0) }
            let parsed = ProtocolTests.parse(bytes)
            let context = "seed 0x\(String(seed, radix: 16)), line \(n): \(String(decoding: bytes, as: UTF8.self))"
            if let head, case .success(let (request, id)) = parsed {
                #expect(head.type == type(of: request).name && head.id == id, "\(context)")
                agreed += 1
            }
            if let head, let bare = RequestTable(declared: []).bare(head) {
                guard case .success(let (request, id)) = parsed else {
                    Issue.record("a bare request the decoder refuses: \(context)")
                    continue
                }
                #expect(AnyHashable(request) == AnyHashable(bare) && id == head.id, "\(context)")
                whole += 1
            }
        }
        // The lines reach both cases often (a generator that stopped would pass vacuously).
        #expect(agreed > 100 && whole > 100, "seed 0x\(String(seed, radix: 16)): \(agreed) agreed, \(whole) whole")
    }

    // MARK: Off the server thread

    /// A decoder whose thread waits for the test to let it go before each line, and counts them.
    final class HeldDecoder: Sendable {
        let decoded = Observed(0)
        private let gate = DispatchSemaphore(value: 0)

        func decoder(onCallingThread: Bool = false) -> RequestDecoder {
            RequestDecoder(onCallingThread: onCallingThread) { [self] in
                // Through the gate once it is open, and leave it open.
                gate.wait()
                gate.signal()
                decoded.update { $0 += 1 }
            }
        }

        func letGo() { gate.signal() }
    }

    static func core(_ decoder: RequestDecoder, delegate: TestDelegate? = TestDelegate()) -> ServerCore {
        ServerCore(
            configuration: GestureServer.Configuration(listener: .path("/nonexistent/g.sock"), daemonVersion: "test"),
            delegate: delegate, mailbox: try! Mailbox(),
            logger: Logger(label: "request-path", factory: { _ in SwiftLogNoOpLogHandler() }), decoder: decoder)
    }

    static func connect(
        _ core: ServerCore, _ transport: ClientSession.Transport = .unixSocket(user: 0)
    ) throws -> AudienceTests.Connection {
        let link = AudienceTests.KeepingLink()
        let session = ClientSession(core: core, link: link, transport: transport)
        session.start()
        return AudienceTests.Connection(
            session: session, link: link, client: try #require(session.id).rawValue, seesPositions: true)
    }

    /// Hands `connection` lines without waiting for their answers.
    static func give(_ lines: [String], to connection: AudienceTests.Connection, core: ServerCore) {
        core.beginTurn()
        for line in lines { connection.link.requests.append(.line(ByteBuffer(string: line))) }
        connection.session.pump()
    }

    static func replies(_ connection: AudienceTests.Connection) -> [String] {
        Array(connection.link.lines.dropFirst())  // the hello
    }

    /// The server thread (here: the test's) goes on serving while a connection's request is
    /// being decoded: nothing waits for the decoder but that connection, whose later requests
    /// are taken, in order, once its result is back.
    @Test func `a request is decoded on the decoder's thread while the server thread serves the others`() throws {
        let held = HeldDecoder()
        let core = Self.core(held.decoder())
        defer {
            held.letGo()
            core.decoder.shutDown()
        }
        let definer = try Self.connect(core)
        let other = try Self.connect(core)
        Self.give(
            [#"{"type":"define","id":"d","recognizers":[{"name":"t","kind":"tap"}]}"#, #"{"type":"ping","id":"after"}"#],
            to: definer, core: core)
        Self.give([#"{"type":"subscribe","id":"s"}"#, #"{"type":"unsubscribe","id":"u"}"#], to: other, core: core)
        #expect(Self.replies(other).count == 2, "answered while the define waits for the decoder")
        #expect(Self.replies(definer).isEmpty, "its ping waits behind its define")
        #expect(held.decoded.value == 0)

        held.letGo()
        try AudienceTests.runMailbox(core, until: Self.replies(definer).count == 2)
        #expect(Self.replies(definer).map { $0.contains(#""id":"d""#) } == [true, false])
        #expect(Self.replies(definer).last?.contains(#""type":"pong""#) == true)
        #expect(held.decoded.value == 1, "the ping needed no decoding")
    }

    /// A `define` a connection may not make is refused on its head: its body is never decoded,
    /// however large.
    @Test func `a define the connection may not make is refused without being decoded`() throws {
        let counted = HeldDecoder()
        counted.letGo()
        let core = Self.core(counted.decoder(onCallingThread: true))
        let page = try Self.connect(core, .webSocket(origin: "o", peer: "p", allowsDefine: false, allowsStatus: false))
        let big = Self.attackDefine(id: "big")
        Self.give([big, big, big], to: page, core: core)
        #expect(Self.replies(page).count == 3)
        #expect(Self.replies(page).allSatisfy { $0.contains(#""code":"unavailable""#) && $0.contains(#""id":"big""#) })
        #expect(counted.decoded.value == 0, "no line was decoded")
    }

    /// ~54 KB: 64 chained regions and 64 shapes, some with 1000-point templates (the issue's
    /// attack; over the template limit, so the engine would never see it).
    static func attackDefine(id: String) -> String {
        let regions = (0..<64).map { k in
            let parent = k == 0 ? "" : #","parent":"r\#(k - 1)""#
            return #"{"name":"r\#(k)"\#(parent),"rect":{"x":0.001,"y":0.001,"width":0.99,"height":0.99}}"#
        }
        let points = "[" + (0..<1000).map { "[\($0 % 2),\($0 / 2 % 2)]" }.joined(separator: ",") + "]"
        let shapes = (0..<64).map { k in
            let templates = k < 7 ? #","templates":[{"name":"t","points":\#(points)}]"# : ""
            return #"{"name":"s\#(k)","kind":"shape","region":"r\#(k)"\#(templates)}"#
        }
        return #"{"type":"define","id":"\#(id)","regions":[\#(regions.joined(separator: ","))],"#
            + #""recognizers":[\#(shapes.joined(separator: ","))]}"#
    }

    // MARK: Read back-pressure

    static func pongs(_ connection: AudienceTests.Connection) -> Int {
        replies(connection).count { $0.contains(#""type":"pong""#) }
    }

    @Test func `a connection with 16 replies waiting is not read, and takes its requests once they are written`()
        throws
    {
        let core = Self.core(RequestDecoder(onCallingThread: true), delegate: nil)
        let client = try Self.connect(core)
        client.link.writable = false
        Self.give(Array(repeating: #"{"type":"ping","id":1}"#, count: 10), to: client, core: core)
        #expect(client.link.requests.isEmpty && client.link.reading, "10 replies wait: still read")
        Self.give(Array(repeating: #"{"type":"ping","id":1}"#, count: 10), to: client, core: core)
        #expect(client.link.requests.count == 4, "taken up to 16 replies waiting")
        #expect(!client.link.reading)
        core.beginTurn()
        client.session.pump()
        #expect(client.link.requests.count == 4, "nor in the next turn")
        #expect(Self.replies(client).isEmpty)

        client.link.writable = true
        client.session.writable()
        #expect(Self.pongs(client) == 20)
        #expect(client.link.reading)
    }

    /// A client that reads, but is behind (what was published to it waits to be written), had
    /// its requests read only once all of it was written: under a looped replay's device
    /// messages its `ping` was not read for minutes (ReplayFuzzTests). Messages published to it
    /// do not stop its reading; only its own replies do.
    @Test func `a connection behind on what was published to it is still read, its pong behind what waits`() throws {
        let core = Self.core(RequestDecoder(onCallingThread: true), delegate: nil)
        let client = try Self.connect(core)
        client.link.writable = false
        for event in [DeviceMessage.Event.added, .removed, .added] {
            var batch: [Publication] = [.device(DeviceMessage(event: event, device: Sample.device))]
            core.publish(draining: &batch)
        }
        #expect(client.link.lines.count == 1, "only its hello was written")
        #expect(client.link.reading)
        Self.give([#"{"type":"ping","id":"p"}"#], to: client, core: core)
        #expect(client.link.requests.isEmpty, "the ping was taken")

        client.link.writable = true
        client.session.writable()
        #expect(Self.replies(client).count == 4)
        #expect(Self.replies(client).last?.contains(#""type":"pong""#) == true, "after the device messages")
    }

    @Test func `a connection with 16 pings waiting for the daemon is not read until one is answered`() throws {
        // The delegate answers at once, through the mailbox, whose jobs run only when the test says.
        let core = Self.core(RequestDecoder(onCallingThread: true))
        let client = try Self.connect(core)
        Self.give(Array(repeating: #"{"type":"ping","id":1}"#, count: 20), to: client, core: core)
        #expect(client.link.requests.count == 4, "16 taken, 4 left")
        #expect(!client.link.reading)

        core.beginTurn()
        try AudienceTests.runMailbox(core, until: Self.pongs(client) == 20)
        #expect(client.link.reading)
    }

    @Test func `a connection is not read while its define is being applied, and is again once it is answered`()
        throws
    {
        let delegate = TestDelegate(define: .hold)
        let core = Self.core(RequestDecoder(onCallingThread: true), delegate: delegate)
        let client = try Self.connect(core)
        Self.give([#"{"type":"define","id":"d","recognizers":[{"name":"t","kind":"tap"}]}"#], to: client, core: core)
        try AudienceTests.runMailbox(core, until: delegate.log.value.calls.contains { $0.hasPrefix("define") })
        #expect(!client.link.reading)

        delegate.answerHeld(.success(()))
        try AudienceTests.runMailbox(core, until: Self.replies(client).count == 1)
        #expect(Self.replies(client).first?.contains(#""type":"ok""#) == true)
        #expect(client.link.reading)
    }

    @Test func `a connection's requests are taken 16 a turn, the rest in the next turns`() throws {
        let core = Self.core(RequestDecoder(onCallingThread: true), delegate: nil)
        let client = try Self.connect(core)
        Self.give(Array(repeating: #"{"type":"unsubscribe"}"#, count: 40), to: client, core: core)
        #expect(Self.replies(client).count == 16)
        #expect(!client.link.reading, "not read while it has requests left")
        for taken in [32, 40] {
            core.beginTurn()
            try AudienceTests.runMailbox(core, until: Self.replies(client).count == taken)
        }
        #expect(client.link.reading)
    }

    // MARK: On the wire

    /// A WebSocket `define` without `allow-define` was decoded whole on the daemon's input
    /// thread (~5 MB/s) before it was refused: a page flooding 54 KB defines froze every touch
    /// for minutes. Now it is refused on its head, so a body the decoder would refuse (here:
    /// cut short, not JSON) gets `unavailable` — before, `invalid-json`.
    @Test func `a WebSocket define without allow-define is refused on its head, before its body is read`()
        async throws
    {
        try await WebSocketTests.with { f in
            let page = try await f.connectWebSocket()
            _ = try await page.next(ofType: "hello")
            let cut = String(Self.attackDefine(id: "w").dropLast(100))
            try await page.sendFrame(opcode: WebSocketClient.Opcode.text, Array(cut.utf8))
            guard case .error(let error) = try await page.next() else { throw Unexpected("no error") }
            #expect(error.code == .unavailable, "\(error)")
            #expect(error.id == .string("w"))
            try await page.roundTrip()
        }
    }

    /// Raw touches can be a PIN: a page, whose user the kernel does not name, may not record.
    @Test func `a WebSocket record is refused on its head`() async throws {
        try await WebSocketTests.with { f in
            let page = try await f.connectWebSocket()
            _ = try await page.next(ofType: "hello")
            try await page.sendFrame(opcode: WebSocketClient.Opcode.text, Array(#"{"type":"record","id":"r"}"#.utf8))
            guard case .error(let error) = try await page.next() else { throw Unexpected("no error") }
            #expect(error.code == .unavailable, "\(error)")
            #expect(error.id == .string("r"))
            try await page.roundTrip()
        }
    }

    /// A server without a daemon behind it has no panel: `record` is unavailable, and
    /// `stop-recording`, a type the daemon declares (``RequestType``), is not one it serves.
    @Test func `a server without an engine records nothing`() async throws {
        try await ServerFixture.with(delegate: nil) { f in
            let client = try await f.connect()
            _ = try await client.next(ofType: "hello")
            try await client.sendRaw(Array(#"{"type":"record","id":1,"device":"event5"}"#.utf8) + [10])
            guard case .error(let error) = try await client.next() else { throw Unexpected("no error") }
            #expect(error.code == .unavailable && error.id == .number(1), "\(error)")
            try await client.sendRaw(Array(#"{"type":"stop-recording","id":2}"#.utf8) + [10])
            guard case .error(let unknown) = try await client.next() else { throw Unexpected("no error") }
            #expect(unknown.code == .unknownType && unknown.id == .number(2), "\(unknown)")
        }
    }

    /// A `define` read while the connection's previous one was pending was decoded whole before
    /// it got `busy` (most of the defines of 60 connections churning them). Now `busy` is
    /// decided on the head: a body the decoder would refuse still gets `busy` — before,
    /// `invalid-json`.
    @Test func `a define read while one is pending is refused busy on its head, before its body is read`()
        async throws
    {
        let delegate = TestDelegate(define: .hold)
        try await ServerFixture.with(delegate: delegate) { f in
            let client = try await f.connect()
            _ = try await client.next(ofType: "hello")
            let first = #"{"type":"define","id":"d1","recognizers":[{"name":"t","kind":"tap"}]}"#
            f.log.sent(first)
            // Read together with the first (one read takes both): cut short, not JSON.
            let cut = #"{"type":"define","id":"d2","recognizers":[{"name":"t","kind":"#
            try await client.sendRaw(Array((first + "\n" + cut + "\n").utf8))
            guard case .error(let busy) = try await client.next() else { throw Unexpected("no error") }
            #expect(busy.code == .busy, "\(busy)")
            #expect(busy.id == .string("d2"))
            delegate.answerHeld(.success(()))
            guard case .ok(.string("d1")?) = try await client.next() else { throw Unexpected("no ok for d1") }
        }
    }

    /// Without an engine a `define` was decoded first, so a bad one got the decoder's error;
    /// now every `define` gets `unavailable` on its head.
    @Test func `a server without an engine refuses any define on its head`() async throws {
        try await ServerFixture.with(delegate: nil) { f in
            let client = try await f.connect()
            _ = try await client.next(ofType: "hello")
            try await client.sendRaw(Array(#"{"type":"define","id":"x","recognizers":[{"name":"n","kind":"wave"}]}"#.utf8) + [10])
            guard case .error(let error) = try await client.next() else { throw Unexpected("no error") }
            #expect(error.code == .unavailable, "\(error)")
            #expect(error.id == .string("x"))
        }
    }
}

/// Random request lines for the head's property test: objects of `type`, `id` and other keys in
/// any order, values of every kind (strings with and without escapes, integers and other
/// numbers, nested values that hold `type` and `id` keys of their own), whitespace, and now and
/// then a byte changed, dropped or added anywhere.
enum RandomRequestLine {
    static let types = [
        "ping", "unsubscribe", "subscribe", "define", "record", "stop-recording", "dance", "p\\u0069ng", "",
    ]
    static let ids = [
        "1", "0", "-0", "-17", "01", "1.5", "1e3", "9223372036854775807", "-9223372036854775808",
        "9223372036854775808", "\"x\"", "\"\"", "\"é\"", "\"a\\\"b\"", "\"\\u0041\"", "null", "true", "[1]", "{}",
    ]
    static let others = [
        #""kinds":["tap"]"#, #""touches":true"#, #""gestures":[]"#, #""recognizers":[]"#,
        #""regions":[{"name":"a","type":"ping","id":9}]"#, #""colour":"red""#, #""x":{"type":"define"}"#,
        #""t\u0079pe":"ping""#, #""\u0069d":5"#, #""recognizers":[{"name":"t","kind":"tap"}]"#,
        #""device":"event5""#, #""duration_ms":1000"#, #""duration_ms":0"#,
    ]

    static func make(_ rng: inout SplitMix64) -> [UInt8] {
        func pick(_ list: [String]) -> String { list[Int.random(in: 0..<list.count, using: &rng)] }
        func space() -> String { Int.random(in: 0..<4, using: &rng) == 0 ? pick([" ", "\n", "\t", "  "]) : "" }
        var members: [String] = []
        if Int.random(in: 0..<8, using: &rng) != 0 { members.append(#""type":"# + space() + "\"\(pick(types))\"") }
        if Int.random(in: 0..<3, using: &rng) != 0 { members.append(#""id":"# + space() + pick(ids)) }
        for _ in 0..<Int.random(in: 0..<3, using: &rng) { members.append(pick(others)) }
        if Int.random(in: 0..<10, using: &rng) == 0, let first = members.first { members.append(first) }
        members.shuffle(using: &rng)
        let line = space() + "{" + members.map { space() + $0 + space() }.joined(separator: ",") + "}" + space()
        var bytes = Array(line.utf8)
        if Int.random(in: 0..<4, using: &rng) == 0 {
            let at = Int.random(in: 0..<bytes.count, using: &rng)
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: bytes.remove(at: at)
            case 1: bytes.insert(Array(#"{}[]":,\ 0a-"#.utf8).randomElement(using: &rng)!, at: at)
            default: bytes[at] = UInt8.random(in: 0...255, using: &rng)
            }
        }
        return bytes
    }
}
