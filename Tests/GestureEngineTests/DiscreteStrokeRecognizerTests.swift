import Testing

@testable import GestureEngine

/// `swipe` and `shape` (docs/RECOGNIZERS.md).
@Suite("swipe and shape recognizers")
struct DiscreteStrokeRecognizerTests {
    typealias Swipe = MachineHarness<SwipeRecognizer>

    /// A straight stroke of `fingers` fingers, `length` mm in `ms` at 120 Hz in `direction`, then
    /// the lift; returns the first decision (recognize or fail), whenever it came.
    static func swipe(
        _ h: inout Swipe, fingers: Int, direction: Direction, length: Double = 60, ms: Double = 120,
        restFirst: Double = 0
    ) -> Proposal {
        let (c, s) = cosSin(direction.degrees * Double.pi / 180)
        var decision = h.down(Swipe.fingers(fingers, at: 170, 100))
        func note(_ p: Proposal) { if case .none = decision { decision = p } }
        if restFirst > 0 {
            h.wait(restFirst)
            if let fired = h.fire() { note(fired) }
        }
        let frames = Int(ms / 8.333)
        for k in 1...frames {
            h.wait(8.333)
            if let d = h.machine.deadline, d <= h.time, let fired = h.fire() { note(fired) }
            let d = length * Double(k) / Double(frames)
            note(h.move(Swipe.fingers(fingers, at: 170, 100, dx: d * c, dy: d * s)))
        }
        h.wait(8)
        note(h.up((1...UInt32(fingers)).map { $0 }))
        return decision
    }

    @Test(
        "swipe: F fingers in each of 8 directions are recognized with that direction", arguments: 1...5,
        Direction.allCases)
    func swipe(fingers: Int, direction: Direction) {
        var h = Swipe(SwipeParameters())
        let result = Self.swipe(&h, fingers: fingers, direction: direction)
        #expect(result.name == "recognize")
        #expect(result.report?.direction == direction)
        #expect(result.report?.fingers == fingers)
    }

    @Test("swipe: recognized while the fingers move, as soon as min-distance is covered, lifting not required")
    func swipeWhileMoving() {
        var p = SwipeParameters()
        p.settle = .milliseconds(0)
        var h = Swipe(p)
        h.down([(1, 100, 100)])
        var recognizedAt: Double?
        for k in 1...30 {
            h.wait(10)
            // 4.5 mm every 10 ms: 450 mm/s, a flick (over twice min-velocity-mm-s); 20 mm are
            // covered at the fifth frame (22.5 mm).
            if case .recognize(let r) = h.move([(1, 100 + 4.5 * Double(k), 100)]), recognizedAt == nil {
                recognizedAt = Double(k)
                #expect(r.direction == .right)
            }
        }
        #expect(recognizedAt == 5)
        // It stays one swipe: nothing more, however far it goes; the lift changes nothing.
        #expect(h.move([(1, 300, 100)]).name == "none")
        #expect(h.up([1]).name == "none")
    }

    @Test("swipe: a stroke that slows down and rests before the lift still counts")
    func swipeSlowsDown() {
        var h = Swipe(SwipeParameters())
        // 60 mm flick over 150 ms, then 400 ms of rest, then the lift: release velocity 0.
        var decision = h.down([(1, 100, 100)])
        for k in 1...18 {
            h.wait(8.333)
            if let d = h.machine.deadline, d <= h.time, let fired = h.fire(), case .none = decision { decision = fired }
            let r = h.move([(1, 100 + 60 * StrokeProfile.settle.progress(Double(k) / 18), 100)])
            if case .none = decision { decision = r }
        }
        h.wait(400)
        let lift = h.up([1])
        if case .none = decision { decision = lift }
        #expect(decision.name == "recognize")
        #expect(decision.report?.direction == .right)
    }

    @Test("swipe: max-duration limits covering the distance, not the stroke: resting first, then a flick, is a swipe")
    func swipeAfterRest() {
        var h = Swipe(SwipeParameters())
        let result = Self.swipe(&h, fingers: 1, direction: .up, length: 60, ms: 150, restFirst: 1_000)
        #expect(result.name == "recognize")
        #expect(result.report?.direction == .up)
    }

