import Foundation
import GestureEngine
import GestureProtocol
import Glibc
import TestSupport
import Testing
import TouchInput

/// The recorders the field-recording cases need besides gestured: libinput's (libinput-tools,
/// `/usr/libexec/libinput/libinput-record`, which `libinput record` runs) and evemu's
/// (evemu-tools); scripts/e2e.sh copies both into the guest. In the VM's udev boot they must be
/// there: a harness that lost them fails those cases rather than skipping them.
enum Recorders {
    static let libinput = "/usr/libexec/libinput/libinput-record"
    static let evemu = "/usr/bin/evemu-record"
    static var available: Bool { access(libinput, X_OK) == 0 && access(evemu, X_OK) == 0 }
    static let reason: Comment = "needs libinput-tools and evemu-tools (scripts/e2e.sh's udev boot)"

    static func check() throws {
        guard !available else { return }
        throw FixtureError("\(libinput) or \(evemu) is missing in the VM's udev boot: scripts/e2e.sh copies them in")
    }
}

extension EndToEndTests {
    /// Field recordings through the kernel (docs/RECORDING.md): `gestured record` of a panel the
    /// daemon holds grabbed, and libinput's and evemu's recorders of a panel nothing grabs. Each
    /// file is checked by what `gestured replay` makes of it: the same gestures, in the same
    /// order, at the same times (from each file's first event, where the tools' clocks differ).
    @Suite("record", .timeLimit(.minutes(3)))
    struct Record {
        /// A gesture of each common kind (Tests/TouchInputTests/Fixtures/field.script).
        static let steps = [
            "tap at=0.3,0.3", "double-tap at=0.6,0.4", "swipe right at=0.5,0.6", "long-press at=0.4,0.7",
            "pan from=0.2,0.2 to=0.6,0.5", "pinch out at=0.5,0.5", "swipe left fingers=2 at=0.5,0.5",
        ]

        /// A gesture as it compares between a daemon and a replay: without what numbers it within
        /// one process (`seq`, the touch ids) and the device's label, its keys sorted, its times
        /// less `origin`.
        static func comparable(_ json: some Collection<UInt8>, origin: Int64 = 0) throws -> String {
            var object = try #require(try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
            for key in ["seq", "touches", "device"] { object[key] = nil }
            for key in ["time_us", "start_time_us"] {
                if let time = object[key] as? Int64 { object[key] = time - origin }
            }
            return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
        }

        /// What `gestured replay FILE` prints, each gesture comparable; with `relative`, its times
        /// from the file's first event (libinput record writes them so, evemu-record and gestured
        /// record the kernel's clock).
        static func replayed(_ file: String, relative: Bool = false, fixture: EndToEndFixture) async throws -> [String] {
            let origin = relative ? try #require(try RecordingFile.recording(at: file).allEvents().first).time.microseconds : 0
            let replay = try ChildProcess([fixture.gestured, "replay", file])
            #expect(try await replay.waitForExit(within: EndToEndFixture.patience) == 0, "\(replay.lines.suffix(5))")
            return try replay.lines.filter { $0.hasPrefix("{") }.map { try comparable(Array($0.utf8), origin: origin) }
        }

        /// Waits until process `pid` has `devnode` open (a recorder has opened the panel).
        static func waitUntilOpen(_ devnode: String, by process: ChildProcess) async throws {
            let watched = Observed(false)
            let fds = "/proc/\(process.processIdentifier)/fd"
            let deadline = ContinuousClock.now + EndToEndFixture.patience
            while ContinuousClock.now < deadline {
                let open = ((try? FileManager.default.contentsOfDirectory(atPath: fds)) ?? []).contains {
                    (try? FileManager.default.destinationOfSymbolicLink(atPath: fds + "/" + $0)) == devnode
                }
                if open || process.output.value.status != nil {
                    watched.update { $0 = open }
                    break
                }
                // Polling /proc: the kernel tells no one that a file was opened.
                try await Task.sleep(for: .milliseconds(20))
            }
            guard watched.value else { throw FixtureError("\(process.lines.suffix(5)): \(devnode) was not opened") }
        }

