import Foundation
import GestureEngine
import GestureProtocol
import GestureServer
import Testing

extension SocketTests {
    /// Client-defined gestures: the server's side of `define` (owner routing, busy, errors,
    /// removal on close), with a test delegate standing in for the engine.
    @Suite struct Define {
        static let definition = #"""
            {"type":"define","id":"d1","regions":[{"name":"pad","rect":{"x":0.5,"y":0.5,"width":0.5,"height":0.5}}],\#
            "recognizers":[{"name":"pad-tap","kind":"tap","region":"pad","fingers":1,"taps":2}]}
            """#

        /// Must show 1: a client-defined recognizer fires for that client only and disappears
        /// when it disconnects.
        @Test func `a client-defined recognizer fires for its client only and goes when it disconnects`() async throws {
            let delegate = TestDelegate(define: .accept)
            try await ServerFixture.with(delegate: delegate) { f in
                let owner = try await f.subscriber()
                let other = try await f.subscriber()
                let ownerID = ClientID(try owner.hello().client)

                try await owner.send(Self.definition)
                guard case .ok(.string("d1")?) = try await owner.next() else { throw Unexpected("no ok for define") }
                #expect(delegate.log.value.definitions[ownerID] == ["pad-tap"])

                // What the engine would emit: the client's recognizer, then a configuration one.
                f.server.publish([
                    .gesture(Sample.gesture(1, name: "pad-tap", region: "pad"), owner: ownerID.owner),
                    .gesture(Sample.gesture(2, name: "tap"), owner: .configuration),
                ])
                guard case .gesture(let first) = try await owner.next() else { throw Unexpected("no gesture") }
                #expect(first.seq == 1 && first.name == "pad-tap")
                guard case .gesture(let second) = try await owner.next() else { throw Unexpected("no gesture") }
                #expect(second.seq == 2)
                guard case .gesture(let seen) = try await other.next() else { throw Unexpected("no gesture") }
                #expect(seen.seq == 2, "another client never sees a client-owned gesture")

                await owner.close()
                try await delegate.log.wait(for: "the owner's disconnect") { $0.disconnected.contains(ownerID) }
                let calls = delegate.log.value.calls
                let defined = try #require(calls.firstIndex(of: "define \(ownerID)"))
                let gone = try #require(calls.firstIndex(of: "disconnected \(ownerID)"))
                #expect(defined < gone, "the delegate hears of the define before the disconnect")
                #expect(delegate.log.value.definitions[ownerID] == nil, "its definitions are removed")

                // A late report for the departed owner reaches nobody.
                f.server.publish([
                    .gesture(Sample.gesture(3, name: "pad-tap", region: "pad"), owner: ownerID.owner),
                    .gesture(Sample.gesture(4, name: "tap"), owner: .configuration),
                ])
                guard case .gesture(let after) = try await other.next() else { throw Unexpected("no gesture") }
                #expect(after.seq == 4)
            }
        }

        @Test func `a define the engine refuses gets invalid-definition with the engine's path`() async throws {
            let refusal = SpecError(
                path: [.key("recognizers"), .index(0), .key("requires-failure-of")],
                message: "unknown recognizer 'ghost'")
            try await ServerFixture.with(delegate: TestDelegate(define: .reject(refusal))) { f in
                let client = try await f.connect()
                _ = try await client.next(ofType: "hello")
                try await client.send(Self.definition)
                guard case .error(let error) = try await client.next() else { throw Unexpected("no error") }
                #expect(error.code == .invalidDefinition)
                #expect(error.id == .string("d1"))
                #expect(error.path == "/recognizers/0/requires-failure-of")
                #expect(error.message == "recognizers[0].requires-failure-of: unknown recognizer 'ghost'")
            }
        }

        /// A `define` read with one still being applied gets `busy`; the server reads nothing
        /// more of the connection until that one is answered (below).
        @Test func `a second define read while the first is pending is busy, and late replies are harmless`()
            async throws
        {
            let delegate = TestDelegate(define: .hold)
            try await ServerFixture.with(delegate: delegate) { f in
                let client = try await f.connect()
                _ = try await client.next(ofType: "hello")
                let second = Self.definition.replacing(#""id":"d1""#, with: #""id":"d2""#)
                f.log.sent(Self.definition)
                f.log.sent(second)
                try await client.sendRaw(Array((Self.definition + "\n" + second + "\n").utf8))
                guard case .error(let busy) = try await client.next() else { throw Unexpected("no busy error") }
                #expect(busy.code == .busy)
                #expect(busy.id == .string("d2"))
                delegate.answerHeld(.success(()))
                guard case .ok(.string("d1")?) = try await client.next() else { throw Unexpected("no ok for d1") }

                // A reply that arrives after the connection closed is dropped, not crashed on.
                try await client.send(Self.definition)
                try await delegate.log.wait(for: "the second define") {
                    $0.calls.filter { $0.hasPrefix("define") }.count == 2
                }
                await client.close()
                try await delegate.log.wait(for: "the disconnect") { $0.disconnected.count == 1 }
                delegate.answerHeld(.success(()))
                let survivor = try await f.connect()
                _ = try await survivor.next(ofType: "hello")
                try await survivor.roundTrip()
            }
        }

        /// The server read a connection whatever it had pending, so a client could make it read
        /// (and answer `busy` to) defines as fast as it wrote them. Now a connection whose
        /// `define` is being applied is not read until it is answered: a `ping` written after it
        /// is read, and answered, only then.
        @Test func `a connection is not read while its define is being applied`() async throws {
            let delegate = TestDelegate(define: .hold)
            try await ServerFixture.with(delegate: delegate) { f in
                let client = try await f.connect()
                _ = try await client.next(ofType: "hello")
                try await client.send(Self.definition)
                try await delegate.log.wait(for: "the define") { $0.calls.contains { $0.hasPrefix("define") } }
                try await client.send(#"{"type":"ping","id":"p"}"#)
                // The ping waits unread in the socket (this delegate would answer it at once).
                delegate.answerHeld(.success(()))
                guard case .ok(.string("d1")?) = try await client.next() else { throw Unexpected("no ok for d1 first") }
                guard case .pong(.string("p")?) = try await client.next() else { throw Unexpected("no pong") }
            }
        }

        /// Found by the soak test on a loaded machine: a client's `define` that would shrink what
        /// it holds counted as done while pending; when the engine then refused it, the client
        /// kept what it had and all clients together were past the limit — after which even an
        /// undefine got `too-many-recognizers`.
        @Test func `a pending define counts as the larger of what it asks and what its client holds`() async throws {
            let delegate = TestDelegate(define: .accept)
            try await ServerFixture.with(limits: ServerLimits(maxClientDefinitions: 2), delegate: delegate) { f in
                let holder = try await f.connect()
                _ = try await holder.next(ofType: "hello")
                let other = try await f.connect()
                _ = try await other.next(ofType: "hello")
                func taps(_ id: String, _ names: [String]) -> String {
                    let recognizers = names.map { #"{"name":"\#($0)","kind":"tap"}"# }.joined(separator: ",")
                    return #"{"type":"define","id":"\#(id)","recognizers":[\#(recognizers)]}"#
                }
                try await holder.send(taps("two", ["a", "b"]))
                guard case .ok(.string("two")?) = try await holder.next() else { throw Unexpected("no ok for two") }

                // The holder asks to keep one; the engine has not answered yet.
                delegate.behave(.hold)
                try await holder.send(taps("one", ["a"]))
                try await delegate.log.wait(for: "the shrinking define") {
                    $0.calls.filter { $0.hasPrefix("define") }.count == 2
                }
                delegate.behave(.accept)
                try await other.send(taps("more", ["c"]))
                guard case .error(let refused) = try await other.next() else { throw Unexpected("no refusal") }
                #expect(refused.code == .tooManyRecognizers)
                #expect(refused.message.hasSuffix("at most 2 recognizers; with these there would be 3"), "\(refused.message)")

                // The engine refuses the shrink: the holder keeps its two, and may still undefine.
                delegate.answerHeld(.failure(SpecError(path: [], message: "refused")))
                guard case .error(let kept) = try await holder.next() else { throw Unexpected("no refusal of one") }
                #expect(kept.code == .invalidDefinition)
                try await holder.send(#"{"type":"define","id":"none"}"#)
                guard case .ok(.string("none")?) = try await holder.next() else { throw Unexpected("no ok for none") }
                try await other.send(taps("more", ["c"]))
                guard case .ok(.string("more")?) = try await other.next() else { throw Unexpected("no ok for more") }
            }
        }

        /// The shape kind counts its templates (named or built in) through the registry
        /// (`RecognizerParameters.templateCount`); other kinds count none.
        @Test func `all clients together may define at most max_client_templates shape templates`() async throws {
            let delegate = TestDelegate(define: .accept)
            try await ServerFixture.with(limits: ServerLimits(maxClientTemplates: 3), delegate: delegate) { f in
                let first = try await f.connect()
                _ = try await first.next(ofType: "hello")
                let second = try await f.connect()
                _ = try await second.next(ofType: "hello")
                let points = "[[0,0],[1,0],[1,1]]"
                try await first.send(
                    #"{"type":"define","id":"two","recognizers":[{"name":"s","kind":"shape","templates":"#
                        + #"[{"name":"v","points":\#(points)},"circle"]},{"name":"p","kind":"pan"}]}"#)
                guard case .ok(.string("two")?) = try await first.next() else { throw Unexpected("no ok for two") }

                try await second.send(
                    #"{"type":"define","id":"more","recognizers":[{"name":"s","kind":"shape","templates":"#
                        + #"[{"name":"a","points":\#(points)},{"name":"b","points":\#(points)}]}]}"#)
                guard case .error(let refused) = try await second.next() else { throw Unexpected("no refusal") }
                #expect(refused.code == .tooManyRecognizers)
                #expect(
                    refused.message.hasSuffix("at most 3 shape templates; with these there would be 4"),
                    "\(refused.message)")

                // A shape without `templates` has the built-in circle: one more, and the limit is met.
                try await second.send(
                    #"{"type":"define","id":"one","recognizers":"#
                        + #"[{"name":"c","kind":"shape"},{"name":"t","kind":"tap"}]}"#)
                guard case .ok(.string("one")?) = try await second.next() else { throw Unexpected("no ok for one") }
            }
        }

        @Test func `a server without a delegate answers define with unavailable`() async throws {
            try await ServerFixture.with(delegate: nil) { f in
                let client = try await f.connect()
                _ = try await client.next(ofType: "hello")
                try await client.send(Self.definition)
                guard case .error(let error) = try await client.next() else { throw Unexpected("no error") }
                #expect(error.code == .unavailable)
                #expect(error.id == .string("d1"))
            }
        }
    }
}
