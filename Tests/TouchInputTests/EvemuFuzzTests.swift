import Foundation
import GestureEngine
import Testing

@testable import TouchInput

/// Must-show 2 in the suite: randomized mutations of real recordings never crash the parser or the
/// assembler, and every rejection names a line of the input. CI runs 10 000 inputs;
/// `GESTURED_FUZZ_ITERATIONS=1000000` runs the million (docs/INPUT.md, "Fuzzing"), and
/// scripts/fuzz-evemu.sh runs libFuzzer on the same code.
@Suite struct EvemuFuzzTests {
    static var iterations: Int {
        ProcessInfo.processInfo.environment["GESTURED_FUZZ_ITERATIONS"].flatMap { Int($0) } ?? 10_000
    }

    /// Seeds: the committed fixtures (short ones whole, the big one cut) and a generated file.
    static func seeds() throws -> [[UInt8]] {
        var seeds = [
            try Fixture.bytes("wetab.event"), try Fixture.bytes("ntrig-dell-xt2.event"),
            try Fixture.bytes("ntrig-dell-xt2-comments-only.event"),
            Array(try Fixture.bytes("3m.event.xz").prefix(12_000)),
        ]
        var writer = EvemuWriter(device: DeviceProfile.resistive.capabilities())
        writer.append(InputEvent(time: Timestamp(microseconds: 5), type: 1, code: EventCode.btnTouch, value: 1))
        writer.append(InputEvent(time: Timestamp(microseconds: 6), type: 0, code: 0, value: 0))
        seeds.append(Array(writer.text.utf8))
        return seeds
    }

    static let tokens: [[UInt8]] = [
        "E: ", "A: ", "B: 03 ", "P: ", "N: ", "I: ", "# ", "\n", "\r\n", "-", "+", ".", "0x", "ff", "2f", "39",
        "4294967296", "-2147483648", "99999999999999", " 0003 002f ", " 0003 0039 -1", " 0000 0000 0", " 0000 0003 0",
        " 0000 0002 0", " 0003 0037 2",
    ].map { Array($0.utf8) }

    static func mutate(_ input: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var bytes = input
        for _ in 0..<(1 + Int(rng.next() % 4)) {
            let at = bytes.isEmpty ? 0 : Int(rng.next() % UInt64(bytes.count))
            switch rng.next() % 7 {
            case 0 where !bytes.isEmpty: bytes[at] = UInt8(truncatingIfNeeded: rng.next())
            case 1: bytes.insert(UInt8(truncatingIfNeeded: rng.next()), at: at)
            case 2 where !bytes.isEmpty: bytes.removeSubrange(at..<min(bytes.count, at + 1 + Int(rng.next() % 64)))
            case 3: bytes.insert(contentsOf: tokens[Int(rng.next() % UInt64(tokens.count))], at: at)
            case 4: bytes = Array(bytes.prefix(at))
            case 5 where !bytes.isEmpty:
                // Duplicate a chunk elsewhere (repeated lines, events out of order).
                let length = min(bytes.count - at, 1 + Int(rng.next() % 200))
                let chunk = Array(bytes[at..<at + length])
                bytes.insert(contentsOf: chunk, at: Int(rng.next() % UInt64(bytes.count)))
            default:
                if !bytes.isEmpty,
                    let digit = bytes.indices.dropFirst(at).first(where: { bytes[$0] >= 0x30 && bytes[$0] <= 0x39 })
                {
                    bytes[digit] = 0x30 + UInt8(rng.next() % 10)
                }
            }
        }
        return bytes
    }

    /// Parses and replays one input; returns the number of touches it produced.
    static func exercise(_ input: [UInt8]) -> (ok: Bool, problem: String?) {
        let lines = input.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
        do {
            let recording = try EvemuRecording(bytes: input)
            guard var replay = try? ReplaySource(recording: recording, id: DeviceID(1), label: "fuzz") else {
                _ = try recording.allEvents()
                return (true, nil)
            }
            let checker = try FrameStreamChecker.checking(&replay, batch: 256)
            if !checker.problems.isEmpty || !checker.live.isEmpty { return (true, "\(checker.problems)") }
            return (true, nil)
        } catch {
            guard (1...lines).contains(error.line), !error.message.isEmpty else {
                return (false, "error names line \(error.line) of \(lines): \(error)")
            }
            return (false, nil)
        }
    }

    @Test("mutated recordings never crash; rejections name a line; accepted ones give a closed frame stream")
    func mutations() throws {
        let seeds = try Self.seeds()
        var rng = SplitMix64(seed: 0x6765_7374)
        var accepted = 0
        var rejected = 0
        for i in 0..<Self.iterations {
            let input = Self.mutate(seeds[i % seeds.count], &rng)
            let (ok, problem) = Self.exercise(input)
            if let problem {
                Issue.record("input \(i): \(problem)\n\(String(decoding: input.prefix(3000), as: UTF8.self))")
                return
            }
            if ok { accepted += 1 } else { rejected += 1 }
        }
        // Both outcomes must occur, or the mutations are not reaching the parser's corners.
        #expect(accepted > Self.iterations / 20)
        #expect(rejected > Self.iterations / 20)
    }
}
