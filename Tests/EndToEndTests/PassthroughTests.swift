import Foundation
import GestureEngine
import GestureProtocol
import Glibc
import Logging
import Synchronization
import TestSupport
import Testing
import TouchInput

/// What the libinput cases need: Debian's libinput-tools in the guest (scripts/e2e.sh copies
/// them) and udevd, without which libinput ignores a device (it has no ID_INPUT properties).
/// In the VM's udev boot both must be there: a harness that lost the tool on the way fails those
/// cases rather than skipping them.
enum Libinput {
    static let path = "/usr/bin/libinput"
    static var available: Bool { access(path, X_OK) == 0 && access("/run/udev/control", F_OK) == 0 }
    static var required: Bool { ProcessInfo.processInfo.environment["GESTURED_VM_DISCOVERY"] == "udev" }
    static let reason: Comment = "needs libinput-tools and udevd (scripts/e2e.sh's udev boot)"

    /// Throws where libinput is required but missing.
    static func check() throws {
        guard !available else { return }
        throw FixtureError("\(path) or udevd is missing in the VM's udev boot: scripts/e2e.sh copies libinput-tools in")
    }
}

extension EndToEndTests {
    /// Touch ownership (docs/PASSTHROUGH.md): the daemon grabs a panel with `passthrough`
    /// and forwards what the views should see (R8) to a mirror device, which libinput reads as a
    /// compositor would. The panels are `kiosk-10`: 0…32767 on both axes at 64 × 114 units/mm.
    @Suite("passthrough", .timeLimit(.minutes(3)))
    struct Passthrough {
        /// An admin edge swipe from the top that claims its touches (and preempts the pan, which
        /// begins first: R5), and an observing pan that claims nothing (the subscriber gets a
        /// gesture, the mirror the whole touch).
        static func recognizers(delaysTouchesBegan: Bool = false) -> String {
            """
            recognizers:
              - name: admin
                kind: edge-swipe
                edges: [top]
                preempts: ["*"]
                delays-touches-began: \(delaysTouchesBegan)
              - name: watch
                kind: pan
                cancels-touches: false
                delays-touches-ended: false

            """
        }

        @Test(
            "an unclaimed one-finger pan reaches the mirror as down, motion, up with the panel's values",
            .enabled(if: Libinput.available || Libinput.required, Libinput.reason))
        func unclaimedPan() async throws {
            try Libinput.check()
            try await EndToEndFixture.run { fixture in
                try fixture.writePassthroughConfiguration(Self.recognizers())
                let daemon = try await fixture.startDaemon()
                let panel = try await fixture.panel(steps: ["pan from=0.2,0.5 to=0.8,0.5 duration=2s"])
                let client = try await fixture.subscribe(Subscription(gestures: ["watch", "admin"], touches: true))
                let device = try await client.device(named: panel.name)
                let mirror = try await fixture.mirror(of: device.label, daemon: daemon)
                let libinput = try await LibinputReader.start(mirror.devnode, fixture: fixture)
                let reader = try await MirrorReader.start(mirror.devnode)
                panel.play()
                try await libinput.wait(for: "the touch to end on the mirror") { $0.contains { $0.kind == "TOUCH_UP" } }
                try await client.gesture("the observing pan to end") { $0.name == "watch" && $0.state == .ended }
                try await client.wait(for: "the touch's end") { received in
                    received.contains { if case .touch(let t) = $0.message { t.phase == .ended } else { false } }
                }
                try await panel.waitUntilPlayed()

                // The daemon never opens its own mirror.
                let names = client.hello.devices.map(\.name) + client.deviceEvents.map(\.device.name)
                #expect(!names.contains(mirror.name), "\(names)")
                #expect(client.gestures.allSatisfy { $0.name == "watch" })

                // libinput saw one touch, whole, at the positions the daemon read from the panel.
                let touches = client.touches
                let events = libinput.events
                #expect(events.map(\.kind).filter { $0 != "TOUCH_MOTION" } == ["TOUCH_DOWN", "TOUCH_UP"])
                let drawn = touches.filter { $0.phase == .began || $0.phase == .moved }.map(Self.raw)
                let seen = events.filter { $0.kind == "TOUCH_DOWN" || $0.kind == "TOUCH_MOTION" }
                #expect(seen.count > 100 && seen.count == Self.distinct(drawn).count, "\(seen.count) of \(drawn.count)")
                for (event, expected) in zip(seen, Self.distinct(drawn)) {
                    // libinput prints mm with two decimals: within 0.32 (x) and 0.57 (y) units.
                    #expect(
                        abs(event.mm.x * 64 - Double(expected.x)) < 0.5
                            && abs(event.mm.y * 114 - Double(expected.y)) < 0.6,
                        "libinput \(event.mm) mm for \(expected)")
                }
                let first = try #require(touches.first)
                let last = try #require(touches.last { $0.phase == .moved })
                #expect(abs(first.position.x - 0.2) < 0.001 && abs(first.position.y - 0.5) < 0.001)
                #expect(abs(last.position.x - 0.8) < 0.001 && abs(last.position.y - 0.5) < 0.001)

                // A libevdev reader of the mirror gets the panel's exact values, frame for frame.
                let frames = try await reader.stop(expecting: touches.count)
                #expect(frames.map(\.phase) == touches.map(\.phase))
                #expect(frames.map(\.raw) == touches.map { Optional(Self.raw($0)) })
                try await panel.unplug()
                try await fixture.finish(daemon)
                libinput.process.send(SIGTERM)
            }
        }

