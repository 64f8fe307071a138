import GestureEngine
import GestureProtocol
import GestureServer
import Testing

/// The publisher decides who takes each publication, on the interest the server posted last,
/// and drops what nobody takes before it hops to the server (a frame nobody subscribed to must
/// not wake the event loop). The server posts its ``Interest`` when a subscription changes,
/// before it answers `ok`, so from a client's `ok` on it is in force.
@Suite struct InterestTests {
    /// The interest as the publishing thread sees it now.
    static func current(_ server: GestureServer) throws -> Interest {
        try #require(server.interest(newerThan: .max))
    }

    static func gesture(_ name: String, owner: Owner = .configuration) -> Publication {
        .gesture(Sample.gesture(1, name: name), owner: owner)
    }

    @Test func `nothing is taken before a subscription, and devices always are`() async throws {
        try await ServerFixture.with { f in
            let client = try await f.connect()
            _ = try await client.next(ofType: "hello")
            #expect(f.server.interest(newerThan: 0) == nil, "no subscription yet: nothing posted")
            let interest = Interest()
            #expect(interest.decided(Self.gesture("tap")) == nil)
            #expect(interest.decided(.touch(Sample.touch(1))) == nil)
            #expect(interest.decided(.device(DeviceMessage(event: .added, device: Sample.device))) != nil)
            #expect(interest.kindsTaken == [], "the engine makes no gesture event for nobody")
        }
    }

    @Test func `the interest follows subscribe, unsubscribe and disconnect, with the fan-out's own rules`()
        async throws
    {
        try await ServerFixture.with { f in
            let pans = try await f.connect()
            guard case .hello(let hello) = try await pans.next(ofType: "hello") else { throw Unexpected("no hello") }
            try await pans.send(#"{"type":"subscribe","id":1,"gestures":["pan"]}"#)
            _ = try await pans.next(ofType: "ok")
            var interest = try Self.current(f.server)
            #expect(interest.decided(Self.gesture("pan")) != nil)
            #expect(interest.decided(Self.gesture("tap")) == nil)
            #expect(interest.kindsTaken == nil, "a filter by name: its recognizer may be of any kind")
            #expect(!interest.takesTouches && interest.decided(.touch(Sample.touch(1))) == nil)
            // A client's own recognizer goes to that client only.
            #expect(interest.decided(Self.gesture("pan", owner: .client(hello.client))) != nil)
            #expect(interest.decided(Self.gesture("pan", owner: .client(hello.client + 100))) == nil)

            let touches = try await f.subscriber(#""touches":true,"regions":["root"]"#)
            interest = try Self.current(f.server)
            #expect(interest.takesTouches)
            #expect(interest.decided(.touch(Sample.touch(1, region: "root"))) != nil)
            #expect(interest.decided(.touch(Sample.touch(1, region: "keypad"))) == nil)
            #expect(interest.decided(Self.gesture("tap")) != nil, "the touch subscriber takes every gesture of root")
            #expect(interest.kindsTaken == nil, "a subscriber without a kind filter: every kind")

            try await pans.send(#"{"type":"unsubscribe","id":2}"#)
            _ = try await pans.next(ofType: "ok")
            #expect(try Self.current(f.server).decided(Self.gesture("pan", owner: .client(hello.client))) == nil)

            await touches.close()
            try await f.delegate!.log.wait(for: "the disconnect") { $0.disconnected.count == 1 }
            interest = try Self.current(f.server)
            #expect(!interest.takesTouches && !interest.takesGestures)
            #expect(interest.kindsTaken == [])
        }
    }

    @Test func `the engine is asked for the gestures of the kinds subscribed to, every kind once a subscriber has no kind filter`()
        async throws
    {
        try await ServerFixture.with { f in
            _ = try await f.subscriber(#""kinds":["swipe","tap"]"#)
            #expect(try Self.current(f.server).kindsTaken == [.swipe, .tap])
            _ = try await f.subscriber(#""kinds":["pan"]"#)
            #expect(try Self.current(f.server).kindsTaken == [.swipe, .tap, .pan])
            _ = try await f.subscriber(#""touches":true"#)
            #expect(try Self.current(f.server).kindsTaken == nil)
        }
    }
}
