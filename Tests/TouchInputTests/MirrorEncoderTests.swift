import CEvdev
import GestureEngine
import Glibc
import Testing

@testable import TouchInput
@testable import VirtualDevices

/// The passthrough mirror's encoding (docs/PASSTHROUGH.md), checked the way a reader of the mirror
/// sees it: the mirror's events go through a ``FrameAssembler`` made from the mirror's own
/// description, and must give back the panel's touches with the panel's own values. The real
/// kernel and libinput check the same in the VM suite (Tests/EndToEndTests/PassthroughTests).
@Suite struct MirrorEncoderTests {
    /// A panel, its mirror, and an assembler reading each.
    struct Rig {
        let source: TouchscreenModel
        var panel: ContactEncoder
        var panelAssembler: FrameAssembler
        var mirror: MirrorEncoder
        var mirrorAssembler: FrameAssembler
        let mirrorModel: TouchscreenModel
        var time: Int64 = 1_000_000

        init(_ profile: DeviceProfile) throws {
            let description = profile.capabilities()
            source = try TouchscreenModel(description: description)
            panel = try #require(ContactEncoder(description: description))
            panelAssembler = source.makeAssembler(device: DeviceID(1), contactsKnown: true)
            mirror = MirrorEncoder(source: description, touchProtocol: source.touchProtocol)
            mirrorModel = try TouchscreenModel(description: mirror.description)
            mirrorAssembler = mirrorModel.makeAssembler(device: DeviceID(2), contactsKnown: true)
        }

        /// The panel reports `contacts` 10 ms after the last report; its frames.
        mutating func panelFrames(_ contacts: [SimulatedContact]) -> [TouchFrame] {
            time += 10_000
            var raw: [RawEvent] = []
            panel.encode(contacts, into: &raw)
            var frames = TouchFrameBuffer()
            for r in raw {
                panelAssembler.handle(
                    InputEvent(time: Timestamp(microseconds: time), type: r.type, code: r.code, value: r.value),
                    into: &frames)
            }
            return Array(frames)
        }

        /// `views` through the mirror, as one batch; the mirror's events and what a reader of the
        /// mirror assembles from them.
        mutating func mirrored(_ views: [ViewTouchEvent]) -> (events: [RawEvent], frames: [TouchFrame]) {
            var raw: [RawEvent] = []
            for view in views { mirror.encode(view.touch, at: view.time, into: &raw) }
            mirror.finish(into: &raw)
            var frames = TouchFrameBuffer()
            for r in raw {
                mirrorAssembler.handle(
                    InputEvent(time: Timestamp(microseconds: time), type: r.type, code: r.code, value: r.value),
                    into: &frames)
            }
            return (raw, Array(frames))
        }
    }

    /// Every touch of the frames as the views see it when nobody claims anything (R8).
    static func views(_ frames: [TouchFrame]) -> [ViewTouchEvent] {
        frames.flatMap { frame in
            frame.touches.filter { $0.phase != .stationary }.map {
                ViewTouchEvent(device: frame.device, region: "root", touch: $0, time: frame.time)
            }
        }
    }

    /// What the reader of a mirror compares: everything but the touch ids, which each side
    /// hands out itself; sorted, because the mirror numbers its slots on its own.
    static func seen(_ frames: [TouchFrame]) -> [String] {
        frames.flatMap(\.touches).filter { $0.phase != .stationary }.map { touch in
            let r = touch.raw.map { "\($0.position.x),\($0.position.y) major \($0.touchMajor) p \($0.pressure)" }
            return "\(touch.phase) \(r ?? "no raw values") at \(touch.position) \(touch.tool)"
        }.sorted()
    }