        @Test(
            "a consuming edge swipe reaches the mirror as a touch cancel, or not at all with delays-touches-began",
            .enabled(if: Libinput.available || Libinput.required, Libinput.reason),
            arguments: [false, true])
        func claimedEdgeSwipe(delaysTouchesBegan: Bool) async throws {
            try Libinput.check()
            try await EndToEndFixture.run { fixture in
                try fixture.writePassthroughConfiguration(Self.recognizers(delaysTouchesBegan: delaysTouchesBegan))
                let daemon = try await fixture.startDaemon()
                // The tap afterwards is claimed by nobody: it must arrive, after whatever the swipe left.
                let panel = try await fixture.panel(steps: ["edge-swipe top at=0.5", "tap at=0.5,0.5"])
                let client = try await fixture.subscribe(Subscription(gestures: ["admin"]))
                let device = try await client.device(named: panel.name)
                let mirror = try await fixture.mirror(of: device.label, daemon: daemon)
                let libinput = try await LibinputReader.start(mirror.devnode, fixture: fixture)
                panel.play()
                try await client.gesture("the admin swipe") { $0.name == "admin" && $0.state == .began }
                try await libinput.wait(for: "the tap to reach the mirror") { events in
                    events.contains { $0.kind == "TOUCH_DOWN" && abs($0.percent.y - 50) < 0.1 }
                        && events.last?.kind == "TOUCH_UP"
                }
                try await panel.waitUntilPlayed()
                let kinds = libinput.events.map(\.kind).filter { $0 != "TOUCH_MOTION" }
                if delaysTouchesBegan {
                    #expect(kinds == ["TOUCH_DOWN", "TOUCH_UP"], "\(libinput.events)")
                } else {
                    #expect(kinds == ["TOUCH_DOWN", "TOUCH_CANCEL", "TOUCH_DOWN", "TOUCH_UP"], "\(libinput.events)")
                    let edge = try #require(libinput.events.first)
                    #expect(abs(edge.percent.x - 50) < 0.5 && edge.percent.y < 1, "\(edge)")
                }
                try await panel.unplug()
                try await fixture.finish(daemon)
                libinput.process.send(SIGTERM)
            }
        }

