import Foundation
import GestureEngine
import GestureProtocol
import Glibc
import Synchronization
import TestSupport
import Testing
import TouchInput
import VirtualDevices

extension EndToEndTests {
    /// `gestured actions` (docs/ACTIONS.md) against the real daemon and kernel: panels made by
    /// `simulate`, the daemon recognizing, the actions client typing, clicking and scrolling on
    /// its own uinput devices, which libevdev (and libinput, where the boot has it) read back.
    @Suite("actions", .timeLimit(.minutes(3)))
    struct Actions {
        static var user: String? { ProcessInfo.processInfo.environment["GESTURED_E2E_USER"] }

        /// The right click of a gesture at `position`, as the absolute pointer (`reader`) gives it:
        /// the pointer moves there (surface × 32767) before BTN_RIGHT goes down and up; and, where
        /// the boot has libinput, as a compositor reads it.
        static func expectRightClick(
            at position: SurfacePoint, _ reader: EventReader, _ libinput: LibinputEvents?
        ) async throws {
            let events = try await reader.wait(for: "the right button down and up") { $0.buttons.count >= 2 }
            #expect(events.buttons == ["BTN_RIGHT 1", "BTN_RIGHT 0"], "\(events.map(\.description))")
            let x = try #require(events.last { $0.type == EventCode.evAbs && $0.code == EventCode.absX })
            let y = try #require(events.last { $0.type == EventCode.evAbs && $0.code == EventCode.absY })
            #expect(abs(Double(x.value) - position.x * 32767) <= 1 && abs(Double(y.value) - position.y * 32767) <= 1)
            let down = try #require(events.firstIndex { $0.type == EventCode.evKey })
            #expect(events[..<down].contains { $0.code == EventCode.absX }, "the move comes before the press")
            guard let libinput else { return }
            let lines = try await libinput.wait(for: "libinput's button events") {
                $0.filter { $0.contains("POINTER_BUTTON") }.count >= 2
            }
            let buttons = lines.filter { $0.contains("POINTER_BUTTON") }
            #expect(
                buttons.count == 2 && buttons[0].contains("BTN_RIGHT") && buttons[0].contains("pressed"), "\(lines)")
            #expect(buttons.count == 2 && buttons[1].contains("BTN_RIGHT") && buttons[1].contains("released"))
        }

