import Testing
import TouchValues

@testable import TouchInput
@testable import VirtualDevices

/// Which devices are touchscreens, mirroring udev's input_id (docs/INPUT.md, "Discovery").
@Suite struct DeviceClassifierTests {
    @Test(
        "built-in profiles classify as their kind",
        arguments: [
            (DeviceProfile.kiosk10, TouchProtocol.slots(count: 10)), (.noResolution10, .slots(count: 10)),
            (.optical2, .slots(count: 2)), (.large60, .slots(count: 60)),
            (.resistive, .singleTouch(button: EventCode.btnTouch)),
            (.protocolA, .protocolA),
        ])
    func profiles(_ profile: DeviceProfile, _ expected: TouchProtocol) {
        #expect(DeviceClassifier.classify(profile.capabilities()) == .success(expected))
    }

    static func device(props: Set<UInt16> = [], keys: [UInt16] = [], axes: [UInt16]) -> DeviceCapabilities {
        var d = DeviceCapabilities(name: "test", properties: props)
        for k in keys { d.addCode(EventCode.evKey, k) }
        for a in axes { d.addAxis(a, AbsInfo(minimum: 0, maximum: 1000)) }
        return d
    }

    static let mt: [UInt16] = [EventCode.absX, EventCode.absY, EventCode.absMTPositionX, EventCode.absMTPositionY]
    static let slotted = mt + [EventCode.absMTSlot, EventCode.absMTTrackingID]

    /// A position axis with minimum > maximum (or equal) was taken with a warning nobody saw: a
    /// 16 000-unit swipe replayed as a tap at (0, 0), "stroke 0 mm". The device is refused,
    /// saying which axis, wherever a device is taken (devices, replay, run, the journal).
    @Test(
        "a position axis with no range refuses the device, naming the axis",
        arguments: [(EventCode.absMTPositionX, 32767, 0), (EventCode.absMTPositionY, 500, 500)])
    func emptyAxisRange(code: UInt16, minimum: Int32, maximum: Int32) throws {
        var d = DeviceProfile.kiosk10.capabilities()
        d.addAxis(code, AbsInfo(minimum: minimum, maximum: maximum))
        let name = EventCode.codeName(type: EventCode.evAbs, code: code)
        #expect(throws: SkipReason.emptyAxisRange(axis: name, minimum: minimum, maximum: maximum)) {
            try TouchscreenModel(description: d)
        }
        #expect(
            SkipReason.emptyAxisRange(axis: name, minimum: minimum, maximum: maximum).description
                == "its \(name) axis has no range (minimum \(minimum), maximum \(maximum)): "
                + "no position it reports can be placed on the panel")
    }

    @Test("skip reasons")
    func skipped() {
        let cases: [(DeviceCapabilities, SkipReason)] = [
            (Self.device(keys: [EventCode.btnLeft], axes: [EventCode.absZ]), .noPositionAxes),
            (Self.device(keys: [EventCode.btnTouch, EventCode.btnToolFinger], axes: Self.slotted), .touchpad),
            (
                Self.device(keys: [EventCode.btnTouch, EventCode.btnToolPen, EventCode.btnStylus], axes: [0, 1]),
                .tabletPen
            ),
            (Self.device(keys: [EventCode.btnLeft], axes: [0, 1]), .absolutePointer),  // Posiflex, Elo in mouse mode
            (Self.device(axes: [0, 1]), .notDirect),
            (Self.device(keys: [EventCode.btnTouch], axes: Self.mt + [EventCode.absMTSlot]), .slotsWithoutTrackingID),
        ]
        for (device, reason) in cases {
            #expect(DeviceClassifier.classify(device) == .failure(reason), "\(reason)")
            #expect(!reason.description.isEmpty)
        }
    }

    @Test("old panels without INPUT_PROP_DIRECT but with BTN_TOUCH are touchscreens (3M, WeTab)")
    func noDirectProperty() {
        let d = Self.device(keys: [EventCode.btnTouch], axes: Self.slotted)
        #expect(DeviceClassifier.classify(d) == .success(.slots(count: 1001)))
    }

    @Test("a 'Touch Pad' with INPUT_PROP_DIRECT is a touchscreen (Anton)")
    func directTouchPad() {
        let d = Self.device(
            props: [EventCode.propDirect], keys: [EventCode.btnTouch, EventCode.btnToolFinger], axes: Self.slotted)
        #expect(DeviceClassifier.classify(d) == .success(.slots(count: 1001)))
    }

    @Test("a device claiming every axis (joystick junk) is not multitouch")
    func allAxes() {
        let d = Self.device(keys: [EventCode.btnTouch], axes: Array(0...EventCode.absMTSlot))
        #expect(DeviceClassifier.classify(d) == .success(.singleTouch(button: EventCode.btnTouch)))
    }

    @Test("force-touchscreen accepts an absolute pointer as single touch on BTN_LEFT")
    func forced() throws {
        let d = Self.device(keys: [EventCode.btnLeft], axes: [0, 1])
        #expect(
            DeviceClassifier.classify(d, forceTouchscreen: true) == .success(.singleTouch(button: EventCode.btnLeft)))
        var e = EventList()
        e.abs(EventCode.absX, 500)
        e.abs(EventCode.absY, 500)
        e.key(EventCode.btnLeft, 1)
        e.report()
        e.key(EventCode.btnLeft, 0)
        e.report()
        let (frames, _) = try assemble(e.events, description: d, settings: DeviceSettings(forceTouchscreen: true))
        #expect(frames.map(\.phases) == [[1: .began], [1: .ended]])
    }

    @Test("a disabled device is skipped")
    func disabled() {
        #expect(throws: SkipReason.disabledByConfiguration) {
            try TouchscreenModel(
                description: DeviceProfile.kiosk10.capabilities(), settings: DeviceSettings(enabled: false))
        }
    }

    @Test("udev's ID_INPUT_* properties decide when udev has run")
    func udevVerdict() {
        #expect(DeviceDiscovery.udevVerdict(["ID_INPUT": "1", "ID_INPUT_TOUCHSCREEN": "1"]) == .touchscreen)
        #expect(
            DeviceDiscovery.udevVerdict(["ID_INPUT": "1", "ID_INPUT_TOUCHPAD": "1", "ID_INPUT_MOUSE": "1"])
                == .skipped(.notATouchscreen(udevType: "ID_INPUT_TOUCHPAD, ID_INPUT_MOUSE")))
        #expect(DeviceDiscovery.udevVerdict([:]) == .skipped(.notATouchscreen(udevType: "no ID_INPUT_* type")))
    }
}
