import Testing
import TouchValues

@testable import TouchInput
@testable import VirtualDevices

/// The frame assembler's rules (docs/INPUT.md, "Frames"), one scenario each.
@Suite struct FrameAssemblerTests {
    let kiosk = DeviceProfile.kiosk10.capabilities()

    @Test("a contact's life: began, moved, stationary, ended, with kernel time and surface position")
    func lifecycle() throws {
        var e = EventList()
        e.down(slot: 0, id: 10, x: 0, y: 32767)
        e.report()
        e.x(16384)
        e.report()
        e.slot(1)
        e.tid(11)
        e.x(100)
        e.y(100)
        e.report()
        e.slot(0)
        e.tid(-1)
        e.report()
        let (frames, assembler) = try assemble(e.events)
        #expect(frames.count == 4)
        #expect(frames[0].phases == [1: .began])
        #expect(frames[0].time == Timestamp(microseconds: 1_000_000))
        #expect(near(frames[0].touches[0].position, SurfacePoint(x: 0, y: 1)))
        #expect(frames[1].phases == [1: .moved])
        #expect(near(frames[1].touches[0].position, SurfacePoint(x: 16384.0 / 32767, y: 1)))
        #expect(frames[2].phases == [1: .stationary, 2: .began])
        #expect(frames[3].phases == [1: .ended, 2: .stationary])
        #expect(frames.allSatisfy { $0.device == DeviceID(7) })
        #expect(assembler.liveTouchCount == 1)
    }

    @Test("a frame buffer's times are its first and last frame's, none when it holds none")
    func bufferTimes() {
        var buffer = TouchFrameBuffer()
        #expect(buffer.times == nil)
        buffer.append(TouchFrame(device: DeviceID(1), time: Timestamp(microseconds: 5), touches: []))
        #expect(buffer.times?.first == Timestamp(microseconds: 5))
        #expect(buffer.times?.last == Timestamp(microseconds: 5))
        buffer.append(TouchFrame(device: DeviceID(1), time: Timestamp(microseconds: 9), touches: []))
        #expect(buffer.times?.first == Timestamp(microseconds: 5))
        #expect(buffer.times?.last == Timestamp(microseconds: 9))
        buffer.removeAll()
        #expect(buffer.times == nil)
    }

    @Test("a SYN_REPORT that changes nothing makes no frame")
    func unchangedReport() throws {
        var e = EventList()
        e.down(slot: 0, id: 1, x: 10, y: 10)
        e.report()
        e.x(10)  // same value
        e.report()
        e.abs(EventCode.absX, 500)  // pointer emulation only
        e.report()
        let (frames, _) = try assemble(e.events)
        #expect(frames.count == 1)
    }

    @Test("touch ids are never reused, even when the kernel reuses tracking ids")
    func idsNeverReused() throws {
        var e = EventList()
        for _ in 0..<5 {
            e.down(slot: 0, id: 42, x: 5, y: 5)
            e.report()
            e.tid(-1)
            e.report()
        }
        let (frames, _) = try assemble(e.events)
        let began = frames.flatMap(\.touches).filter { $0.phase == .began }.map(\.id)
        #expect(began.count == 5)
        #expect(Set(began).count == 5)
    }

    @Test("flicker: a lift and a new contact in one report end the old touch and begin a new one")
    func flicker() throws {
        var e = EventList()
        e.down(slot: 0, id: 1, x: 5, y: 5)
        e.report()
        e.tid(-1)
        e.tid(2)
        e.x(6)
        e.report()
        let (frames, _) = try assemble(e.events)
        #expect(frames.count == 2)
        #expect(frames[1].phases == [1: .ended, 2: .began])
    }

    @Test("a new tracking id without a lift replaces the contact")
    func replacement() throws {
        var e = EventList()
        e.down(slot: 0, id: 1, x: 5, y: 5)
        e.report()
        e.tid(2)
        e.report()
        e.tid(2)  // repeated id: nothing new
        e.report()
        let (frames, assembler) = try assemble(e.events)
        #expect(frames.count == 2)
        #expect(frames[1].phases == [1: .ended, 2: .began])
        #expect(assembler.diagnostics.trackingIDReplacements == 1)
    }

    @Test("a contact that lands and lifts between two reports is began then ended at the same time")
    func withinOneFrame() throws {
        var e = EventList()
        e.down(slot: 0, id: 1, x: 5, y: 5)
        e.report()
        e.down(slot: 1, id: 2, x: 9, y: 9)
        e.tid(-1)
        e.report()
        let (frames, _) = try assemble(e.events)
        #expect(frames.count == 3)
        #expect(frames[1].phases == [1: .stationary, 2: .began])
        #expect(frames[2].phases == [1: .stationary, 2: .ended])
        #expect(frames[1].time == frames[2].time)
    }