        /// The README's admin recipe: an edge swipe from the top with three fingers that holds its
        /// touches from the mirror (`delays-touches-began`) and takes them when it wins. libinput,
        /// reading the mirror as a compositor would, must see touch sequences that happened: for
        /// each slot down, motion…, then up or cancel; when the admin gesture fails, the held
        /// fingers arrive as they landed (all down, in their order, before the first lift), and
        /// when it wins, nothing of them at all — with two and three fingers landing in every
        /// order. A tap at the end, claimed by nobody, closes the run.
        @Test(
            "the admin recipe: libinput sees well-formed touches on the mirror when the admin gesture fails or wins",
            .enabled(if: Libinput.available || Libinput.required, Libinput.reason))
        func adminRecipe() async throws {
            try Libinput.check()
            let variants = AdminVariant.all
            try await EndToEndFixture.run { fixture in
                try fixture.writePassthroughConfiguration(
                    """
                    recognizers:
                      - name: admin-menu
                        kind: edge-swipe
                        edges: [top]
                        fingers: 3
                        preempts: ["*"]
                        delays-touches-began: true

                    """)
                let daemon = try await fixture.startDaemon()
                let steps = variants.flatMap(\.steps) + ["tap at=0.5,0.5"]
                let panel = try await fixture.panel(steps: steps)
                let client = try await fixture.subscribe(Subscription(gestures: ["admin-menu"], touches: true))
                let device = try await client.device(named: panel.name)
                let mirror = try await fixture.mirror(of: device.label, daemon: daemon)
                let libinput = try await LibinputReader.start(mirror.devnode, fixture: fixture)
                panel.play()
                let expected = variants.flatMap(\.expected) + [.down(x: 0.5), .up(x: 0.5)]
                try await libinput.wait(for: "the closing tap to reach the mirror") { events in
                    events.count { $0.kind == "TOUCH_UP" }
                        >= expected.count { if case .up = $0 { true } else { false } }
                }
                try await panel.waitUntilPlayed()
                let wins = variants.count { $0.outcome == .wins }
                try await client.waitFor("the admin gesture's wins", count: wins) {
                    if case .gesture(let g) = $0 { g.name == "admin-menu" && g.state == .began } else { false }
                }

                let events = libinput.events
                let problems = AdminVariant.check(events, expected: expected)
                #expect(problems.isEmpty, "\(problems.joined(separator: "; ")) in \(events)")
                // The socket's views get the same stream, with the kernel's times in order (but for
                // `moved` messages, which a slow client's queue may coalesce and move back).
                let touches = client.touches.filter { $0.phase != .moved }
                #expect(
                    touches.map(\.time) == touches.map(\.time).sorted(),
                    "touch messages out of time order: \(touches.map { "\($0.id.rawValue) \($0.phase) \($0.time.microseconds)" })"
                )
                let viewKinds = touches.compactMap { t -> String? in
                    switch t.phase {
                    case .began: "TOUCH_DOWN"
                    case .ended: "TOUCH_UP"
                    case .cancelled: "TOUCH_CANCEL"
                    case .moved, .stationary: nil
                    }
                }
                #expect(viewKinds == events.map(\.kind).filter { $0 != "TOUCH_MOTION" })
                try await panel.unplug()
                try await fixture.finish(daemon)
                libinput.process.send(SIGTERM)
            }
        }

        /// What forwarding adds, measured and printed, never asserted (a
        /// duration in a test would only measure the machine). The kernel's time of each report
        /// of the panel (the frame's time, which every `touch` message carries) against the
        /// kernel's time of the same touch's frame on the mirror, read through libevdev; beside
        /// it, for scale, the same touches' way to a socket client (reception on the monotonic
        /// clock). docs/PERFORMANCE.md ("Passthrough") has the numbers.
        @Test("forwarding latency: panel report → mirror event, against panel report → socket client")
        func latency() async throws {
            try await EndToEndFixture.run { fixture in
                try fixture.writePassthroughConfiguration(Self.recognizers())
                let daemon = try await fixture.startDaemon()
                let panel = try await fixture.panel(steps: ["pan from=0.1,0.5 to=0.9,0.5 duration=4s"])
                let client = try await fixture.subscribe(Subscription(gestures: [], touches: true))
                let device = try await client.device(named: panel.name)
                let mirror = try await fixture.mirror(of: device.label, daemon: daemon)
                let reader = try await MirrorReader.start(mirror.devnode)
                panel.play()
                try await client.wait(for: "the touch's end") { received in
                    received.contains { if case .touch(let t) = $0.message { t.phase == .ended } else { false } }
                }
                let received = client.received.compactMap { r -> (TouchMessage, Int64)? in
                    if case .touch(let t) = r.message { (t, r.at) } else { nil }
                }
                let frames = try await reader.stop(expecting: received.count)
                #expect(frames.count == received.count && frames.map(\.phase) == received.map(\.0.phase))
                let mirrored = zip(frames, received).map { $0.time - $1.0.time.microseconds }.sorted()
                let published = received.map { $1 - $0.time.microseconds }.sorted()
                #expect(mirrored.allSatisfy { $0 >= 0 }, "a mirror event older than its source: \(mirrored.prefix(3))")
                print("passthrough latency (µs, kernel time of the panel's report →)")
                print("  mirror event (kernel time):  \(Self.summary(mirrored))")
                print("  socket client (reception):   \(Self.summary(published))")
                try await panel.unplug()
                try await fixture.finish(daemon)
            }
        }

        @Test("stopping the daemon leaves the panel ungrabbed and the mirror gone", arguments: ["SIGTERM", "SIGKILL"])
        func stop(signal: String) async throws {
            try await EndToEndFixture.run { fixture in
                try fixture.writePassthroughConfiguration()
                let daemon = try await fixture.startDaemon()
                let panel = try await fixture.panel(steps: ["tap"])
                let client = try await fixture.subscribe(nil)
                let device = try await client.device(named: panel.name)
                let mirror = try await fixture.mirror(of: device.label, daemon: daemon)
                #expect(InputNodes.devnode(named: mirror.name) == mirror.devnode)
                #expect(InputNodes.grab(panel.devnode) == EBUSY, "the daemon holds the panel while it runs")

                daemon.send(signal == "SIGKILL" ? SIGKILL : SIGTERM)
                let status = try await daemon.waitForExit(within: EndToEndFixture.patience)
                #expect(status == (signal == "SIGKILL" ? SIGKILL : 0), "\(daemon.lines.suffix(5))")
                #expect(InputNodes.grab(panel.devnode) == 0, "the panel is free once the daemon is gone")
                #expect(InputNodes.devnode(named: mirror.name) == nil, "the mirror is gone")
                #expect(access(mirror.devnode, F_OK) != 0 || InputNodes.name(of: mirror.devnode) != mirror.name)
                try await panel.unplug()
            }
        }

        @Test("a reload without passthrough releases the panel; with it again, a new mirror; unplugging removes it")
        func reloadAndUnplug() async throws {
            try await EndToEndFixture.run { fixture in
                try fixture.writePassthroughConfiguration()
                let daemon = try await fixture.startDaemon()
                let panel = try await fixture.panel(steps: ["tap"])
                let client = try await fixture.subscribe(nil)
                let device = try await client.device(named: panel.name)
                let mirror = try await fixture.mirror(of: device.label, daemon: daemon)

                try fixture.writePassthroughConfiguration(passthrough: false)
                daemon.send(SIGHUP)
                try await daemon.waitForLines(containing: "configuration reloaded", count: 1)
                #expect(daemon.lines.contains { $0.contains("passthrough: mirror removed") })
                #expect(InputNodes.devnode(named: mirror.name) == nil)
                #expect(InputNodes.grab(panel.devnode) == 0, "no passthrough, no grab")

                try fixture.writePassthroughConfiguration()
                daemon.send(SIGHUP)
                try await daemon.waitForLines(containing: "configuration reloaded", count: 2)
                try await daemon.waitForLines(containing: "passthrough: panel grabbed", count: 2)
                #expect(InputNodes.devnode(named: mirror.name) != nil)
                #expect(InputNodes.grab(panel.devnode) == EBUSY)

                try await panel.unplug()
                try await daemon.waitForLines(containing: "passthrough: mirror removed", count: 2)
                #expect(InputNodes.devnode(named: mirror.name) == nil)
                try await fixture.finish(daemon)
            }
        }

        /// The panel's own units, recovered from the surface position the daemon published
        /// (surface = units / 32767 on a kiosk-10 panel, no calibration).
        static func raw(_ touch: TouchMessage) -> DevicePoint {
            DevicePoint(x: Int32((touch.position.x * 32767).rounded()), y: Int32((touch.position.y * 32767).rounded()))
        }

        /// Consecutive duplicates removed: libinput reports a motion only when the position changed.
        static func distinct(_ points: [DevicePoint]) -> [DevicePoint] {
            points.enumerated().filter { $0.offset == 0 || points[$0.offset - 1] != $0.element }.map(\.element)
        }

        /// `n`, min, p50, p90, p99, max of sorted values.
        static func summary(_ sorted: [Int64]) -> String {
            func p(_ q: Double) -> Int64 {
                sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * q).rounded()))]
            }
            return "n=\(sorted.count) min=\(p(0)) p50=\(p(0.5)) p90=\(p(0.9)) p99=\(p(0.99)) max=\(p(1))"
        }
    }
}

