import Foundation
import TestSupport

@testable import GestureEngine

/// People's unistrokes (Fixtures/README.md: the $1 paper's data set, four people, Apache-2.0), a
/// tuning set, and how they are drawn on a touchscreen: 0.8 mm per data-set pixel, each stroke
/// centred on a 400 × 400 mm panel of 10 units/mm (positions rounded to its units), the points'
/// own timestamps, one stroke per touch lifted one frame period (10 ms) after its last point, one
/// second between strokes.
enum HumanStrokeSet {
    struct Stroke: Sendable {
        /// `s01`…`s04` (`s01` is the pilot).
        var subject: String
        /// `slow`, `medium` or `fast`.
        var speed: String
        /// The gesture's name in the data set (`circle`, `left_sq_bracket`…).
        var name: String
        var number: Int
        /// Data-set pixels and milliseconds.
        var points: [(x: Double, y: Double, ms: Double)]
    }

    static let subjects = ["s01", "s02", "s03", "s04"]
    static let speeds = ["slow", "medium", "fast"]
    static let millimetresPerPixel = 0.8
    static let panel = 400.0
    static let unitsPerMillimetre = 10.0
    static let liftDelay = TimeSpan.milliseconds(10)
    static let gap = TimeSpan.milliseconds(1000)

    static let all: [Stroke] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/dollar-unistrokes-tuning.json.xz")
        // The fixture is part of the repository: failing to read it is a broken checkout.
        let bytes = try! xzDecompressed(url)
        let list = try! JSONSerialization.jsonObject(with: Data(bytes)) as! [[String: Any]]
        return list.map { entry in
            let subject = entry["subject"] as! String
            return Stroke(
                subject: String(subject.prefix(3)), speed: entry["speed"] as! String, name: entry["name"] as! String,
                number: entry["number"] as! Int,
                points: (entry["points"] as! [[Double]]).map { (x: $0[0], y: $0[1], ms: $0[2]) })
        }
    }()

    /// The strokes' gesture names, in the data set's order.
    static var names: [String] {
        var seen: [String] = []
        for s in all where !seen.contains(s.name) { seen.append(s.name) }
        return seen
    }

    /// The template of the user-independent test: the pilot's first `medium` sample of `name`.
    static func pilotTemplate(_ name: String) -> Stroke {
        all.first { $0.subject == "s01" && $0.speed == "medium" && $0.name == name && $0.number == 1 }!
    }

    /// The stroke's points on the panel (surface coordinates) and their times after its first.
    static func onPanel(_ stroke: Stroke) -> [(point: SurfacePoint, after: TimeSpan)] {
        let xs = stroke.points.map(\.x)
        let ys = stroke.points.map(\.y)
        let cx = (xs.min()! + xs.max()!) / 2
        let cy = (ys.min()! + ys.max()!) / 2
        let t0 = stroke.points[0].ms
        return stroke.points.map { p in
            func units(_ pixels: Double) -> Double {
                ((pixels * millimetresPerPixel + panel / 2) * unitsPerMillimetre).rounded() / unitsPerMillimetre / panel
            }
            return (
                SurfacePoint(x: units(p.x - cx), y: units(p.y - cy)),
                TimeSpan(microseconds: Int64(((p.ms - t0) * 1000).rounded()))
            )
        }
    }

    /// Draws `strokes` one after the other into one engine with `recognizers` on the 400 × 400 mm
    /// panel; for each stroke, the gestures it produced (began or recognized).
    static func replay(_ strokes: [Stroke], recognizers: [RecognizerSpec]) throws -> [[GestureEvent]] {
        var engine = try GestureEngine(configuration: EngineConfiguration(recognizers: recognizers))
        let device = DeviceID(1)
        engine.addDevice(
            DeviceDescriptor(
                id: device, label: "strokes", name: "people's strokes",
                geometry: SurfaceGeometry(
                    physicalSize: PhysicalSize(width: Millimeters(panel), height: Millimeters(panel)))))
        var time = Timestamp(microseconds: 1_000_000)
        var events: [EngineEvent] = []
        var produced: [[GestureEvent]] = []
        for (i, stroke) in strokes.enumerated() {
            let id = TouchID(UInt32(i + 1))
            let start = time
            events.removeAll()
            for (j, sample) in onPanel(stroke).enumerated() {
                time = start + sample.after
                engine.advance(to: time, into: &events)
                let touch = Touch(id: id, phase: j == 0 ? .began : .moved, position: sample.point)
                engine.process(TouchFrame(device: device, time: time, touches: [touch]), into: &events)
            }
            time = time + liftDelay
            engine.advance(to: time, into: &events)
            let last = onPanel(stroke).last!.point
            engine.process(
                TouchFrame(device: device, time: time, touches: [Touch(id: id, phase: .ended, position: last)]),
                into: &events)
            time = time + gap
            engine.advance(to: time, into: &events)
            produced.append(
                events.compactMap { event in
                    guard case .gesture(let g) = event, g.state == .recognized || g.state == .began else { return nil }
                    return g
                })
        }
        return produced
    }
}
