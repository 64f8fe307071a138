import Testing

/// The arbitration cases of docs/ARBITRATION.md as golden scenario files (Scenarios/*.scenario).
/// Each test names the rule it checks; the file says how.
@Suite("Scenarios")
struct ScenarioTests {
    @Test("R4: a single tap waits for the double tap to fail")
    func singleTap() throws { try ScenarioFiles.check("single-tap") }

    @Test("R4, R5: two quick taps yield exactly one double-tap and no tap")
    func doubleTap() throws { try ScenarioFiles.check("double-tap") }

    @Test("R6: a slow drag is a pan only; a flick is a pan and a swipe")
    func panVersusSwipe() throws { try ScenarioFiles.check("pan-vs-swipe") }

    @Test("R6: pinch and rotate run together")
    func pinchAndRotate() throws { try ScenarioFiles.check("pinch-and-rotate") }

    @Test("R5: a preempting edge swipe cancels an active pan")
    func edgeSwipePreemptsPan() throws { try ScenarioFiles.check("edge-swipe-preempts-pan") }

    @Test("R3: the begin gate refuses a recognizer, which fails")
    func beginGate() throws { try ScenarioFiles.check("begin-gate") }

    @Test("R1: an accepts filter refuses a palm touch")
    func palmRefused() throws { try ScenarioFiles.check("palm-refused") }

    @Test("R1: touches go to the hit region's recognizers and its ancestors', innermost first")
    func regions() throws { try ScenarioFiles.check("regions") }

    @Test("R8: delays-touches-began flushes held events when the recognizer fails, drops them when it recognizes")
    func delaysTouchesBegan() throws { try ScenarioFiles.check("delays-touches-began") }

    @Test("R8: cancels-touches takes a claimed touch from the views; delays-touches-ended holds the lift")
    func cancelsTouches() throws { try ScenarioFiles.check("cancels-touches") }

    @Test("R9: removing a device mid-gesture cancels its gestures and touches")
    func deviceRemoval() throws { try ScenarioFiles.check("device-removal") }

    @Test("R9: SYN_DROPPED resync cancels what is active")
    func resync() throws { try ScenarioFiles.check("resync") }

    @Test("R9: reload cancels what is active; a bad configuration is refused")
    func reload() throws { try ScenarioFiles.check("reload") }

    @Test("R9: a cancelled (palm) touch cancels the gesture it took part in")
    func palmCancel() throws { try ScenarioFiles.check("palm-cancel") }

    @Test("R2: a failed recognizer ignores touches until all of its own have lifted, then resets")
    func resetAfterLift() throws { try ScenarioFiles.check("reset-after-lift") }

    @Test("R7: the long-press timer begins the long press; no tap follows")
    func longPress() throws { try ScenarioFiles.check("long-press") }

    @Test("10-finger frames")
    func tenFingers() throws { try ScenarioFiles.check("ten-fingers") }

    @Test("A device reusing tracking ids")
    func trackingIDReuse() throws { try ScenarioFiles.check("tracking-id-reuse") }

    @Test("Touches that begin while a gesture is already active")
    func touchDuringActive() throws { try ScenarioFiles.check("touch-during-active") }

    @Test("Client definitions: references, collisions, owners, removal")
    func clientDefinitions() throws { try ScenarioFiles.check("client-definitions") }

    @Test("Client policy: no preempting or requiring the configuration's recognizers; clients observe them")
    func clientPolicy() throws { try ScenarioFiles.check("client-policy") }

    @Test("A drawn circle is a circle; half of one is not")
    func circle() throws { try ScenarioFiles.check("circle") }

    @Test("A circle is recognized while it is drawn; a square is not a circle")
    func circleWhileDrawing() throws { try ScenarioFiles.check("circle-while-drawing") }

    @Test("A swipe is recognized while the finger moves, once; a crawl is no swipe")
    func swipeWhileMoving() throws { try ScenarioFiles.check("swipe-while-moving") }

    @Test("Fingers landing over 110 ms are one four-finger swipe and pan")
    func fourFingerSwipe() throws { try ScenarioFiles.check("four-finger-swipe") }

    @Test("A finger landing after the window, before the hand moves, joins it; after, it is a new gesture")
    func lateFinger() throws { try ScenarioFiles.check("late-finger") }

    // Real recordings (evemu project, LGPL-3.0; Scenarios/ATTRIBUTION.md).

    @Test("R4: eleven real taps on a WeTab: single taps wait for the double tap; quick close pairs are double taps")
    func recordedTaps() throws { try ScenarioFiles.check("recording-wetab-taps") }

    @Test("A real one-finger drag is a pan")
    func recordedDrag() throws { try ScenarioFiles.check("recording-3m-drag") }

    @Test("R6: real two-finger turning and spreading: pinch, rotate and pan together")
    func recordedTwoFingers() throws { try ScenarioFiles.check("recording-3m-two-fingers") }

    @Test("A real one-finger tap and four-finger tap")
    func recordedTaps3M() throws { try ScenarioFiles.check("recording-3m-taps") }

    @Test("R9: real ten-finger motion cut by lost events")
    func recordedTenFingers() throws { try ScenarioFiles.check("recording-3m-ten-fingers") }

    @Test("Every scenario file has a test that names it")
    func everyFileIsChecked() throws {
        let source = try String(
            contentsOf: ScenarioFiles.directory.deletingLastPathComponent().appendingPathComponent(
                "ScenarioTests.swift"), encoding: .utf8)
        for name in ScenarioFiles.all {
            #expect(source.contains("check(\"\(name)\")"), "Scenarios/\(name).scenario is not run by any test")
        }
    }
}
