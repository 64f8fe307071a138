import Testing

@testable import GestureEngine

/// `swipe` and `shape` (docs/RECOGNIZERS.md).
@Suite("swipe and shape recognizers")
struct DiscreteStrokeRecognizerTests {
    typealias Swipe = MachineHarness<SwipeRecognizer>

    /// A straight stroke of `fingers` fingers, 60 mm in 120 ms at 120 Hz, in `direction`.
    static func swipe(
        _ h: inout Swipe, fingers: Int, direction: Direction, length: Double = 60, ms: Double = 120
    ) -> Proposal {
        let angle = direction.degrees * Double.pi / 180
        let (c, s) = cosSin(angle)
        h.down(Swipe.fingers(fingers, at: 170, 100))
        let frames = Int(ms / 8.333)
        for k in 1...frames {
            h.wait(8.333)
            let d = length * Double(k) / Double(frames)
            h.move(Swipe.fingers(fingers, at: 170, 100, dx: d * c, dy: d * s))
        }
        h.wait(8)
        return h.up((1...UInt32(fingers)).map { $0 })
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

    @Test("swipe: too short, too slow, or outside the allowed directions fails")
    func swipeFails() {
        var short = Swipe(SwipeParameters())
        #expect(Self.swipe(&short, fingers: 1, direction: .right, length: 15).name == "fail")
        var slow = Swipe(SwipeParameters())
        #expect(Self.swipe(&slow, fingers: 1, direction: .right, length: 40, ms: 500).name == "fail")
        var p = SwipeParameters()
        p.directions = [.left, .right]
        var diagonal = Swipe(p)
        #expect(Self.swipe(&diagonal, fingers: 1, direction: .upRight).name == "fail")
    }

    @Test("swipe: more fingers than max-fingers fail; a finger landing after a lift fails")
    func swipeFingerRules() {
        var p = SwipeParameters()
        p.maxFingers = 2
        var h = Swipe(p)
        #expect(h.down(Swipe.fingers(3, at: 170, 100)).name == "fail")
        var g = Swipe(SwipeParameters())
        g.down([(1, 100, 100), (2, 130, 100)])
        g.up([1])
        #expect(g.down([(3, 160, 100)]).name == "fail")
    }

    @Test("swipe: a stroke held past max-duration fails by its timer")
    func swipeTimer() {
        var h = Swipe(SwipeParameters())
        h.down([(1, 100, 100)])
        #expect(h.machine.deadline == h.time + .milliseconds(600))
        #expect(h.fire()?.name == "fail")
    }

    @Test("swipe: a curved stroke (half a circle) is not straight enough")
    func swipeCurved() {
        var h = Swipe(SwipeParameters())
        h.down([(1, 200, 100)])
        for k in 1...15 {
            h.wait(8.333)
            let (c, s) = cosSin(Double.pi * Double(k) / 15)
            h.move([(1, 170 + 30 * c, 100 + 30 * s)])
        }
        #expect(h.up([1]).name == "fail")
    }

    // MARK: shape

    typealias Shape = MachineHarness<ShapeRecognizer>

    static func shapeConfiguration(_ templates: [ShapeTemplate] = [.builtIn(.circle)]) -> ShapeRecognizer.Configuration
    {
        var all: [ShapeMatcher.Template] = []
        for t in templates {
            switch t {
            case .builtIn(let s): all += ShapeMatcher.templates(for: s)
            case .points(let name, let points):
                all.append(ShapeMatcher.template(name: name, points: points.map { Vec2(x: $0.x, y: $0.y) }))
            }
        }
        return ShapeRecognizer.Configuration(templates: all, minScore: 0.8, minSize: Millimeters(20))
    }

    /// The name of the template a recognized stroke matched.
    static func shapeName(_ h: Shape, _ result: Proposal) -> String? {
        result.report?.shape.map { h.machine.parameters.templates[$0].name }
    }

    static func stroke(_ h: inout Shape, _ points: [(Double, Double)]) -> Proposal {
        h.down([(1, points[0].0, points[0].1)])
        for p in points.dropFirst() {
            h.wait(8.333)
            h.move([(1, p.0, p.1)])
        }
        h.wait(8)
        return h.up([1])
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
            #expect((result.report?.score ?? 0) > 0.9)
        }
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

    @Test("shape: a second finger fails it")
    func oneFinger() {
        var h = Shape(Self.shapeConfiguration())
        h.down([(1, 100, 100)])
        #expect(h.down([(2, 150, 100)]).name == "fail")
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
        let points = Self.circle(radius: 40, clockwise: true, start: 0, steps: ShapeRecognizer.capacity * 3)
        let result = Self.stroke(&h, points)
        #expect(Self.shapeName(h, result) == "circle")
    }
}
