import Foundation
import Glibc
import TestSupport
import Testing

/// Device data that no real panel sends, as `replay` and `run --replay` meet it in a recording:
/// refused or said, never taken silently.
@Suite("device data no panel sends", .timeLimit(.minutes(10)))
struct DeviceDataTests {
    /// A recording of a swipe to the right, made by `simulate --record` (a 10-slot panel).
    static func swipe(in directory: String) async throws -> String {
        let file = directory + "/swipe.evemu"
        let simulate = try ChildProcess([
            try DaemonProcessTests.gestured(), "simulate", "--record", file, "swipe right",
        ])
        #expect(try await simulate.waitForExit() == 0, "\(simulate.lines)")
        return file
    }

    /// A position axis whose minimum is above its maximum was taken silently: a 16 000-unit
    /// swipe replayed as a tap at (0, 0), explained as "stroke 0 mm", with nothing in `replay`,
    /// `run` or the journal. `replay` and `run --replay` refuse it, naming the axis.
    @Test("a recording whose panel has a reversed position axis is refused by replay and run, naming the axis")
    func reversedAxis() async throws {
        let gestured = try DaemonProcessTests.gestured()
        let directory = try DaemonProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let swipe = try await Self.swipe(in: directory)
        let text = try String(contentsOfFile: swipe, encoding: .utf8)
        #expect(text.contains("A: 35 0 32767 0 0 64\n"))
        let reversed = directory + "/reversed.evemu"
        try text.replacingOccurrences(of: "A: 35 0 32767 0 0 64\n", with: "A: 35 32767 0 0 0 64\n")
            .write(toFile: reversed, atomically: true, encoding: .utf8)
        let says =
            "its ABS_MT_POSITION_X axis has no range (minimum 32767, maximum 0): "
            + "no position it reports can be placed on the panel"
        let replay = try ChildProcess([gestured, "replay", reversed])
        #expect(try await replay.waitForExit() == 1)
        #expect(
            replay.lines.contains { $0.hasPrefix("gestured replay: reversed.evemu: ") && $0.hasSuffix(says) },
            "\(replay.lines)")
        #expect(!replay.lines.contains { $0.contains(#""type":"gesture""#) })
        let run = try ChildProcess([gestured, "run", "--socket", directory + "/g.sock", "--replay", reversed])
        defer { run.send(SIGKILL) }
        #expect(try await run.waitForExit() != 0, "\(run.lines)")
        #expect(run.lines.contains { $0.contains(says) }, "\(run.lines)")
    }

    /// 100 contacts at once in slots 0…99 of a 10-slot panel: the recognizers were told of 64
    /// fingers down (the engine's table, full), which no one had put down. The slots the panel
    /// does not have are dropped, as the kernel drops them: the explanations count the ten
    /// fingers of its ten slots, and `replay` says what it dropped.
    @Test("contacts in slots a panel does not have are dropped and said, not explained as 64 fingers")
    func slotsBeyondThePanel() async throws {
        let gestured = try DaemonProcessTests.gestured()
        let directory = try DaemonProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let swipe = try String(contentsOfFile: try await Self.swipe(in: directory), encoding: .utf8)
        var events: [String] = []
        for k in 0..<100 {
            events += [
                "E: 1.000000 0003 002f \(k)", "E: 1.000000 0003 0039 \(k + 1000)",
                "E: 1.000000 0003 0035 \(1000 + k * 300)", "E: 1.000000 0003 0036 16000",
            ]
        }
        events.append("E: 1.000000 0000 0000 0")
        for k in 0..<100 { events += ["E: 1.050000 0003 002f \(k)", "E: 1.050000 0003 0039 -1"] }
        events.append("E: 1.050000 0000 0000 0")
        let many = directory + "/many.evemu"
        try (String(swipe[..<swipe.range(of: "E: ")!.lowerBound]) + events.joined(separator: "\n") + "\n")
            .write(toFile: many, atomically: true, encoding: .utf8)
        let replay = try ChildProcess([gestured, "replay", "--explain", many])
        #expect(try await replay.waitForExit() == 0, "\(replay.lines.suffix(3))")
        let fingers = replay.lines.filter { $0.contains(#""check":"too-many-fingers""#) }
        #expect(!fingers.isEmpty)
        #expect(fingers.allSatisfy { $0.contains(#""measured":10,"#) }, "\(fingers.prefix(2))")
        #expect(!replay.lines.contains { $0.contains("64 fingers") })
        #expect(
            replay.lines.contains {
                $0 == "gestured replay: many.evemu: 540 events for slots outside the panel's 0…9, up to slot 99, "
                    + "were dropped, as the kernel drops them: the contacts they describe were not followed"
            }, "\(replay.lines.filter { !$0.hasPrefix("{") })")
    }
}