/// A mirror as the daemon announced it.
struct Mirror {
    var devnode: String
    var name: String
}

extension EndToEndFixture {
    /// The configuration: this case's panels with `passthrough`, plus `body`.
    func writePassthroughConfiguration(passthrough: Bool = true, _ body: String = "") throws {
        let devices = """
            devices:
              - match:
                  name: "\(prefix)*"
                passthrough: \(passthrough)
              - enabled: false

            """
        try (devices + body).write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    /// Waits for the daemon to say it grabbed the panel `label` and made its mirror.
    func mirror(of label: String, daemon: ChildProcess) async throws -> Mirror {
        let marker = "passthrough: panel grabbed"
        @Sendable func line(_ lines: [String]) -> String? {
            lines.last { $0.contains(marker) && $0.contains("device=\(label) ") }
        }
        try await daemon.output.wait(for: "the mirror of \(label)", within: Self.patience) { o in
            line(o.lines) != nil || o.status != nil
        }
        guard let found = line(daemon.lines), let devnode = found.value(of: "mirror"),
            let name = found.components(separatedBy: "mirror-name=").last, !name.isEmpty
        else {
            throw FixtureError("no mirror for \(label): \(daemon.lines.suffix(10))")
        }
        return Mirror(devnode: devnode, name: name)
    }
}

extension ChildProcess {
    /// Waits until `count` lines contain `text` (or the program ends).
    func waitForLines(containing text: String, count: Int) async throws {
        try await output.wait(for: "\(count)× '\(text)'", within: EndToEndFixture.patience) { o in
            o.lines.filter { $0.contains(text) }.count >= count || o.status != nil
        }
        guard lines.filter({ $0.contains(text) }).count >= count else {
            throw FixtureError("'\(text)' did not appear \(count)×: \(lines.suffix(10))")
        }
    }
}

extension String {
    /// The value of `key=value` in a log line (up to the next space).
    fileprivate func value(of key: String) -> String? {
        guard let range = range(of: " \(key)=") else { return nil }
        return String(self[range.upperBound...].prefix { $0 != " " })
    }
}

/// Event nodes by kernel name, and EVIOCGRAB through TouchInput (libevdev).
enum InputNodes {
    /// The kernel name of `/dev/input/eventN`, from sysfs.
    static func name(of devnode: String) -> String? {
        let node = devnode.split(separator: "/").last.map(String.init) ?? devnode
        return (try? String(contentsOfFile: "/sys/class/input/\(node)/device/name", encoding: .utf8))?
            .trimmingCharacters(in: .newlines)
    }

