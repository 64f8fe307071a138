import Foundation
import GestureClient
import GestureProtocol
import Glibc
import TestSupport
import Testing

@testable import GestureDaemon

/// What the daemon and `gestured actions` write to the journal: one line a message, whatever
/// text it carries, and not a line a pass of a looped replay.
@Suite("journal lines", .timeLimit(.minutes(10)))
struct JournalLineTests {
    /// A NUL or a newline in a message (a command's output, a name from a file) started a new
    /// journal entry, which could claim its own priority (`<0>`); escape sequences reached
    /// terminals. Control characters are written escaped; everything else as it is.
    @Test("control characters in a message or its metadata are written escaped, on one line")
    func controlCharactersEscaped() {
        #expect(
            JournalLogHandler.escaped("a\0<0>b\nc\r\u{1B}[31m\u{7F}\u{85}") == #"a\0<0>b\nc\r\u{1B}[31m\u{7F}\u{0085}"#)
        #expect(JournalLogHandler.escaped("plain – text, é, 🙂") == "plain – text, é, 🙂")
    }

    /// `run --replay --loop --speed max` wrote two info lines a pass (23 914 in 15 s). The first
    /// pass is logged; the others at debug level only.
    @Test("a looped replay logs its first pass, not every pass")
    func loopedReplayLogsOnce() async throws {
        let directory = try DaemonProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = directory + "/g.sock"
        let daemon = try await DaemonProcessTests.startDaemon([
            "--socket", socket, "--replay", DaemonProcessTests.recording, "--loop", "--speed", "max",
        ])
        defer { daemon.send(SIGKILL) }
        // Each pass is a device of its own: 20 added are 20 passes begun.
        try await GestureClient.connect(to: socket) { client in
            var added = 0
            for try await message in client.messages {
                if case .device(let device) = message, device.event == .added { added += 1 }
                if added >= 20 { break }
            }
        }
        daemon.send(SIGTERM)
        #expect(try await daemon.waitForExit(within: .seconds(10)) == 0)
        #expect(daemon.lines.count { $0.contains("info replaying ") } == 1, "\(daemon.lines.prefix(20))")
        #expect(daemon.lines.count { $0.contains("info replay pass done ") } == 1, "\(daemon.lines.prefix(20))")
    }
}
