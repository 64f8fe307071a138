import Foundation
import GestureProtocol
import GestureServer
import Logging
import TestSupport
import Testing

/// One kind of bad input and the error the protocol documents for it (docs/PROTOCOL.md, "Errors").
struct BadInput: Sendable, CustomTestStringConvertible {
    var name: String
    var bytes: [UInt8]
    var code: ErrorCode
    var id: RequestID? = nil
    var path: String? = nil
    /// A part of the message that says what is wrong in people's words.
    var says: String? = nil
    /// Whether docs/protocol.schema.json must refuse it too: JSON that is not a valid request
    /// (not: lines that are not JSON at all, and rules JSON Schema cannot express).
    var schemaRejects: Bool

    var testDescription: String { name }

    init(
        _ name: String, _ line: String, _ code: ErrorCode, id: RequestID? = nil, path: String? = nil,
        says: String? = nil, schemaRejects: Bool? = nil
    ) {
        self.name = name
        self.bytes = Array(line.utf8)
        self.code = code
        self.id = id
        self.path = path
        self.says = says
        self.schemaRejects = schemaRejects ?? (code != .invalidJSON)
    }

    init(_ name: String, bytes: [UInt8], _ code: ErrorCode, says: String? = nil) {
        self.name = name
        self.bytes = bytes
        self.code = code
        self.says = says
        self.schemaRejects = false
    }

    var isJSON: Bool {
        (try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) != nil
    }

