import EvdevValues
import Foundation
import GestureEngine
import TestSupport
import Testing

@testable import GestureProtocol

/// The hand-written lines of `gesture`, `touch` and `raw` are the bytes `JSONEncoder` gives: compared on
/// random messages whose strings need every kind of escaping and whose numbers take every form
/// Swift prints (integral, exponent, negative zero, subnormal, the extremes).
@Suite struct LineEncoderTests {
    /// The reference: Foundation's encoder as the protocol configures it, plus the newline.
    static func reference(_ message: ServerMessage) throws -> [UInt8] {
        Array(try GestureProtocol.makeEncoder().encode(message)) + [UInt8(ascii: "\n")]
    }

    struct Random {
        var rng: SplitMix64

        mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &rng) < p }

        mutating func string() -> String {
            let pieces = [
                "", "root", "event5", "swipe", "a\"b", "back\\slash", "/path/", "é", "日本", "😀", "\u{7F}", "\u{2028}",
                "tab\there", "new\nline", "\u{0}", "\u{8}\u{C}\r", "\u{1F}", "\u{1B}[0m", "keyboard-area",
            ]
            var s = ""
            for _ in 0..<Int.random(in: 0...4, using: &rng) {
                if chance(0.3) {
                    // Any scalar of the basic plane below the surrogates, control characters too.
                    s.unicodeScalars.append(Unicode.Scalar(UInt32.random(in: 0...0xD7FF, using: &rng))!)
                } else {
                    s += pieces.randomElement(using: &rng)!
                }
            }
            return s
        }

        mutating func number() -> Double {
            switch Int.random(in: 0..<11, using: &rng) {
            case 0: return Double.random(in: 0...1, using: &rng)
            case 1: return Double(Int.random(in: -5000...5000, using: &rng))
            case 2: return (Double.random(in: -1000...1000, using: &rng) * 10).rounded() / 10
            case 3:
                return [0.0, -0.0, 1, -1, 0.1, 1e-7, 1e16, 1e17, 2.5e15, .leastNonzeroMagnitude].randomElement(
                    using: &rng)!
            case 4:
                return [
                    .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNormalMagnitude, 9_007_199_254_740_992,
                ]
                .randomElement(using: &rng)!
            case 5:
                // What the daemon sends: six decimals (WireNumber), written with integers.
                return WireNumber.rounded(
                    Double.random(in: -2e9...2e9, using: &rng) / [1, 1e3, 1e6].randomElement(using: &rng)!)
            case 6:
                // Six decimals below 1e-4, which Swift writes with an exponent (6.1e-05).
                return WireNumber.rounded(Double.random(in: -2e-4...2e-4, using: &rng))
            default:
                // Any finite bit pattern: subnormals, huge exponents, every digit count.
                while true {
                    let value = Double(bitPattern: rng.next())
                    if value.isFinite { return value }
                }
            }
        }

        mutating func point() -> SurfacePoint { SurfacePoint(x: number(), y: number()) }
        mutating func vector() -> SurfaceVector { SurfaceVector(dx: number(), dy: number()) }
        mutating func pointMM() -> PhysicalPoint { PhysicalPoint(x: Millimeters(number()), y: Millimeters(number())) }
        mutating func vectorMM() -> PhysicalVector {
            PhysicalVector(dx: Millimeters(number()), dy: Millimeters(number()))
        }
        mutating func optional<T>(_ make: (inout Random) -> T) -> T? { chance(0.5) ? make(&self) : nil }

        mutating func gesture() -> GestureMessage {
            var report = GestureReport(
                name: string(), kind: element(GestureKind.allCases), state: element(GestureState.allCases),
                region: string(), fingers: Int(truncatingIfNeeded: rng.next()),
                touches: TouchIDList(
                    (0..<Int.random(in: 0...16, using: &rng)).map { _ in
                        TouchID(UInt32.random(in: .min ... .max, using: &rng))
                    }),
                time: Timestamp(microseconds: Int64(bitPattern: rng.next())), position: point())
            report.positionMM = optional { $0.pointMM() }
            report.translation = vector()
            report.translationMM = optional { $0.vectorMM() }
            report.velocity = vector()
            report.velocityMM = optional { $0.vectorMM() }
            report.scale = optional { $0.number() }
            report.rotation = optional { $0.number() }
            report.scaleVelocity = optional { $0.number() }
            report.rotationVelocity = optional { $0.number() }
            report.direction = optional { $0.element(Direction.allCases) }
            report.edge = optional { $0.element(Edge.allCases) }
            report.shape = optional { $0.string() }
            report.score = optional { $0.number() }
            return GestureMessage(seq: rng.next(), device: string(), report: report)
        }

        mutating func touch() -> TouchMessage {
            TouchMessage(
                seq: rng.next(), device: string(), region: string(),
                time: Timestamp(microseconds: Int64(bitPattern: rng.next())),
                touch: Touch(
                    id: TouchID(UInt32.random(in: .min ... .max, using: &rng)),
                    phase: element([.began, .moved, .stationary, .ended, .cancelled]), position: point(),
                    tool: element(ToolType.allCases), contactSize: optional { Millimeters($0.number()) },
                    pressure: optional { $0.number() }),
                positionMM: optional { $0.pointMM() })
        }

        mutating func element<T>(_ choices: [T]) -> T { choices.randomElement(using: &rng)! }
    }

    @Test func `gesture lines are JSONEncoder's bytes`() throws {
        var random = Random(rng: SplitMix64(seed: 0x6A73_6F6E))
        var encoder = LineEncoder()
        for _ in 0..<5000 {
            let message = ServerMessage.gesture(random.gesture())
            let line = try encoder.encode(message)
            let expected = try Self.reference(message)
            guard line == expected else {
                Issue.record(
                    "\(String(decoding: line, as: UTF8.self)) is not \(String(decoding: expected, as: UTF8.self))")
                return
            }
        }
    }

    @Test func `touch lines are JSONEncoder's bytes`() throws {
        var random = Random(rng: SplitMix64(seed: 0x746F_7563))
        var encoder = LineEncoder()
        for _ in 0..<5000 {
            let message = ServerMessage.touch(random.touch())
            let line = try encoder.encode(message)
            let expected = try Self.reference(message)
            guard line == expected else {
                Issue.record(
                    "\(String(decoding: line, as: UTF8.self)) is not \(String(decoding: expected, as: UTF8.self))")
                return
            }
        }
    }

    @Test func `raw lines are JSONEncoder's bytes, and decode to the events sent`() throws {
        var random = Random(rng: SplitMix64(seed: 0x7261_7721))
        var encoder = LineEncoder()
        for _ in 0..<2000 {
            let events = (0..<Int.random(in: 1...40, using: &random.rng)).map { _ in
                InputEvent(
                    time: Timestamp(microseconds: Int64(bitPattern: random.rng.next())),
                    type: UInt16.random(in: .min ... .max, using: &random.rng),
                    code: UInt16.random(in: .min ... .max, using: &random.rng),
                    value: Int32.random(in: .min ... .max, using: &random.rng))
            }
            let message = ServerMessage.raw(RawMessage(device: random.string(), events: events))
            let line = try encoder.encode(message)
            let expected = try Self.reference(message)
            guard line == expected else {
                Issue.record(
                    "\(String(decoding: line, as: UTF8.self)) is not \(String(decoding: expected, as: UTF8.self))")
                return
            }
            #expect(try JSONDecoder().decode(ServerMessage.self, from: Data(line)) == message)
        }
    }

    @Test func `a recording's description survives the wire whole`() throws {
        var description = DeviceCapabilities(
            name: "ILITEK \"Multi\" Touch", id: InputID(bustype: 3, vendor: 0x222a, product: 0x1, version: 0x110),
            properties: [1])
        description.addCode(1, 330)
        description.addAxis(0, AbsInfo(minimum: 0, maximum: 16383, fuzz: 4, flat: 0, resolution: 40))
        description.addAxis(0x35, AbsInfo(minimum: -5, maximum: 16383, resolution: 40))
        description.addAxis(0x39, AbsInfo(minimum: 0, maximum: 65535))
        for message in [
            RecordingMessage.started(device: "event5", description: description, id: .number(1)),
            .stopped(device: "event5", events: 5812, reason: .deviceRemoved, id: nil),
        ] {
            var encoder = LineEncoder()
            let line = try encoder.encode(.recording(message))
            #expect(try JSONDecoder().decode(ServerMessage.self, from: Data(line)) == .recording(message))
            try SchemaValidator.validate(
                sent: [], received: [String(decoding: line.dropLast(), as: UTF8.self)], invalid: [],
                sourceLocation: #_sourceLocation)
        }
    }

    @Test func `the daemon's numbers are rounded to six decimals and written in JSONEncoder's characters`() throws {
        #expect(WireNumber.rounded(0.3760795922727134) == 0.37608)
        #expect(WireNumber.rounded(1282.3358610097923) == 1282.335861)
        #expect(WireNumber.rounded(-6.103701895199265e-05) == -0.000061)
        #expect(WireNumber.rounded(-4e-7).sign == .plus, "a tiny negative value rounds to zero, not -0")
        #expect(WireNumber.rounded(2.5e9) == 2.5e9)
        #expect(WireNumber.rounded(Double.nan).isNaN)
        let touch = TouchMessage(
            seq: 1, device: "event5", region: "root", time: Timestamp(microseconds: 1),
            touch: Touch(id: TouchID(1), phase: .moved, position: SurfacePoint(x: 0.37608, y: -0.000061)),
            positionMM: PhysicalPoint(x: Millimeters(192), y: Millimeters(0.000003)))
        var encoder = LineEncoder()
        let line = String(decoding: try encoder.encode(.touch(touch)), as: UTF8.self)
        #expect(line.contains(#""position":{"x":0.37608,"y":-6.1e-05}"#), "\(line)")
        #expect(line.contains(#""position_mm":{"x":192,"y":3e-06}"#), "\(line)")
        #expect(try encoder.encode(.touch(touch)) == Self.reference(.touch(touch)))
    }

    /// The integer paths (the six-decimal numbers, written with digit pairs and the fraction as
    /// one word; the integers, two digits a step; the rounding without libm) against
    /// `JSONEncoder` and `rounded()`, on random values of every digit count: a property, its seed
    /// printed on failure
    /// (`GESTURED_NUMBER_SEED=<n> swift test --filter LineEncoderTests` replays it).
    @Test func `the fast number and integer writers write JSONEncoder's characters`() throws {
        let seed =
            ProcessInfo.processInfo.environment["GESTURED_NUMBER_SEED"].flatMap { UInt64($0) }
            ?? UInt64.random(in: 0...UInt64.max)
        var rng = SplitMix64(seed: seed)
        /// A value with `digits` digits at most (1...20), every count as likely.
        func digits(_ digits: Int) -> UInt64 {
            let limit = digits >= 20 ? UInt64.max : (0..<digits).reduce(UInt64(1)) { n, _ in n * 10 }
            return digits >= 20 ? rng.next() : rng.next() % limit
        }
        var numbers: [Double] = []
        var integers: [Int64] = []
        var unsigned: [UInt64] = []
        for _ in 0..<20_000 {
            // Millionths of every width below 1e15 (the whole part below 1e9), with and without
            // trailing zeros, either sign; and the rounding of any value of those magnitudes.
            var millionths = digits(Int.random(in: 1...15, using: &rng))
            for _ in 0..<Int.random(in: 0...6, using: &rng) { millionths /= 10 }
            var value = Double(millionths) / 1e6
            if Bool.random(using: &rng) {
                value = WireNumber.rounded(Double(bitPattern: 0x3FF0_0000_0000_0000 | rng.next() >> 12) * value)
            }
            numbers.append(Bool.random(using: &rng) ? -value : value)
            let width = Int.random(in: 1...20, using: &rng)
            unsigned.append(digits(width))
            integers.append(Int64(bitPattern: digits(width)) * (Bool.random(using: &rng) ? -1 : 1))
        }
        numbers += [0, -0.0, 1e-6, 5e-6, 1e-5, 0.0001, 0.1, 0.5, 1, 999_999_999.999999, 0.000061, 123.4]
        unsigned += [0, 9, 10, 99, 100, 999, 1000, 9999, 10_000, .max]
        integers += [0, -1, .min, .max]
        var writer = JSONWriter()
        func written(_ body: (inout JSONWriter) throws -> Void) rethrows -> String {
            writer.reset()
            try body(&writer)
            return String(decoding: writer.bytes.contents, as: UTF8.self)
        }
        let json = GestureProtocol.makeEncoder()
        func reference(_ value: some Encodable) throws -> String {
            String(String(decoding: try json.encode([value]), as: UTF8.self).dropFirst().dropLast())
        }
        var failures: [String] = []
        // The rounding on the way to the wire is `(value * 1e6).rounded() / 1e6` to the bit (a
        // negative zero made zero), below 1e9 in magnitude, for any value there.
        for _ in 0..<20_000 {
            let value =
                Double(bitPattern: 0x3FF0_0000_0000_0000 | rng.next() >> 12) * 1e9
                / Double(digits(Int.random(in: 1...18, using: &rng)) | 1) * (Bool.random(using: &rng) ? -1 : 1)
            let reference = value.magnitude < 1e9 ? (value * 1e6).rounded() / 1e6 + 0 : value
            if WireNumber.rounded(value).bitPattern != reference.bitPattern {
                failures.append("rounded(\(value.bitPattern)): \(WireNumber.rounded(value)), not \(reference)")
            }
        }
        for value in numbers {
            let line = try written { try $0.number(value) }
            let expected = try reference(value)
            if line != expected { failures.append("\(value.bitPattern): \(line), not \(expected)") }
        }
        for value in unsigned {
            let line = written { $0.integer(value) }
            if line != (try reference(value)) { failures.append("\(value): \(line)") }
        }
        for value in integers {
            let line = written { $0.integer(value) }
            if line != (try reference(value)) { failures.append("\(value): \(line)") }
        }
        #expect(failures.isEmpty, "seed \(seed) (GESTURED_NUMBER_SEED): \(failures.prefix(5))")
    }

    @Test func `other messages go through JSONEncoder`() throws {
        var encoder = LineEncoder()
        for message in [
            ServerMessage.ok(id: .number(7)), .pong(id: .string("a\"b")),
            .error(ErrorMessage(code: .unknownType, message: "no", id: nil)),
        ] {
            #expect(try encoder.encode(message) == Self.reference(message))
        }
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func `a number JSON cannot carry is an error, as with JSONEncoder`(bad: Double) {
        var encoder = LineEncoder()
        var random = Random(rng: SplitMix64(seed: 1))
        var gesture = random.gesture()
        gesture.score = bad
        #expect(throws: EncodingError.self) { try encoder.encode(.gesture(gesture)) }
        #expect(throws: EncodingError.self) { try Self.reference(.gesture(gesture)) }
        let touch = TouchMessage(
            seq: 1, device: "event5", region: "root", time: Timestamp(microseconds: 1),
            touch: Touch(id: TouchID(1), phase: .moved, position: SurfacePoint(x: bad, y: 0)))
        #expect(throws: EncodingError.self) { try encoder.encode(.touch(touch)) }
        #expect(throws: EncodingError.self) { try Self.reference(.touch(touch)) }
    }
}