        @Test(
            "a three-finger swipe down types Ctrl+R: the exact key sequence, as libevdev and libinput read it"
        )
        func shortcut() async throws {
            try await EndToEndFixture.run { fixture in
                let daemon = try await fixture.startDaemon()
                let actions = try await fixture.startActions(
                    """
                    actions:
                      - on: swipe
                        direction: down
                        fingers: 3
                        keys: [KEY_LEFTCTRL, KEY_R]
                      - on: swipe
                        direction: up
                        keys: [KEY_ESC]
                    """)
                let keyboard = try #require(actions.devnodes["keyboard"], "\(actions.process.lines)")
                let reader = try await EventReader.start(keyboard)
                let libinput = try await LibinputEvents.startIfAvailable(keyboard, fixture: fixture)
                let panel = try await fixture.panel(steps: ["swipe down fingers=3 at=0.5,0.3"])
                let client = try await fixture.subscribe(Subscription(gestures: ["swipe"]))
                try await client.device(named: panel.name)
                panel.play()
                let swipe = try await client.gesture("the swipe down") { $0.direction == .down }
                let events = try await reader.wait(for: "the shortcut's four key events") { $0.keys.count >= 4 }
                #expect(
                    events.keys == ["KEY_LEFTCTRL 1", "KEY_R 1", "KEY_R 0", "KEY_LEFTCTRL 0"],
                    "\(events.map(\.description))")
                // Each key change in a report of its own.
                #expect(events.filter { $0.type == EventCode.evSyn }.count >= 4)
                #expect(
                    events.allSatisfy { $0.time.microseconds >= swipe.time.microseconds },
                    "keys after the swipe's frame")
                if let libinput {
                    let lines = try await libinput.wait(for: "libinput's four KEYBOARD_KEY events") {
                        $0.filter { $0.contains("KEYBOARD_KEY") }.count >= 4
                    }
                    #expect(
                        lines.filter { $0.contains("KEYBOARD_KEY") }.map(LibinputEvents.key)
                            == ["KEY_LEFTCTRL pressed", "KEY_R pressed", "KEY_R released", "KEY_LEFTCTRL released"],
                        "\(lines)")
                }
                try await panel.unplug()
                try await fixture.finish(daemon)
            }
        }

        @Test(
            "a long press right-clicks under the finger: the absolute pointer moves there, then BTN_RIGHT down and up")
        func rightClick() async throws {
            try await EndToEndFixture.run { fixture in
                let daemon = try await fixture.startDaemon()
                let actions = try await fixture.startActions(
                    """
                    actions:
                      - on: long-press
                        click: right
                    """)
                let pointer = try #require(actions.devnodes["pointer-absolute"], "\(actions.process.lines)")
                let reader = try await EventReader.start(pointer)
                let libinput = try await LibinputEvents.startIfAvailable(pointer, fixture: fixture)
                let panel = try await fixture.panel(steps: ["long-press at=0.3,0.6 duration=1s"])
                let client = try await fixture.subscribe(Subscription(gestures: ["long-press"]))
                try await client.device(named: panel.name)
                panel.play()
                let press = try await client.gesture("the long press") { $0.state == .began }
                // At the press's position, which is where the finger is.
                #expect(abs(press.position.x - 0.3) < 0.01 && abs(press.position.y - 0.6) < 0.01)
                try await Self.expectRightClick(at: press.position, reader, libinput)
                try await panel.unplug()
                try await fixture.finish(daemon)
            }
        }

        @Test(
            "a press-and-tap right-clicks at the pressing finger: the absolute pointer moves there, then BTN_RIGHT down and up"
        )
        func pressAndTapRightClick() async throws {
            try await EndToEndFixture.run { fixture in
                try fixture.writeConfiguration(
                    """
                    recognizers:
                      - name: right-click
                        kind: press-and-tap
                    """)
                let daemon = try await fixture.startDaemon()
                let actions = try await fixture.startActions(
                    """
                    actions:
                      - on: right-click
                        click: right
                    """)
                let pointer = try #require(actions.devnodes["pointer-absolute"], "\(actions.process.lines)")
                let reader = try await EventReader.start(pointer)
                let libinput = try await LibinputEvents.startIfAvailable(pointer, fixture: fixture)
                // One finger holds at (0.3, 0.6); 300 ms later a second taps 0.06 to its right.
                let panel = try await fixture.panel(steps: [
                    "down id=1 at=0.3,0.6", "wait 300ms", "down id=2 at=0.36,0.6", "wait 80ms", "up id=2",
                    "wait 150ms", "up id=1",
                ])
                let client = try await fixture.subscribe(Subscription(gestures: ["right-click"]))
                try await client.device(named: panel.name)
                panel.play()
                let gesture = try await client.gesture("the press-and-tap") { $0.state == .recognized }
                #expect(gesture.fingers == 2)
                #expect(abs(gesture.position.x - 0.3) < 0.01, "at the press, not between the fingers")
                #expect(abs(gesture.position.y - 0.6) < 0.01)
                try await Self.expectRightClick(at: gesture.position, reader, libinput)
                try await panel.unplug()
                try await fixture.finish(daemon)
            }
        }

        @Test("a two-finger pan scrolls: the wheel turns by the pan's translation within one detent")
        func twoFingerScroll() async throws {
            try await EndToEndFixture.run { fixture in
                try fixture.writeConfiguration(
                    """
                    recognizers:
                      - name: scroll
                        kind: pan
                        min-fingers: 2
                        max-fingers: 2
                    """)
                let daemon = try await fixture.startDaemon()
                let actions = try await fixture.startActions(
                    """
                    actions:
                      - on: scroll
                        scroll: {mm-per-detent: 8, axis: vertical}
                    """)
                let pointer = try #require(actions.devnodes["pointer-absolute"], "\(actions.process.lines)")
                // No libinput reader here (the other cases have one), and one axis (the other is
                // the host tests'): every process and event more on the guest's two emulated CPUs
                // makes it likelier that the reader falls behind the kernel's per-client buffer
                // (a few dozen wheel reports here), whose overflow loses wheel motion for good
                // (SYN_DROPPED; the reader fails the case when it sees one).
                let reader = try await EventReader.start(pointer)
                let panel = try await fixture.panel(steps: ["pan from=0.5,0.2 to=0.45,0.7 fingers=2 duration=1.5s"])
                let client = try await fixture.subscribe(Subscription(gestures: ["scroll"]))
                try await client.device(named: panel.name)
                panel.play()
                let end = try await client.gesture("the pan's end") { $0.state == .ended }
                let translation = try #require(end.translationMM, "the kiosk-10 panel has a size")
                #expect(translation.dy.value > 80, "\(translation)")
                // Natural scrolling: fingers down turn the wheel up (positive); no horizontal wheel.
                let expectedV = translation.dy.value / 8
                let expectedH = 0.0
                let events = try await reader.wait(for: "wheel motion for the whole pan") { events in
                    abs(Double(events.sum(EventCode.relWheelHiRes)) / 120 - expectedV) < 0.01
                }
                let hiResV = Double(events.sum(EventCode.relWheelHiRes)) / 120
                let hiResH = Double(events.sum(EventCode.relHWheelHiRes)) / 120
                let detentsV = Double(events.sum(EventCode.relWheel))
                let detentsH = Double(events.sum(EventCode.relHWheel))
                print(
                    "scroll: translation \(translation) mm → \(hiResV), \(hiResH) hi-res detents, "
                        + "\(detentsV), \(detentsH) detents"
                )
                #expect(abs(hiResV - expectedV) < 0.01 && abs(hiResH - expectedH) < 0.01)
                #expect(abs(detentsV - expectedV) < 1 && abs(detentsH - expectedH) < 1)
                #expect(events.filter { $0.type == EventCode.evRel }.count > 10, "scrolled as it went, not at the end")
                try await panel.unplug()
                try await fixture.finish(daemon)
            }
        }

        @Test(
            "a run action writes a file with the gesture in its environment, as the test user",
            .enabled(if: user != nil, "set GESTURED_E2E_USER (the VM does)"))
        func runAsUser() async throws {
            let user = try #require(Self.user)
            try await EndToEndFixture.run { fixture in
                chmod(fixture.directory, 0o1777)
                try fixture.writeConfiguration("socket: {mode: \"0666\"}\n")
                let daemon = try await fixture.startDaemon()
                let output = fixture.directory + "/ran.txt"
                let actions = try await fixture.startActions(
                    """
                    actions:
                      - on: swipe
                        run: ["/bin/sh", "-c", "{ id -u; env | grep ^GESTURED_ | sort; } > \(output)"]
                    """, as: user)
                let panel = try await fixture.panel(steps: ["swipe left at=0.6,0.5"])
                let client = try await fixture.subscribe(Subscription(gestures: ["swipe"]))
                try await client.device(named: panel.name)
                panel.play()
                let swipe = try await client.gesture("the swipe") { _ in true }
                try await actions.process.waitForLines(containing: "command finished", count: 1)
                let written = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").map(
                    String.init)
                #expect(written.first == "1000", "the command runs as the test user: \(written)")
                for line in [
                    "GESTURED_NAME=swipe", "GESTURED_DIRECTION=left", "GESTURED_FINGERS=1", "GESTURED_SEQ=\(swipe.seq)",
                    "GESTURED_DEVICE=\(swipe.device)", "GESTURED_STATE=recognized",
                ] {
                    #expect(written.contains(line), "\(written)")
                }
                var info = stat()
                #expect(stat(output, &info) == 0 && info.st_uid == 1000, "the file is the user's")
                try await panel.unplug()
                try await fixture.finish(daemon)
            }
        }

        @Test(
            "/dev/uinput not accessible: gestured actions refuses to start, naming the group",
            .enabled(if: user != nil, "set GESTURED_E2E_USER (the VM does)"))
        func uinputDenied() async throws {
            let user = try #require(Self.user)
            try await EndToEndFixture.run { fixture in
                chmod(fixture.directory, 0o1777)
                var info = stat()
                #expect(
                    stat("/dev/uinput", &info) == 0 && info.st_mode & 0o006 == 0,
                    "/dev/uinput is not world-writable here")
                let process = try fixture.actionsProcess("actions:\n  - on: tap\n    keys: [KEY_ENTER]\n", as: user)
                let status = try await process.waitForExit(within: EndToEndFixture.patience)
                #expect(status == 1)
                let message = process.lines.joined(separator: "\n")
                #expect(
                    message.contains("cannot create the virtual keyboard: /dev/uinput: permission denied for uid 1000"),
                    "\(message)")
                #expect(message.contains("must be in the group 'gestured-uinput'"), "\(message)")
            }
        }

        @Test("the daemon stops and starts again: gestured actions reconnects and acts on each gesture once")
        func daemonRestart() async throws {
            try await EndToEndFixture.run { fixture in
                let first = try await fixture.startDaemon()
                let log = fixture.directory + "/acted.txt"
                let actions = try await fixture.startActions(
                    """
                    actions:
                      - on: swipe
                        run: ["/bin/sh", "-c", "echo $GESTURED_SEQ $GESTURED_DIRECTION >> \(log)"]
                    """)
                let panel = try await fixture.panel(steps: ["swipe right at=0.5,0.5", "pause", "swipe up at=0.5,0.6"])
                var client = try await fixture.subscribe(Subscription(gestures: ["swipe"]))
                try await client.device(named: panel.name)
                panel.play()
                try await panel.waitForPause()
                try await client.gesture("the first swipe") { $0.direction == .right }
                try await actions.process.waitForLines(containing: "command finished", count: 1)

                first.send(SIGTERM)
                #expect(try await first.waitForExit(within: EndToEndFixture.patience) == 0)
                try await actions.process.waitForLines(containing: "the daemon closed the connection", count: 1)
                try await actions.process.waitForLines(containing: "cannot connect", count: 1)
                let second = try await fixture.startDaemon()
                try await actions.process.waitForLines(containing: " connected ", count: 2)
                client = try await fixture.subscribe(Subscription(gestures: ["swipe"]))
                try await client.device(named: panel.name)
                panel.play()
                try await client.gesture("the second swipe") { $0.direction == .up }
                try await actions.process.waitForLines(containing: "command finished", count: 2)
                let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
                #expect(lines.count == 2 && lines[0].hasSuffix(" right") && lines[1].hasSuffix(" up"), "\(lines)")
                try await panel.unplug()
                try await fixture.finish(second)
            }
        }

        /// The latency: the kernel time of the panel frame that completed each swipe (the
        /// gesture's `time_us`) against the kernel time of the first key event on the virtual
        /// keyboard. Printed, never asserted; docs/PERFORMANCE.md ("Actions") has the numbers.
        @Test("latency: panel frame → key event on the virtual keyboard")
        func latency() async throws {
            try await EndToEndFixture.run { fixture in
                // The swipe alone: in the built-in set it waits for the circle to fail (R4), and
                // its report keeps the earlier frame's time.
                try fixture.writeConfiguration("recognizers:\n  - {name: swipe, kind: swipe, max-fingers: 5}\n")
                let daemon = try await fixture.startDaemon()
                let actions = try await fixture.startActions(
                    """
                    actions:
                      - on: swipe
                        keys: [KEY_A]
                    """)
                let keyboard = try #require(actions.devnodes["keyboard"], "\(actions.process.lines)")
                let reader = try await EventReader.start(keyboard)
                let count = 12
                let steps = (0..<count).map { i in
                    "swipe \(i % 2 == 0 ? "left" : "right") at=0.5,\(0.3 + Double(i % 4) * 0.1)"
                }
                let panel = try await fixture.panel(steps: steps)
                let client = try await fixture.subscribe(Subscription(gestures: ["swipe"]))
                try await client.device(named: panel.name)
                panel.play()
                let swipes = try await client.waitFor("\(count) swipes", count: count) {
                    if case .gesture = $0 { true } else { false }
                }
                let events = try await reader.wait(for: "\(count) key presses") { $0.keys.count >= 2 * count }
                let presses = events.filter { $0.type == EventCode.evKey && $0.value == 1 }
                let latencies = zip(swipes, presses).map { s, p -> Int64 in
                    guard case .gesture(let g) = s.message else { return -1 }
                    return p.time.microseconds - g.time.microseconds
                }.sorted()
                #expect(presses.count == count && latencies.allSatisfy { $0 > 0 }, "\(latencies)")
                // For scale: the same reports' way to a plain socket client (its reception time).
                let received = swipes.compactMap { r -> Int64? in
                    if case .gesture(let g) = r.message { r.at - g.time.microseconds } else { nil }
                }.sorted()
                print("actions latency (µs, kernel time of the panel frame →)")
                print(
                    "  KEY_A pressed on the virtual keyboard (kernel time): "
                        + EndToEndTests.Passthrough.summary(latencies))
                print(
                    "  the report read by a socket client (reception):     "
                        + EndToEndTests.Passthrough.summary(received))
                try await panel.unplug()
                try await fixture.finish(daemon)
            }
        }
    }
}

