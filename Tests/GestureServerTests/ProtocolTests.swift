import Foundation
import GestureProtocol
import TestSupport
import Testing

@testable import GestureEngine
@testable import GestureServer

/// The wire format without any socket: spellings, conversions, strict request decoding.
@Suite struct ProtocolTests {
    static func json(_ message: some Encodable) throws -> String {
        String(decoding: try GestureProtocol.makeEncoder().encode(message), as: UTF8.self)
    }

    static func object(_ message: some Encodable) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: GestureProtocol.makeEncoder().encode(message)) as! [String: Any]
    }

    @Test func `messages whose type key is declared write and read the same lines as before`() throws {
        let error = ErrorMessage(code: .busy, message: "later", id: .number(3), path: "/x")
        #expect(try Self.json(error) == #"{"code":"busy","id":3,"message":"later","path":"/x","type":"error"}"#)
        #expect(
            try Self.json(ErrorMessage(code: .busy, message: "m")) == #"{"code":"busy","message":"m","type":"error"}"#)
        let dropped = DroppedMessage(definitions: [.init(kind: .region, name: "pad", reason: "gone")])
        #expect(
            try Self.json(dropped)
                == #"{"definitions":[{"kind":"region","name":"pad","reason":"gone"}],"type":"dropped"}"#)
        let info = DeviceInfo(label: "event5", name: "panel", sizeMM: nil, slots: 10)
        let device = DeviceMessage(event: .added, device: info)
        #expect(
            try Self.json(device)
                == #"{"device":{"label":"event5","name":"panel","product":null,"size_mm":null,"slots":10,"vendor":null},"#
                + #""event":"added","type":"device"}"#)
        let decoder = JSONDecoder()
        #expect(try decoder.decode(ErrorMessage.self, from: Data(try Self.json(error).utf8)) == error)
        #expect(try decoder.decode(DroppedMessage.self, from: Data(try Self.json(dropped).utf8)) == dropped)
        #expect(try decoder.decode(DeviceMessage.self, from: Data(try Self.json(device).utf8)) == device)
        let hello = HelloMessage(
            daemonVersion: "1.0", client: 7, devices: [info], recognizers: [], limits: ServerLimits())
        #expect(try decoder.decode(HelloMessage.self, from: Data(try Self.json(hello).utf8)) == hello)
        #expect(try Self.object(hello)["type"] as? String == "hello")
        // A message of another type is refused where its type is.
        let wrong = Data(#"{"code":"busy","message":"m","type":"dropped"}"#.utf8)
        #expect {
            try decoder.decode(ErrorMessage.self, from: wrong)
        } throws: { error in
            guard case .dataCorrupted(let context) = error as? DecodingError else { return false }
            return context.debugDescription == "expected type 'error', found 'dropped'"
                && context.codingPath.map(\.stringValue) == ["type"]
        }
    }

    @Test func `spellings of directions, edges and states are the contract's`() {
        #expect(
            Direction.allCases.map(\.rawValue) == [
                "up", "down", "left", "right", "up-left", "up-right", "down-left", "down-right",
            ])
        #expect(Edge.allCases.map(\.rawValue) == ["top", "bottom", "left", "right"])
        #expect(GestureState.allCases.map(\.rawValue) == ["began", "changed", "ended", "cancelled", "recognized"])
    }

    @Test func `a gesture event becomes a gesture message with the device label and seq`() throws {
        let event = GestureEvent(
            owner: .configuration, device: DeviceID(3),
            report: GestureReport(
                name: "swipe", kind: .swipe, state: .recognized, region: "root", fingers: 2,
                touches: TouchIDList([TouchID(7), TouchID(8)]), time: Timestamp(microseconds: 123_456),
                startTime: Timestamp(microseconds: 23_456),
                position: SurfacePoint(x: 0.5, y: 0.25),
                positionMM: PhysicalPoint(x: Millimeters(172), y: Millimeters(48.5)),
                translation: SurfaceVector(dx: 0.25, dy: 0),
                translationMM: PhysicalVector(dx: Millimeters(86), dy: Millimeters(0)),
                velocity: SurfaceVector(dx: 2, dy: 0),
                velocityMM: PhysicalVector(dx: Millimeters(688), dy: Millimeters(0)), direction: .right))
        let message = GestureMessage(event, deviceLabel: "event5", seq: 42)
        let object = try Self.object(message)
        #expect(object["type"] as? String == "gesture")
        #expect(object["seq"] as? Int == 42)
        #expect(object["device"] as? String == "event5")
        #expect(object["time_us"] as? Int == 123_456)
        #expect(object["start_time_us"] as? Int == 23_456)
        #expect(object["touches"] as? [Int] == [7, 8])
        #expect(object["fingers"] as? Int == 2)
        #expect(object["direction"] as? String == "right")
        #expect((object["position_mm"] as? [String: Double]) == ["x": 172, "y": 48.5])
        #expect((object["translation"] as? [String: Double]) == ["x": 0.25, "y": 0])
        for absent in ["edge", "shape", "score", "scale", "rotation", "scale_velocity", "rotation_velocity"] {
            #expect(object[absent] == nil, "\(absent) must be absent for a swipe")
        }
        let decoded = try JSONDecoder().decode(GestureMessage.self, from: Data(try Self.json(message).utf8))
        #expect(decoded == message)
    }

    @Test func `millimetre keys are null when the size is unknown and non-finite numbers are dropped`() throws {
        let event = GestureEvent(
            owner: .configuration, device: DeviceID(1),
            report: GestureReport(
                name: "pinch", kind: .pinch, state: .changed, region: "root", fingers: 2, touches: TouchIDList(),
                time: Timestamp(microseconds: 1), startTime: Timestamp(microseconds: 1),
                position: SurfacePoint(x: 0, y: 0),
                translation: .zero,
                velocity: .zero, scale: 1.25, scaleVelocity: .infinity))
        let object = try Self.object(GestureMessage(event, deviceLabel: "event1", seq: 1))
        for key in ["position_mm", "translation_mm", "velocity_mm"] {
            #expect(object[key] is NSNull, "\(key) must be present and null")
        }
        #expect(object["scale"] as? Double == 1.25)
        #expect(object["scale_velocity"] == nil)
    }

    @Test func `a view touch becomes a touch message with millimetres only for a known size`() throws {
        let touch = Touch(
            id: TouchID(9), phase: .cancelled, position: SurfacePoint(x: 0.5, y: 0.5), tool: .pen,
            contactSize: Millimeters(4), pressure: 0.5)
        let event = ViewTouchEvent(
            device: DeviceID(2), region: "keypad", touch: touch, time: Timestamp(microseconds: 77))
        let known = DeviceDescriptor(
            id: DeviceID(2), label: "event7", name: "panel",
            geometry: SurfaceGeometry(physicalSize: PhysicalSize(width: Millimeters(300), height: Millimeters(200))))
        let unknown = DeviceDescriptor(
            id: DeviceID(2), label: "event7", name: "panel", geometry: SurfaceGeometry(unknownSizeWithAspect: 0.5))
        let withSize = try Self.object(TouchMessage(event, device: known, seq: 5))
        #expect(withSize["phase"] as? String == "cancelled")
        #expect(withSize["tool"] as? String == "pen")
        #expect(withSize["touch"] as? Int == 9)
        #expect(withSize["region"] as? String == "keypad")
        #expect((withSize["position_mm"] as? [String: Double]) == ["x": 150, "y": 100])
        #expect(withSize["size_mm"] as? Double == 4)
        #expect(try Self.object(TouchMessage(event, device: unknown, seq: 5))["position_mm"] is NSNull)
    }

    /// Reads a request line as the server does: against its own types.
    static func parse(_ line: [UInt8]) -> Result<(any RequestType, RequestID?), ErrorMessage> {
        RequestTable(declared: []).parse(line)
    }

    @Test func `requests round-trip through the strict decoder`() throws {
        let filters = Subscription(
            gestures: ["tap"], kinds: [.swipe, .edgeSwipe], states: [.began], regions: ["root"], devices: ["event5"],
            touches: true)
        let definitions = Definitions(
            regions: [RegionSpec(name: "pad", rect: SurfaceRect(x: 0.5, y: 0.5, width: 0.5, height: 0.5))],
            recognizers: [RecognizerSpec(name: "pad-tap", region: "pad", parameters: .tap(TapParameters()))])
        let options = RecordOptions(device: "event5", durationMS: 500)
        let requests: [(ClientMessage, any RequestType)] = [
            (ClientMessage("subscribe", id: .number(1), fields: filters), Subscribe(filters)),
            (ClientMessage("subscribe", fields: Subscription()), Subscribe(Subscription())),
            (ClientMessage("unsubscribe", id: .string("u")), Unsubscribe()),
            (ClientMessage("ping", id: .number(-3)), Ping()),
            (ClientMessage("record", id: .number(2), fields: options), Record(options)),
        ]
        for (message, expected) in requests {
            let line = try Self.json(message)
            let (request, id) = try Self.parse(Array(line.utf8)).get()
            #expect(AnyHashable(request) == AnyHashable(expected) && id == message.id, "\(line)")
        }
        let line = try Self.json(ClientMessage("define", id: .number(9), fields: definitions))
        let (request, id) = try Self.parse(Array(line.utf8)).get()
        #expect((request as? Define)?.definitions == definitions && id == .number(9), "\(line)")
    }

    @Test func `a definition error names the JSON path`() throws {
        let line = #"{"type":"define","id":4,"recognizers":[{"name":"t","kind":"tap","slop-mm":-1}]}"#
        guard case .failure(let error) = Self.parse(Array(line.utf8)) else {
            Issue.record("accepted a negative slop")
            return
        }
        #expect(error.code == .invalidDefinition)
        #expect(error.id == .number(4))
        #expect(error.path == "/recognizers/0/slop-mm")
        #expect(error.message.hasPrefix("recognizers[0].slop-mm: expected millimetres"))
    }

    @Test func `an engine error becomes an invalid-definition error with a JSON pointer`() {
        let error = ErrorMessage(
            definitionError: SpecError(
                path: [.key("recognizers"), .index(2), .key("requires-failure-of")],
                message: "unknown recognizer 'nope'"),
            id: .string("d"))
        #expect(error.code == .invalidDefinition)
        #expect(error.path == "/recognizers/2/requires-failure-of")
        #expect(error.message == "recognizers[2].requires-failure-of: unknown recognizer 'nope'")
    }

    @Test func `absent filters let everything through and empty lists let nothing through`() {
        let tap = GestureMessage(
            seq: 1, device: "event5",
            report: GestureReport(
                name: "tap", kind: .tap, state: .recognized, region: "root", fingers: 1,
                touches: TouchIDList([TouchID(1)]),
                time: Timestamp(microseconds: 0), position: SurfacePoint(x: 0, y: 0)))
        let touch = TouchMessage(
            seq: 2, device: "event5", region: "root", time: Timestamp(microseconds: 0),
            touch: Touch(id: TouchID(1), phase: .began, position: SurfacePoint(x: 0, y: 0)))
        #expect(Subscription().matches(tap))
        #expect(!Subscription().matches(touch), "touches are off unless asked for")
        #expect(Subscription(touches: true).matches(touch))
        #expect(!Subscription(gestures: [], touches: true).matches(tap))
        #expect(Subscription(gestures: [], touches: true).matches(touch))
        #expect(!Subscription(kinds: [.swipe]).matches(tap))
        #expect(Subscription(kinds: [.tap], states: [.recognized], regions: ["root"], devices: ["event5"]).matches(tap))
        #expect(!Subscription(devices: ["event6"]).matches(tap))
        #expect(!Subscription(regions: ["pad"], touches: true).matches(touch))
    }

    @Test func `owners are spelled configuration or client colon id`() throws {
        let info = RecognizerSummary(name: "x", kind: .pan, owner: .client(12), region: "root")
        #expect(try Self.json(info) == #"{"kind":"pan","name":"x","owner":"client:12","region":"root"}"#)
        let back = try JSONDecoder().decode(RecognizerSummary.self, from: Data(try Self.json(info).utf8))
        #expect(back == info)
    }

    @Test func `engine events become publications routed by their owner`() {
        let device = DeviceDescriptor(
            id: DeviceID(4), label: "event4", name: "panel", geometry: SurfaceGeometry(unknownSizeWithAspect: 0.6))
        let gesture = GestureEvent(
            owner: .client(9), device: DeviceID(4),
            report: GestureReport(
                name: "mine", kind: .tap, state: .recognized, region: "root", fingers: 1,
                touches: TouchIDList([TouchID(1)]), time: Timestamp(microseconds: 5),
                startTime: Timestamp(microseconds: 4),
                position: SurfacePoint(x: 0.1, y: 0.2), translation: .zero, velocity: .zero))
        var mapping = WireMapping()
        let everything = Interest.replay(touches: true, explanations: true)
        // The replay's reader sees the configuration's recognizers only: a client's gesture is
        // nobody's there.
        #expect(mapping.publication(of: .gesture(gesture), device: device, for: everything)?.message == nil)
        let reader = Interest(
            readers: [
                Interest.Reader(
                    client: ClientID(9), subscription: Subscription(touches: true), slot: 0, version: 1,
                    seesPositions: true)
            ], version: 1)
        guard
            case .gesture(let message, let owner, _, _) = mapping.publication(
                of: .gesture(gesture), device: device, for: reader)
        else {
            Issue.record("a gesture event did not become a gesture publication")
            return
        }
        #expect(owner == .client(9))
        #expect(message.seq == 1 && message.device == "event4" && message.name == "mine")
        let touch = ViewTouchEvent(
            device: DeviceID(4), region: "root",
            touch: Touch(id: TouchID(1), phase: .began, position: SurfacePoint(x: 0.1, y: 0.2)),
            time: Timestamp(microseconds: 5))
        guard case .touch(let t, _, _, _) = mapping.publication(of: .touch(touch), device: device, for: everything) else {
            Issue.record("a touch event did not become a touch publication")
            return
        }
        #expect(t.seq == 2 && t.device == "event4" && t.positionMM == nil)
    }

    @Test func `seq is taken only by what some reader takes`() {
        let device = DeviceDescriptor(
            id: DeviceID(4), label: "event4", name: "panel", geometry: SurfaceGeometry(unknownSizeWithAspect: 0.6))
        func gesture(_ kind: GestureKind) -> EngineEvent {
            .gesture(
                GestureEvent(
                    owner: .configuration, device: DeviceID(4),
                    report: GestureReport(
                        name: kind.rawValue, kind: kind, state: .recognized, region: "root", fingers: 1,
                        touches: TouchIDList([TouchID(1)]), time: Timestamp(microseconds: 5),
                        startTime: Timestamp(microseconds: 4),
                        position: SurfacePoint(x: 0.1, y: 0.2), translation: .zero, velocity: .zero)))
        }
        let touch = EngineEvent.touch(
            ViewTouchEvent(
                device: DeviceID(4), region: "root",
                touch: Touch(id: TouchID(1), phase: .began, position: SurfacePoint(x: 0.1, y: 0.2)),
                time: Timestamp(microseconds: 5)))
        let swipes = Interest(
            readers: [
                Interest.Reader(
                    client: ClientID(1), subscription: Subscription(kinds: [.swipe]), slot: 0, version: 1,
                    seesPositions: true)
            ], version: 1)
        var mapping = WireMapping()
        var numbers: [UInt64] = []
        for event in [gesture(.pan), touch, gesture(.swipe), gesture(.tap), touch, gesture(.swipe)] {
            guard case .gesture(let m, _, _, _) = mapping.publication(of: event, device: device, for: swipes) else {
                continue
            }
            numbers.append(m.seq)
        }
        #expect(numbers == [1, 2], "a connection alone sees consecutive numbers")
        #expect(mapping.publication(of: touch, device: device, for: Interest())?.message == nil)
        #expect(mapping.seq == 2)
    }

    /// The publisher maps a frame's events in one call (`publications(of:deviceOf:for:into:)`),
    /// which decides some cases where the event lies in the array: over random events and
    /// readers it must give what mapping each event alone gives, in order and numbered the same.
    @Test(arguments: 0..<20)
    func `a batch of events maps as its events one by one`(run: Int) {
        let seed = 0x6261_7463_68 &+ UInt64(run)
        var rng = SplitMix64(seed: seed)
        let device = DeviceDescriptor(
            id: DeviceID(4), label: "event4", name: "panel", geometry: SurfaceGeometry(unknownSizeWithAspect: 0.6))
        let kinds: [GestureKind] = [.tap, .swipe, .pan, .pinch]
        let states: [GestureState] = [.began, .changed, .ended, .recognized]
        func event() -> EngineEvent {
            let id = TouchID(UInt32.random(in: 1...3, using: &rng))
            let time = Timestamp(microseconds: Int64.random(in: 0...1_000_000, using: &rng))
            let position = SurfacePoint(x: Double.random(in: 0...1, using: &rng), y: Double.random(in: 0...1, using: &rng))
            if Bool.random(using: &rng) {
                return .touch(
                    ViewTouchEvent(
                        device: DeviceID(4), region: "root",
                        touch: Touch(id: id, phase: .moved, position: position), time: time))
            }
            let kind = kinds.randomElement(using: &rng)!
            return .gesture(
                GestureEvent(
                    owner: Bool.random(using: &rng) ? .configuration : .client(1), device: DeviceID(4),
                    report: GestureReport(
                        name: kind.rawValue, kind: kind, state: states.randomElement(using: &rng)!, region: "root",
                        fingers: 1, touches: TouchIDList([id]), time: time, startTime: time,
                        position: position, translation: .zero, velocity: .zero)))
        }
        func reader(_ client: UInt64, slot: Int) -> Interest.Reader {
            let subscription =
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: Subscription(kinds: [.swipe])
                case 1: Subscription(kinds: [.swipe, .pan], states: [.changed, .ended])
                case 2: Subscription(gestures: [], touches: true)
                default: Subscription(touches: true, explain: true)
                }
            return Interest.Reader(
                client: ClientID(client), subscription: subscription, slot: slot, version: 1, seesPositions: true)
        }
        let interest = Interest(
            readers: (0..<Int.random(in: 0...2, using: &rng)).map { reader(UInt64($0 + 1), slot: $0) }, version: 1)
        var batchMapping = WireMapping()
        var oneByOne = WireMapping()
        for frame in 0..<30 {
            let events = (0..<Int.random(in: 0...6, using: &rng)).map { _ in event() }
            var batch: [Publication] = []
            batchMapping.publications(of: events, deviceOf: { _ in device }, for: interest, into: &batch)
            let expected = events.compactMap { oneByOne.publication(of: $0, device: device, for: interest) }
            #expect(
                batch.map(\Publication.message) == expected.map(\Publication.message),
                "seed 0x\(String(seed, radix: 16)), frame \(frame)")
        }
        #expect(batchMapping.seq == oneByOne.seq, "seed 0x\(String(seed, radix: 16))")
    }

    @Test(arguments: [
        (Failure(.shapeTooSmall, .minSize, measured: 0.004, limit: 0.01), "size 0.004 mm < min-size-mm 0.01"),
        (Failure(.shapeTooSmall, .minSize, measured: 0, limit: 0.01), "size 0 mm < min-size-mm 0.01"),
        (Failure(.moved, .slop, measured: 3.04, limit: 3), "a finger moved 3.04 mm > slop-mm 3"),
        (Failure(.strokeTooShort, .minDistance, measured: 12.25, limit: 20), "stroke 12.3 mm < min-distance-mm 20"),
        (Failure(.scoreTooLow, .minScore, measured: 0.7999, limit: 0.8), "score 0.7999 < min-score 0.8"),
    ])
    func `a comparison shows as many decimals as it takes to tell its numbers apart`(
        failure: Failure, says: String
    ) {
        let explanation = Explanation(
            name: "x", kind: .shape, owner: .configuration, device: DeviceID(1), region: "root",
            time: Timestamp(microseconds: 0), decision: Decision(.failed, failure: failure))
        let text = ExplainMessage(explanation, deviceLabel: "event5").text
        #expect(text.hasSuffix(": " + says), "\(text)")
    }

    @Test func `a socket path is held to what NIO can reach, and a listening one to its private binding`() throws {
        func path(directory: Int, total: Int) -> String {
            let dir = "/" + String(repeating: "d", count: directory - 1)
            return dir + "/" + String(repeating: "s", count: total - directory - 1)
        }
        #expect(try SocketPath(path(directory: 20, total: 103), for: .connect).path.utf8.count == 103)
        #expect(throws: SocketPathError.self) { try SocketPath(path(directory: 20, total: 104), for: .connect) }
        #expect(throws: SocketPathError.self) { try SocketPath("", for: .connect) }
        #expect(throws: SocketPathError.self) { try SocketPath("/tmp/a\u{0}b", for: .connect) }
        #expect(try SocketPath(path(directory: 92, total: 100), for: .listen).path.utf8.count == 100)
        #expect(try SocketPath(path(directory: 93, total: 100), for: .connect).path.utf8.count == 100)
        do {
            _ = try SocketPath(path(directory: 93, total: 100), for: .listen)
            Issue.record("a 93-byte directory was taken")
        } catch {
            #expect(error.description.contains("is 93 bytes long") && error.description.contains("at most 92 bytes"))
        }
        // The longest directory and the private binding together are the longest path.
        #expect(("/" + String(repeating: "d", count: 91) + SocketPath.privateBinding).utf8.count == SocketPath.maxBytes)
    }
}
