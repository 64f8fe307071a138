import Foundation
import GestureDaemon
import Testing
import TouchInput

/// One session on a uinput panel in the VM, recorded at once by `libinput record` and by
/// `evemu-record` (Tests/TouchInputTests/Fixtures/field.*, scripts/vm/record-fixtures.sh): both
/// files replay to the same gestures and explanations, in the same order, at the same times.
@Suite("recordings in either format")
struct RecordingFormatTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("TouchInputTests/Fixtures")

    /// The messages `gestured replay --explain` prints for `file`, each as JSON with its times
    /// made relative to the recording's first event (libinput record writes them so; evemu-record
    /// writes the kernel's clock) and without the device's label (the file name).
    static func replay(_ file: String) throws -> [String] {
        let recording = try RecordingFile.recording(at: fixtures.appendingPathComponent(file).path)
        let origin = try #require(try recording.allEvents().first).time.microseconds
        var replay = try OfflineReplay(configuration: .builtIn, includeTouches: false, includeExplanations: true)
        var lines: [String] = []
        try replay.play(OfflineReplay.Input(label: file, recording: recording)) { line in
            lines.append(String(decoding: line, as: UTF8.self))
        }
        return try lines.map { line in
            var object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            object["device"] = nil
            for key in ["time_us", "start_time_us"] {
                if let time = object[key] as? Int64 { object[key] = time - origin }
            }
            return String(decoding: try JSONSerialization.data(withJSONObject: object, options: .sortedKeys), as: UTF8.self)
        }
    }

    @Test("a libinput record and an evemu-record of one session give the same gestures at the same times")
    func sameGestures() throws {
        let libinput = try Self.replay("field.yml")
        let evemu = try Self.replay("field.evemu")
        #expect(libinput.count > 100)
        #expect(libinput == evemu)
        // The session's script (field.script), gesture by gesture.
        let recognized = libinput.filter { $0.contains("\"type\":\"gesture\"") && $0.contains("\"state\":\"recognized\"") }
            .compactMap { line in line.split(separator: "\"name\":\"").dropFirst().first?.split(separator: "\"").first }
            .map(String.init)
        #expect(recognized == ["tap", "double-tap", "swipe", "swipe", "swipe"])
        #expect(libinput.contains { $0.contains("\"name\":\"long-press\"") && $0.contains("\"state\":\"began\"") })
        #expect(libinput.contains { $0.contains("\"name\":\"pinch\"") && $0.contains("\"state\":\"began\"") })
    }
}