    @Test(
        "an unclaimed touch reaches a mirror reader with the panel's own values, for every kind of panel",
        arguments: [DeviceProfile.kiosk10, .noResolution10, .optical2, .large60, .resistive, .protocolA])
    func roundTrip(_ profile: DeviceProfile) throws {
        var rig = try Rig(profile)
        let singleTouch = if case .singleTouch = rig.source.touchProtocol { true } else { false }
        var checker = FrameStreamChecker()
        var compared = 0
        for step in try GestureScript(parsing: ContactEncoderTests.script).timeline() {
            guard case .frame(_, var contacts) = step else { continue }
            if singleTouch { contacts = Array(contacts.sorted { $0.id < $1.id }.prefix(1)) }
            // Pressure changes while fingers move, so `moved` carries it too.
            for i in contacts.indices { contacts[i].pressure = 0.3 + Double(rig.time / 10_000 % 5) / 10 }
            let source = rig.panelFrames(contacts)
            let (_, mirrored) = rig.mirrored(Self.views(source))
            for frame in mirrored { checker.check(frame) }
            #expect(Self.seen(mirrored) == Self.seen(source), "\(profile) at \(rig.time)")
            compared += source.count
        }
        #expect(compared > 100)
        #expect(checker.problems.isEmpty, "\(checker.problems)")
        #expect(checker.live.isEmpty)
        #expect(rig.mirror.diagnostics == MirrorDiagnostics())
    }

    /// One stroke through the engine with an edge swipe from the top (R8), the views' events through
    /// the mirror: what the panel reported and what a reader of the mirror saw, in order.
    static func stroke(
        from start: SurfacePoint, by step: SurfaceVector, delaysTouchesBegan: Bool
    ) throws -> (panel: [String], mirror: [String], gestures: [GestureEvent]) {
        var rig = try Rig(.kiosk10)
        var parameters = EdgeSwipeParameters()
        parameters.edges = [.top]
        var engine = try GestureEngine(
            configuration: EngineConfiguration(
                regions: [],
                recognizers: [
                    RecognizerSpec(
                        name: "admin", parameters: .edgeSwipe(parameters), delaysTouchesBegan: delaysTouchesBegan)
                ]))
        engine.addDevice(rig.source.descriptor(id: DeviceID(1), label: "event1"))
        var panel: [String] = []
        var mirror: [String] = []
        var gestures: [GestureEvent] = []
        var events: [EngineEvent] = []
        func feed(_ frames: [TouchFrame]) {
            panel += frames.flatMap(\.touches).filter { $0.phase != .stationary }.map(Self.describe)
            for frame in frames { engine.process(frame, into: &events) }
            let views = events.compactMap { if case .touch(let t) = $0 { t } else { nil } }
            gestures += events.compactMap { if case .gesture(let g) = $0 { g } else { nil } }
            events.removeAll()
            mirror += rig.mirrored(views).frames.flatMap(\.touches).filter { $0.phase != .stationary }.map(
                Self.describe)
        }
        for i in 0..<15 {
            feed(rig.panelFrames([SimulatedContact(id: 1, position: start + step * Double(i))]))
        }
        feed(rig.panelFrames([]))
        return (panel, mirror, gestures)
    }

    static func describe(_ touch: Touch) -> String {
        let r = touch.raw.map { "\($0.position.x),\($0.position.y)" } ?? "?"
        return "\(touch.phase) \(r)"
    }

    @Test("R8 through the mirror: a claimed touch delayed from the views never reaches it")
    func delayedAndClaimed() throws {
        let (panel, mirror, gestures) = try Self.stroke(
            from: SurfacePoint(x: 0.5, y: 0.005), by: SurfaceVector(dx: 0, dy: 0.01), delaysTouchesBegan: true)
        #expect(gestures.first?.state == .began && gestures.last?.state == .ended)
        #expect(panel.count == 16)
        #expect(mirror.isEmpty, "\(mirror)")
    }

    @Test("R8 through the mirror: a delayed touch whose recognizer fails arrives whole, in order, unchanged")
    func delayedAndReleased() throws {
        // Along the edge, not away from it: the edge swipe fails after 10 mm, releasing what it held.
        let (panel, mirror, gestures) = try Self.stroke(
            from: SurfacePoint(x: 0.3, y: 0.005), by: SurfaceVector(dx: 0.01, dy: 0), delaysTouchesBegan: true)
        #expect(gestures.isEmpty)
        #expect(mirror == panel)
        #expect(mirror.first?.hasPrefix("began") == true && mirror.last?.hasPrefix("ended") == true)
    }

