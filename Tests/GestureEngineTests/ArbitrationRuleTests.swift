import Testing

@testable import GestureEngine

/// Rules of docs/ARBITRATION.md checked in code, where a scenario file would say less.
@Suite("Arbitration rules")
struct ArbitrationRuleTests {
    static func run(_ script: String) throws -> [GestureEvent] { try ScenarioRunner.gestures(script) }

    static func lines(_ script: String) throws -> [String] {
        try ScenarioRunner.run(Scenario.parse(script + "\nexpect:\n"))
    }

    @Test("R1: each device has its own arena: one finger on each of two panels is not a two-finger tap")
    func perDeviceArenas() throws {
        let events = try Self.run(
            """
            config default
            device a 344x194mm
            device b 344x194mm
            0ms down 1 at 0.40,0.50; down 2 at 0.60,0.50 on b
            +60ms up 1; up 2 on b
            wait 1s
            """)
        #expect(events.map(\.name) == ["tap", "tap"])
        #expect(Set(events.map(\.device)) == [DeviceID(1), DeviceID(2)])
    }

    @Test("R1: an accepts filter can refuse a device by name")
    func acceptsDevice() throws {
        let events = try Self.run(
            """
            config empty
            recognizer {"name": "only-b", "kind": "tap", "accepts": {"devices": ["Touch*B"]}}
            device a 344x194mm name=TouchPanelA
            device b 344x194mm name=TouchPanelB
            0ms down 1 at 0.40,0.50; down 2 at 0.60,0.50 on b
            +60ms up 1; up 2 on b
            """)
        #expect(events.map(\.device) == [DeviceID(2)])
    }

    @Test("R3: the begin gate checks finger counts and devices", arguments: [(1, 0), (2, 1), (3, 0)])
    func gateFingers(fingers: Int, expected: Int) throws {
        let downs = (1...fingers).map { "down \($0) at 0.\(3 + $0),0.50" }.joined(separator: "; ")
        let ups = (1...fingers).map { "up \($0)" }.joined(separator: "; ")
        let events = try Self.run(
            """
            config empty
            recognizer {"name": "two-pan", "kind": "pan", "when": {"min-fingers": 2, "max-fingers": 2, "devices": ["panel"]}}
            recognizer {"name": "never", "kind": "pan", "when": {"devices": ["other*"]}}
            0ms \(downs)
            +10ms stroke 1 to 0.2,0.2 over 100ms
            +10ms \(ups)
            """)
        #expect(events.filter { $0.state == .began }.count == expected)
        #expect(!events.contains { $0.name == "never" })
    }

    @Test("R4: a tap held for the double tap is emitted with its original time and position")
    func heldTransitionKeepsTimeAndPosition() throws {
        var engine = try GestureEngine(configuration: .default)
        let device = DeviceDescriptor(
            id: DeviceID(3), label: "p", name: "p",
            geometry: SurfaceGeometry(physicalSize: PhysicalSize(width: Millimeters(300), height: Millimeters(200))))
        engine.addDevice(device)
        var events: [EngineEvent] = []
        let p = SurfacePoint(x: 0.3, y: 0.7)
        engine.process(
            TouchFrame(
                device: device.id, time: Timestamp(microseconds: 10_000),
                touches: [Touch(id: TouchID(1), phase: .began, position: p)]), into: &events)
        engine.process(
            TouchFrame(
                device: device.id, time: Timestamp(microseconds: 90_000),
                touches: [Touch(id: TouchID(1), phase: .ended, position: p)]), into: &events)
        func gestures() -> [GestureEvent] { events.compactMap { if case .gesture(let g) = $0 { g } else { nil } } }
        #expect(gestures().isEmpty)
        #expect(engine.nextDeadline == Timestamp(microseconds: 390_000))
        engine.advance(to: Timestamp(microseconds: 389_999), into: &events)
        #expect(gestures().isEmpty)
        engine.advance(to: Timestamp(microseconds: 1_000_000), into: &events)
        guard let tap = gestures().first else {
            Issue.record("no tap")
            return
        }
        #expect(tap.name == "tap" && tap.state == .recognized)
        #expect(tap.time == Timestamp(microseconds: 90_000))
        #expect(tap.position == p)
        #expect(tap.positionMM == PhysicalPoint(x: Millimeters(90), y: Millimeters(140)))
        #expect(engine.nextDeadline == nil)
    }

