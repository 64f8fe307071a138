import CEvdev
import Testing

@testable import TouchInput

/// The Swift spellings of evdev constants equal the kernel header's.
@Suite struct EventCodeTests {
    @Test("constants match linux/input-event-codes.h")
    func constants() {
        let pairs: [(UInt16, Int32)] = [
            (EventCode.evSyn, EV_SYN), (EventCode.evKey, EV_KEY), (EventCode.evRel, EV_REL), (EventCode.evAbs, EV_ABS),
            (EventCode.evMsc, EV_MSC), (EventCode.evSw, EV_SW), (EventCode.evLed, EV_LED), (EventCode.evSnd, EV_SND),
            (EventCode.evRep, EV_REP), (EventCode.evFf, EV_FF), (EventCode.evMax, EV_MAX),
            (EventCode.synReport, SYN_REPORT), (EventCode.synConfig, SYN_CONFIG),
            (EventCode.synMTReport, SYN_MT_REPORT),
            (EventCode.synDropped, SYN_DROPPED), (EventCode.btnLeft, BTN_LEFT), (EventCode.btnRight, BTN_RIGHT),
            (EventCode.btnMiddle, BTN_MIDDLE), (EventCode.btnJoystick, BTN_JOYSTICK),
            (EventCode.btnToolPen, BTN_TOOL_PEN),
            (EventCode.btnToolRubber, BTN_TOOL_RUBBER), (EventCode.btnToolFinger, BTN_TOOL_FINGER),
            (EventCode.btnTouch, BTN_TOUCH), (EventCode.btnStylus, BTN_STYLUS),
            (EventCode.btnToolDoubleTap, BTN_TOOL_DOUBLETAP),
            (EventCode.keyMax, KEY_MAX), (EventCode.relX, REL_X), (EventCode.relY, REL_Y),
            (EventCode.relHWheel, REL_HWHEEL), (EventCode.relWheel, REL_WHEEL),
            (EventCode.relWheelHiRes, REL_WHEEL_HI_RES), (EventCode.relHWheelHiRes, REL_HWHEEL_HI_RES),
            (EventCode.absX, ABS_X),
            (EventCode.absY, ABS_Y), (EventCode.absZ, ABS_Z), (EventCode.absPressure, ABS_PRESSURE),
            (EventCode.absMTSlot, ABS_MT_SLOT), (EventCode.absMTTouchMajor, ABS_MT_TOUCH_MAJOR),
            (EventCode.absMTTouchMinor, ABS_MT_TOUCH_MINOR), (EventCode.absMTWidthMajor, ABS_MT_WIDTH_MAJOR),
            (EventCode.absMTWidthMinor, ABS_MT_WIDTH_MINOR), (EventCode.absMTOrientation, ABS_MT_ORIENTATION),
            (EventCode.absMTPositionX, ABS_MT_POSITION_X), (EventCode.absMTPositionY, ABS_MT_POSITION_Y),
            (EventCode.absMTToolType, ABS_MT_TOOL_TYPE), (EventCode.absMTBlobID, ABS_MT_BLOB_ID),
            (EventCode.absMTTrackingID, ABS_MT_TRACKING_ID), (EventCode.absMTPressure, ABS_MT_PRESSURE),
            (EventCode.absMTDistance, ABS_MT_DISTANCE), (EventCode.absMax, ABS_MAX), (EventCode.mscScan, MSC_SCAN),
            (EventCode.mscTimestamp, MSC_TIMESTAMP), (EventCode.propPointer, INPUT_PROP_POINTER),
            (EventCode.propDirect, INPUT_PROP_DIRECT), (EventCode.propButtonPad, INPUT_PROP_BUTTONPAD),
            (EventCode.propSemiMT, INPUT_PROP_SEMI_MT), (EventCode.propAccelerometer, INPUT_PROP_ACCELEROMETER),
            (EventCode.propMax, INPUT_PROP_MAX),
        ]
        for (swift, c) in pairs { #expect(Int32(swift) == c) }
        #expect(EventCode.mtToolFinger == MT_TOOL_FINGER)
        #expect(EventCode.mtToolPen == MT_TOOL_PEN)
        #expect(EventCode.mtToolPalm == MT_TOOL_PALM)
    }

    @Test("libevdev's names agree with the module's own")
    func names() {
        for code in [EventCode.absMTSlot, EventCode.absMTTrackingID, EventCode.absX, EventCode.absMTPressure] {
            #expect(
                EvdevHandle.codeName(type: EventCode.evAbs, code: code)
                    == EventCode.codeName(type: EventCode.evAbs, code: code))
        }
        #expect(EvdevHandle.propertyName(EventCode.propDirect) == "INPUT_PROP_DIRECT")
    }
}
