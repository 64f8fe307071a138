import GestureEngine
import Testing

@testable import TouchInput

/// Must-show 1: every real recording of ../shared/corpus replays without a crash, every touch that
/// began ends or is cancelled, and unsupported devices are refused with a message. Skipped when
/// the corpus is absent (a clean clone in CI).
@Suite(.enabled(if: Corpus.available, "needs ../shared/corpus or $GESTURED_CORPUS"))
struct CorpusReplayTests {
    /// Devices in the corpus that are not touchscreens, and why.
    static let expectedRefusals: [String: SkipReason] = [
        "evemu-repo/bcm5974.event.xz": .touchpad,
        "hid-devices/posiflex_0d3a_a000_0.ev.xz": .absolutePointer,
    ]

    @Test("every recording replays with a closed frame stream", arguments: Corpus.recordings)
    func replay(_ file: String) throws {
        let recording = try EvemuRecording(bytes: Corpus.bytes(of: file))
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