        @Test("gestured record through a grabbed panel replays to the gestures the daemon published, in order and at their times")
        func recordGrabbedPanel() async throws {
            try await EndToEndFixture.run { fixture in
                try fixture.writePassthroughConfiguration()
                let daemon = try await fixture.startDaemon()
                let panel = try await fixture.panel(steps: Self.steps)
                let client = try await fixture.subscribe(Subscription())
                let device = try await client.device(named: panel.name)
                _ = try await fixture.mirror(of: device.label, daemon: daemon)
                let file = fixture.directory + "/recorded.evemu"
                let record = try ChildProcess([
                    fixture.gestured, "record", "--socket", fixture.socket, "--device", device.label, "-o", file,
                ])
                fixture.track(record, as: "gestured record")
                try await record.waitForLines(containing: "gestured record: recording \(device.label)", count: 1)
                panel.play()
                try await client.gesture("the two-finger pan to end, the script's last") {
                    $0.name == "pan" && $0.fingers == 2 && $0.state == .ended
                }
                try await panel.waitUntilPlayed()
                // Ctrl-C ends the file cleanly: the daemon sends what it read, then stops.
                record.send(SIGINT)
                #expect(try await record.waitForExit(within: EndToEndFixture.patience) == 0, "\(record.lines)")
                #expect(record.lines.last?.contains("events of \(device.label) written to \(file) (stopped)") == true)
                try await daemon.waitForLines(containing: "recording stopped", count: 1)
                #expect(daemon.lines.contains { $0.contains("recording stopped") && $0.contains("reason=requested") })

                var encoder = LineEncoder()
                let live = try client.gestures.map { try Self.comparable(try encoder.encode(.gesture($0)).dropLast()) }
                let replayed = try await Self.replayed(file, fixture: fixture)
                #expect(live.count >= 7, "\(live.count) gestures published")
                let difference = replayed.indices.first { $0 >= live.count || replayed[$0] != live[$0] }
                #expect(
                    replayed.count == live.count && difference == nil,
                    """
                    replayed \(replayed.count) gestures, the daemon published \(live.count); first difference: \
                    \(difference.map { "\($0): \(replayed[$0])" } ?? "none")
                    """)
                try await panel.unplug()
                try await fixture.finish(daemon)
            }
        }

        @Test(
            "libinput record and evemu-record of the same panel, which nothing grabs, replay to the same gestures",
            .enabled(if: Recorders.available || Libinput.required, Recorders.reason))
        func libinputAndEvemuAgree() async throws {
            try Recorders.check()
            try await EndToEndFixture.run { fixture in
                let panel = try await fixture.panel(steps: Self.steps)
                let yml = fixture.directory + "/field.yml"
                let evemu = fixture.directory + "/field.evemu"
                let libinput = try ChildProcess([Recorders.libinput, "-o", yml, panel.devnode])
                fixture.track(libinput, as: "libinput record")
                let evemuRecord = try ChildProcess(["sh", "-c", "exec \(Recorders.evemu) \(panel.devnode) > \(evemu)"])
                fixture.track(evemuRecord, as: "evemu-record")
                try await Self.waitUntilOpen(panel.devnode, by: libinput)
                try await Self.waitUntilOpen(panel.devnode, by: evemuRecord)
                panel.play()
                try await panel.waitUntilPlayed()
                // libinput's recorder ends its file at Ctrl-C; evemu-record, which the tests'
                // processes may start with SIGINT ignored, ends when the panel goes away.
                libinput.send(SIGINT)
                _ = try await libinput.waitForExit(within: EndToEndFixture.patience)
                try await panel.unplug()
                _ = try await evemuRecord.waitForExit(within: EndToEndFixture.patience)

                let fromLibinput = try await Self.replayed(yml, relative: true, fixture: fixture)
                let fromEvemu = try await Self.replayed(evemu, relative: true, fixture: fixture)
                #expect(fromLibinput.count >= 7, "\(fromLibinput.count) gestures from libinput record")
                #expect(fromLibinput == fromEvemu, "libinput: \(fromLibinput.count), evemu: \(fromEvemu.count)")
            }
        }
    }
}