    @Test("R8 through the mirror: a claimed touch the views already saw is cancelled on it")
    func cancelledWhenClaimed() throws {
        let (panel, mirror, gestures) = try Self.stroke(
            from: SurfacePoint(x: 0.5, y: 0.005), by: SurfaceVector(dx: 0, dy: 0.01), delaysTouchesBegan: false)
        #expect(gestures.first?.state == .began)
        let claimedAt = try #require(mirror.firstIndex { $0.hasPrefix("cancelled") })
        #expect(Array(mirror[..<claimedAt]) == Array(panel[..<claimedAt]))
        #expect(claimedAt >= 2 && claimedAt == mirror.count - 1, "\(mirror)")
    }

    @Test("a cancelled touch is a palm in its own frame, then a lift; the next touch in the slot is a finger again")
    func cancel() throws {
        var rig = try Rig(.kiosk10)
        let point = SurfacePoint(x: 0.5, y: 0.5)
        let landed = rig.panelFrames([SimulatedContact(id: 1, position: point)])
        _ = rig.mirrored(Self.views(landed))
        let touch = try #require(landed.first?.touches.first)
        var cancelled = touch
        cancelled.phase = .cancelled
        let (events, frames) = rig.mirrored([
            ViewTouchEvent(
                device: DeviceID(1), region: "root", touch: cancelled, time: Timestamp(microseconds: rig.time))
        ])
        let abs = EventCode.evAbs
        #expect(
            events == [
                RawEvent(abs, EventCode.absMTSlot, 0), RawEvent(abs, EventCode.absMTToolType, EventCode.mtToolPalm),
                RawEvent(EventCode.evSyn, EventCode.synReport, 0),
                RawEvent(abs, EventCode.absMTSlot, 0), RawEvent(abs, EventCode.absMTTrackingID, -1),
                RawEvent(EventCode.evKey, EventCode.btnTouch, 0), RawEvent(EventCode.evSyn, EventCode.synReport, 0),
            ])
        // A reader (the assembler follows libinput's rule) sees the touch cancelled, not ended.
        #expect(frames.flatMap(\.touches).map(\.phase) == [.cancelled])

