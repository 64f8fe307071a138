import Testing
import TouchValues

@testable import TouchInput
@testable import VirtualDevices

/// The encoder (what virtual devices send) and the assembler (what the daemon reads) are inverses:
/// every profile, driven by scripted gestures, yields frames whose touches are the contacts sent,
/// at the positions sent (after quantisation to device units). The same check runs against a real
/// kernel in the VM suite.
@Suite struct ContactEncoderTests {
    static let script = """
        tap fingers=2
        pan from=0.1,0.1 to=0.9,0.8 fingers=2
        pinch out
        rotate fingers=2 angle=-120
        edge-swipe right
        circle
        """

    @Test(
        "encoded frames assemble back to the contacts sent",
        arguments: [DeviceProfile.kiosk10, .noResolution10, .optical2, .large60, .resistive, .protocolA])
    func roundTrip(_ profile: DeviceProfile) throws {
        let description = profile.capabilities()
        var encoder = try #require(ContactEncoder(description: description))
        let model = try TouchscreenModel(description: description)
        var assembler = model.makeAssembler(device: DeviceID(1), contactsKnown: true)
        var frames = TouchFrameBuffer()
        var checker = FrameStreamChecker()
        var touchOf: [Int: TouchID] = [:]
        var live: [TouchID: SurfacePoint] = [:]
        let singleTouch = if case .singleTouch = encoder.touchProtocol { true } else { false }
        var raw: [RawEvent] = []
        for step in try GestureScript(parsing: Self.script).timeline() {
            guard case .frame(let at, var contacts) = step else { continue }
            if singleTouch { contacts = Array(contacts.sorted { $0.id < $1.id }.prefix(1)) }
            raw.removeAll()
            encoder.encode(contacts, into: &raw)
            frames.removeAll()
            for r in raw {
                assembler.handle(
                    InputEvent(
                        time: Timestamp(microseconds: 1_000_000 + at.microseconds), type: r.type, code: r.code,
                        value: r.value),
                    into: &frames)
            }
            checker.check(frames)
            for frame in frames {
                #expect(frame.time.microseconds == 1_000_000 + at.microseconds)
                for touch in frame.touches {
                    if touch.phase.isLive { live[touch.id] = touch.position } else { live[touch.id] = nil }
                }
            }
            // The live touches are exactly the contacts, at their quantised positions.
            #expect(live.count == contacts.count, "\(profile) at \(at)")
            let expected = contacts.map { model.mapper.surfacePoint(encoder.mapper.devicePoint($0.position)) }
            switch encoder.touchProtocol {
            case .slots, .singleTouch:
                for (contact, position) in zip(contacts, expected) {
                    if touchOf[contact.id] == nil {
                        touchOf[contact.id] =
                            frames.flatMap(\.touches).first {
                                $0.phase == .began && !touchOf.values.contains($0.id) && near($0.position, position)
                            }?.id
                    }
                    let id = try #require(touchOf[contact.id], "\(profile): contact \(contact.id) never began")
                    #expect(live[id].map { near($0, position) } == true, "\(profile) contact \(contact.id) at \(at)")
                }
            case .protocolA:
                // mtdev re-derives identities; compare positions as a set.
                for position in expected {
                    #expect(live.values.contains { near($0, position) }, "\(profile) at \(at)")
                }
            }
        }
        #expect(checker.problems.isEmpty, "\(checker.problems)")
        #expect(checker.began == (singleTouch ? 6 : 10))
        #expect(checker.live.isEmpty)
        #expect(encoder.droppedContacts == 0)
    }

    @Test("more contacts than slots: the extra ones are not sent")
    func tooManyContacts() throws {
        var encoder = try #require(ContactEncoder(description: DeviceProfile.optical2.capabilities()))
        var raw: [RawEvent] = []
        encoder.encode(
            (0..<3).map { SimulatedContact(id: $0, position: SurfacePoint(x: 0.1 * Double($0), y: 0.5)) }, into: &raw)
        #expect(encoder.droppedContacts == 1)
        #expect(raw.filter { $0.code == EventCode.absMTTrackingID }.count == 2)
    }

    @Test("the kernel's pointer emulation is reproduced: BTN_TOUCH and ABS_X of the first contact")
    func pointerEmulation() throws {
        var encoder = try #require(ContactEncoder(description: DeviceProfile.kiosk10.capabilities()))
        var raw: [RawEvent] = []
        encoder.encode([SimulatedContact(id: 1, position: SurfacePoint(x: 1, y: 0))], into: &raw)
        #expect(raw.contains(RawEvent(EventCode.evKey, EventCode.btnTouch, 1)))
        #expect(raw.contains(RawEvent(EventCode.evAbs, EventCode.absX, 32767)))
        raw.removeAll()
        encoder.encode([], into: &raw)
        #expect(
            raw == [
                RawEvent(EventCode.evAbs, EventCode.absMTSlot, 0),
                RawEvent(EventCode.evAbs, EventCode.absMTTrackingID, -1),
                RawEvent(EventCode.evKey, EventCode.btnTouch, 0), RawEvent(EventCode.evSyn, EventCode.synReport, 0),
            ])
    }
}