/// A `gestured actions` process and the devices it made.
struct ActionsClient {
    let process: ChildProcess
    /// `keyboard`, `pointer-absolute`, `pointer-relative` → `/dev/input/eventN`.
    let devnodes: [String: String]
}

extension EndToEndFixture {
    /// Starts `gestured actions` on this case's socket with `text` as its file, as `user` when
    /// given (through su), without waiting.
    func actionsProcess(_ text: String, as user: String? = nil) throws -> ChildProcess {
        let path = directory + "/actions.yaml"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o644)
        let command = [gestured, "actions", "--config", path, "--socket", socket, "--verbose"]
        let process = try ChildProcess(
            user.map { ["su", "-s", "/bin/sh", "-c", "exec " + command.map { "'\($0)'" }.joined(separator: " "), $0] }
                ?? command)
        track(process, as: "gestured actions")
        return process
    }

    /// Starts `gestured actions` and waits until it has connected to the daemon and subscribed.
    func startActions(_ text: String, as user: String? = nil) async throws -> ActionsClient {
        let process = try actionsProcess(text, as: user)
        try await process.output.wait(for: "gestured actions to connect", within: Self.patience) { o in
            o.status != nil || o.lines.contains { $0.contains(" connected ") }
        }
        guard process.output.value.status == nil,
            let started = process.lines.first(where: { $0.contains(" started ") })
        else {
            throw FixtureError("gestured actions did not connect: \(process.lines.suffix(10))")
        }
        var devnodes: [String: String] = [:]
        for word in started.split(separator: " ") {
            let pair = word.split(separator: "=", maxSplits: 1).map(String.init)
            if pair.count == 2, pair[1].hasPrefix("/dev/input/") { devnodes[pair[0]] = pair[1] }
        }
        return ActionsClient(process: process, devnodes: devnodes)
    }
}

