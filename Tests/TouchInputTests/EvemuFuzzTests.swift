import Foundation
import TestSupport
import Testing
import TouchValues

@testable import TouchInput
@testable import VirtualDevices

/// Randomized mutations of real recordings never crash the parser or the
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
        var rng = TestSupport.SplitMix64(seed: 0x6765_7374)
        var accepted = 0
        var rejected = 0
        for i in 0..<Self.iterations {
            let input = RecordingMutation.mutate(seeds[i % seeds.count], &rng)
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
