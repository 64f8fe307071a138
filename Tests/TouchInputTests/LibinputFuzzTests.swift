import Foundation
import TouchValues
import TestSupport
import Testing
import YAMLCoding

@testable import TouchInput
@testable import VirtualDevices

/// Property tests of the `libinput record` reader: whatever the bytes (mutated recordings, every
/// truncation, random YAML, absurd axes, clocks that run backwards), reading ends in an error that
/// points inside the file or in a replay whose frame stream is closed, never in a crash. Each test
/// prints its seed when it fails; `GESTURED_FUZZ_SEED` replays one, `GESTURED_FUZZ_ITERATIONS`
/// sets how many inputs each reads.
@Suite struct LibinputFuzzTests {
    /// Inputs a test reads: `base` in every `swift test`, or `GESTURED_FUZZ_ITERATIONS`.
    static func iterations(_ base: Int) -> Int {
        ProcessInfo.processInfo.environment["GESTURED_FUZZ_ITERATIONS"].flatMap { Int($0) } ?? base
    }

    /// How one input ended.
    struct Outcome {
        /// What broke a property (nil: none did).
        var problem: String?
        var accepted = false
        /// The device was a touchscreen and was replayed.
        var replayed = false
        var timeReversals = 0
    }

    static func seed(_ fallback: UInt64) -> UInt64 {
        ProcessInfo.processInfo.environment["GESTURED_FUZZ_SEED"].flatMap { UInt64($0) } ?? fallback
    }

    /// Short libinput files: a real panel's description and contacts (3M), a keyboard beside it,
    /// a single-touch panel.
    static func seeds() throws -> [[UInt8]] {
        let (description, events) = try LibinputRecordingTests.threeM(events: 400)
        let resistive = DeviceProfile.resistive.capabilities()
        let tap = [(330, 1), (0, 100), (1, 200), (330, 0)].enumerated().flatMap { i, e in
            [
                InputEvent(time: Timestamp(microseconds: Int64(i) * 8000), type: e.0 == 330 ? 1 : 3, code: UInt16(e.0), value: Int32(e.1)),
                InputEvent(time: Timestamp(microseconds: Int64(i) * 8000), type: 0, code: 0, value: 0),
            ]
        }
        return [
            LibinputText(devices: [.init(node: "/dev/input/event5", capabilities: description, events: events)]).text,
            LibinputText(devices: [
                .init(node: "/dev/input/event0", capabilities: LibinputRecordingTests.keyboard),
                .init(node: "/dev/input/event6", capabilities: description, events: Array(events.prefix(120))),
            ]).text,
            LibinputText(devices: [.init(node: "/dev/input/event2", capabilities: resistive, events: tap)]).text,
        ].map { Array($0.utf8) }
    }

    /// Reads and replays `input`: an error must point inside the file, a replay must give a
    /// closed frame stream (every touch that began ends, times never go back, positions on the
    /// surface).
    static func exercise(_ input: [UInt8]) -> Outcome {
        let lines = input.reduce(1) { $0 + ($1 == 0x0A || $1 == 0x0D ? 1 : 0) }
        let recording: Recording
        do {
            recording = try RecordingFile.recording(bytes: input)
        } catch {
            switch error {
            case .yaml(let yaml):
                guard (1...lines).contains(yaml.mark.line), yaml.mark.column >= 1, !yaml.message.isEmpty else {
                    return Outcome(problem: "error outside the file (\(lines) lines): \(yaml)")
                }
            case .line(let line):
                guard (1...lines).contains(line.line), !line.message.isEmpty else {
                    return Outcome(problem: "error outside the file: \(line)")
                }
            case .device(let message):
                guard !message.isEmpty else { return Outcome(problem: "an empty device error") }
            case .unreadable(let reason):
                return Outcome(problem: "bytes in memory are unreadable: \(reason)")
            case .tooLarge(let size, let limit):
                return Outcome(problem: "bytes in memory are not read from a file: \(size ?? -1) > \(limit)")
            }
            return Outcome()
        }
        var outcome = Outcome(accepted: true)
        guard var replay = try? ReplaySource(recording: recording, id: DeviceID(1), label: "fuzz") else { return outcome }
        outcome.replayed = true
        do {
            let checker = try FrameStreamChecker.checking(&replay, batch: 256)
            if !checker.problems.isEmpty || !checker.live.isEmpty { outcome.problem = "\(checker.problems)" }
        } catch {
            if recording.format == .libinput { outcome.problem = "a libinput recording's events failed late: \(error)" }
        }
        outcome.timeReversals = replay.timeReversals
        return outcome
    }

    /// Runs `count` inputs made by `input`; the outcomes, or an issue with the seed at the first
    /// broken property.
    static func run(
        _ name: String, count: Int, seed: UInt64, _ input: (inout TestSupport.SplitMix64) -> [UInt8]
    ) -> [Outcome] {
        var rng = TestSupport.SplitMix64(seed: seed)
        var outcomes: [Outcome] = []
        for i in 0..<count {
            let bytes = input(&rng)
            let outcome = exercise(bytes)
            if let problem = outcome.problem {
                Issue.record(
                    "\(name) input \(i) (GESTURED_FUZZ_SEED=\(seed)): \(problem)\n\(String(decoding: bytes.prefix(2000), as: UTF8.self))")
                break
            }
            outcomes.append(outcome)
        }
        return outcomes
    }