extension [InputEvent] {
    /// Key and button changes as `NAME value`.
    var keys: [String] {
        filter { $0.type == EventCode.evKey }.map {
            "\(EventCode.actionName(type: $0.type, code: $0.code)) \($0.value)"
        }
    }

    var buttons: [String] { keys }

    /// The sum of a relative axis's values.
    func sum(_ code: UInt16) -> Int64 {
        filter { $0.type == EventCode.evRel && $0.code == code }.reduce(0) { $0 + Int64($1.value) }
    }
}

extension EventCode {
    /// Names for the codes these cases read (the module's table has the touch ones).
    static func actionName(type: UInt16, code: UInt16) -> String {
        if type == evKey, code == btnRight { return "BTN_RIGHT" }
        if type == evKey, code == btnLeft { return "BTN_LEFT" }
        for name in ["KEY_LEFTCTRL", "KEY_R", "KEY_ESC", "KEY_A"]
        where code == EventCode.code(ofType: type, named: name) {
            return name
        }
        return "\(type):\(code)"
    }
}

/// Reads an event node through TouchInput (libevdev, CLOCK_MONOTONIC) on a thread of its own.
final class EventReader: Sendable {
    struct State: Sendable {
        var opened = false
        var error: String?
        var events: [InputEvent] = []
        /// pthread_setschedparam's result.
        var scheduling: Int32 = -1
    }

