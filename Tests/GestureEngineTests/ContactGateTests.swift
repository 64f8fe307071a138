import Testing

@testable import GestureEngine

/// The stage before the arena (docs/ARBITRATION.md, "Before the arena") through the engine's API,
/// beside its scenario files (`panel-*.scenario`) and the random streams of
/// ViewStreamPropertyTests.
@Suite("Before the arena")
struct ContactGateTests {
    static let device = DeviceDescriptor(
        id: DeviceID(1), label: "panel", name: "panel",
        geometry: SurfaceGeometry(physicalSize: PhysicalSize(width: Millimeters(344), height: Millimeters(194))))
    static let origin = Timestamp(microseconds: 1_000_000_000)

    static func at(_ ms: Int64) -> Timestamp { origin + .milliseconds(ms) }

    static func touch(_ id: UInt32, _ phase: TouchPhase, _ x: Double, _ y: Double) -> Touch {
        Touch(id: TouchID(id), phase: phase, position: SurfacePoint(x: x, y: y))
    }

    @Test(
        "a stuck contact ended leaves no recognizer waiting: while the panel still reports it, a two-finger tap and a tap work"
    )
    func stuckLeavesNothingWaiting() throws {
        var engine = try GestureEngine(configuration: .default)
        engine.explains = true
        let panel = PanelSettings(stuckContact: StuckContactLimit(after: .milliseconds(2_000), within: Millimeters(2)))
        engine.addDevice(Self.device, panel: panel, at: Self.origin)
        var events: [EngineEvent] = []
        var log: [EngineEvent] = []
        func step(_ time: Timestamp, _ touches: [Touch]) {
            while let deadline = engine.nextDeadline, deadline < time {
                engine.advance(to: deadline, into: &events)
            }
            engine.process(TouchFrame(device: Self.device.id, time: time, touches: touches), into: &events)
            log += events
            events.removeAll()
        }
        let ghost = Self.touch(1, .began, 0.9, 0.9)
        step(Self.at(0), [ghost])
        var still = ghost
        still.phase = .stationary
        // The long press begins at 500 ms and is still going when the ghost is ended at 2 s.
        step(Self.at(2_500), [still])
        let ended = log.firstIndex {
            if case .panel(let p) = $0, case .stuckEnded(TouchID(1), _, _, _) = p.what { true } else { false }
        }
        let end = try #require(ended, "the ghost was not ended")
        let afterEnd = log[end...]
        #expect(
            afterEnd.contains {
                if case .gesture(let g) = $0 { g.name == "long-press" && g.state == .cancelled } else { false }
            })
        // The one recognizer still going on the ghost stops then (R9; the others failed when the
        // long press began, R5): none waits, as the taps below show.
        let stopped = afterEnd.compactMap { event -> String? in
            guard case .explanation(let e) = event, e.time == Self.at(2_000), e.decision.reason == .touchCancelled
            else { return nil }
            return e.name
        }
        #expect(stopped == ["long-press"], "\(stopped)")
        #expect(engine.nextDeadline == nil)

