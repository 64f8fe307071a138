import GestureActions
import GestureActionsRuntime
import Glibc
import Testing
import VirtualDevices

@Suite("virtual keyboard and pointer events")
struct InputEncodingTests {
    static let syn = RawEvent(EventCode.evSyn, EventCode.synReport, 0)

    @Test("a shortcut: modifiers pressed first and released last, a report after each key")
    func tapOrder() throws {
        let ctrl = try #require(EventCode.code(ofType: EventCode.evKey, named: "KEY_LEFTCTRL"))
        let shift = try #require(EventCode.code(ofType: EventCode.evKey, named: "KEY_LEFTSHIFT"))
        let r = try #require(EventCode.code(ofType: EventCode.evKey, named: "KEY_R"))
        #expect((ctrl, shift, r) == (29, 42, 19))
        var events: [RawEvent] = []
        InputEncoding.tap([ctrl, shift, r], into: &events)
        let key = { (code: UInt16, value: Int32) in RawEvent(EventCode.evKey, code, value) }
        #expect(
            events == [
                key(ctrl, 1), Self.syn, key(shift, 1), Self.syn, key(r, 1), Self.syn,
                key(r, 0), Self.syn, key(shift, 0), Self.syn, key(ctrl, 0), Self.syn,
            ])
    }

    @Test("wheel codes are the kernel's (libevdev's names)")
    func wheelCodes() {
        for (name, code) in [
            ("REL_WHEEL", EventCode.relWheel), ("REL_HWHEEL", EventCode.relHWheel),
            ("REL_WHEEL_HI_RES", EventCode.relWheelHiRes), ("REL_HWHEEL_HI_RES", EventCode.relHWheelHiRes),
        ] {
            #expect(EventCode.code(ofType: EventCode.evRel, named: name) == code, "\(name)")
        }
    }

    @Test("wheel motion: legacy detents beside the hi-res units, one report; nothing for no motion")
    func wheel() {
        var events: [RawEvent] = []
        InputEncoding.wheel(vertical: 150, verticalDetents: 1, horizontal: -30, horizontalDetents: 0, into: &events)
        #expect(
            events == [
                RawEvent(EventCode.evRel, EventCode.relWheel, 1),
                RawEvent(EventCode.evRel, EventCode.relWheelHiRes, 150),
                RawEvent(EventCode.evRel, EventCode.relHWheelHiRes, -30), Self.syn,
            ])
        events.removeAll()
        InputEncoding.wheel(vertical: 0, verticalDetents: 0, horizontal: 0, horizontalDetents: 0, into: &events)
        #expect(events.isEmpty)
    }

    @Test("a click at a position: the move in a report of its own, then press and release")
    func click() {
        var events: [RawEvent] = []
        InputEncoding.move(to: VirtualPointer.units(x: 0.5, y: 1.2), into: &events)
        InputEncoding.click(EventCode.btnRight, into: &events)
        #expect(
            events == [
                RawEvent(EventCode.evAbs, EventCode.absX, 16384), RawEvent(EventCode.evAbs, EventCode.absY, 32767),
                Self.syn,
                RawEvent(EventCode.evKey, EventCode.btnRight, 1), Self.syn,
                RawEvent(EventCode.evKey, EventCode.btnRight, 0),
                Self.syn,
            ])
    }

    @Test(
        "without /dev/uinput the keyboard cannot be made, and the error says what to do",
        .enabled(if: access("/dev/uinput", F_OK) != 0, "this machine has /dev/uinput (the VM suite checks EACCES)"))
    func noUinput() throws {
        let configuration = try parse("actions:\n  - on: tap\n    keys: [KEY_A]\n").configuration
        #expect(
            throws: ActionsError(
                "cannot create the virtual keyboard: /dev/uinput does not exist: load the uinput module "
                    + "(`modprobe uinput`; at boot: `echo uinput > /etc/modules-load.d/uinput.conf`)")
        ) {
            try UinputPerformer().prepare(for: configuration)
        }
        // A configuration with commands only needs no device.
        try UinputPerformer().prepare(for: try parse("actions:\n  - on: tap\n    run: [/bin/true]\n").configuration)
    }
}
