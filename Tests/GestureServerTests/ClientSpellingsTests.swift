import Foundation
import GestureProtocol
import Testing

@testable import GestureEngine

/// A client written against 0.1.0's spellings of the messages (deprecated, kept) builds the
/// messages the current spellings build and reads back what they hold.
@Suite struct ClientSpellingsTests {
    @available(*, deprecated, message: "exercises the deprecated spellings")
    @Test func `0.1.0's gesture initializer and timeUS make and read the current message`() throws {
        let old = GestureMessage(
            seq: 42, name: "swipe", kind: .swipe, state: .recognized, fingers: 2, touches: [7, 8], device: "event5",
            region: "root", timeUS: 123_456, position: XY(x: 0.5, y: 0.25), positionMM: XY(x: 172, y: 48.5),
            translation: XY(x: 0.25, y: 0), translationMM: XY(x: 86, y: 0), velocity: XY(x: 2, y: 0),
            velocityMM: XY(x: 688, y: 0), direction: .right)
        var report = GestureReport(
            name: "swipe", kind: .swipe, state: .recognized, region: "root", fingers: 2,
            touches: TouchIDList([TouchID(7), TouchID(8)]), time: Timestamp(microseconds: 123_456),
            position: SurfacePoint(x: 0.5, y: 0.25))
        report.positionMM = PhysicalPoint(x: Millimeters(172), y: Millimeters(48.5))
        report.translation = SurfaceVector(dx: 0.25, dy: 0)
        report.translationMM = PhysicalVector(dx: Millimeters(86), dy: Millimeters(0))
        report.velocity = SurfaceVector(dx: 2, dy: 0)
        report.velocityMM = PhysicalVector(dx: Millimeters(688), dy: Millimeters(0))
        report.direction = .right
        let current = GestureMessage(seq: 42, device: "event5", report: report)
        #expect(old == current)
        #expect(old.timeUS == 123_456)

        let line = try GestureProtocol.makeEncoder().encode(current)
        var decoded = try JSONDecoder().decode(GestureMessage.self, from: line)
        #expect(decoded.timeUS == 123_456)
        decoded.timeUS = 5
        #expect(decoded.time == Timestamp(microseconds: 5))
    }

    @available(*, deprecated, message: "exercises the deprecated spellings")
    @Test func `0.1.0's touch initializer, timeUS and sizeMM make and read the current message`() throws {
        let old = TouchMessage(
            seq: 43, device: "event5", region: "root", touch: 7, phase: .moved, timeUS: 99, position: XY(x: 0.5, y: 0.25),
            positionMM: XY(x: 172, y: 48.4), tool: .pen, sizeMM: 6.5, pressure: 0.5)
        let current = TouchMessage(
            seq: 43, device: "event5", region: "root", time: Timestamp(microseconds: 99),
            touch: Touch(
                id: TouchID(7), phase: .moved, position: SurfacePoint(x: 0.5, y: 0.25), tool: .pen,
                contactSize: Millimeters(6.5), pressure: 0.5),
            positionMM: PhysicalPoint(x: Millimeters(172), y: Millimeters(48.4)))
        #expect(old == current)

        var decoded = try JSONDecoder().decode(
            TouchMessage.self, from: try GestureProtocol.makeEncoder().encode(current))
        #expect(decoded.timeUS == 99)
        #expect(decoded.sizeMM == 6.5)
        decoded.sizeMM = nil
        #expect(decoded.contactSize == nil)
    }

    @available(*, deprecated, message: "exercises the deprecated spellings")
    @Test func `0.1.0's filter of an engine event decides as the filter of its report`() {
        let event = GestureEvent(
            owner: .configuration, device: DeviceID(1),
            report: GestureReport(
                name: "tap", kind: .tap, state: .recognized, region: "root", fingers: 1,
                time: Timestamp(microseconds: 0), position: SurfacePoint(x: 0, y: 0)))
        #expect(Subscription(kinds: [.tap]).matches(event, device: "event5"))
        #expect(!Subscription(kinds: [.swipe]).matches(event, device: "event5"))
        #expect(!Subscription(devices: ["event6"]).matches(event, device: "event5"))
    }
}