    /// The event node of the device called `name`, if one exists now.
    static func devnode(named name: String) -> String? {
        let nodes = (try? FileManager.default.contentsOfDirectory(atPath: "/sys/class/input")) ?? []
        return nodes.filter { $0.hasPrefix("event") }.map { "/dev/input/\($0)" }.first { Self.name(of: $0) == name }
    }

    /// Tries EVIOCGRAB on `devnode` and lets go again: 0, or the errno (EBUSY: someone holds it).
    static func grab(_ devnode: String) -> Int32 {
        do {
            let device = try TouchDevice(path: devnode, id: DeviceID(1), logger: quietLogger)
            defer { device.close() }
            try device.grab()
            return 0
        } catch let error as InputError {
            return error.errno
        } catch {
            return EIO
        }
    }

    static var quietLogger: Logger {
        var logger = Logger(label: "e2e")
        logger.logLevel = .error
        return logger
    }
}

/// `libinput debug-events --device NODE`: what a compositor's libinput makes of the mirror.
final class LibinputReader: Sendable {
    /// One touch line: `event7   TOUCH_DOWN   +0.000s	0 (0) 30.00/50.00 (153.59/143.72mm)`.
    struct Event: Sendable, CustomStringConvertible {
        var kind: String
        /// The touch's slot on the device (`0` of `0 (0)`).
        var slot: Int?
        /// Position in percent of the surface (debug-events' 100×100 "screen").
        var percent = XY(x: 0, y: 0)
        var mm = XY(x: 0, y: 0)
        var description: String { "\(kind) slot \(slot.map(String.init) ?? "?") \(percent.x)/\(percent.y)" }