    static let manyNames = (0...Subscription.maxFilterEntries).map { "\"g\($0)\"" }.joined(separator: ",")
    static let manyRecognizers = (0...64).map { #"{"name":"r\#($0)","kind":"tap"}"# }.joined(separator: ",")

    static let all: [BadInput] = [
        BadInput("plain text", "hello there", .invalidJSON),
        BadInput("truncated object", #"{"type":"ping""#, .invalidJSON),
        BadInput("trailing garbage", #"{"type":"ping"} x"#, .invalidJSON),
        BadInput("nesting deeper than the parser allows", String(repeating: "[", count: 5000), .invalidJSON),
        BadInput("single quotes", "{'type':'ping'}", .invalidJSON),
        BadInput("an array", "[1,2]", .invalidMessage),
        BadInput("a string", #""ping""#, .invalidMessage),
        BadInput("a number", "42", .invalidMessage),
        BadInput("null", "null", .invalidMessage),
        BadInput("an object without type", "{}", .invalidMessage),
        BadInput("type not a string", #"{"type":7}"#, .invalidMessage, path: "/type"),
        BadInput("unknown type", #"{"type":"dance","id":5}"#, .unknownType, id: .number(5), path: "/type"),
        BadInput("a server message sent by a client", #"{"type":"hello"}"#, .unknownType, path: "/type"),
        BadInput(
            "unknown key", #"{"type":"ping","colour":"red","id":"x"}"#, .invalidMessage, id: .string("x"),
            path: "/colour"),
        BadInput("id of the wrong type", #"{"type":"ping","id":[1]}"#, .invalidMessage, path: "/id"),
        BadInput("fractional id", #"{"type":"ping","id":1.5}"#, .invalidMessage, path: "/id"),
        BadInput("id out of range", #"{"type":"ping","id":1e400}"#, .invalidMessage, path: "/id", schemaRejects: false),
        BadInput(
            "unknown kind in a filter", #"{"type":"subscribe","id":2,"kinds":["wave"]}"#, .invalidFilter,
            id: .number(2), path: "/kinds/0"),
        BadInput(
            "unknown state in a filter", #"{"type":"subscribe","states":["done"]}"#, .invalidFilter, path: "/states/0"),
        BadInput("filter not a list", #"{"type":"subscribe","gestures":"tap"}"#, .invalidFilter, path: "/gestures"),
        BadInput("touches not a boolean", #"{"type":"subscribe","touches":"yes"}"#, .invalidFilter, path: "/touches"),
        BadInput(
            "invalid region name", #"{"type":"subscribe","regions":["has space"]}"#, .invalidFilter, path: "/regions/0"),
        BadInput(
            "too many filter entries", #"{"type":"subscribe","gestures":[\#(manyNames)]}"#, .invalidFilter,
            path: "/gestures"),
        BadInput(
            "a record of an empty device", #"{"type":"record","id":3,"device":""}"#, .invalidMessage, id: .number(3),
            path: "/device", says: "'device' must be a device label or node"),
        BadInput(
            "a record of no time", #"{"type":"record","duration_ms":0}"#, .invalidMessage, path: "/duration_ms",
            says: "'duration_ms' must be a whole number of milliseconds from 1 to 86400000"),
        BadInput(
            "a record longer than a day", #"{"type":"record","duration_ms":86400001}"#, .invalidMessage,
            path: "/duration_ms"),
        BadInput("a record of a fraction of a millisecond", #"{"type":"record","duration_ms":1.5}"#, .invalidMessage, path: "/duration_ms"),
        BadInput(
            "unknown recognizer kind", #"{"type":"define","id":"d","recognizers":[{"name":"x","kind":"wave"}]}"#,
            .invalidDefinition, id: .string("d"), path: "/recognizers/0/kind",
            says: "recognizers[0].kind: unknown kind 'wave' (expected one of: tap, long-press, pan,"),
        BadInput(
            "unknown swipe direction",
            #"{"type":"define","recognizers":[{"name":"x","kind":"swipe","directions":["up","sideways"]}]}"#,
            .invalidDefinition, path: "/recognizers/0/directions/1", says: "unknown direction 'sideways'"),
        BadInput(
            "a parameter of the wrong type",
            #"{"type":"define","recognizers":[{"name":"x","kind":"tap","taps":"two"}]}"#, .invalidDefinition,
            path: "/recognizers/0/taps", says: "recognizers[0].taps: expected an integer"),
        BadInput(
            "a null name", #"{"type":"define","recognizers":[{"name":null,"kind":"tap"}]}"#, .invalidDefinition,
            path: "/recognizers/0/name", says: "recognizers[0].name: expected a string, found null"),
        // JSON is read strictly (RFC 8259), and every error says what is
        // wrong without Swift's own words.
        BadInput(
            "a duplicate key (the first used to win)", #"{"type":"ping","type":"dance"}"#, .invalidMessage,
            path: "/type", says: "duplicate key 'type'", schemaRejects: false),
        BadInput(
            "a duplicate key deep in a define",
            #"{"type":"define","recognizers":[{"name":"x","kind":"tap","name":"y"}]}"#, .invalidMessage,
            path: "/recognizers/0/name", says: "duplicate key 'name'", schemaRejects: false),
        BadInput(
            "a duplicate key spelled with an escape", #"{"type":"ping","id":1,"\u0069d":2}"#, .invalidMessage,
            path: "/id", schemaRejects: false),
        BadInput(
            "an unknown key that needs escaping in a JSON pointer", #"{"type":"ping","a/b~c":1}"#, .invalidMessage,
            path: "/a~1b~0c"),
        BadInput(
            "a number beyond a 64-bit float in a define",
            #"{"type":"define","recognizers":[{"name":"x","kind":"tap","slop-mm":1e309}]}"#, .invalidMessage,
            path: "/recognizers/0/slop-mm", says: "out of range", schemaRejects: false),
        BadInput(
            "a raw control character in a string", bytes: Array(#"{"type":"pi"#.utf8) + [1] + Array(#"ng"}"#.utf8),
            .invalidJSON, says: "raw control character (U+0001)"),
        BadInput(
            "a raw tab in a key", bytes: Array(#"{"type":"ping","i"#.utf8) + [9] + Array(#"d":1}"#.utf8),
            .invalidJSON, says: "raw control character (U+0009)"),
        BadInput("a lone high surrogate", #"{"type":"ping","id":"\ud800"}"#, .invalidJSON, says: "lone surrogate"),
        BadInput("a lone low surrogate", #"{"type":"ping","id":"a\udc00"}"#, .invalidJSON, says: "lone surrogate"),
        BadInput(
            "a high surrogate followed by no low one", #"{"type":"ping","id":"\ud800\u0041"}"#, .invalidJSON,
            says: "lone surrogate"),
        BadInput("an invalid escape", #"{"type":"ping","id":"\x"}"#, .invalidJSON, says: "invalid escape"),
        BadInput("a number with a leading zero", #"{"type":"ping","id":01}"#, .invalidJSON),
        BadInput(
            "unknown key in a recognizer", #"{"type":"define","recognizers":[{"name":"x","kind":"tap","colour":1}]}"#,
            .invalidDefinition, path: "/recognizers/0/colour"),
        BadInput(
            "parameter out of range", #"{"type":"define","recognizers":[{"name":"x","kind":"tap","taps":9}]}"#,
            .invalidDefinition, path: "/recognizers/0/taps"),
        // A number of the wrong kind is located and worded as the configuration file words it.
        BadInput(
            "a fractional tap count", #"{"type":"define","recognizers":[{"name":"x","kind":"tap","taps":1.5}]}"#,
            .invalidDefinition, path: "/recognizers/0/taps",
            says: "recognizers[0].taps: expected an integer, found '1.5'"),
        BadInput(
            "a fractional settle-ms",
            #"{"type":"define","recognizers":[{"name":"x","kind":"swipe","settle-ms":1.5}]}"#, .invalidDefinition,
            path: "/recognizers/0/settle-ms", says: "recognizers[0].settle-ms: expected an integer, found '1.5'"),
        BadInput(
            "a fractional region z",
            #"{"type":"define","regions":[{"name":"r","rect":{"x":0,"y":0,"width":1,"height":1},"z":1.5}]}"#,
            .invalidDefinition, path: "/regions/0/z", says: "regions[0].z: expected an integer, found '1.5'"),
        BadInput(
            "a tap count beyond 64 bits",
            #"{"type":"define","recognizers":[{"name":"x","kind":"tap","taps":9223372036854775808}]}"#,
            .invalidDefinition, path: "/recognizers/0/taps",
            says: "recognizers[0].taps: expected an integer, found '9223372036854775808'", schemaRejects: false),
        BadInput(
            "missing recognizer name", #"{"type":"define","recognizers":[{"kind":"tap"}]}"#, .invalidDefinition,
            path: "/recognizers/0/name"),
        BadInput(
            "region past the surface", #"{"type":"define","regions":[{"name":"r","rect":{"x":0.8,"width":0.5}}]}"#,
            .invalidDefinition, path: "/regions/0/rect", schemaRejects: false),
        BadInput(
            "recognizers not a list", #"{"type":"define","recognizers":{"name":"x"}}"#, .invalidDefinition,
            path: "/recognizers"),
        BadInput(
            "more recognizers than a connection may define", #"{"type":"define","recognizers":[\#(manyRecognizers)]}"#,
            .invalidDefinition, path: "/recognizers", schemaRejects: false),
        BadInput(
            "bytes that are not UTF-8",
            bytes: Array(#"{"type":"ping","id":""#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8), .invalidUTF8),
        BadInput("a lone continuation byte", bytes: [0x80], .invalidUTF8),
        BadInput(
            "a line longer than the limit", bytes: Array(repeating: UInt8(ascii: "a"), count: 70_000), .lineTooLong),
    ]
}

extension SocketTests {
    /// Must show 1: each kind of bad input gets its documented error, and the connection stays
    /// usable afterwards.
    @Suite struct BadInputs {
        @Test(arguments: BadInput.all)
        func `bad input gets the documented error and the connection stays usable`(_ input: BadInput) async throws {
            try await ServerFixture.with { f in
                let client = try await f.connect()
                _ = try await client.next(ofType: "hello")
                if input.schemaRejects {
                    #expect(input.isJSON, "a schema case must be JSON")
                    f.log.mustBeInvalid(String(decoding: input.bytes, as: UTF8.self))
                }
                try await client.sendRaw(input.bytes + [UInt8(ascii: "\n")])
                guard case .error(let error) = try await client.next() else {
                    throw Unexpected("no error for \(input.name)")
                }
                #expect(error.code == input.code, "\(error)")
                #expect(error.id == input.id)
                #expect(error.path == input.path, "\(error)")
                #expect(!error.message.isEmpty)
                if let says = input.says { #expect(error.message.contains(says), "\(error)") }
                for leak in ["Cannot initialize", "Swift", "DecodingError", "Expected to decode", "parsed:"] {
                    #expect(!error.message.contains(leak), "Swift's own words in \(error)")
                }
                try await client.roundTrip()
            }
        }

        @Test func `empty lines are framing, not requests`() async throws {
            try await ServerFixture.with { f in
                let client = try await f.connect()
                _ = try await client.next(ofType: "hello")
                try await client.sendRaw(Array("\n\r\n\n".utf8))
                try await client.send(#"{"type":"ping","id":1}"#)
                guard case .pong(.number(1)?) = try await client.next() else { throw Unexpected("no pong first") }
            }
        }

        @Test func `a line trickling in without a newline is cut off at the limit and framing resumes`() async throws {
            try await ServerFixture.with(limits: ServerLimits(maxLineBytes: 1024)) { f in
                let client = try await f.connect()
                _ = try await client.next(ofType: "hello")
                for _ in 0..<200 { try await client.sendRaw(Array(repeating: UInt8(ascii: "x"), count: 100)) }
                guard case .error(let error) = try await client.next() else { throw Unexpected("no error") }
                #expect(error.code == .lineTooLong)
                try await client.sendRaw(Array("tail of the long line\n".utf8))
                try await client.roundTrip()
            }
        }

        /// The server read such a client as fast as it wrote, answered every line into its queue
        /// and cut it off with `overflow` (and, on a loaded machine, reset the connection before
        /// the client could read why). Now it stops reading a connection whose replies wait to
        /// be written: the client's writes stop when the kernel's buffers are full, and once it
        /// reads, every line it sent gets its error, in order, on a connection still open.
        @Test func `a flood of bad requests from a client that never reads is not read, and costs the others nothing`()
            async throws
        {
            try await ServerFixture.with(limits: ServerLimits(maxQueuedMessages: 32)) { f in
                let flooder = try FloodingClient.unix(f.path)
                let bystander = try await f.subscriber()
                let junk = String(repeating: "!", count: 20)
                let flood = try flooder.flood(flooder.encode(junk), most: 10_000_000)
                f.server.publish([.gesture(Sample.gesture(1), owner: .configuration)])
                guard case .gesture(let g) = try await bystander.next() else { throw Unexpected("no gesture") }
                #expect(g.seq == 1)
                try await bystander.roundTrip()

                flooder.startReading()
                try flooder.write(flood.rest + flooder.encode(#"{"type":"ping","id":"end"}"#))
                try await flooder.received.wait(for: "the pong behind the flood", within: .seconds(600)) {
                    $0.messages.last?.contains(#""id":"end""#) == true || $0.end != nil
                }
                let messages = flooder.received.value.messages
                let errors = messages.filter { $0.contains(#""code":"invalid-json""#) }
                #expect(errors.count == flood.sent + (flood.rest.isEmpty ? 0 : 1), "one error a line, none lost")
                #expect(messages.count == errors.count + 2, "hello, the errors and the pong: nothing else")
                #expect(flooder.received.value.end == nil, "still connected")
            }
        }

        /// The server closed a connection (here: cut off with `overflow`) as soon as its last
        /// line was written, with the client's requests still unread; the kernel then reset the
        /// connection, which may destroy what the client had not read yet — the `overflow` error
        /// (seen as a flaky test). Now the server shuts down its sending side after the error and
        /// reads what the client still sends until the client closes: the client reads the
        /// error, then the end of input, never a reset.
        @Test func `a client cut off with unread requests gets its error and the end of input, not a reset`()
            async throws
        {
            let records = Observed<[LogCapture.Record]>([])
            var logger = LogCapture.logger(into: records)
            logger.logLevel = .warning
            // The flooder reads only after the bystander's gestures: a long close timeout for a
            // loaded machine.
            try await ServerFixture.with(
                limits: ServerLimits(maxQueuedMessages: 32), closeTimeout: .seconds(120), logger: logger
            ) { f in
                let flooder = try FloodingClient.unix(f.path)
                try flooder.write(flooder.encode(#"{"type":"subscribe","id":"s"}"#))
                _ = try flooder.flood(flooder.encode("!!!!"), most: 10_000_000)
                let bystander = try await f.subscriber()
                // Gestures until it is cut off with `overflow`, its requests unread: it wrote
                // more than the server read.
                func overflowed() -> Bool { records.value.contains { $0.message == "client reads too slowly, disconnecting" } }
                var seq: UInt64 = 0
                for _ in 0..<1000 where !overflowed() {
                    f.server.publish((0..<100).map { _ in
                        seq += 1
                        return .gesture(Sample.gesture(seq), owner: .configuration)
                    })
                    try await bystander.roundTrip()
                }
                #expect(overflowed())

                flooder.startReading()
                try await flooder.received.wait(for: "the end of the connection", within: .seconds(60)) { $0.end != nil }
                #expect(flooder.received.value.messages.last?.contains(#""code":"overflow""#) == true)
                #expect(flooder.received.value.end == 0, "the end of input, not errno \(flooder.received.value.end ?? 0)")
            }
        }
    }
}
