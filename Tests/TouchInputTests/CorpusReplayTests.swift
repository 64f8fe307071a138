import TouchValues
import Testing

@testable import TouchInput

/// Every real recording of the optional corpus (`$GESTURED_CORPUS`) replays without a crash, every
/// touch that began ends or is cancelled, and unsupported devices are refused with a message.
/// Skipped, with that reason printed, when the variable is unset (a clean clone).
@Suite(.enabled(if: Corpus.configured, "set GESTURED_CORPUS to a folder of evemu or libinput recordings to run the corpus tests"))
struct CorpusReplayTests {
    /// Devices in the corpus that are not touchscreens, and why.
    static let expectedRefusals: [String: SkipReason] = [
        "evemu-repo/bcm5974.event.xz": .touchpad,
        "hid-devices/posiflex_0d3a_a000_0.ev.xz": .absolutePointer,
    ]

    @Test("GESTURED_CORPUS names a folder of recordings")
    func folder() {
        let path = Corpus.configuredPath ?? ""
        #expect(Corpus.recordingsFolder != nil, "GESTURED_CORPUS=\(path) is not a folder")
        #expect(!Corpus.recordings.isEmpty, "no recordings (*.ev*) under GESTURED_CORPUS=\(path)")
    }

    @Test("every recording replays with a closed frame stream", arguments: Corpus.recordings)
    func replay(_ file: String) throws {
        let recording = try RecordingFile.recording(bytes: Corpus.bytes(of: file))
        let source: ReplaySource
        do {
            source = try ReplaySource(
                recording: recording, id: DeviceID(1), label: file,
                settings: DeviceSettings(forceTouchscreen: Corpus.isTabletTouchLayer(file)))
        } catch {
            #expect(Self.expectedRefusals[file] == error, "\(file) refused: \(error)")
            #expect(!error.description.isEmpty)
            return
        }
        #expect(Self.expectedRefusals[file] == nil, "\(file) should have been refused")
        var replay = source
        let checker = try FrameStreamChecker.checking(&replay, batch: 4096)
        #expect(checker.problems.isEmpty, "\(file): \(checker.problems)")
        #expect(checker.live.isEmpty)
        #expect(checker.began > 0, "\(file) produced no touches")
        #expect(checker.began == checker.ended + checker.cancelled)
        #expect(replay.assembler.liveTouchCount == 0)
    }

    @Test("every device description parses", arguments: Corpus.descriptions)
    func description(_ file: String) throws {
        let recording = try EvemuRecording(bytes: Corpus.bytes(of: file))
        #expect(!recording.description.name.isEmpty)
        #expect(try recording.allEvents().isEmpty)
    }
}