        init?(line: String) {
            let words = line.split(whereSeparator: \.isWhitespace)
            guard words.count >= 2, words[1].hasPrefix("TOUCH_"), words[1] != "TOUCH_FRAME" else { return nil }
            kind = String(words[1])
            // "event7 TOUCH_UP +1.234s 0 (0)": the slot follows the time.
            slot = words.count > 3 ? Int(words[3]) : nil
            guard kind == "TOUCH_DOWN" || kind == "TOUCH_MOTION" else { return }
            // "0 (0) 30.00/ 0.20 (153.59/ 0.58mm)": numbers may be space-padded.
            let parts = line.filter { !$0.isWhitespace }.split(separator: "(")
            guard parts.count >= 3 else { return nil }
            func pair(_ s: Substring) -> XY? {
                let xy = s.split(separator: "/").compactMap { Double($0) }
                return xy.count == 2 ? XY(x: xy[0], y: xy[1]) : nil
            }
            guard let percent = pair(parts[parts.count - 2].drop { $0 != ")" }.dropFirst()),
                let mm = pair(parts[parts.count - 1].dropLast(3))
            else { return nil }
            self.percent = percent
            self.mm = mm
        }
    }

    let process: ChildProcess

    private init(process: ChildProcess) { self.process = process }

    /// Starts it on `devnode` and waits until libinput has added the device.
    static func start(_ devnode: String, fixture: EndToEndFixture) async throws -> LibinputReader {
        let process = try ChildProcess([Libinput.path, "debug-events", "--device", devnode])
        fixture.track(process, as: "libinput debug-events \(devnode)")
        try await process.output.wait(for: "libinput to add \(devnode)", within: EndToEndFixture.patience) { o in
            o.lines.contains { $0.contains("DEVICE_ADDED") } || o.status != nil
        }
        guard process.lines.contains(where: { $0.contains("DEVICE_ADDED") }) else {
            throw FixtureError("libinput did not add \(devnode): \(process.lines.suffix(10))")
        }
        return LibinputReader(process: process)
    }

