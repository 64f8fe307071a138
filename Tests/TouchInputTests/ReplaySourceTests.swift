import Testing
import TouchValues

@testable import TouchInput
@testable import VirtualDevices

/// Replays keep the recording's clock and leave nothing down.
@Suite struct ReplaySourceTests {
    static func recording(_ lines: [String]) throws -> EvemuRecording {
        let writer = EvemuWriter(device: DeviceProfile.kiosk10.capabilities())
        return try EvemuRecording(text: writer.text + lines.joined(separator: "\n") + "\n")
    }

    @Test("frames carry the recording's timestamps (epoch seconds) and the end cancels what is down")
    func clock() throws {
        let r = try Self.recording([
            "E: 1299660667.063211 0003 002f 0", "E: 1299660667.063211 0003 0039 5",
            "E: 1299660667.063211 0003 0035 100",
            "E: 1299660667.063211 0000 0000 0", "E: 1299660667.073311 0003 0035 200",
            "E: 1299660667.073311 0000 0000 0",
        ])
        var replay = try ReplaySource(recording: r, id: DeviceID(3), label: "x.evemu")
        #expect(replay.descriptor.label == "x.evemu")
        var frames = TouchFrameBuffer()
        #expect(try replay.next(into: &frames))
        #expect(frames[0].time == Timestamp(microseconds: 1_299_660_667_063_211))
        #expect(try replay.next(into: &frames))
        #expect(frames[1].time == Timestamp(microseconds: 1_299_660_667_073_311))
        #expect(try !replay.next(into: &frames))
        replay.finish(into: &frames)
        #expect(frames.count == 3)
        #expect(frames[2].phases == [1: .cancelled])
        #expect(frames[2].time == frames[1].time)
    }

    @Test(
        "the committed recordings replay with a closed frame stream",
        arguments: [
            ("wetab.event", 11), ("ntrig-dell-xt2.event", 4), ("3m.event.xz", 34), ("field.yml", 10),
            ("field.evemu", 10),
        ])
    func fixtures(_ name: String, _ touches: Int) throws {
        var replay = try ReplaySource(
            recording: RecordingFile.recording(bytes: Fixture.bytes(name)), id: DeviceID(1), label: name)
        let checker = try FrameStreamChecker.checking(&replay, batch: 1000)
        #expect(checker.problems.isEmpty, "\(checker.problems)")
        #expect(checker.began == touches)
        #expect(checker.live.isEmpty)
    }

    @Test("time that runs backwards is held at the last time")
    func backwards() throws {
        let r = try Self.recording([
            "E: 5.000000 0003 0039 5", "E: 5.000000 0000 0000 0", "E: 4.000000 0003 0035 200",
            "E: 4.000000 0000 0000 0",
        ])
        var replay = try ReplaySource(recording: r, id: DeviceID(3), label: "x")
        var frames = TouchFrameBuffer()
        while try replay.next(into: &frames) {}
        #expect(frames.map(\.time.microseconds) == [5_000_000, 5_000_000])
        #expect(replay.timeReversals == 2)
    }

    @Test("a recording of a touchpad is refused with the reason")
    func refused() throws {
        let writer = EvemuWriter(device: DeviceProfile.touchpad.capabilities())
        #expect(throws: SkipReason.touchpad) {
            try ReplaySource(recording: try EvemuRecording(text: writer.text), id: DeviceID(1), label: "pad")
        }
    }

    @Test("the frame buffer reuses its storage: frames stay correct across clears")
    func bufferReuse() throws {
        var buffer = TouchFrameBuffer()
        let touch = Touch(id: TouchID(1), phase: .began, position: SurfacePoint(x: 0, y: 0))
        buffer.append(TouchFrame(device: DeviceID(1), time: Timestamp(microseconds: 1), touches: [touch, touch]))
        let kept = buffer[0]
        buffer.removeAll()
        buffer.append(TouchFrame(device: DeviceID(2), time: Timestamp(microseconds: 2), touches: [touch]))
        #expect(buffer.count == 1)
        #expect(buffer[0].touches.count == 1)
        #expect(buffer[0].device == DeviceID(2))
        #expect(kept.touches.count == 2)  // a copy taken before the clear is not disturbed
    }
}