    @Test("swipe: too short, too slow, or outside the allowed directions fails")
    func swipeFails() {
        var short = Swipe(SwipeParameters())
        #expect(Self.swipe(&short, fingers: 1, direction: .right, length: 15).name == "fail")
        // 40 mm in 500 ms: 20 mm take 250 ms, 80 mm/s.
        var slow = Swipe(SwipeParameters())
        #expect(Self.swipe(&slow, fingers: 1, direction: .right, length: 40, ms: 500).name == "fail")
        var p = SwipeParameters()
        p.directions = [.left, .right]
        var diagonal = Swipe(p)
        #expect(Self.swipe(&diagonal, fingers: 1, direction: .upRight).name == "fail")
        // max-duration binds when the speed limit does not: 100 mm take 730 ms of an even 110 mm in
        // 800 ms, with no speed limit.
        var q = SwipeParameters()
        q.minVelocity = Millimeters(0)
        q.minDistance = Millimeters(100)
        var long = Swipe(q)
        #expect(Self.swipe(&long, fingers: 1, direction: .right, length: 110, ms: 800).name == "fail")
        q.maxDuration = .milliseconds(900)
        var allowed = Swipe(q)
        #expect(Self.swipe(&allowed, fingers: 1, direction: .right, length: 110, ms: 800).name == "recognize")
    }

    @Test(
        "swipe: more fingers than max-fingers fail; a finger landing after a lift or after the hand travelled fails, before that it joins"
    )
    func swipeFingerRules() {
        var p = SwipeParameters()
        p.maxFingers = 2
        var h = Swipe(p)
        #expect(h.down(Swipe.fingers(3, at: 170, 100)).name == "fail")
        var g = Swipe(SwipeParameters())
        g.down([(1, 100, 100), (2, 130, 100)])
        g.up([1])
        #expect(g.down([(3, 160, 100)]).name == "fail")
        // Past the landing window, before the hand moved: the finger joins (a late finger).
        var late = Swipe(SwipeParameters())
        late.down([(1, 100, 100)])
        late.wait(200)
        #expect(late.fire()?.name == "none")
        #expect(late.down([(2, 130, 100)]).name == "none")
        // Both travel 10 mm (past the 8 mm that commit the count, short of the 20 mm of a
        // swipe): a finger landing now is a new gesture.
        late.wait(50)
        #expect(late.move([(1, 110, 100), (2, 140, 100)]).name == "none")
        late.wait(10)
        #expect(late.down([(3, 160, 100)]).name == "fail")
    }

    @Test("swipe: fingers landing over 150 ms are one four-finger swipe; a four-finger user swipe fires on it")
    func swipeSettlesFingers() {
        var p = SwipeParameters()
        p.minFingers = 4
        p.maxFingers = 4
        p.directions = [.down]
        var h = Swipe(p)
        let start = h.time
        for i in 0..<4 {
            #expect(h.down([(UInt32(i + 1), 120 + 15 * Double(i), 60)]).name == "none")
            if i < 3 { h.wait(50) }
        }
        #expect(h.time - start == .milliseconds(150))
        var decision = Proposal.none
        for k in 1...20 {
            h.wait(10)
            let moved = h.move((0..<4).map { i -> (UInt32, Double, Double) in
                (UInt32(i + 1), 120 + 15 * Double(i), 60 + 4 * Double(k))
            })
            if case .none = decision { decision = moved }
        }
        #expect(decision.name == "recognize")
        #expect(decision.report?.fingers == 4)
        #expect(decision.report?.direction == .down)
    }

    @Test("swipe: a count under min-fingers fails once committed (the hand travelled 8 mm, or a finger lifted)")
    func swipeSettlesOutside() {
        var p = SwipeParameters()
        p.minFingers = 2
        // The window closes with one finger: another may still land, so the swipe waits.
        var h = Swipe(p)
        h.down([(1, 100, 100)])
        #expect(h.machine.deadline == h.time + .milliseconds(150) + TimeSpan(microseconds: 1))
        #expect(h.fire()?.name == "none")
        h.wait(10)
        #expect(h.move([(1, 104, 100)]).name == "none")
        h.wait(10)
        #expect(h.move([(1, 109, 100)]).name == "fail")
        // Three wanted, two down, one lifts while the other stays: committed, too few.
        var q = SwipeParameters()
        q.minFingers = 3
        var lifted = Swipe(q)
        lifted.down([(1, 100, 100), (2, 130, 100)])
        #expect(lifted.fire()?.name == "none")
        lifted.wait(10)
        #expect(lifted.up([1]).name == "fail")
    }