    var events: [Event] { process.lines.compactMap(Event.init(line:)) }

    func wait(for what: String, until condition: @escaping @Sendable ([Event]) -> Bool) async throws {
        try await process.output.wait(for: what, within: EndToEndFixture.patience) { o in
            condition(o.lines.compactMap(Event.init(line:))) || o.status != nil
        }
        guard condition(events) else {
            throw FixtureError("libinput ended before \(what): \(process.lines.suffix(10))")
        }
    }
}

/// Reads the mirror through TouchInput (libevdev, CLOCK_MONOTONIC) on a thread of its own: the
/// mirror's frames with their kernel times and raw values.
final class MirrorReader: Sendable {
    struct Frame: Sendable {
        var phase: TouchPhase
        var raw: DevicePoint?
        /// The kernel time of the mirror's SYN_REPORT, µs.
        var time: Int64
    }

    struct State: Sendable {
        var opened = false
        var error: String?
        var frames: [Frame] = []
    }

    let state = Observed(State())
    private let stopping = Atomic<Bool>(false)

    static func start(_ devnode: String) async throws -> MirrorReader {
        let reader = MirrorReader()
        let thread = Thread { reader.run(devnode) }
        thread.start()
        try await reader.state.wait(for: "the mirror reader to open \(devnode)", within: EndToEndFixture.patience) {
            $0.opened || $0.error != nil
        }
        if let error = reader.state.value.error { throw FixtureError("cannot read the mirror: \(error)") }
        return reader
    }

    private func run(_ devnode: String) {
        let device: TouchDevice
        do {
            device = try TouchDevice(path: devnode, id: DeviceID(2), logger: InputNodes.quietLogger)
        } catch {
            state.update { $0.error = "\(error)" }
            return
        }
        defer { device.close() }
        state.update { $0.opened = true }
        var buffer = TouchFrameBuffer()
        while !stopping.load(ordering: .relaxed) {
            var poller = pollfd(fd: device.fileDescriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) > 0 else { continue }
            buffer.removeAll()
            if case .removed = device.read(into: &buffer) { return }
            let frames = buffer.flatMap { frame in
                frame.touches.filter { $0.phase != .stationary }.map {
                    Frame(phase: $0.phase, raw: $0.raw?.position, time: frame.time.microseconds)
                }
            }
            if !frames.isEmpty { state.update { $0.frames += frames } }
        }
    }

    /// Waits for `count` touch events, stops reading and returns them.
    func stop(expecting count: Int) async throws -> [Frame] {
        defer { stopping.store(true, ordering: .relaxed) }
        try await state.wait(for: "\(count) touch events on the mirror", within: EndToEndFixture.patience) {
            $0.frames.count >= count
        }
        return state.value.frames
    }
}

/// One way the README's admin gesture (three fingers from the top edge) can go: fingers landing
/// in the top band in some order, then the gesture failing (a finger lifts, or they move along
/// the edge) or winning (they move down). Fingers are told apart by where they land.
struct AdminVariant {
    enum Outcome: Equatable { case firstLifts, lastLifts, alongEdge, wins }

    /// What libinput reports of a finger, known by its x (0…1).
    enum Seen: Equatable, CustomStringConvertible {
        case down(x: Double), up(x: Double), cancel(x: Double)

        var description: String {
            switch self {
            case .down(let x): String(format: "down %.2f", x)
            case .up(let x): String(format: "up %.2f", x)
            case .cancel(let x): String(format: "cancel %.2f", x)
            }
        }

        func matches(_ other: Seen) -> Bool {
            switch (self, other) {
            case (.down(let a), .down(let b)), (.up(let a), .up(let b)), (.cancel(let a), .cancel(let b)):
                abs(a - b) < 0.01
            default: false
            }
        }
    }

