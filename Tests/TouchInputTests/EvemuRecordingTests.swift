import Testing
import TouchValues

@testable import TouchInput
@testable import VirtualDevices

/// The evemu parser on every format variant the corpus has, and its errors.
@Suite struct EvemuRecordingTests {
    @Test("evemu 1.1 with five-column A: lines, zero-padded and negative values, epoch timestamps (WeTab)")
    func wetab() throws {
        let r = try EvemuRecording(bytes: Fixture.bytes("wetab.event"))
        #expect(r.version == "1.1")
        #expect(r.description.name == "eGalax-Inc.-USB-TouchController Virtual Device")
        #expect(r.description.id == InputID(bustype: 3, vendor: 0x0eef, product: 0x72a1, version: 0x0210))
        #expect(r.description.slotCount == 2)
        #expect(r.description.absInfo[EventCode.absMTPositionX] == AbsInfo(minimum: 0, maximum: 32760, fuzz: 31))
        #expect(r.description.has(EventCode.evKey, EventCode.btnTouch))
        let events = try r.allEvents()
        #expect(events.count == 170)
        #expect(
            events[0]
                == InputEvent(time: Timestamp(microseconds: 1_288_981_453_965_969), type: 3, code: 0x39, value: 431))
        #expect(events[7].value == -1)  // written "-001"
    }

    @Test("evemu 1.2 with resolution columns and a protocol A device (N-Trig)")
    func ntrig() throws {
        let r = try EvemuRecording(bytes: Fixture.bytes("ntrig-dell-xt2.event"))
        #expect(r.version == "1.2")
        #expect(r.description.absInfo[EventCode.absMTPositionY]?.maximum == 7200)
        #expect(r.description.slotCount == nil)
        #expect(try r.allEvents().count == 146)
        #expect(try TouchscreenModel(description: r.description).touchProtocol == .protocolA)
    }

    @Test("a description given only in comments equals the N:/I:/P:/B:/A: one")
    func commentsOnly() throws {
        let lines = try EvemuRecording(bytes: Fixture.bytes("ntrig-dell-xt2.event"))
        let comments = try EvemuRecording(bytes: Fixture.bytes("ntrig-dell-xt2-comments-only.event"))
        #expect(comments.description == lines.description)
        #expect(try comments.allEvents() == lines.allEvents())
    }

    @Test("a large recording (3M, 43 466 events) parses completely")
    func large() throws {
        let r = try EvemuRecording(bytes: Fixture.bytes("3m.event.xz"))
        #expect(r.description.slotCount == 60)
        #expect(try r.allEvents().count == 43_466)
    }

    @Test("CRLF line ends, banners, blank lines and timestamps with any number of fraction digits")
    func lenientLines() throws {
        let text = """
            # EVEMU 1.3\r
            N: crlf panel\r
            I: 0003 0001 0002 0003\r
            P: 02 00\r
            A: 35 0 100 0 0 0\r
            A: 36 0 100 0 0 0\r
            ################################\r
            \r
            E: 0.5 0003 0035 +07\r
            E: 0.0000019 0000 0000 0000   # trailing comment\r
            E: 12 0003 0036 -0\r

            """
        let r = try EvemuRecording(text: text)
        #expect(r.description.name == "crlf panel")
        #expect(r.description.properties == [EventCode.propDirect])
        let events = try r.allEvents()
        #expect(events.map(\.time.microseconds) == [500_000, 1, 12_000_000])
        #expect(events.map(\.value) == [7, 0, 0])
    }

    @Test("the writer's output parses back to the same description and events", arguments: DeviceProfile.allCases)
    func writerRoundTrip(_ profile: DeviceProfile) throws {
        let description = profile.capabilities()
        var writer = EvemuWriter(device: description)
        let events = [
            InputEvent(time: Timestamp(microseconds: 1_700_000_000_123_456), type: 3, code: 0x35, value: -5),
            InputEvent(time: Timestamp(microseconds: 1_700_000_000_123_457), type: 0, code: 0, value: 0),
        ]
        for e in events { writer.append(e) }
        let parsed = try EvemuRecording(text: writer.text)
        #expect(parsed.description == description)
        #expect(try parsed.allEvents() == events)
    }

    static let malformed: [(text: String, line: Int, message: String)] = [
        ("", 1, "no device description"),
        ("X: foo\n", 1, "unknown line type"),
        ("N: a\nI: 0003 0eef\n", 2, "I: needs four hex numbers"),
        ("N: a\nN: b\n", 2, "a second device name"),
        ("N: a\nA: 35 0 x 0 0\n", 2, "decimal 32-bit"),
        ("N: a\nA: 35 0 1 0\n", 2, "min max fuzz flat"),
        ("N: a\nA: 40 0 1 0 0 0\n", 2, "above ABS_MAX"),
        ("N: a\nA: 35 0 1 0 0 0\nA: 35 0 1 0 0 0\n", 3, "a second A: line"),
        ("N: a\nB: 03 zz\n", 2, "hex bytes"),
        ("N: a\nB: 03 100\n", 2, "hex bytes"),
        ("N: a\nP: 00 00 00 80 01\n", 2, "above INPUT_PROP_MAX"),
        ("N: a\nE: 1.0 0003 0035 12\nE: 1.0 zz 0035 12\n", 3, "event type"),
        ("N: a\nE: 1.0 0020 0035 12\n", 2, "above EV_MAX"),
        ("N: a\nE: 1.0 0003 0300 12\n", 2, "above the largest code of EV_ABS"),
        ("N: a\nE: 1.0 0003 0040 12\n", 2, "above the largest code of EV_ABS"),
        ("N: a\nE: 1.000001 0003 0035\n", 2, "event value"),
        ("N: a\nE: 1.0 0003 0035 99999999999\n", 2, "32-bit range"),
        ("N: a\nE: 1.0 0003 0035 -2147483649\n", 2, "32-bit range"),
        ("N: a\nE: 1.0 0003 0035 12 garbage\n", 2, "unexpected text"),
        ("N: a\nE: x 0003 0035 12\n", 2, "timestamp"),
        ("N: a\nE: 1. 0003 0035 12\n", 2, "after the timestamp's '.'"),
        ("N: a\nE: 1234567890123 0003 0035 12\n", 2, "more than 12 digits"),
        ("N: a\nE: 1.0 0003 0035 12\n\nN: b\n", 4, "description comes before the first event"),
        ("N: a\n" + String(repeating: "#", count: 5000) + "\n", 2, "longer than"),
    ]

    @Test("malformed input is an error naming its line", arguments: malformed.indices)
    func errors(_ index: Int) {
        let (text, line, message) = Self.malformed[index]
        do {
            let recording = try EvemuRecording(text: text)
            _ = try recording.allEvents()
            Issue.record("\(text.debugDescription) parsed")
        } catch {
            #expect(error.line == line, "\(text.debugDescription): \(error)")
            #expect(error.message.contains(message), "\(text.debugDescription): \(error)")
        }
    }

    @Test("a B: bit above the type's maximum is refused on its line")
    func bitmaskAboveMaximum() {
        // EV_ABS has 64 codes: a ninth byte sets codes 64…71.
        #expect(throws: LineError(line: 2, "B: sets code 0x40 of type EV_ABS, above its maximum")) {
            try EvemuRecording(text: "N: a\nB: 03 00 00 00 00 00 00 00 00 01\nA: 00 0 1 0 0 0\n")
        }
    }
}