    @Test("a slot gives a frame one touch at most, whatever its tracking ids do between two reports")
    func oneTouchASlotAFrame() throws {
        var e = EventList()
        e.down(slot: 0, id: 1, x: 5, y: 5)
        e.report()
        // Slot 1: three contacts come and go, a fourth stays.
        e.down(slot: 1, id: 2, x: 9, y: 9)
        e.tid(3)
        e.tid(-1)
        e.tid(4)
        e.tid(5)
        e.report()
        // Slot 2: two contacts come and go; the last is the frame's.
        e.down(slot: 2, id: 6, x: 7, y: 7)
        e.tid(-1)
        e.tid(7)
        e.tid(-1)
        e.report()
        let (frames, assembler) = try assemble(e.events)
        #expect(frames.map { $0.touches.count } == [1, 2, 3, 3])
        #expect(frames[1].phases == [1: .stationary, 5: .began])
        #expect(frames[2].phases == [1: .stationary, 5: .stationary, 7: .began])
        #expect(frames[3].phases == [1: .stationary, 5: .stationary, 7: .ended])
        #expect(assembler.diagnostics.contactsSupersededWithinOneFrame == 4)
        #expect(assembler.diagnostics.contactsWithinOneFrame == 1)
        #expect(assembler.liveTouchCount == 2)
    }

    /// A kernel drops ABS_MT_SLOT values outside the slots a device announces, so only a
    /// recording holds them; they were followed (the table grew to 256), and 10 000 tracking ids
    /// on a 10-slot panel were explained as "64 fingers down". They are dropped as the kernel
    /// drops them, and counted.
    @Test("slots beyond the announced count are dropped, as the kernel drops them")
    func moreSlotsThanAnnounced() throws {
        var e = EventList()
        e.down(slot: 0, id: 1, x: 5, y: 5)
        e.report()
        e.down(slot: 12, id: 2, x: 6, y: 6)
        e.report()
        e.slot(300)
        e.tid(3)
        e.report()
        let (frames, assembler) = try assemble(e.events)
        #expect(frames.count == 1)
        #expect(frames[0].phases == [1: .began])
        #expect(assembler.diagnostics.slotsAdded == 0)
        #expect(assembler.diagnostics.eventsForInvalidSlots == 6)
        #expect(assembler.diagnostics.highestInvalidSlot == 300)
    }

    @Test("contacts down before the first event are ignored until they lift (recording started mid-touch)")
    func alreadyDownInRecording() throws {
        var e = EventList()
        e.slot(3)
        e.x(100)  // slot 3's contact began before the recording
        e.report()
        e.down(slot: 0, id: 7, x: 5, y: 5)
        e.report()
        e.slot(3)
        e.tid(-1)
        e.report()
        e.slot(3)
        e.tid(9)
        e.report()
        let (frames, assembler) = try assemble(e.events, contactsKnown: false)
        #expect(frames.map(\.touches.count) == [1, 2])
        #expect(frames[1].phases == [1: .stationary, 2: .began])
        #expect(assembler.diagnostics.contactsIgnored == 1)
    }

    @Test("contacts down when a live device is opened are ignored until they lift")
    func alreadyDownAtOpen() throws {
        var e = EventList()
        e.slot(0)
        e.x(200)
        e.report()
        e.tid(-1)
        e.report()
        e.tid(4)
        e.report()
        let states = [
            FrameAssembler.SlotState(trackingID: 3, x: 100, y: 100),
            FrameAssembler.SlotState(trackingID: -1, x: 0, y: 0),
        ]
        let (frames, _) = try assemble(e.events, states: states)
        #expect(frames.count == 1)
        #expect(frames[0].phases == [1: .began])
    }

    @Test("a finger that turns into a palm is cancelled; a contact landing as a palm is reported as one")
    func palm() throws {
        var e = EventList()
        e.down(slot: 0, id: 1, x: 5, y: 5)
        e.report()
        e.tool(EventCode.mtToolPalm)
        e.x(50)
        e.report()
        e.x(60)  // the palm moves on: ignored
        e.report()
        e.tid(-1)
        e.tool(EventCode.mtToolFinger)
        e.report()
        e.slot(1)
        e.tool(EventCode.mtToolPalm)
        e.tid(5)
        e.report()
        let (frames, assembler) = try assemble(e.events)
        #expect(frames.count == 3)
        #expect(frames[1].phases == [1: .cancelled])
        #expect(frames[2].phases == [2: .began])
        #expect(frames[2].touches[0].tool == .palm)
        #expect(assembler.diagnostics.palmCancellations == 1)
    }

    @Test("SYN_DROPPED cancels live touches and forgets the state until contacts land again")
    func dropped() throws {
        var e = EventList()
        e.down(slot: 0, id: 1, x: 5, y: 5)
        e.report()
        e.add(EventCode.evSyn, EventCode.synDropped, 0)
        e.slot(0)
        e.x(9)  // an unknown contact after the loss
        e.report()
        e.slot(1)
        e.tid(8)
        e.report()
        let (frames, assembler) = try assemble(e.events)
        #expect(frames.count == 3)
        #expect(frames[1].phases == [1: .cancelled])
        #expect(frames[2].phases == [2: .began])
        #expect(assembler.diagnostics.eventsDropped == 1)
    }