    /// The x of each finger, in landing order (all land 1 % of the height from the top edge,
    /// 2.9 mm on the kiosk-10 panel: inside the 8 mm band).
    var order: [Double]
    var outcome: Outcome

    /// Two fingers (the admin gesture wants three: it can only fail) and three in every order,
    /// each order winning once and failing once.
    static var all: [AdminVariant] {
        var variants = [
            AdminVariant(order: [0.3, 0.7], outcome: .firstLifts),
            AdminVariant(order: [0.7, 0.3], outcome: .lastLifts),
            AdminVariant(order: [0.5, 0.3], outcome: .alongEdge),
        ]
        let xs = [0.3, 0.5, 0.7]
        let orders = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]]
        let failures: [Outcome] = [.firstLifts, .lastLifts, .alongEdge]
        for (i, order) in orders.enumerated() {
            variants.append(AdminVariant(order: order.map { xs[$0] }, outcome: failures[i % failures.count]))
            variants.append(AdminVariant(order: order.map { xs[$0] }, outcome: .wins))
        }
        return variants
    }

    /// Indices into ``order`` in the order the fingers lift.
    var lifts: [Int] {
        outcome == .lastLifts ? Array(order.indices.reversed()) : Array(order.indices)
    }

    /// `gestured simulate` steps: contact ids 1… in landing order.
    var steps: [String] {
        var steps: [String] = []
        for (i, x) in order.enumerated() {
            if i > 0 { steps.append("wait 30ms") }
            steps.append("down id=\(i + 1) at=\(x),0.01")
        }
        steps.append("wait 60ms")
        switch outcome {
        case .firstLifts, .lastLifts: break
        case .alongEdge: steps.append("move id=1 to=\(order[0] + 0.1),0.01 duration=200ms")
        case .wins: steps.append("move id=1 to=\(order[0]),0.2 duration=300ms")
        }
        for (k, i) in lifts.enumerated() {
            if k > 0 { steps.append("wait 40ms") }
            steps.append("up id=\(i + 1)")
        }
        steps.append("wait 600ms")
        return steps
    }

    /// What libinput must see, motion aside: nothing when the admin gesture wins; else every
    /// finger down in landing order, then up in lifting order (the moved finger lifts where it
    /// landed on the mirror's record: libinput knows a finger by its slot).
    var expected: [Seen] {
        guard outcome != .wins else { return [] }
        return order.map { .down(x: $0) } + lifts.map { .up(x: order[$0]) }
    }

    /// What is wrong with libinput's touch events: a slot used out of turn (down on a busy slot,
    /// motion or up on a free one, still down at the end), or a sequence other than `expected`.
    static func check(_ events: [LibinputReader.Event], expected: [Seen]) -> [String] {
        var problems: [String] = []
        var down: [Int: Double] = [:]
        var seen: [Seen] = []
        for event in events {
            guard let slot = event.slot else {
                problems.append("no slot in \(event)")
                continue
            }
            switch event.kind {
            case "TOUCH_DOWN":
                if down[slot] != nil { problems.append("\(event) while slot \(slot) is down") }
                down[slot] = event.percent.x / 100
                seen.append(.down(x: event.percent.x / 100))
            case "TOUCH_MOTION":
                if down[slot] == nil { problems.append("\(event) on a slot not down") }
            case "TOUCH_UP", "TOUCH_CANCEL":
                guard let x = down.removeValue(forKey: slot) else {
                    problems.append("\(event) on a slot not down")
                    continue
                }
                seen.append(event.kind == "TOUCH_UP" ? .up(x: x) : .cancel(x: x))
            default:
                problems.append("unexpected \(event)")
            }
        }
        if !down.isEmpty { problems.append("slots \(down.keys.sorted()) still down at the end") }
        if seen.count != expected.count || zip(seen, expected).contains(where: { !$0.matches($1) }) {
            problems.append("libinput saw \(seen), expected \(expected)")
        }
        return problems
    }
}
