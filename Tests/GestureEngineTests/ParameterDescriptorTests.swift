import Foundation
import Testing

@testable import GestureEngine

/// The parameter descriptors are the one authority over each key: decoding and validation give
/// the same error at the same place, and docs/CONFIGURATION.md's reference table is theirs.
@Suite("Parameter descriptors")
struct ParameterDescriptorTests {
    /// The error decoding gives for `json` (one recognizer), as a path and a message.
    static func decodingError(_ json: String) -> ([SpecPathComponent], String)? {
        do {
            _ = try JSONDecoder().decode(RecognizerSpec.self, from: Data(json.utf8))
            return nil
        } catch let DecodingError.dataCorrupted(context) {
            return (
                context.codingPath.map { $0.intValue.map(SpecPathComponent.index) ?? .key($0.stringValue) },
                context.debugDescription
            )
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    /// The error validation gives for a spec built in code, relative to the recognizer.
    static func validationError(_ spec: RecognizerSpec) -> ([SpecPathComponent], String)? {
        do {
            try EngineConfiguration(recognizers: [spec]).validate()
            return nil
        } catch {
            return (Array(error.path.dropFirst(2)), error.message)
        }
    }

    static func spec(_ parameters: RecognizerParameters) -> RecognizerSpec {
        RecognizerSpec(name: "r", parameters: parameters)
    }

    static func with<P>(_ value: P, _ change: (inout P) -> Void) -> P {
        var copy = value
        change(&copy)
        return copy
    }

    static let sameTriangle = [
        SurfacePoint(x: 0.5, y: 0.5), SurfacePoint(x: 0.5, y: 0.5), SurfacePoint(x: 0.5, y: 0.5),
    ]

    /// A bad value written in a request, and the same value built in code.
    static let cases: [(json: String, built: RecognizerSpec)] = [
        (#"{"name":"r","kind":"tap","taps":9}"#, spec(.tap(with(TapParameters()) { $0.taps = 9 }))),
        (#"{"name":"r","kind":"tap","fingers":0}"#, spec(.tap(with(TapParameters()) { $0.fingers = 0 }))),
        (
            #"{"name":"r","kind":"tap","max-gap-ms":60001}"#,
            spec(.tap(with(TapParameters()) { $0.maxGap = .milliseconds(60_001) }))
        ),
        (
            #"{"name":"r","kind":"long-press","slop-mm":0}"#,
            spec(.longPress(with(LongPressParameters()) { $0.slop = Millimeters(0) }))
        ),
        (
            #"{"name":"r","kind":"pan","min-fingers":3,"max-fingers":2}"#,
            spec(.pan(with(PanParameters()) { ($0.minFingers, $0.maxFingers) = (3, 2) }))
        ),
        (
            #"{"name":"r","kind":"pinch","min-fingers":1}"#,
            spec(.pinch(with(PinchParameters()) { $0.minFingers = 1 }))
        ),
        (
            #"{"name":"r","kind":"rotate","min-rotation-deg":180}"#,
            spec(.rotate(with(RotateParameters()) { $0.minRotation = 180 }))
        ),
        (
            #"{"name":"r","kind":"swipe","angle-tolerance-deg":50}"#,
            spec(.swipe(with(SwipeParameters()) { $0.angleTolerance = 50 }))
        ),
        (
            #"{"name":"r","kind":"swipe","min-velocity-mm-s":-1}"#,
            spec(.swipe(with(SwipeParameters()) { $0.minVelocity = Millimeters(-1) }))
        ),
        (
            #"{"name":"r","kind":"edge-swipe","edges":[]}"#,
            spec(.edgeSwipe(with(EdgeSwipeParameters()) { $0.edges = [] }))
        ),
        (#"{"name":"r","kind":"shape","templates":[]}"#, spec(.shape(with(ShapeParameters()) { $0.templates = [] }))),
        (
            #"{"name":"r","kind":"swipe","settle-ms":1001}"#,
            spec(.swipe(with(SwipeParameters()) { $0.settle = .milliseconds(1001) }))
        ),
        (
            #"{"name":"r","kind":"shape","min-fingers":2,"max-fingers":1}"#,
            spec(.shape(with(ShapeParameters()) { $0.minFingers = 2 }))
        ),
        (
            #"{"name":"r","kind":"shape","templates":[{"name":"dot","points":[[0.5,0.5],[0.5,0.5],[0.5,0.5]]}]}"#,
            spec(.shape(with(ShapeParameters()) { $0.templates = [.points(name: "dot", points: sameTriangle)] }))
        ),
        (#"{"name":"r","kind":"shape","min-score":1.5}"#, spec(.shape(with(ShapeParameters()) { $0.minScore = 1.5 }))),
        (
            #"{"name":"r","kind":"tap","when":{"min-fingers":2,"max-fingers":1}}"#,
            with(spec(.tap(TapParameters()))) { $0.when = BeginConditions(minFingers: 2, maxFingers: 1) }
        ),
        (
            #"{"name":"r","kind":"tap","when":{"start-in":{"x":0.5,"width":0.6}}}"#,
            with(spec(.tap(TapParameters()))) {
                $0.when.startIn = SurfaceRect(x: 0.5, y: 0, width: 0.6, height: 1)
            }
        ),
        (
            #"{"name":"r","kind":"tap","accepts":{"max-contact-size-mm":0}}"#,
            with(spec(.tap(TapParameters()))) { $0.accepts.maxContactSize = Millimeters(0) }
        ),
    ]

    @Test("decoding and validation state each rule in the same words at the same place", arguments: cases.indices)
    func oneAuthority(_ i: Int) throws {
        let (json, built) = Self.cases[i]
        let decoded = try #require(Self.decodingError(json))
        let validated = try #require(Self.validationError(built))
        #expect(decoded.0 == validated.0, "\(json)")
        #expect(decoded.1 == validated.1, "\(json)")
    }

    @Test("a spec encodes and decodes back to itself, key by key")
    func roundTrip() throws {
        var swipe = SwipeParameters()
        swipe.directions = [.up, .downLeft]
        swipe.maxDuration = .milliseconds(450)
        swipe.minVelocity = Millimeters(0)
        let spec = Self.spec(.swipe(swipe))
        let data = try JSONEncoder().encode(spec)
        #expect(try JSONDecoder().decode(RecognizerSpec.self, from: data) == spec)
    }

    @Test(
        "the multi-finger swipe keys take the older keys' values when only those are written",
        arguments: [
            (#"{"name":"r","kind":"swipe"}"#, 0.0, Int64(2000)),
            (#"{"name":"r","kind":"swipe","min-velocity-mm-s":300,"max-duration-ms":450}"#, 300.0, Int64(450)),
            (
                #"{"name":"r","kind":"swipe","min-velocity-mm-s":300,"multi-finger-min-velocity-mm-s":40}"#,
                40.0, Int64(2000)
            ),
            (#"{"name":"r","kind":"swipe","multi-finger-max-duration-ms":900}"#, 0.0, Int64(900)),
        ])
    func multiFingerKeysInherit(json: String, velocity: Double, duration: Int64) throws {
        let spec = try JSONDecoder().decode(RecognizerSpec.self, from: Data(json.utf8))
        let p = try #require(spec.parameters.value(as: SwipeParameters.self), "not a swipe: \(spec)")
        #expect(p.multiFingerMinVelocity == Millimeters(velocity))
        #expect(p.multiFingerMaxDuration == .milliseconds(duration))
        // Written back, both keys are there: the file reads the same again.
        let again = try JSONDecoder().decode(RecognizerSpec.self, from: try JSONEncoder().encode(spec))
        #expect(again == spec)
    }

    // MARK: - The reference table in docs/CONFIGURATION.md

    static let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/CONFIGURATION.md")
    static let begin = "<!-- kind keys: generated from the parameter descriptors, checked by swift test -->"
    static let end = "<!-- end of kind keys -->"

    @Test("docs/CONFIGURATION.md lists every kind's keys as the descriptors describe them")
    func referenceTable() throws {
        let text = try String(contentsOf: Self.docs, encoding: .utf8)
        let table = ParameterReference.markdown()
        guard let start = text.range(of: Self.begin), let stop = text.range(of: Self.end) else {
            Issue.record("docs/CONFIGURATION.md has no block between '\(Self.begin)' and '\(Self.end)'")
            return
        }
        let current = String(text[start.upperBound..<stop.lowerBound])
        guard current != "\n" + table else { return }
        if ProcessInfo.processInfo.environment["GESTURED_UPDATE_DOCS"] == "1" {
            try (text[..<start.upperBound] + "\n" + table + text[stop.lowerBound...]).write(
                to: Self.docs, atomically: true, encoding: .utf8)
            return
        }
        Issue.record(
            "docs/CONFIGURATION.md's kind keys differ from the descriptors; GESTURED_UPDATE_DOCS=1 swift test --filter referenceTable rewrites them:\n\(table)"
        )
    }
}