    @Test("R4: if the required recognizer is recognized, the waiting one fails")
    func requirementRecognizedFailsDependent() throws {
        let events = try Self.run(
            """
            config empty
            recognizer {"name": "slow", "kind": "tap", "requires-failure-of": ["press"], "simultaneous-with": ["press"]}
            recognizer {"name": "press", "kind": "long-press", "min-duration-ms": 100}
            0ms down 1 at 0.5,0.5
            +150ms up 1
            """)
        #expect(events.map(\.name) == ["press", "press"])
    }

    @Test("R4: a held pan is released with its original began, its latest change and its end")
    func heldContinuous() throws {
        let script = """
            config empty
            recognizer {"name": "drag", "kind": "pan", "requires-failure-of": ["flick"]}
            recognizer {"name": "flick", "kind": "swipe", "max-duration-ms": 2000, "simultaneous-with": ["drag"]}
            0ms down 1 at 0.30,0.50
            +10ms stroke 1 to 0.50,0.50 over 2000ms drag
            +50ms up 1
            """
        let slow = try Self.run(script)
        // The pan wanted to begin early in the stroke; the swipe (never 150 mm/s over 20 mm on this
        // slow drag) decided, failing, only at the lift.
        #expect(slow.map(\.state) == [.began, .changed, .ended])
        #expect(slow[0].time < slow[2].time)
        #expect(slow[0].translationMM!.dx.value < 4)
        #expect(slow[1].translationMM!.dx.value > 60)
        let fast = try Self.run(
            script.replacingOccurrences(of: "over 2000ms drag", with: "over 150ms flick").replacingOccurrences(
                of: "+50ms up", with: "+8ms up"))
        #expect(fast.map(\.name) == ["flick"])
    }

    @Test("R6: one yes is enough, and `*` names everyone")
    func simultaneity() throws {
        for relation in [#""simultaneous-with": ["b"]"#, #""simultaneous-with": ["*"]"#] {
            let events = try Self.run(
                """
                config empty
                recognizer {"name": "a", "kind": "pan", \(relation)}
                recognizer {"name": "b", "kind": "pan"}
                0ms down 1 at 0.3,0.5
                +10ms stroke 1 to 0.5,0.5 over 200ms
                +10ms up 1
                """)
            #expect(Set(events.filter { $0.state == .began }.map(\.name)) == ["a", "b"], "\(relation)")
        }
        let exclusive = try Self.run(
            """
            config empty
            recognizer {"name": "a", "kind": "pan"}
            recognizer {"name": "b", "kind": "pan"}
            0ms down 1 at 0.3,0.5
            +10ms stroke 1 to 0.5,0.5 over 200ms
            +10ms up 1
            """)
        #expect(exclusive.filter { $0.state == .began }.map(\.name) == ["a"])
    }