    @Test("swipe: a zigzag is not straight enough (length under 0.8 of the path)")
    func swipeZigzag() {
        var p = SwipeParameters()
        p.settle = .milliseconds(0)
        var h = Swipe(p)
        h.down([(1, 100, 100)])
        // 2.5 mm right and 6 mm across per frame: covering 20 mm takes 8 frames and 52 mm of path.
        for k in 1...24 {
            h.wait(8.333)
            let across: Double = k % 2 == 0 ? 0 : 6
            #expect(h.move([(1, 100 + 2.5 * Double(k), 100 + across)]).name == "none")
        }
        #expect(h.up([1]).name == "fail")
    }

    // MARK: shape

    typealias Shape = MachineHarness<ShapeRecognizer>

    static func shapeConfiguration(
        _ templates: [ShapeTemplate] = [.builtIn(.circle)], fingers: ClosedRange<Int> = 1...1
    ) -> ShapeRecognizer.Configuration {
        var p = ShapeParameters()
        p.templates = templates
        p.minFingers = fingers.lowerBound
        p.maxFingers = fingers.upperBound
        return ShapeRecognizer.Configuration(p)
    }

    /// The name of the template a recognized stroke matched.
    static func shapeName(_ h: Shape, _ result: Proposal) -> String? {
        result.report?.shape.map { h.machine.parameters.templates[$0].name }
    }

    /// One finger along `points` at 120 Hz, then the lift; the first decision, whenever it came
    /// (a circle is recognized while it is drawn).
    static func stroke(_ h: inout Shape, _ points: [(Double, Double)]) -> Proposal {
        var decision = h.down([(1, points[0].0, points[0].1)])
        for p in points.dropFirst() {
            h.wait(8.333)
            let r = h.move([(1, p.0, p.1)])
            if case .none = decision { decision = r }
        }
        h.wait(8)
        let lift = h.up([1])
        if case .none = decision { decision = lift }
        return decision
    }

    static func circle(
        radius: Double, clockwise: Bool, start: Double, turn: Double = 360, steps: Int = 60
    ) -> [(Double, Double)] {
        (0...steps).map { k in
            let a = (start + (clockwise ? 1 : -1) * turn * Double(k) / Double(steps)) * Double.pi / 180
            let (c, s) = cosSin(a)
            return (170 + radius * c, 100 + radius * s)
        }
    }

    @Test(
        "shape: circles of any size, start and direction match `circle`",
        arguments: [15.0, 40.0, 80.0], [true, false])
    func circle(radius: Double, clockwise: Bool) {
        for start in stride(from: 0.0, to: 360, by: 45) {
            var h = Shape(Self.shapeConfiguration())
            let result = Self.stroke(&h, Self.circle(radius: radius, clockwise: clockwise, start: start))
            #expect(result.name == "recognize", "radius \(radius) start \(start)")
            #expect(Self.shapeName(h, result) == "circle")
            #expect((result.report?.score ?? 0) >= ShapeParameters().minScore)
        }
    }

    @Test("shape: a circle is recognized while it is drawn, the lift is not needed; going on stays one circle")
    func circleWhileMoving() {
        var h = Shape(Self.shapeConfiguration())
        let points = Self.circle(radius: 40, clockwise: false, start: 30, turn: 720, steps: 120)
        h.down([(1, points[0].0, points[0].1)])
        var recognizedAt: Int?
        for (k, p) in points.enumerated().dropFirst() {
            h.wait(8.333)
            if case .recognize = h.move([(1, p.0, p.1)]) { recognizedAt = k }
        }
        // One loop is 60 steps: recognized between 300° and 370°, once.
        #expect((50...62).contains(recognizedAt ?? -1), "at \(String(describing: recognizedAt))")
        #expect(h.up([1]).name == "none")
    }

    @Test("shape: a straight line, a half circle and a small circle are not circles")
    func notCircles() {
        var line = Shape(Self.shapeConfiguration())
        let straight: [(Double, Double)] = (0...30).map { k in
            let x: Double = 100 + Double(k) * 4
            let y: Double = 100 + Double(k % 2) * 0.2
            return (x, y)
        }
        #expect(Self.stroke(&line, straight).name == "fail")
        var half = Shape(Self.shapeConfiguration())
        #expect(Self.stroke(&half, Self.circle(radius: 40, clockwise: true, start: 0, turn: 180)).name == "fail")
        var small = Shape(Self.shapeConfiguration())
        #expect(Self.stroke(&small, Self.circle(radius: 8, clockwise: true, start: 0)).name == "fail")
    }