    let state = Observed(State())
    private let stopping = Atomic<Bool>(false)

    deinit { stopping.store(true, ordering: .relaxed) }

    static func start(_ devnode: String) async throws -> EventReader {
        let reader = EventReader()
        Thread.detachNewThread { [weak reader] in reader?.run(devnode) }
        try await reader.state.wait(for: "the reader to open \(devnode)", within: EndToEndFixture.patience) {
            $0.opened || $0.error != nil
        }
        if let error = reader.state.value.error { throw FixtureError("cannot read \(devnode): \(error)") }
        return reader
    }

    private func run(_ devnode: String) {
        // Ahead of every other program of the case on the guest's two emulated CPUs (the tests run
        // as root there): the kernel keeps a bounded buffer per reader, and a reader that is not
        // scheduled for a few hundred milliseconds of wheel motion loses events (SYN_DROPPED).
        var priority = sched_param()
        priority.sched_priority = 10
        let scheduling = pthread_setschedparam(pthread_self(), SCHED_FIFO, &priority)
        state.update { $0.scheduling = scheduling }
        let device: EventNodeReader
        do {
            device = try EventNodeReader(path: devnode)
        } catch {
            state.update { $0.error = "\(error)" }
            return
        }
        state.update { $0.opened = true }
        while !stopping.load(ordering: .relaxed) {
            var poller = pollfd(fd: device.fileDescriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) > 0 else { continue }
            var batch: [InputEvent] = []
            do {
                while let event = try device.next() { batch.append(event) }
            } catch {
                state.update { $0.error = "\(error)" }
                return
            }
            if !batch.isEmpty { state.update { $0.events += batch } }
        }
    }

