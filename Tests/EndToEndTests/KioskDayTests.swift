import Foundation
import GestureEngine
import GestureProtocol
import Glibc
import TestSupport
import Testing

extension EndToEndTests {
    /// A kiosk's day through the kernel (docs/CONFIGURATION.md, "A kiosk's day"): panels made by
    /// `simulate`, the daemon owning them (`passthrough`), libinput reading the mirror as a
    /// compositor would, and `gestured actions` acting on `wake`, `idle` and `active`.
    @Suite("a kiosk's day", .timeLimit(.minutes(3)))
    struct KioskDay {
        /// A configuration owning this case's panels with `entry` (YAML lines of the device entry)
        /// and `top` (top-level keys), and no recognizers: everything else reaches the mirror.
        static func write(_ fixture: EndToEndFixture, entry: String = "", top: String = "") throws {
            let indented = entry.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n")
            let text = """
                \(top)
                recognizers: []
                devices:
                  - match:
                      name: "\(fixture.prefix)*"
                    passthrough: true
                \(indented)
                  - enabled: false

                """
            try text.write(toFile: fixture.configPath, atomically: true, encoding: .utf8)
        }

        /// libinput's touch events but motion, as `KIND x%` (x of the surface, rounded).
        static func touches(_ events: [LibinputReader.Event]) -> [String] {
            events.filter { $0.kind != "TOUCH_MOTION" }.map {
                $0.kind == "TOUCH_DOWN" ? "DOWN \(Int($0.percent.x.rounded()))" : String($0.kind.dropFirst(6))
            }
        }

        /// A case's panel (its script not played yet), a client taking raw touches, and libinput
        /// reading the panel's mirror as a compositor would. `client` when the case subscribed
        /// before the panel appeared.
        struct Watched {
            let panel: SimulatedPanel
            let client: Subscriber
            let device: DeviceInfo
            let libinput: LibinputReader
        }

        static func watch(
            _ fixture: EndToEndFixture, daemon: ChildProcess, steps: [String], client subscribed: Subscriber? = nil
        ) async throws -> Watched {
            let panel = try await fixture.panel(steps: steps)
            let client: Subscriber
            if let subscribed {
                client = subscribed
            } else {
                client = try await fixture.subscribe(Subscription(touches: true))
            }
            let device = try await client.device(named: panel.name)
            let mirror = try await fixture.mirror(of: device.label, daemon: daemon)
            let libinput = try await LibinputReader.start(mirror.devnode, fixture: fixture)
            return Watched(panel: panel, client: client, device: device, libinput: libinput)
        }

        /// Waits until libinput read a lift on the mirror (`what` names it), the panel played its
        /// script, and the socket delivered a lift too (the socket and the mirror are two paths);
        /// returns what libinput read, as ``touches(_:)`` gives it.
        static func lastLift(_ watched: Watched, what: String) async throws -> [String] {
            try await watched.libinput.wait(for: what) { events in events.contains { $0.kind == "TOUCH_UP" } }
            try await watched.panel.waitUntilPlayed()
            try await watched.client.waitFor("the last lift on the socket") {
                if case .touch(let t) = $0 { t.phase == .ended } else { false }
            }
            return touches(watched.libinput.events)
        }

        /// Unplugs the panel, stops the daemon and the libinput reader.
        static func finish(_ watched: Watched, _ fixture: EndToEndFixture, daemon: ChildProcess) async throws {
            try await watched.panel.unplug()
            try await fixture.finish(daemon)
            watched.libinput.process.send(SIGTERM)
        }

        @Test(
            "the screen's dpms file says Off: a tap is swallowed — nothing on the mirror, a wake message, the actions light the screen — and the next tap arrives whole",
            .enabled(if: Libinput.available || Libinput.required, Libinput.reason))
        func wakeByScreenFile() async throws {
            try Libinput.check()
            try await EndToEndFixture.run { fixture in
                let dpms = fixture.directory + "/dpms"
                try "Off\n".write(toFile: dpms, atomically: true, encoding: .utf8)
                try Self.write(fixture, entry: "screen: {dpms: \(dpms)}")
                let daemon = try await fixture.startDaemon()
                let actions = try await fixture.startActions(
                    """
                    actions:
                      - on: wake
                        shell: "echo On > \(dpms)"

                    """)
                let watched = try await Self.watch(
                    fixture, daemon: daemon, steps: ["tap at=0.3,0.6", "pause", "tap at=0.7,0.6"])
                let (panel, client, device) = (watched.panel, watched.client, watched.device)
                panel.play()
                let wake = try await client.waitFor("the wake") { if case .wake = $0 { true } else { false } }
                guard case .wake(let woken) = wake[0].message else { return }
                #expect(woken.cause == .screenOff && woken.device == device.label)
                #expect(abs(woken.position.x - 0.3) < 0.01 && abs(woken.position.y - 0.6) < 0.01)
                // The actions client ran the command that turns the screen on.
                try await actions.process.waitForLines(containing: "command finished", count: 1)
                #expect(try String(contentsOfFile: dpms, encoding: .utf8) == "On\n")
                try await panel.waitForPause()
                panel.play()
                let mirrored = try await Self.lastLift(watched, what: "the second tap on the mirror")
                #expect(mirrored == ["DOWN 70", "UP"], "\(watched.libinput.events)")
                // The views (the socket's raw touches) never heard of the wake's touch either.
                #expect(!client.touches.contains { $0.id == woken.touch }, "\(client.touches)")
                #expect(client.touches.filter { $0.phase == .began }.count == 1)
                // The journal's line is the wake's sentence (PanelEventDeclaration).
                #expect(daemon.lines.contains { $0.contains("touch \(woken.touch.rawValue) woke the screen at") })
                try await Self.finish(watched, fixture, daemon: daemon)
            }
        }

