import CLinuxSupport
import Glibc
import Logging
import Testing
import TouchValues

@testable import TouchInput
@testable import VirtualDevices

enum Uinput {
    static var available: Bool { access("/dev/uinput", W_OK) == 0 }
}

/// At the input level, against a real kernel: uinput devices made by the project are
/// found (through udev, or by capabilities without udevd), read through libevdev, unplugged,
/// plugged back, run side by side and flooded. Runs only where /dev/uinput is writable: inside the
/// VM (`scripts/vm/input-tests.sh` boots twice, with and without udevd), or natively on a machine
/// with uinput. `GESTURED_VM_DISCOVERY` (set by the harness) names the discovery mode the boot
/// must produce.
@Suite(.serialized, .enabled(if: Uinput.available, "needs a writable /dev/uinput"))
struct LiveDeviceTests {
    static let logger = Logger(label: "live-device-tests") { _ in SwiftLogNoOpLogHandler() }

    static var expectedDiscovery: Discovery? {
        getenv("GESTURED_VM_DISCOVERY").flatMap { Discovery(rawValue: String(cString: $0)) }
    }

    /// Waits until `fd` is readable or `milliseconds` pass.
    static func readable(_ fd: Int32, within milliseconds: Int32 = 3000) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, milliseconds) > 0
    }

    /// Reads `device` until `done` holds for the frames read so far or the deadline passes.
    @discardableResult
    static func read(
        _ device: TouchDevice, into frames: inout [TouchFrame], outcomes: inout [TouchDevice.ReadOutcome],
        until done: ([TouchFrame]) -> Bool
    ) -> Bool {
        let deadline = gestured_monotonic_us() + 5_000_000
        var buffer = TouchFrameBuffer()
        while !done(frames) {
            let remaining = Int32(max(0, (deadline - gestured_monotonic_us()) / 1000))
            guard remaining > 0, readable(device.fileDescriptor, within: remaining) else { return false }
            buffer.removeAll()
            let outcome = device.read(into: &buffer)
            frames += buffer
            if outcome != .drained { outcomes.append(outcome) }
            if case .removed = outcome { return done(frames) }
        }
        return true
    }

    /// Hotplug events until one satisfies `match`, or nil at the deadline.
    static func hotplug(_ discovery: DeviceDiscovery, _ match: @escaping (HotplugEvent) -> Bool) -> HotplugEvent? {
        hotplug(discovery, all: [match]).first ?? nil
    }

    /// Hotplug events until each of `matches` is satisfied by one (in any order); nil for those
    /// still missing at the deadline.
    static func hotplug(_ discovery: DeviceDiscovery, all matches: [(HotplugEvent) -> Bool]) -> [HotplugEvent?] {
        var found: [HotplugEvent?] = Array(repeating: nil, count: matches.count)
        let deadline = gestured_monotonic_us() + 10_000_000
        while found.contains(where: { $0 == nil }) {
            let remaining = Int32(max(0, (deadline - gestured_monotonic_us()) / 1000))
            guard remaining > 0, readable(discovery.fileDescriptor, within: remaining) else { break }
            for event in discovery.receive() {
                for (i, match) in matches.enumerated() where found[i] == nil && match(event) { found[i] = event }
            }
        }
        return found
    }

    static func open(_ virtual: VirtualTouchscreen, id: UInt32 = 1) throws -> TouchDevice {
        try TouchDevice(path: try #require(virtual.devnode), id: DeviceID(id), logger: logger)
    }

    // MARK: Discovery

    @Test("a virtual touchscreen is found, a virtual touchpad skipped with its reason")
    func discovery() throws {
        let discovery = try DeviceDiscovery(logger: Self.logger)
        if let expected = Self.expectedDiscovery { #expect(discovery.mode == expected) }
        let panel = try VirtualTouchscreen(profile: .kiosk10, name: "gestured virtual kiosk-10 found")
        let pad = try VirtualTouchscreen(profile: .touchpad)
        // With udevd, the scan only sees the devices once udev has processed them: wait for their events.
        if discovery.mode == .udev {
            let seen = Self.hotplug(
                discovery,
                all: [panel.devnode, pad.devnode].map { node in
                    { if case .added(let d) = $0 { d.devnode == node } else { false } }
                })
            #expect(seen.allSatisfy { $0 != nil })
        }
        let found = try discovery.scan()
        let panelEntry = try #require(found.first { $0.devnode == panel.devnode })
        #expect(panelEntry.verdict == .touchscreen)
        #expect(panelEntry.identity.name == "gestured virtual kiosk-10 found")
        #expect(panelEntry.identity.id.vendor == DeviceProfile.vendor)
        #expect(panelEntry.decidedBy == discovery.mode)
        let padEntry = try #require(found.first { $0.devnode == pad.devnode })
        switch discovery.mode {
        case .udev:
            #expect(padEntry.verdict == .skipped(.notATouchscreen(udevType: "ID_INPUT_TOUCHPAD")))
            #expect(panelEntry.udev.widthMM == 511)  // udev's input_id: 32767 / 64 units/mm, rounded down
        case .capabilities:
            #expect(padEntry.verdict == .skipped(.touchpad))
        }
        // Only event nodes: the kernel's mouseN node for the panel is not listed.
        #expect(found.allSatisfy { $0.devnode.hasPrefix("/dev/input/event") })
        let report = try DeviceReport(discovery: discovery, rules: [], logger: Self.logger)
        let entry = try #require(report.touchscreens.first { $0.devnode == panel.devnode })
        #expect(entry.slots == 10)
        #expect(entry.sizeSource == "resolution")
        #expect(abs((entry.widthMM ?? 0) - 32767.0 / 64) < 1e-9)
        #expect(report.skipped.contains { $0.devnode == pad.devnode })
    }

    // MARK: Frames

    @Test(
        "frames match what was sent: positions, ids, monotonic times",
        arguments: [DeviceProfile.kiosk10, .optical2, .large60, .resistive, .protocolA])
    func framesMatch(_ profile: DeviceProfile) throws {
        let virtual = try VirtualTouchscreen(profile: profile)
        let device = try Self.open(virtual)
        let mapper = try #require(virtual.mapper)
        let fingers = profile == .resistive ? 1 : 2
        var touchOf: [Int: TouchID] = [:]
        var sentFrames = 0
        var outcomes: [TouchDevice.ReadOutcome] = []
        for step in 0...20 {
            let contacts: [SimulatedContact] =
                step == 20
                ? []
                : (0..<fingers).map { f in
                    SimulatedContact(
                        id: f, position: SurfacePoint(x: 0.2 + 0.03 * Double(step), y: 0.3 + 0.4 * Double(f)))
                }
            let before = gestured_monotonic_us()
            try virtual.send(contacts)
            let after = gestured_monotonic_us()
            sentFrames += 1
            var frames: [TouchFrame] = []
            #expect(Self.read(device, into: &frames, outcomes: &outcomes) { !$0.isEmpty }, "\(profile) step \(step)")
            let frame = try #require(frames.last)
            #expect((before...after).contains(frame.time.microseconds), "\(profile): kernel time within the send")
            #expect(frame.device == DeviceID(1))
            if contacts.isEmpty {
                #expect(frame.touches.allSatisfy { $0.phase == .ended })
                #expect(frame.touches.count == fingers)
                continue
            }
            #expect(frame.touches.count == fingers)
            for contact in contacts {
                let expected = device.model.mapper.surfacePoint(mapper.devicePoint(contact.position))
                let touch = try #require(
                    frame.touches.first { near($0.position, expected, 1e-6) }, "\(profile) step \(step)")
                if let id = touchOf[contact.id] {
                    #expect(touch.id == id)
                    #expect(touch.phase == .moved)
                } else {
                    #expect(touch.phase == .began)
                    touchOf[contact.id] = touch.id
                }
            }
        }
        #expect(outcomes.isEmpty)
        #expect(Set(touchOf.values).count == fingers)
    }

    @Test("a contact already down when the device is opened is ignored until it lifts")
    func alreadyDown() throws {
        let virtual = try VirtualTouchscreen(profile: .kiosk10)
        try virtual.send([SimulatedContact(id: 1, position: SurfacePoint(x: 0.5, y: 0.5))])
        let device = try Self.open(virtual)
        try virtual.send([SimulatedContact(id: 1, position: SurfacePoint(x: 0.6, y: 0.5))])
        try virtual.send([])
        try virtual.send([SimulatedContact(id: 2, position: SurfacePoint(x: 0.1, y: 0.1))])
        var frames: [TouchFrame] = []
        var outcomes: [TouchDevice.ReadOutcome] = []
        #expect(Self.read(device, into: &frames, outcomes: &outcomes) { !$0.isEmpty })
        #expect(frames.count == 1)
        #expect(frames[0].touches.map(\.phase) == [.began])
        #expect(device.diagnostics.contactsIgnored == 1)
    }

    // MARK: Hotplug

    @Test("unplugging mid-touch cancels the touches; plugging back finds the device again")
    func unplugAndReplug() throws {
        let discovery = try DeviceDiscovery(logger: Self.logger)
        let name = "gestured virtual kiosk-10 replug"
        var virtual = try VirtualTouchscreen(profile: .kiosk10, name: name)
        let node = try #require(virtual.devnode)
        let device = try Self.open(virtual)
        try virtual.send([
            SimulatedContact(id: 1, position: SurfacePoint(x: 0.3, y: 0.3)),
            SimulatedContact(id: 2, position: SurfacePoint(x: 0.6, y: 0.6)),
        ])
        try virtual.send([
            SimulatedContact(id: 1, position: SurfacePoint(x: 0.35, y: 0.3)),
            SimulatedContact(id: 2, position: SurfacePoint(x: 0.65, y: 0.6)),
        ])
        var frames: [TouchFrame] = []
        var outcomes: [TouchDevice.ReadOutcome] = []
        #expect(Self.read(device, into: &frames, outcomes: &outcomes) { $0.count == 2 })
        virtual.unplug()
        // Reading stops at the removal (the predicate never holds by itself).
        Self.read(device, into: &frames, outcomes: &outcomes) { _ in false }
        #expect(outcomes.contains { if case .removed = $0 { true } else { false } })
        let last = try #require(frames.last)
        #expect(last.touches.count == 2)
        #expect(last.touches.allSatisfy { $0.phase == .cancelled })
        #expect(device.liveTouchCount == 0)
        device.close()
        #expect(Self.hotplug(discovery) { $0 == .removed(devnode: node) } != nil)

        virtual = try VirtualTouchscreen(profile: .kiosk10, name: name)
        let added = Self.hotplug(discovery) {
            if case .added(let d) = $0 { d.identity.name == name } else { false }
        }
        guard case .added(let again) = added else {
            Issue.record("the replugged device was not reported")
            return
        }
        #expect(again.verdict == .touchscreen)
        #expect(again.devnode == virtual.devnode)
        let reopened = try again.open(id: DeviceID(2), logger: Self.logger)
        try virtual.send([SimulatedContact(id: 1, position: SurfacePoint(x: 0.5, y: 0.5))])
        frames = []
        #expect(Self.read(reopened, into: &frames, outcomes: &outcomes) { !$0.isEmpty })
        #expect(frames.first?.touches.first?.phase == .began)
        #expect(frames.first?.device == DeviceID(2))
    }

    @Test("two panels at once keep separate state")
    func twoPanels() throws {
        let a = try VirtualTouchscreen(profile: .kiosk10, name: "gestured virtual kiosk-10 A")
        let b = try VirtualTouchscreen(profile: .optical2, name: "gestured virtual optical-2 B")
        let deviceA = try Self.open(a, id: 1)
        let deviceB = try Self.open(b, id: 2)
        var framesA: [TouchFrame] = []
        var framesB: [TouchFrame] = []
        var outcomes: [TouchDevice.ReadOutcome] = []
        for step in 0..<10 {
            try a.send([SimulatedContact(id: 1, position: SurfacePoint(x: 0.1 + 0.05 * Double(step), y: 0.2))])
            if step < 5 {
                try b.send([
                    SimulatedContact(id: 1, position: SurfacePoint(x: 0.9, y: 0.1 + 0.1 * Double(step))),
                    SimulatedContact(id: 2, position: SurfacePoint(x: 0.1, y: 0.9)),
                ])
            }
        }
        try a.send([])
        try b.send([])
        #expect(Self.read(deviceA, into: &framesA, outcomes: &outcomes) { $0.count == 11 })
        #expect(Self.read(deviceB, into: &framesB, outcomes: &outcomes) { $0.count == 6 })
        #expect(framesA.allSatisfy { $0.device == DeviceID(1) && $0.touches.count == 1 })
        #expect(framesB.allSatisfy { $0.device == DeviceID(2) && $0.touches.count == 2 })
        #expect(framesA.allSatisfy { $0.touches.allSatisfy { abs($0.position.y - 0.2) < 1e-3 } })
        var checkerA = FrameStreamChecker()
        var checkerB = FrameStreamChecker()
        framesA.forEach { checkerA.check($0) }
        framesB.forEach { checkerB.check($0) }
        #expect(checkerA.problems.isEmpty && checkerB.problems.isEmpty)
        #expect(checkerA.began == 1 && checkerA.ended == 1 && checkerB.began == 2 && checkerB.ended == 2)
        #expect(outcomes.isEmpty)
    }

    // MARK: Faults

    @Test("a flood that overflows the kernel buffer resyncs with no stuck touch")
    func overflow() throws {
        let virtual = try VirtualTouchscreen(profile: .kiosk10)
        let device = try Self.open(virtual)
        var frames: [TouchFrame] = []
        var outcomes: [TouchDevice.ReadOutcome] = []
        func fingers(_ x: Double) -> [SimulatedContact] {
            [
                SimulatedContact(id: 1, position: SurfacePoint(x: x, y: 0.3)),
                SimulatedContact(id: 2, position: SurfacePoint(x: x, y: 0.6)),
            ]
        }
        try virtual.send(fingers(0.1))
        #expect(Self.read(device, into: &frames, outcomes: &outcomes) { !$0.isEmpty })
        // The reader stops (as a daemon under SIGSTOP would) while 3000 frames (~25 000 events)
        // arrive: far beyond evdev's client buffer. A lift and new contacts get lost in it.
        for step in 0..<3000 {
            try virtual.send(step == 1500 ? [] : fingers(0.1 + 0.8 * Double(step % 100) / 100))
        }
        Self.read(device, into: &frames, outcomes: &outcomes) { _ in !Self.readable(device.fileDescriptor, within: 200)
        }
        #expect(outcomes.contains { if case .resynced = $0 { true } else { false } })
        // The two touches that were live when events were lost are cancelled.
        #expect(frames.contains { $0.touches.count == 2 && $0.touches.allSatisfy { $0.phase == .cancelled } })
        // Fingers still down after the resync are not followed until they lift.
        try virtual.send([])
        try virtual.send([SimulatedContact(id: 3, position: SurfacePoint(x: 0.5, y: 0.5))])
        try virtual.send([])
        let before = frames.count
        #expect(Self.read(device, into: &frames, outcomes: &outcomes) { $0.count >= before + 2 })
        var checker = FrameStreamChecker()
        frames.forEach { checker.check($0) }
        #expect(checker.problems.isEmpty, "\(checker.problems)")
        #expect(checker.live.isEmpty, "stuck touches: \(checker.live)")
        #expect(device.liveTouchCount == 0)
        #expect(checker.began == checker.ended + checker.cancelled)
        // The tap after the flood comes through whole.
        #expect(frames.suffix(2).map { $0.touches.map(\.phase) } == [[.began], [.ended]])
    }

    @Test("EVIOCGRAB: a grabbed device cannot be grabbed by another reader")
    func grab() throws {
        let virtual = try VirtualTouchscreen(profile: .kiosk10)
        let device = try Self.open(virtual)
        try device.grab()
        #expect(device.isGrabbed)
        let other = try EvdevHandle(path: try #require(virtual.devnode))
        #expect(throws: InputError(call: "libevdev_grab", path: virtual.devnode, errno: EBUSY)) { try other.grab(true) }
        try device.grab(false)
        try other.grab(true)
    }
}