    @Test("R5: an active recognizer refuses a newcomer that does not preempt it")
    func activeRefusesNewcomer() throws {
        let events = try Self.run(
            """
            config empty
            recognizer {"name": "pan", "kind": "pan"}
            recognizer {"name": "edge", "kind": "edge-swipe", "preempts": ["pan"]}
            recognizer {"name": "meek-edge", "kind": "edge-swipe"}
            0ms down 1 at 0.005,0.5
            +10ms stroke 1 to 0.3,0.5 over 200ms
            +10ms up 1
            """)
        #expect(
            events.filter { $0.state == .began || $0.state == .cancelled }.map { "\($0.name) \($0.state)" } == [
                "pan began", "edge began", "pan cancelled",
            ])
    }

    @Test("R7: timers of several devices fire in time order")
    func timersAcrossDevices() throws {
        let events = try Self.run(
            """
            config empty
            recognizer {"name": "press", "kind": "long-press", "min-duration-ms": 300}
            device a 344x194mm
            device b 344x194mm
            0ms down 1 at 0.5,0.5
            +100ms down 2 at 0.5,0.5 on b
            wait 1s
            """)
        #expect(
            events.map(\.time.microseconds) == [
                Scenario.origin.microseconds + 300_000, Scenario.origin.microseconds + 400_000,
            ])
        #expect(events.map(\.device) == [DeviceID(1), DeviceID(2)])
    }

    @Test("R8: delays-touches-ended holds the lift until the recognizer decides, then releases it as it was")
    func delaysTouchesEnded() throws {
        let lines = try Self.lines(
            """
            config empty
            recognizer {"name": "tap", "kind": "tap", "requires-failure-of": ["double-tap"], "cancels-touches": false}
            recognizer {"name": "double-tap", "kind": "tap", "taps": 2, "cancels-touches": false, "delays-touches-ended": false}
            show touches
            0ms down 1 at 0.5,0.5
            +60ms up 1
            wait 1s
            """)
        #expect(
            lines == [
                "0ms view 1 began at=0.500,0.500",
                "60ms tap recognized fingers=1 touches=1 at=0.500,0.500 (emitted at 360ms)",
                "60ms view 1 ended at=0.500,0.500 (emitted at 360ms)",
            ])
    }

    @Test("R8: a client leaving releases the touches its recognizer delayed")
    func removalReleasesDelays() throws {
        let lines = try Self.lines(
            """
            config empty
            show touches
            define client 4 {"recognizers": [{"name": "hold", "kind": "long-press", "min-duration-ms": 2000, "delays-touches-began": true}]}
            0ms down 1 at 0.5,0.5
            +100ms undefine client 4
            """)
        #expect(lines == ["0ms view 1 began at=0.500,0.500 (emitted at 100ms)"])
    }

    @Test("R9: a client leaving mid-gesture cancels its gesture, to it")
    func clientRemovalCancels() throws {
        let events = try Self.run(
            """
            config empty
            define client 9 {"recognizers": [{"name": "drag", "kind": "pan"}]}
            0ms down 1 at 0.3,0.5
            +10ms stroke 1 to 0.4,0.5 over 100ms
            +10ms undefine client 9
            +10ms up 1
            """)
        #expect(events.last?.state == .cancelled)
        #expect(events.allSatisfy { $0.owner == .client(9) })
    }

    @Test("R9: nothing stays stuck: after a fault every recognizer is back and takes the next touch")
    func nothingStuck() throws {
        let events = try Self.run(
            """
            config default
            0ms down 1 at 0.3,0.5; down 2 at 0.5,0.5
            +10ms stroke 1 to 0.2,0.5 over 100ms
            +5ms resync panel
            +20ms up 1; up 2
            +100ms down 3 at 0.3,0.5
            +10ms stroke 3 to 0.2,0.5 over 100ms
            +10ms up 3
            """)
        let states = events.filter { $0.name == "pan" }.map(\.state).reduce(into: [GestureState]()) { list, s in
            if list.last != s || s != .changed { list.append(s) }
        }
        #expect(states == [.began, .changed, .cancelled, .began, .changed, .ended])
    }

    @Test("frames of unknown devices are counted and ignored; more than 64 touches are counted")
    func robustness() throws {
        var engine = try GestureEngine(configuration: .default)
        var events: [EngineEvent] = []
        engine.process(TouchFrame(device: DeviceID(42), time: Timestamp(microseconds: 1), touches: []), into: &events)
        #expect(engine.unknownDeviceFrames == 1)
        let device = DeviceDescriptor(
            id: DeviceID(1), label: "p", name: "p", geometry: SurfaceGeometry(unknownSizeWithAspect: 0.5))
        engine.addDevice(device)
        let touches = (0..<70).map { i in
            Touch(id: TouchID(UInt32(i)), phase: .began, position: SurfacePoint(x: Double(i) / 70, y: 0.5))
        }
        engine.process(TouchFrame(device: device.id, time: Timestamp(microseconds: 2), touches: touches), into: &events)
        #expect(engine.droppedTouches == 6)
        #expect(events.filter { if case .touch = $0 { true } else { false } }.count == 64)
    }
}
