import Foundation
import FoundationXML
import GestureDaemon
import GestureEngine
import GestureProtocol
import TestSupport
import Testing
import TouchInput

/// `gestured replay --svg` on the demo recording parses as XML, has one
/// path per touch and one label per recognized (or begun) gesture, and is what docs/images/demo.svg
/// holds (`GESTURED_UPDATE_PICTURES=1` rewrites that file; review it in a browser).
@Suite("replay --svg")
struct ReplayPictureTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Counts the elements of an SVG by element name and class.
    final class Census: NSObject, XMLParserDelegate {
        var counts: [String: Int] = [:]
        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            counts[name + "." + (attributes["class"] ?? ""), default: 0] += 1
        }
    }

    @Test("the demo recording's picture: XML, a path per touch, a label per gesture, as committed")
    func demo() throws {
        let recording = try EvemuRecording(
            bytes: Array(Data(contentsOf: Self.repository.appendingPathComponent("examples/recordings/demo.evemu"))))
        var replay = try OfflineReplay(configuration: .builtIn, includeTouches: false)
        var picture = ReplayPicture(configuration: DaemonConfiguration.builtIn.engineConfiguration)
        var touches = 0
        var gestures = 0
        try replay.play(
            OfflineReplay.Input(label: "demo.evemu", recording: recording),
            observe: { device, frame in
                touches += frame.touches.filter { $0.phase == .began }.count
                picture.add(frame, device: device)
            },
            inspect: { message in
                if case .gesture(let g) = message, g.state == .recognized || g.state == .began { gestures += 1 }
                picture.add(message)
            }, write: { _ in })
        let svg = picture.svg()

        let census = Census()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = census
        #expect(parser.parse(), "not XML: \(parser.parserError.map { "\($0)" } ?? "")")
        #expect(touches > 10 && gestures > 5)
        #expect(census.counts["path.touch"] == touches)
        #expect(census.counts["text.gesture"] == gestures)
        #expect(census.counts["circle.landing"] == touches)
        #expect(census.counts["rect.panel"] == 1)
        // The built-in edge swipe's band along each of its four edges (its kind's `edgeBands`).
        #expect(census.counts["rect.edge-band"] == 4)
        #expect(census.counts["svg."] == 1)

        let committed = Self.repository.appendingPathComponent("docs/images/demo.svg")
        if ProcessInfo.processInfo.environment["GESTURED_UPDATE_PICTURES"] == "1" {
            try Data(svg.utf8).write(to: committed)
        }
        #expect(
            (try? String(contentsOf: committed, encoding: .utf8)) == svg,
            "docs/images/demo.svg is not this picture: GESTURED_UPDATE_PICTURES=1 swift test --filter ReplayPictureTests")
    }
}