    @Test("cancelAll cancels every live touch once (device removal)")
    func cancelAll() throws {
        var e = EventList()
        e.down(slot: 0, id: 1, x: 5, y: 5)
        e.down(slot: 1, id: 2, x: 6, y: 6)
        e.report()
        var (frames, assembler) = try assemble(e.events)
        var buffer = TouchFrameBuffer()
        assembler.cancelAll(at: Timestamp(microseconds: 5_000_000), into: &buffer)
        assembler.cancelAll(at: Timestamp(microseconds: 6_000_000), into: &buffer)
        frames += buffer
        #expect(buffer.count == 1)
        #expect(buffer[0].phases == [1: .cancelled, 2: .cancelled])
        #expect(assembler.liveTouchCount == 0)
    }

    @Test("pressure is normalised and contact size converted to mm when the size is known")
    func pressureAndSize() throws {
        var e = EventList()
        e.down(slot: 0, id: 1, x: 5, y: 5)
        e.abs(EventCode.absMTPressure, 51)
        e.abs(EventCode.absMTTouchMajor, 64)
        e.report()
        let (frames, _) = try assemble(e.events)
        let touch = frames[0].touches[0]
        #expect(touch.pressure == 51.0 / 255)
        // kiosk-10: 64 units/mm horizontally, 114 vertically → 64 units ≈ (1 + 64/114) / 2 mm
        let expected = (64.0 / 64 + 64.0 / 114) / 2
        #expect(Swift.abs((touch.contactSize?.value ?? 0) - expected) < 1e-9)
        let noSize = try assemble(e.events, description: DeviceProfile.large60.capabilities()).frames
        #expect(noSize[0].touches[0].contactSize == nil)
    }

    @Test("single-touch panels: BTN_TOUCH drives one contact")
    func singleTouch() throws {
        var e = EventList()
        e.abs(EventCode.absX, 4095)
        e.abs(EventCode.absY, 0)
        e.key(EventCode.btnTouch, 1)
        e.report()
        e.abs(EventCode.absX, 2048)
        e.report()
        e.key(EventCode.btnTouch, 0)
        e.report()
        e.key(EventCode.btnTouch, 1)
        e.report()
        let (frames, _) = try assemble(
            e.events, description: DeviceProfile.resistive.capabilities(), contactsKnown: false)
        #expect(frames.map(\.phases) == [[1: .began], [1: .moved], [1: .ended], [2: .began]])
        #expect(near(frames[0].touches[0].position, SurfacePoint(x: 1, y: 0)))
    }

    @Test("protocol A contacts get tracked through mtdev")
    func protocolA() throws {
        var e = EventList()
        for step in 0..<3 {
            for finger in 0..<2 {
                e.abs(EventCode.absMTPositionX, Int32(1000 + finger * 4000 + step * 50))
                e.abs(EventCode.absMTPositionY, 3000)
                // mtdev counts a contact as touching when its touch major (if the axis exists) is > 0.
                e.abs(EventCode.absMTTouchMajor, 300)
                e.add(EventCode.evSyn, EventCode.synMTReport, 0)
            }
            e.key(EventCode.btnTouch, 1)
            e.report()
        }
        e.add(EventCode.evSyn, EventCode.synMTReport, 0)
        e.key(EventCode.btnTouch, 0)
        e.report()
        let (frames, _) = try assemble(e.events, description: DeviceProfile.protocolA.capabilities())
        #expect(frames.count == 4)
        #expect(frames[0].touches.map(\.phase) == [.began, .began])
        #expect(frames[1].touches.map(\.phase) == [.moved, .moved])
        #expect(frames[3].touches.map(\.phase) == [.ended, .ended])
        let xs = frames[0].touches.map(\.position.x).sorted()
        #expect(near(SurfacePoint(x: xs[0], y: 0), SurfacePoint(x: 1000.0 / 9600, y: 0), 1e-3))
        #expect(near(SurfacePoint(x: xs[1], y: 0), SurfacePoint(x: 5000.0 / 9600, y: 0), 1e-3))
    }

    @Test("rotation and calibration apply to positions", arguments: Rotation.allCases)
    func rotated(_ rotation: Rotation) throws {
        var e = EventList()
        e.down(slot: 0, id: 1, x: 0, y: 0)  // top-left of the panel
        e.report()
        let (frames, _) = try assemble(e.events, settings: DeviceSettings(rotation: rotation))
        let expected: SurfacePoint =
            switch rotation {
            case .none: SurfacePoint(x: 0, y: 0)
            case .clockwise90: SurfacePoint(x: 1, y: 0)
            case .clockwise180: SurfacePoint(x: 1, y: 1)
            case .clockwise270: SurfacePoint(x: 0, y: 1)
            }
        #expect(near(frames[0].touches[0].position, expected))
    }
}