        // The panel goes on reporting the ghost; two fingers tap elsewhere, then one.
        log.removeAll()
        step(Self.at(3_000), [still, Self.touch(2, .began, 0.3, 0.4), Self.touch(3, .began, 0.4, 0.4)])
        step(Self.at(3_080), [still, Self.touch(2, .ended, 0.3, 0.4), Self.touch(3, .ended, 0.4, 0.4)])
        step(Self.at(3_600), [still, Self.touch(4, .began, 0.5, 0.5)])
        step(Self.at(3_680), [still, Self.touch(4, .ended, 0.5, 0.5)])
        step(Self.at(5_000), [still])
        let gestures = log.compactMap { if case .gesture(let g) = $0 { "\(g.name) \(g.state)" } else { nil } }
        #expect(gestures == ["two-finger-tap recognized", "tap recognized"])
        // Nothing of the ghost reaches anyone after its end, its lift included.
        step(Self.at(5_100), [Self.touch(1, .ended, 0.9, 0.9)])
        #expect(
            !log.contains {
                if case .touch(let t) = $0 { t.touch.id == TouchID(1) } else { false }
            })
    }

    @Test("the stage's deadlines are the engine's: idle comes through nextDeadline and advance, with no frame")
    func idleThroughNextDeadline() throws {
        var engine = try GestureEngine(configuration: EngineConfiguration(regions: [], recognizers: []))
        engine.addDevice(Self.device, panel: PanelSettings(idleAfter: .milliseconds(300)), at: Self.origin)
        #expect(engine.nextDeadline == Self.at(300))
        #expect(engine.panelState(Self.device.id)?.idle == false)
        var events: [EngineEvent] = []
        engine.advance(to: Self.at(300), into: &events)
        #expect(events == [.panel(PanelEvent(device: Self.device.id, time: Self.at(300), what: .idle(after: .milliseconds(300))))])
        #expect(engine.nextDeadline == nil)
        #expect(engine.panelState(Self.device.id)?.idle == true)
        events.removeAll()
        engine.process(
            TouchFrame(device: Self.device.id, time: Self.at(1_000), touches: [Self.touch(1, .began, 0.5, 0.5)]),
            into: &events)
        #expect(events.first == .panel(PanelEvent(device: Self.device.id, time: Self.at(1_000), what: .active(TouchID(1)))))
        #expect(engine.nextDeadline == nil, "not idle while a finger is down")
        #expect(engine.panelState(Self.device.id)?.idle == false)
        engine.process(
            TouchFrame(device: Self.device.id, time: Self.at(1_050), touches: [Self.touch(1, .ended, 0.5, 0.5)]),
            into: &events)
        #expect(engine.nextDeadline == Self.at(1_350))
    }

    @Test("a panel with nothing configured has no stage: no deadline, its frames as before")
    func nothingConfigured() throws {
        var engine = try GestureEngine(configuration: .default)
        engine.addDevice(Self.device, panel: PanelSettings(), at: Self.origin)
        engine.screen(Self.device.id, isOn: false)  // no stage: nothing to wake
        var events: [EngineEvent] = []
        engine.process(
            TouchFrame(device: Self.device.id, time: Self.at(0), touches: [Self.touch(1, .began, 0.5, 0.5)]),
            into: &events)
        #expect(events.contains { if case .touch(let t) = $0 { t.touch.phase == .began } else { false } })
        #expect(!events.contains { if case .panel = $0 { true } else { false } })
        #expect(engine.panelState(Self.device.id) == nil)
    }

    @Test("an engine is a value: a copy's stage goes its own way")
    func copiesAreValues() throws {
        var engine = try GestureEngine(configuration: EngineConfiguration(regions: [], recognizers: []))
        engine.addDevice(Self.device, panel: PanelSettings(screenWake: true), at: Self.origin)
        engine.screen(Self.device.id, isOn: false)
        var copy = engine
        copy.screen(Self.device.id, isOn: true)
        var events: [EngineEvent] = []
        let landing = TouchFrame(device: Self.device.id, time: Self.at(10), touches: [Self.touch(1, .began, 0.5, 0.5)])
        #expect(engine.panelState(Self.device.id)?.screenOff == true)
        #expect(copy.panelState(Self.device.id)?.screenOff == false)
        engine.process(landing, into: &events)
        #expect(engine.panelState(Self.device.id)?.screenOff == false, "a wake clears it")
        // The wake, and the touch it swallowed (made explaining or not: the daemon counts it).
        #expect(events.count == 2 && events.allSatisfy { if case .panel = $0 { true } else { false } }, "\(events)")
        events.removeAll()
        copy.process(landing, into: &events)
        #expect(events.count == 1 && events.allSatisfy { if case .touch = $0 { true } else { false } }, "\(events)")
    }

    @Test("what the stage kept from everyone is made explaining or not: wakes by cause, contacts swallowed, ignored, ended and ended again at one place")
    func keptFromEveryone() throws {
        var engine = try GestureEngine(configuration: EngineConfiguration(regions: [], recognizers: []))
        #expect(!engine.explains)
        let panel = PanelSettings(
            deadZones: [SurfaceRect(x: 0, y: 0.9, width: 1, height: 0.1)],
            stuckContact: StuckContactLimit(after: .milliseconds(1_000), within: Millimeters(2)),
            idleAfter: .milliseconds(5_000), wakeAfterIdle: true, screenWake: true)
        engine.addDevice(Self.device, panel: panel, at: Self.origin)
        var events: [EngineEvent] = []
        func frame(_ ms: Int64, _ touches: Touch...) {
            while let deadline = engine.nextDeadline, deadline <= Self.at(ms) { engine.advance(to: deadline, into: &events) }
            engine.process(TouchFrame(device: Self.device.id, time: Self.at(ms), touches: touches), into: &events)
        }
        // The screen off: a wake, a finger landing with it; then a touch in the dead zone.
        engine.screen(Self.device.id, isOn: false)
        frame(0, Self.touch(1, .began, 0.5, 0.5))
        frame(20, Self.touch(1, .stationary, 0.5, 0.5), Self.touch(2, .began, 0.6, 0.5))
        frame(80, Self.touch(1, .ended, 0.5, 0.5), Self.touch(2, .ended, 0.6, 0.5))
        frame(200, Self.touch(3, .began, 0.5, 0.95))
        frame(260, Self.touch(3, .ended, 0.5, 0.95))
        // Two contacts held still at one place, one elsewhere.
        frame(300, Self.touch(4, .began, 0.2, 0.2))
        frame(1_400, Self.touch(4, .ended, 0.2, 0.2))
        frame(1_500, Self.touch(5, .began, 0.201, 0.2))
        frame(2_600, Self.touch(5, .ended, 0.201, 0.2))
        frame(2_700, Self.touch(6, .began, 0.7, 0.3))
        frame(3_800, Self.touch(6, .ended, 0.7, 0.3))
        // The last contact ended at 3.7 s: idle at 8.7 s, and the next touch wakes the panel.
        frame(10_000, Self.touch(7, .began, 0.5, 0.5))
        frame(10_050, Self.touch(7, .ended, 0.5, 0.5))
        let stage = events.compactMap { if case .panel(let p) = $0 { p.what } else { nil } }
        let woken = stage.compactMap { if case .woken(_, _, let cause) = $0 { cause } else { nil } }
        #expect(woken == [.screenOff, .idle])
        let swallowed = stage.compactMap { if case .swallowed(let id, _, let cause) = $0 { (id.rawValue, cause) } else { nil } }
        #expect(swallowed.map(\.0) == [1, 2, 7] && swallowed.map(\.1) == [.screenOff, nil, .idle], "\(swallowed)")
        let ignored = stage.compactMap { if case .ignored(let id, _, let zone) = $0 { (id.rawValue, zone) } else { nil } }
        #expect(ignored.map(\.0) == [3] && ignored.map(\.1) == [0], "\(ignored)")
        let ended = stage.compactMap { if case .stuckEnded(let id, _, _, let repeats) = $0 { (id.rawValue, repeats) } else { nil } }
        #expect(ended.map(\.0) == [4, 5, 6] && ended.map(\.1) == [0, 1, 0], "\(ended)")
    }
}
