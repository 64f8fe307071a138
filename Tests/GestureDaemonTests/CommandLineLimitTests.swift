import Foundation
import Glibc
import TestSupport
import Testing

/// The command line's limits, each checked in one place and refused the same way by every command
/// that takes the value: playback speeds (``PlaybackSpeed``), socket paths (``SocketPath``),
/// files that are not what they should be (recordings that are one endless line, a FIFO or a
/// device as the configuration).
@Suite("command-line limits", .timeLimit(.minutes(3)))
struct CommandLineLimitTests {
    static let recording = DaemonProcessTests.recording

    // MARK: --speed

    /// `simulate --speed 1e-17` trapped (Double to Int64 in SimulateCommand.swift) and `run`
    /// took `0x10` as 16 and reported `-1` as a missing value. Both commands now refuse every one
    /// of these with the same sentence; `run` alone offers `max`.
    @Test(
        "--speed outside 0.01…1000, or not a plain number, is refused alike by run and simulate",
        arguments: ["1e-17", "1e-14", "1e-12", "0.009", "1001", "1e300", "0", "-1", "0x10", "nan", "inf", "fast", "max"])
    func speedRefused(speed: String) async throws {
        let gestured = try DaemonProcessTests.gestured()
        let directory = try DaemonProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let number = "a number from 0.01 to 1000 (times real time)"
        let simulate = try ChildProcess([
            gestured, "simulate", "--record", directory + "/x.evemu", "--speed", speed, "long-press duration=2s",
        ])
        #expect(try await simulate.waitForExit() == 64, "\(simulate.lines)")
        #expect(simulate.lines.contains { $0.contains("'\(speed)'") && $0.contains("must be \(number)") }, "\(simulate.lines)")
        guard speed != "max" else { return }
        let run = try ChildProcess([
            gestured, "run", "--socket", directory + "/g.sock", "--replay", Self.recording, "--speed", speed,
        ])
        #expect(try await run.waitForExit() == 64, "\(run.lines)")
        #expect(run.lines.contains { $0.contains("'\(speed)'") && $0.contains("must be 'max' or \(number)") }, "\(run.lines)")
    }

    @Test("the ends of the speed range record a script that replay takes", arguments: ["0.01", "1000", "1e3", "+2.5"])
    func speedAccepted(speed: String) async throws {
        let gestured = try DaemonProcessTests.gestured()
        let directory = try DaemonProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/x.evemu"
        let simulate = try ChildProcess([gestured, "simulate", "--record", file, "--speed", speed, "tap"])
        #expect(try await simulate.waitForExit() == 0, "\(simulate.lines)")
        let replay = try ChildProcess([gestured, "replay", file])
        #expect(try await replay.waitForExit() == 0, "\(replay.lines)")
    }

}
