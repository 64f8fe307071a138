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

    @Test("A press held still and a tap beside it is a press-and-tap; two fingers landing together are not")
    func pressAndTap() throws { try ScenarioFiles.check("press-and-tap") }

    @Test("R8: held touches reach the views in time order, across touches, with their original times")
    func viewsInTimeOrder() throws { try ScenarioFiles.check("views-in-time-order") }

    @Test("R1, R8: a finger joining an active gesture goes to the views without room, or is claimed as it lands")
    func fingerJoinsRunningGesture() throws { try ScenarioFiles.check("finger-joins-running-gesture") }

    @Test("R1, R7: a touch taken by a recognizer that resets as it lands is timed from its landing")
    func handoverTimers() throws { try ScenarioFiles.check("handover-timers") }

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

    @Test("R1: a client's region covers its own recognizers' touches, not the configuration's or another client's")
    func clientRegions() throws { try ScenarioFiles.check("client-regions") }

    @Test("R1: under may-cover a client's region covers the configuration's regions, never another client's")
    func clientRegionsCover() throws { try ScenarioFiles.check("client-regions-cover") }

    @Test("R5, R6: two clients' recognizers never arbitrate; each client's names are its own")
    func clientsApart() throws { try ScenarioFiles.check("clients-apart") }

    @Test("Explained: a decision about or naming a client's recognizer is told to that client only")
    func explainClients() throws { try ScenarioFiles.check("explain-clients") }

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

    // Before the arena (docs/ARBITRATION.md): wakes, stuck contacts, dead zones, idle.

    @Test("Before the arena: the touch that wakes the screen, and fingers landing with it, reach nobody")
    func panelWake() throws { try ScenarioFiles.check("panel-wake") }

    @Test("Before the arena: a contact held still past the limit is ended as cancelled; a later touch there works")
    func panelStuck() throws { try ScenarioFiles.check("panel-stuck") }

    @Test("Before the arena: a contact landing in a dead zone reaches nothing; one sliding in is kept")
    func panelDeadZone() throws { try ScenarioFiles.check("panel-dead-zone") }

    @Test("Before the arena: idle after a quiet while, active at the next touch, which may be a wake")
    func panelIdle() throws { try ScenarioFiles.check("panel-idle") }

    @Test("Explained: a touch swallowed by a wake, one landing during it, one in a dead zone")
    func explainPanel() throws { try ScenarioFiles.check("explain-panel") }

    // Explanations: every kind's failures name the check, the key and the numbers;
    // every rule's decisions name the rule. Word for word, as `gestured replay --explain` and
    // `subscribe` with `explain` print them.

    @Test("Explained: a tap that moved, was held too long, had too many fingers, or a second tap too far or too late")
    func explainTap() throws { try ScenarioFiles.check("explain-tap") }

    @Test("Explained: a long press lifted too soon, moved, or had too many fingers")
    func explainLongPress() throws { try ScenarioFiles.check("explain-long-press") }

    @Test("Explained: a pan with too few fingers, not far enough, or too many fingers")
    func explainPan() throws { try ScenarioFiles.check("explain-pan") }

    @Test("Explained: a swipe too short, too slow, not straight, the wrong way, or with a late finger")
    func explainSwipe() throws { try ScenarioFiles.check("explain-swipe") }

    @Test("Explained: an edge swipe outside the band, along the edge, lifted early, or with too many fingers")
    func explainEdgeSwipe() throws { try ScenarioFiles.check("explain-edge-swipe") }

    @Test("Explained: a pinch whose scale changed too little")
    func explainPinch() throws { try ScenarioFiles.check("explain-pinch") }

    @Test("Explained: a rotation that turned too little")
    func explainRotate() throws { try ScenarioFiles.check("explain-rotate") }

    @Test("Explained: a press-and-tap too soon, too far, held too long, a third finger, the press lifted or moved")
    func explainPressAndTap() throws { try ScenarioFiles.check("explain-press-and-tap") }

    @Test("Explained: a shape that turned too little, is too small, runs straight, or spirals")
    func explainShape() throws { try ScenarioFiles.check("explain-shape") }

    @Test("R1 explained: accepts refuses a palm, a large contact, another device")
    func explainR1() throws { try ScenarioFiles.check("explain-r1") }

    @Test("R2 explained: a failed recognizer ignores new touches until its own have lifted")
    func explainR2() throws { try ScenarioFiles.check("explain-r2") }

    @Test("R3 explained: the begin gate's start-in, min-fingers and client-connected")
    func explainR3() throws { try ScenarioFiles.check("explain-r3") }

    @Test("R4 explained: a tap waits for the double tap, is released when it fails, fails when it wins")
    func explainR4() throws { try ScenarioFiles.check("explain-r4") }

    @Test("R5 explained: blocked by an active pan, preempted by an edge swipe, excluded by a winner")
    func explainR5() throws { try ScenarioFiles.check("explain-r5") }

    @Test("R6 explained: simultaneous pan and swipe carry on beside each other")
    func explainR6() throws { try ScenarioFiles.check("explain-r6") }

    @Test("R7 explained: failures decided by timers")
    func explainR7() throws { try ScenarioFiles.check("explain-r7") }

    @Test("R8 explained: touches held from the views, ends held, touches claimed")
    func explainR8() throws { try ScenarioFiles.check("explain-r8") }

    @Test("R9 explained: a cancelled touch, lost events, a reload, a removed device")
    func explainR9() throws { try ScenarioFiles.check("explain-r9") }

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
        let names = try ScenarioFiles.all()
        try #require(!names.isEmpty, "no scenario files in \(ScenarioFiles.directory.path)")
        for name in names {
            #expect(source.contains("check(\"\(name)\")"), "Scenarios/\(name).scenario is not run by any test")
        }
    }
}