        _ = rig.panelFrames([])  // the panel lifts; the views never hear of it (claimed)
        let again = rig.panelFrames([SimulatedContact(id: 2, position: point)])
        let (next, nextFrames) = rig.mirrored(Self.views(again))
        let toolIndex = try #require(
            next.firstIndex(of: RawEvent(abs, EventCode.absMTToolType, EventCode.mtToolFinger)))
        let idIndex = try #require(next.firstIndex { $0.code == EventCode.absMTTrackingID })
        #expect(toolIndex < idIndex, "libinput reads the slot's tool type when the tracking id arrives: \(next)")
        #expect(nextFrames.flatMap(\.touches).map(\.phase) == [.began])
        #expect(nextFrames.first?.touches.first?.tool == .finger)
    }

    @Test(
        "before the arena through the mirror: a wake's touches never reach it, the next tap arrives whole, a stuck contact is cancelled on it"
    )
    func panelStage() throws {
        var rig = try Rig(.kiosk10)
        // No recognizers: everything the stage lets through reaches the mirror unchanged.
        var engine = try GestureEngine(configuration: EngineConfiguration(regions: [], recognizers: []))
        let device = DeviceID(1)
        let panel = PanelSettings(
            stuckContact: StuckContactLimit(after: .milliseconds(1_000), within: Millimeters(2)), screenWake: true)
        engine.addDevice(
            rig.source.descriptor(id: device, label: "event1"), panel: panel, at: Timestamp(microseconds: rig.time))
        var events: [EngineEvent] = []
        var woken: [TouchID] = []
        /// What the panel reported of `steps` and what a reader of the mirror saw, in order.
        func feed(_ steps: [[SimulatedContact]]) -> (panel: [String], mirror: [String]) {
            var panel: [String] = []
            var views: [ViewTouchEvent] = []
            for contacts in steps {
                let frames = rig.panelFrames(contacts)
                panel += frames.flatMap(\.touches).filter { $0.phase != .stationary }.map(Self.describe)
                for frame in frames { engine.process(frame, into: &events) }
            }
            if let deadline = engine.nextDeadline, deadline.microseconds <= rig.time {
                engine.advance(to: deadline, into: &events)
            }
            for event in events {
                switch event {
                case .touch(let t): views.append(t)
                case .panel(let p): if case .woken(let id, _, _) = p.what { woken.append(id) }
                case .gesture, .explanation: break
                }
            }
            events.removeAll()
            let mirror = rig.mirrored(views).frames.flatMap(\.touches).filter { $0.phase != .stationary }
            return (panel, mirror.map(Self.describe))
        }
        let a = SurfacePoint(x: 0.4, y: 0.5)
        let b = SurfacePoint(x: 0.6, y: 0.5)

        engine.screen(device, isOn: false)
        let wake = feed([
            [SimulatedContact(id: 1, position: a)],
            [SimulatedContact(id: 1, position: a), SimulatedContact(id: 2, position: b)],  // lands with it
            [SimulatedContact(id: 2, position: b)], [],
        ])
        #expect(wake.panel.count == 4)
        #expect(wake.mirror.isEmpty, "\(wake.mirror)")
        #expect(woken.count == 1)

        let tap = feed([[SimulatedContact(id: 3, position: a)], [SimulatedContact(id: 3, position: a)], []])
        #expect(tap.mirror == tap.panel && tap.mirror.count == 2, "\(tap.mirror)")

        // Held still: the panel reports nothing more, and after a second the mirror gets a cancel.
        let held = feed([[SimulatedContact(id: 4, position: b)]])
        #expect(held.mirror == held.panel)
        rig.time += 1_000_000
        let stuck = feed([])
        #expect(stuck.mirror.count == 1 && stuck.mirror.first?.hasPrefix("cancelled") == true, "\(stuck.mirror)")
        let lifted = feed([[]])
        #expect(lifted.panel.count == 1 && lifted.mirror.isEmpty, "\(lifted)")
    }

    @Test("events of one time make one frame; a touch that begins and ends in one report gets two")
    func framing() throws {
        var rig = try Rig(.kiosk10)
        let two = rig.panelFrames([
            SimulatedContact(id: 1, position: SurfacePoint(x: 0.2, y: 0.2)),
            SimulatedContact(id: 2, position: SurfacePoint(x: 0.8, y: 0.8)),
        ])
        let (events, frames) = rig.mirrored(Self.views(two))
        #expect(events.filter { $0.code == EventCode.synReport && $0.type == EventCode.evSyn }.count == 1)
        #expect(frames.count == 1 && frames[0].touches.count == 2)

        let t = Timestamp(microseconds: rig.time + 10_000)
        let touch = Touch(
            id: TouchID(99), phase: .began, position: SurfacePoint(x: 0.5, y: 0.5),
            raw: RawContact(position: DevicePoint(x: 16000, y: 16000), touchMajor: 9, pressure: 100))
        var ended = touch
        ended.phase = .ended
        let (instant, instantFrames) = rig.mirrored([
            ViewTouchEvent(device: DeviceID(1), region: "root", touch: touch, time: t),
            ViewTouchEvent(device: DeviceID(1), region: "root", touch: ended, time: t),
        ])
        #expect(instant.filter { $0.type == EventCode.evSyn }.count == 2)
        #expect(instantFrames.flatMap(\.touches).filter { $0.raw == touch.raw }.map(\.phase) == [.began, .ended])
    }

    @Test("touches beyond the mirror's slots are dropped and counted, their later events ignored")
    func slotOverflow() throws {
        var rig = try Rig(.optical2)
        let contacts = (1...3).map { SimulatedContact(id: $0, position: SurfacePoint(x: Double($0) / 4, y: 0.5)) }
        let frames = rig.panelFrames(Array(contacts.prefix(2)))
        var views = Self.views(frames)
        // A third touch the panel itself could not report: given straight to the mirror.
        let third = Touch(
            id: TouchID(77), phase: .began, position: SurfacePoint(x: 0.75, y: 0.5),
            raw: RawContact(position: DevicePoint(x: 1440, y: 540)))
        var lifted = third
        lifted.phase = .ended
        views.append(ViewTouchEvent(device: DeviceID(1), region: "root", touch: third, time: frames[0].time))
        views.append(ViewTouchEvent(device: DeviceID(1), region: "root", touch: lifted, time: frames[0].time))
        let (_, mirrored) = rig.mirrored(views)
        #expect(mirrored.flatMap(\.touches).count == 2)
        #expect(rig.mirror.diagnostics.droppedTouches == 1)
        #expect(rig.mirror.diagnostics.untrackedEvents == 1)
    }

    @Test("the mirror has the panel's axes, ranges and slots; palm reachable; unfollowed axes left out")
    func description() throws {
        var panel = DeviceProfile.kiosk10.capabilities(name: "Panel")
        panel.addAxis(EventCode.absMTToolType, AbsInfo(minimum: 0, maximum: 1))
        panel.addAxis(EventCode.absMTOrientation, AbsInfo(minimum: -90, maximum: 90))
        panel.addCode(EventCode.evMsc, EventCode.mscTimestamp)
        let model = try TouchscreenModel(description: panel)
        let mirror = MirrorEncoder(source: panel, touchProtocol: model.touchProtocol)
        let d = mirror.description
        #expect(d.name == "Panel (gestured passthrough)")
        #expect(d.id == panel.id && d.properties == panel.properties)
        #expect(d.absInfo[EventCode.absMTPositionX] == panel.absInfo[EventCode.absMTPositionX])
        #expect(d.absInfo[EventCode.absMTPositionY]?.resolution == 114)
        #expect(d.slotCount == 10)
        #expect(d.absInfo[EventCode.absMTToolType]?.maximum == EventCode.mtToolPalm)
        #expect(!d.hasAxis(EventCode.absMTOrientation) && mirror.omittedAxes == [EventCode.absMTOrientation])
        #expect(d.codes[EventCode.evMsc] == nil)
        #expect(d.codes[EventCode.evKey] == panel.codes[EventCode.evKey])

        let protocolA = DeviceProfile.protocolA.capabilities()
        let a = MirrorEncoder(source: protocolA, touchProtocol: .protocolA).description
        #expect(a.slotCount == MirrorEncoder.protocolASlots && a.hasAxis(EventCode.absMTTrackingID))
        #expect(try TouchscreenModel(description: a).touchProtocol == .slots(count: MirrorEncoder.protocolASlots))
    }

    @Test("mirror names fit the kernel's 79 bytes, cut on a character boundary, and are recognised")
    func names() {
        let long = String(repeating: "ü", count: 60)
        let name = MirrorEncoder.mirrorName(of: long)
        #expect(name.utf8.count <= 79 && name.hasSuffix(MirrorMarks.nameSuffix))
        #expect(name.hasPrefix("üüü") && !name.contains("\u{FFFD}"))
        #expect(MirrorMarks.isMirror(name: name, phys: nil))
        #expect(MirrorMarks.isMirror(name: "renamed", phys: MirrorMarks.physPrefix + "usb-1/input0"))
        #expect(!MirrorMarks.isMirror(name: "eGalax Inc. USB TouchController", phys: "usb-0000:00:14.0-2/input0"))
    }

    @Test("the panel's values ride in Touch without making it bigger than 64 bytes")
    func touchLayout() {
        #expect(MemoryLayout<Touch>.stride == 64)
    }

    @Test("a batch is written as input_events in one write")
    func batchWrite() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer {
            close(fds[0])
            close(fds[1])
        }
        let events = [
            RawEvent(EventCode.evAbs, EventCode.absMTSlot, 3), RawEvent(EventCode.evAbs, EventCode.absMTTrackingID, -1),
            RawEvent(EventCode.evSyn, EventCode.synReport, 0),
        ]
        var writer = EventWriter(fileDescriptor: fds[1])
        try writer.write(events)
        var read = [input_event](repeating: input_event(), count: 4)
        let n = read.withUnsafeMutableBytes { Glibc.read(fds[0], $0.baseAddress, $0.count) }
        #expect(n == 3 * MemoryLayout<input_event>.stride)
        #expect(read.prefix(3).map { RawEvent($0.type, $0.code, $0.value) } == events)
    }
}