    /// Waits until the events read satisfy `condition`; them. The kernel's SYN_DROPPED (this
    /// reader fell behind and events were lost) fails the wait at once.
    func wait(
        for what: String, until condition: @escaping @Sendable ([InputEvent]) -> Bool
    ) async throws -> [InputEvent] {
        @Sendable func dropped(_ events: [InputEvent]) -> Bool {
            events.contains { $0.type == EventCode.evSyn && $0.code == EventCode.synDropped }
        }
        try await state.wait(for: what, within: EndToEndFixture.patience) {
            $0.error != nil || dropped($0.events) || condition($0.events)
        }
        if let error = state.value.error { throw FixtureError("reading stopped before \(what): \(error)") }
        let events = state.value.events
        if dropped(events) && !condition(events),
            let drop = events.firstIndex(where: { $0.code == EventCode.synDropped && $0.type == EventCode.evSyn })
        {
            let before = events[..<drop].suffix(3).map(\.description)
            throw FixtureError(
                "the reader fell behind the kernel's buffer (SYN_DROPPED) before \(what): \(drop) events first, "
                    + "the last \(before), the drop at \(events[drop].time), \(events.count - drop - 1) after it, "
                    + "scheduling \(state.value.scheduling)")
        }
        return events
    }
}

/// `libinput debug-events --show-keycodes --device NODE`: what a compositor's libinput makes of
/// the virtual devices (the udev boot only: libinput ignores devices udev has not tagged).
struct LibinputEvents {
    let process: ChildProcess

    static func startIfAvailable(_ devnode: String, fixture: EndToEndFixture) async throws -> LibinputEvents? {
        guard Libinput.available else { return nil }
        let process = try ChildProcess([Libinput.path, "debug-events", "--show-keycodes", "--device", devnode])
        fixture.track(process, as: "libinput debug-events \(devnode)")
        try await process.output.wait(for: "libinput to add \(devnode)", within: EndToEndFixture.patience) { o in
            o.lines.contains { $0.contains("DEVICE_ADDED") } || o.status != nil
        }
        guard process.lines.contains(where: { $0.contains("DEVICE_ADDED") }) else {
            throw FixtureError("libinput did not add \(devnode): \(process.lines.suffix(10))")
        }
        return LibinputEvents(process: process)
    }

    /// `KEY_R pressed` from ` event7   KEYBOARD_KEY   +0.100s	KEY_R (19) pressed`.
    static func key(_ line: String) -> String {
        let words = line.split(whereSeparator: \.isWhitespace)
        guard let at = words.firstIndex(where: { $0.hasPrefix("KEY_") }), words.count > at + 2 else { return line }
        return "\(words[at]) \(words[at + 2])"
    }

    func wait(for what: String, until condition: @escaping @Sendable ([String]) -> Bool) async throws -> [String] {
        try await process.output.wait(for: what, within: EndToEndFixture.patience) { o in
            condition(o.lines) || o.status != nil
        }
        guard condition(process.lines) else {
            throw FixtureError("libinput ended before \(what): \(process.lines.suffix(10))")
        }
        return process.lines
    }
}
