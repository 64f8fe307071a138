import Foundation
import GestureEngine
import Testing
import TouchInput

@testable import GestureDaemon

/// The replay driver's arithmetic on hostile recordings and speeds: it
/// saturates instead of trapping, and a loop whose clock would overflow stops with a reason.
@Suite struct ReplayDriverTests {
    /// The WeTab fixture plus a touch left down at `E: 9000000000.000000`: every pass moves the
    /// engine clock ~7.7·10^15 µs on.
    static func farFutureText() throws -> String {
        let text = try String(contentsOfFile: DaemonProcessTests.recording, encoding: .utf8)
        let farFuture = [
            "0003 0039 0500", "0003 0035 13552", "0003 0036 27360", "0001 014a 0001", "0000 0000 0000",
        ].map { "E: 9000000000.000000 \($0)\n" }.joined()
        return text + farFuture
    }

    static func farFutureRecording() throws -> Recording {
        Recording(try EvemuRecording(bytes: Array(try farFutureText().utf8)))
    }

    /// Plays one pass unpaced: every frame, then the pass's end; the engine time reached.
    static func playPass(_ driver: ReplayDriver, engineTime: inout Timestamp) throws(ReplayError) {
        var frames = TouchFrameBuffer()
        while !driver.isPassFinished {
            frames.removeAll()
            try driver.takeDue(wallNow: 0, into: &frames)
            for frame in frames {
                #expect(frame.time >= engineTime, "engine time never runs backwards")
                engineTime = max(engineTime, frame.time)
            }
        }
    }

    @Test("a looped recording whose clock would overflow stops after the last pass that fits")
    func clockRunsOut() throws {
        let driver = try ReplayDriver(
            recording: try Self.farFutureRecording(), label: "far", settings: DeviceSettings(), speed: nil,
            loops: true, id: DeviceID(1))
        var engineTime = Timestamp(microseconds: 0)
        var stop: ReplayError?
        for pass in 0..<2_000 {
            do {
                try Self.playPass(driver, engineTime: &engineTime)
            } catch {
                stop = error
                break
            }
            #expect(try driver.finishPass(engineTime: engineTime, wallNow: 0, nextID: DeviceID(UInt32(pass + 2))))
        }
        guard case .clockExhausted(let passes) = try #require(stop) else {
            Issue.record("stopped for another reason: \(String(describing: stop))")
            return
        }
        // 2^62 µs / ~7.7·10^15 µs per pass.
        #expect((590...610).contains(passes), "\(passes) passes")
        #expect(engineTime.microseconds <= ReplayDriver.maxEngineTime)
    }

    @Test(
        "pacing at any positive speed saturates instead of trapping",
        arguments: [1e-300, 1e-14, 0.01, 1, 1000, 1e15, 1e300, Double.greatestFiniteMagnitude])
    func extremeSpeeds(speed: Double) throws {
        let driver = try ReplayDriver(
            recording: try Self.farFutureRecording(), label: "far", settings: DeviceSettings(), speed: speed,
            loops: true, id: DeviceID(1))
        var frames = TouchFrameBuffer()
        // Wall times from the start to the far end of the monotonic clock.
        for wallNow: Int64 in [1, 2, 1_000_000, Int64.max / 2, Int64.max - 1] {
            try driver.takeDue(wallNow: wallNow, into: &frames)
            _ = driver.engineNow(wallNow: wallNow)
            _ = driver.nextFrameWallTime()
            _ = driver.wallTime(ofEngineTime: Timestamp(microseconds: Int64.max))
            _ = driver.wallTime(ofEngineTime: Timestamp(microseconds: Int64.min))
        }
        #expect(frames.allSatisfy { $0.time.microseconds <= ReplayDriver.maxEngineTime })
        _ = try driver.finishPass(
            engineTime: Timestamp(microseconds: ReplayDriver.maxEngineTime), wallNow: Int64.max - 1,
            nextID: DeviceID(2))
        driver.resume(wallNow: Int64.max)
    }

    @Test("a loop over a recording without a touch frame stops after its first pass")
    func nothingToLoop() throws {
        let text = try String(contentsOfFile: DaemonProcessTests.recording, encoding: .utf8)
        let header = text.split(separator: "\n").filter { !$0.hasPrefix("E:") }.joined(separator: "\n") + "\n"
        let driver = try ReplayDriver(
            recording: Recording(try EvemuRecording(bytes: Array(header.utf8))), label: "empty",
            settings: DeviceSettings(),
            speed: nil, loops: true, id: DeviceID(1))
        var engineTime = Timestamp(microseconds: 0)
        try Self.playPass(driver, engineTime: &engineTime)
        do {
            _ = try driver.finishPass(engineTime: engineTime, wallNow: 0, nextID: DeviceID(2))
            Issue.record("a second pass of nothing")
        } catch {
            guard case .nothingToLoop = error else {
                Issue.record("\(error)")
                return
            }
        }
    }

    @Test("saturating helpers hold at the ends of Int64")
    func saturation() {
        #expect(ReplayDriver.adding(Int64.max, 1) == Int64.max)
        #expect(ReplayDriver.adding(Int64.min, -1) == Int64.min)
        #expect(ReplayDriver.subtracting(Int64.min, 1) == Int64.min)
        #expect(ReplayDriver.subtracting(Int64.max, -1) == Int64.max)
        #expect(ReplayDriver.clamped(1e300) == Int64.max)
        #expect(ReplayDriver.clamped(-1e300) == Int64.min)
        #expect(ReplayDriver.clamped(.nan) == 0)
        #expect(ReplayDriver.clamped(0x1p63) == Int64.max)
        #expect(ReplayDriver.clamped(12.9) == 12)
    }
}