    @Test("shape: a second finger fails a one-finger shape")
    func oneFinger() {
        var h = Shape(Self.shapeConfiguration())
        h.down([(1, 100, 100)])
        #expect(h.down([(2, 150, 100)]).name == "fail")
    }

    @Test("shape: two fingers draw a circle with their centroid, once their count has settled")
    func twoFingerCircle() {
        var h = Shape(Self.shapeConfiguration(fingers: 2...2))
        let path = Self.circle(radius: 40, clockwise: true, start: 0, turn: 370, steps: 74)
        var decision = h.down([(1, path[0].0 - 10, path[0].1)])
        h.wait(60)
        decision = h.down([(2, path[0].0 + 10, path[0].1)])
        for p in path.dropFirst() {
            h.wait(8.333)
            let r = h.move([(1, p.0 - 10, p.1), (2, p.0 + 10, p.1)])
            if case .none = decision { decision = r }
        }
        #expect(decision.name == "recognize")
        #expect(decision.report?.fingers == 2)
        var one = Shape(Self.shapeConfiguration(fingers: 2...2))
        #expect(Self.stroke(&one, path).name == "fail")
    }

    @Test("shape: templates sharing a name are all examples of that name")
    func sharedNames() {
        let wide = ShapeTemplate.points(
            name: "caret", points: [SurfacePoint(x: 0, y: 1), SurfacePoint(x: 1, y: 0), SurfacePoint(x: 2, y: 1)])
        let narrow = ShapeTemplate.points(
            name: "caret", points: [SurfacePoint(x: 0, y: 2), SurfacePoint(x: 0.5, y: 0), SurfacePoint(x: 1, y: 2)])
        let config = Self.shapeConfiguration([wide, narrow])
        for (corners, expected) in [([(100.0, 140.0), (140.0, 100.0), (180.0, 140.0)], 0), ([(100.0, 180.0), (115.0, 100.0), (130.0, 180.0)], 1)] {
            var h = Shape(config)
            var points: [(Double, Double)] = []
            for i in 0..<2 {
                for k in 0..<16 {
                    let t = Double(k) / 16
                    points.append((corners[i].0 + (corners[i + 1].0 - corners[i].0) * t, corners[i].1 + (corners[i + 1].1 - corners[i].1) * t))
                }
            }
            points.append(corners[2])
            let result = Self.stroke(&h, points)
            #expect(Self.shapeName(h, result) == "caret")
            #expect(result.report?.shape == expected)
        }
    }

    @Test("shape: custom templates are told apart and reported by name")
    func customTemplates() {
        let v = ShapeTemplate.points(
            name: "v", points: [SurfacePoint(x: 0, y: 0), SurfacePoint(x: 0.5, y: 1), SurfacePoint(x: 1, y: 0)])
        let z = ShapeTemplate.points(
            name: "z",
            points: [
                SurfacePoint(x: 0, y: 0), SurfacePoint(x: 1, y: 0), SurfacePoint(x: 0, y: 1), SurfacePoint(x: 1, y: 1),
            ])
        let config = Self.shapeConfiguration([.builtIn(.circle), v, z])
        func polyline(_ corners: [(Double, Double)]) -> [(Double, Double)] {
            var out: [(Double, Double)] = []
            for i in 0..<(corners.count - 1) {
                let (a, b) = (corners[i], corners[i + 1])
                for k in 0..<12 {
                    let t = Double(k) / 12
                    let x: Double = a.0 + (b.0 - a.0) * t
                    let y: Double = a.1 + (b.1 - a.1) * t
                    out.append((x, y))
                }
            }
            out.append(corners[corners.count - 1])
            return out
        }
        var hv = Shape(config)
        let v1 = Self.stroke(&hv, polyline([(100, 60), (130, 120), (160, 60)]))
        #expect(Self.shapeName(hv, v1) == "v")
        var hz = Shape(config)
        let z1 = Self.stroke(&hz, polyline([(100, 60), (160, 60), (100, 120), (160, 120)]))
        #expect(Self.shapeName(hz, z1) == "z")
    }

    @Test("shape: a stroke longer than the buffer is decimated, not lost")
    func longStroke() {
        var h = Shape(Self.shapeConfiguration())
        let capacity = type(of: h.machine.gesture).capacity
        let points = Self.circle(radius: 40, clockwise: true, start: 0, steps: capacity * 3)
        let result = Self.stroke(&h, points)
        #expect(Self.shapeName(h, result) == "circle")
    }
}
