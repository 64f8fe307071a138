import Foundation
import GestureDaemon
import TestSupport
import Testing
import TouchInput

/// Every labelled recording of evemu-devices' tablets-indirect-touch (real
/// people's strokes, Fixtures/README.md) gives its author's gesture through `gestured replay`'s
/// path, with the built-in set and with a user configuration holding only that gesture's
/// recognizer. The tablets' finger layers are replayed as touchscreens (`force-touchscreen`), as
/// the corpus README says; they report no size, so millimetres are of the assumed 344 mm panel.
@Suite("real strokes (tablets-indirect-touch)")
struct RealStrokeTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/tablets-indirect-touch")
    static let models = ["bamboo", "intuos5"]
    static let forced = "devices:\n  - {match: {}, force-touchscreen: true}\n"

    /// One `gesture` message, as much of it as the checks need.
    struct Gesture: Equatable, CustomStringConvertible {
        var name: String
        var state: String
        var fingers: Int
        var direction: String?
        var shape: String?
        var dx: Double
        var dy: Double
        var description: String { "\(name) \(state) f=\(fingers) \(direction ?? shape ?? "")" }
    }

    /// The recording through the engine with `recognizers` (YAML; nil: the built-in set).
    static func replay(_ file: String, recognizers: String? = nil) throws -> [Gesture] {
        let yaml = forced + (recognizers.map { "recognizers:\n  - \($0)\n" } ?? "")
        let configuration = try ConfigurationLoader.parse(Data(yaml.utf8), file: "test.yaml")
        var replay = try OfflineReplay(configuration: configuration, includeTouches: false)
        let recording = try EvemuRecording(bytes: xzDecompressed(folder.appendingPathComponent(file + ".evemu.xz")))
        var lines: [[UInt8]] = []
        try replay.play(OfflineReplay.Input(label: file, recording: recording)) { lines.append($0) }
        return try lines.compactMap { line in
            let m = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            guard m["type"] as? String == "gesture", m["state"] as? String != "changed" else { return nil }
            let t = m["translation"] as? [String: Double]
            return Gesture(
                name: m["name"] as! String, state: m["state"] as! String, fingers: m["fingers"] as! Int,
                direction: m["direction"] as? String, shape: m["shape"] as? String, dx: t?["x"] ?? 0, dy: t?["y"] ?? 0)
        }
    }

    static func fingers(_ gesture: String) -> Int { gesture.hasPrefix("single") ? 1 : 2 }

    /// The gestures named `names`, in the order they came.
    static func only(_ names: Set<String>, _ gestures: [Gesture]) -> [String] {
        gestures.filter { names.contains($0.name) }.map(\.description)
    }

    @Test("a swipe right along the top is one swipe right, with its fingers", arguments: models, ["single", "double"])
    func swipe(model: String, count: String) throws {
        let file = "\(model)_\(count)-top-swipe"
        let n = Self.fingers(count)
        let builtIn = try Self.replay(file)
        #expect(Self.only(["swipe"], builtIn) == ["swipe recognized f=\(n) right"], "\(file): \(builtIn)")
        let user = try Self.replay(file, recognizers: "{name: next-page, kind: swipe, directions: [right]}")
        #expect(user.map(\.description) == ["next-page recognized f=\(n) right"], "\(file): \(user)")
    }

    @Test("a drag down the middle is a pan down, with its fingers", arguments: models, ["single", "double"])
    func drag(model: String, count: String) throws {
        let file = "\(model)_\(count)-center-scroll"
        let n = Self.fingers(count)
        for recognizers in [nil, "{name: pan, kind: pan}"] {
            let pans = try Self.replay(file, recognizers: recognizers).filter { $0.name == "pan" }
            #expect(pans.map(\.description) == ["pan began f=\(n) ", "pan ended f=\(n) "], "\(file): \(pans)")
            let end = try #require(pans.last)
            #expect(end.dy > 0.3 && end.dy > 5 * abs(end.dx), "\(file): \(end.dx), \(end.dy)")
        }
    }

    /// The Bamboo's one-finger circle rests 0.52 s before it moves: with the built-in set that is
    /// a long press (which excludes everything else, R5), as its author's finger said; a circle
    /// recognizer alone takes it.
    @Test("a circle drawn in the middle is a circle, with its fingers", arguments: models, ["single", "double"])
    func circle(model: String, count: String) throws {
        let file = "\(model)_\(count)-center-circle"
        let n = Self.fingers(count)
        let builtIn = try Self.replay(file)
        if file == "bamboo_single-center-circle" {
            #expect(Self.only(["circle", "long-press"], builtIn) == ["long-press began f=1 ", "long-press ended f=1 "])
        } else {
            #expect(Self.only(["circle"], builtIn) == ["circle recognized f=\(n) circle"], "\(file): \(builtIn)")
        }
        let user = try Self.replay(file, recognizers: "{name: circle, kind: shape, max-fingers: 2}")
        #expect(user.map(\.description) == ["circle recognized f=\(n) circle"], "\(file): \(user)")
    }

    @Test("a two-finger tap is one two-finger tap and nothing else", arguments: models, ["double-tap", "double-tap-center"])
    func tap(model: String, gesture: String) throws {
        let file = "\(model)_\(gesture)"
        let builtIn = try Self.replay(file)
        #expect(builtIn.map(\.description) == ["two-finger-tap recognized f=2 "], "\(file): \(builtIn)")
        let user = try Self.replay(file, recognizers: "{name: two-finger-tap, kind: tap, fingers: 2}")
        #expect(user.map(\.description) == ["two-finger-tap recognized f=2 "], "\(file): \(user)")
    }

    /// The recordings of the folder (none when it cannot be listed: ``recordingsAreThere()`` fails
    /// then, as the test over them would have no case).
    static var recordings: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".evemu.xz") }.map { String($0.dropLast(".evemu.xz".count)) }.sorted()
    }

    @Test("the labelled recordings are there, every model's")
    func recordingsAreThere() throws {
        _ = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path)
        for model in Self.models {
            #expect(Self.recordings.contains { $0.hasPrefix(model + "_") }, "no \(model) recording in \(Self.folder.path)")
        }
    }

    /// Multi-finger swipes are decided by distance and direction alone; none of people's one- and
    /// two-finger gestures is one.
    @Test("no labelled recording gives a swipe of three fingers or more (built-in set)", arguments: recordings)
    func noMultiFingerSwipe(file: String) throws {
        let swipes = try Self.replay(file).filter { $0.name == "swipe" }
        #expect(swipes.allSatisfy { $0.fingers <= 2 }, "\(file): \(swipes)")
    }
}