        @Test(
            "the daemon's own idle: idle published, the next tap swallowed as a wake (active, wake), the one after it whole; actions run on idle and active",
            .enabled(if: Libinput.available || Libinput.required, Libinput.reason))
        func wakeAfterIdle() async throws {
            try Libinput.check()
            try await EndToEndFixture.run { fixture in
                try Self.write(fixture, top: "idle-after-ms: 1500\nwake-after-idle: true")
                let daemon = try await fixture.startDaemon()
                // A file each: the two commands run at once (none is waited for), so the order in
                // which they would append to one file is the scheduler's.
                let idleLog = fixture.directory + "/idle.log"
                let activeLog = fixture.directory + "/active.log"
                let actions = try await fixture.startActions(
                    """
                    actions:
                      - on: idle
                        shell: "echo idle $GESTURED_IDLE_MS >> \(idleLog)"
                      - on: active
                        shell: "echo active $GESTURED_EVENT >> \(activeLog)"

                    """)
                // Connected before the panel appears: its idle comes 1.5 s after the daemon opens it.
                let subscribed = try await fixture.subscribe(Subscription(touches: true))
                let watched = try await Self.watch(
                    fixture, daemon: daemon, steps: ["tap at=0.3,0.6", "tap at=0.7,0.6"], client: subscribed)
                let (client, device) = (watched.client, watched.device)
                // 1.5 s after the daemon opened the panel, with no touch: idle.
                try await client.waitFor("idle") { if case .idle(let i) = $0 { i.device == device.label } else { false } }
                watched.panel.play()
                let mirrored = try await Self.lastLift(watched, what: "the second tap on the mirror")
                #expect(mirrored == ["DOWN 70", "UP"], "\(watched.libinput.events)")
                let day = client.messages.compactMap { message -> String? in
                    switch message {
                    case .idle: "idle"
                    case .active: "active"
                    case .wake(let w): "wake \(w.cause.rawValue)"
                    default: nil
                    }
                }
                #expect(day.prefix(3) == ["idle", "active", "wake idle"], "\(day)")
                try await actions.process.waitForLines(containing: "command finished", count: 2)
                #expect(try String(contentsOfFile: idleLog, encoding: .utf8) == "idle 1500\n")
                #expect(try String(contentsOfFile: activeLog, encoding: .utf8) == "active active\n")
                try await Self.finish(watched, fixture, daemon: daemon)
            }
        }

        @Test(
            "a contact held still past the stuck limit is a cancelled touch on the mirror; a tap after it arrives whole",
            .enabled(if: Libinput.available || Libinput.required, Libinput.reason))
        func stuckContact() async throws {
            try Libinput.check()
            try await EndToEndFixture.run { fixture in
                try Self.write(fixture, top: "stuck-contact: {after-ms: 1000}")
                let daemon = try await fixture.startDaemon()
                let watched = try await Self.watch(
                    fixture, daemon: daemon, steps: ["stuck at=0.5,0.5 duration=3s", "tap at=0.3,0.3"])
                let client = watched.client
                watched.panel.play()
                let mirrored = try await Self.lastLift(watched, what: "the tap after the ghost")
                #expect(mirrored == ["DOWN 50", "CANCEL", "DOWN 30", "UP"], "\(watched.libinput.events)")
                let ghost = try #require(client.touches.first)
                let ghostPhases = client.touches.filter { $0.id == ghost.id }.map(\.phase)
                #expect(ghostPhases == [.began, .cancelled], "\(ghostPhases)")
                let ended = try #require(client.touches.first { $0.id == ghost.id && $0.phase == .cancelled })
                // Ended at the limit after it landed: the engine's deadline, in the kernel's time.
                let held = ended.time.microseconds - ghost.time.microseconds
                #expect(held == 1_000_000, "\(held) µs")
                #expect(daemon.lines.contains { $0.contains("touch \(ghost.id.rawValue) ended at") && $0.contains("(stuck-contact)") })
                try await Self.finish(watched, fixture, daemon: daemon)
            }
        }

        @Test(
            "a contact landing in a dead zone shows nothing on the mirror; one landing outside arrives",
            .enabled(if: Libinput.available || Libinput.required, Libinput.reason))
        func deadZone() async throws {
            try Libinput.check()
            try await EndToEndFixture.run { fixture in
                try Self.write(fixture, entry: "ignore:\n  - {x: 0, y: 0.9, width: 1, height: 0.1}")
                let daemon = try await fixture.startDaemon()
                let watched = try await Self.watch(
                    fixture, daemon: daemon, steps: ["tap at=0.4,0.95", "tap at=0.6,0.5"])
                watched.panel.play()
                let mirrored = try await Self.lastLift(watched, what: "the tap outside the zone")
                #expect(mirrored == ["DOWN 60", "UP"], "\(watched.libinput.events)")
                #expect(watched.client.touches.filter { $0.phase == .began }.count == 1)
                try await Self.finish(watched, fixture, daemon: daemon)
            }
        }
    }
}