    @Test("mutated recordings: an error inside the file or a closed frame stream, never a crash")
    func mutations() throws {
        let seeds = try Self.seeds()
        var round = 0
        let count = Self.iterations(1_000)
        let outcomes = Self.run("mutation", count: count, seed: Self.seed(0x6C69_6269)) { rng in
            round += 1
            let tokens = round % 2 == 0 ? RecordingMutation.yamlTokens : RecordingMutation.tokens
            return RecordingMutation.mutate(seeds[round % seeds.count], &rng, tokens: tokens)
        }
        // Both outcomes must occur, or the mutations are not reaching the reader's corners.
        #expect(outcomes.filter(\.accepted).count > count / 20)
        #expect(outcomes.filter { !$0.accepted }.count > count / 20)
    }

    @Test("every truncation of a recording is an error or a replay")
    func truncations() throws {
        let seed = try Self.seeds()[2]
        var errors = 0
        for length in 0...seed.count {
            let outcome = Self.exercise(Array(seed.prefix(length)))
            if let problem = outcome.problem {
                Issue.record("cut at \(length): \(problem)")
                return
            }
            if !outcome.accepted { errors += 1 }
        }
        #expect(errors > 0 && errors < seed.count)
    }

    /// Random YAML over the format's vocabulary: mappings, lists and scalars nested at random.
    static func randomYAML(_ rng: inout TestSupport.SplitMix64, depth: Int = 0) -> String {
        let keys = ["version", "devices", "evdev", "name", "id", "codes", "absinfo", "properties", "events", "node", "udev", "x"]
        let scalars = ["1", "0", "-1", "3", "53", "57", "2147483648", "a", "''", "~", "[]", "{}", "1.5", "*a", "&a 4"]
        switch depth > 4 ? 0 : rng.next() % 4 {
        case 0: return scalars[Int(rng.next() % UInt64(scalars.count))]
        case 1:
            let count = Int(rng.next() % 6)
            return "[" + (0..<count).map { _ in randomYAML(&rng, depth: depth + 1) }.joined(separator: ", ") + "]"
        default:
            let count = Int(rng.next() % 5)
            var used: [String] = []
            for _ in 0..<count {
                let key = keys[Int(rng.next() % UInt64(keys.count))]
                if !used.contains(key) { used.append(key) }
            }
            let body = used.map { "\($0): \(randomYAML(&rng, depth: depth + 1))" }.joined(separator: ", ")
            return depth == 0 && rng.next() % 2 == 0 ? "version: 1\ndevices: [{\(body)}]\n" : "{\(body)}"
        }
    }

    @Test("random YAML documents: an error inside the file or a replay")
    func randomDocuments() {
        let outcomes = Self.run("random YAML", count: Self.iterations(1_000), seed: Self.seed(0x7961_6D6C)) { rng in
            Array(Self.randomYAML(&rng).utf8)
        }
        #expect(outcomes.contains { !$0.accepted })
    }

    /// An Int32 drawn from the edges and the middle.
    static func absurd(_ rng: inout TestSupport.SplitMix64) -> Int32 {
        let edges: [Int32] = [.min, .min + 1, -1, 0, 1, 2, 255, 32767, 65535, .max - 1, .max]
        return rng.next() % 2 == 0 ? edges[Int(rng.next() % UInt64(edges.count))] : Int32(truncatingIfNeeded: rng.next())
    }

    @Test("absurd axes and values: a refusal, an error, or a replay that stays on the surface")
    func absurdAxes() throws {
        let base = DeviceProfile.kiosk10.capabilities()
        let outcomes = Self.run("absurd axes", count: Self.iterations(300), seed: Self.seed(0x6178_6573)) { rng in
            var capabilities = base
            for code in capabilities.absInfo.keys where rng.next() % 2 == 0 {
                capabilities.absInfo[code] = AbsInfo(
                    minimum: Self.absurd(&rng), maximum: Self.absurd(&rng), fuzz: Self.absurd(&rng),
                    flat: Self.absurd(&rng), resolution: Self.absurd(&rng))
            }
            var events: [InputEvent] = []
            for step in 0..<12 {
                let time = Timestamp(microseconds: Int64(step) * 10_000)
                let codes: [UInt16] = [EventCode.absMTSlot, EventCode.absMTTrackingID, EventCode.absMTPositionX, EventCode.absMTPositionY, EventCode.absMTPressure, EventCode.absMTTouchMajor]
                for _ in 0..<3 {
                    let code = codes[Int(rng.next() % UInt64(codes.count))]
                    events.append(InputEvent(time: time, type: EventCode.evAbs, code: code, value: Self.absurd(&rng)))
                }
                events.append(InputEvent(time: time, type: 0, code: 0, value: 0))
            }
            let text = LibinputText(devices: [.init(node: "/dev/input/event1", capabilities: capabilities, events: events)]).text
            return Array(text.utf8)
        }
        #expect(outcomes.contains { $0.replayed })
    }

    @Test("clocks that run backwards: the replay holds the time, frames never go back")
    func backwards() throws {
        let (description, events) = try LibinputRecordingTests.threeM(events: 300)
        let count = Self.iterations(200)
        let outcomes = Self.run("backwards clock", count: count, seed: Self.seed(0x6261_636B)) { rng in
            var shuffled = LibinputText.relative(events)
            for _ in 0..<(1 + Int(rng.next() % 8)) {
                let i = Int(rng.next() % UInt64(shuffled.count))
                shuffled[i].time = Timestamp(microseconds: Int64(rng.next() % 10_000_000))
            }
            let text = LibinputText(devices: [.init(node: "/dev/input/event5", capabilities: description, events: shuffled)]).text
            return Array(text.utf8)
        }
        #expect(outcomes.filter { $0.timeReversals > 0 }.count > count / 2)
    }
}
