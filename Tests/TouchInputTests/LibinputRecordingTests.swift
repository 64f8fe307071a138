import Foundation
import TouchValues
import Testing
import YAMLCoding

@testable import TouchInput
@testable import VirtualDevices

/// `libinput record` files: the same devices and events as the evemu files of the same session,
/// the touchscreen chosen among several devices, every fault at its line and column.
@Suite struct LibinputRecordingTests {
    /// The 3M fixture's description and first events: a real panel's description and contacts.
    static func threeM(events count: Int = 3000) throws -> (DeviceCapabilities, [InputEvent]) {
        let evemu = try EvemuRecording(bytes: Fixture.bytes("3m.event.xz"))
        return (evemu.description, Array(try evemu.allEvents().prefix(count)))
    }

    static let keyboard = DeviceCapabilities(
        name: "AT Translated Set 2 keyboard", id: InputID(bustype: 0x11, vendor: 1, product: 1, version: 0xab41),
        codes: [EventCode.evKey: [1, 2, 3, 30, 57], 4: [4]])

    static func parse(_ text: String) throws(YAMLError) -> LibinputRecording {
        try LibinputRecording(bytes: Array(text.utf8))
    }

    /// The frames a replay gives, written out (time, every touch with its values).
    static func frames(_ recording: Recording) throws -> [String] {
        var replay = try ReplaySource(recording: recording, id: DeviceID(1), label: "x")
        var frames = TouchFrameBuffer()
        while try replay.read(events: 512, into: &frames) {}
        replay.finish(into: &frames)
        return frames.map { "\($0)" }
    }

    @Test("the description and events read back as written, times relative to the first event")
    func roundTrip() throws {
        let (description, events) = try Self.threeM()
        let text = LibinputText(devices: [.init(node: "/dev/input/event5", capabilities: description, events: events)])
        let file = try Self.parse(text.text)
        #expect(file.devices.count == 1)
        let device = file.devices[0]
        #expect(device.node == "/dev/input/event5")
        #expect(device.description == description)
        #expect(device.events == LibinputText.relative(events))
        #expect(device.mark == YAMLMark(line: 11, column: 5))
    }

    @Test("the libinput record made in the VM holds the events evemu-record recorded of the same session")
    func realRecording() throws {
        let libinput = try RecordingFile.recording(bytes: Fixture.bytes("field.yml"))
        let evemu = try RecordingFile.recording(bytes: Fixture.bytes("field.evemu"))
        #expect(libinput.format == .libinput)
        #expect(evemu.format == .evemu)
        #expect(libinput.description == evemu.description)
        #expect(libinput.description.name == "gestured virtual kiosk-10")
        let events = try libinput.allEvents()
        #expect(events.count == 1503)
        #expect(events == LibinputText.relative(try evemu.allEvents()))
    }

    @Test(
        "an evemu file and a libinput file of the same events give the same frames",
        arguments: DeviceProfile.allCases.filter { $0 != .touchpad })
    func sameFrames(_ profile: DeviceProfile) throws {
        // The profile's own encoding of a two-finger stroke and a tap, from a relative clock.
        var encoder = try #require(ContactEncoder(description: profile.capabilities()))
        var events: [InputEvent] = []
        var time: Int64 = 0
        for step in 0..<30 {
            let x = 0.2 + 0.02 * Double(step)
            let contacts =
                step < 25
                ? [
                    SimulatedContact(id: 1, position: SurfacePoint(x: x, y: 0.4)),
                    SimulatedContact(id: 2, position: SurfacePoint(x: x, y: 0.6)),
                ] : []
            var raw: [RawEvent] = []
            encoder.encode(contacts, into: &raw)
            for r in raw {
                events.append(InputEvent(time: Timestamp(microseconds: time), type: r.type, code: r.code, value: r.value))
            }
            time += 10_000
        }
        var writer = EvemuWriter(device: profile.capabilities())
        for event in events { writer.append(event) }
        let evemu = Recording(try EvemuRecording(text: writer.text))
        let libinput = try RecordingFile.recording(
            bytes: Array(LibinputText(devices: [.init(node: "/dev/input/event3", capabilities: profile.capabilities(), events: events)]).text.utf8))
        #expect(libinput.format == .libinput)
        let expected = try Self.frames(evemu)
        #expect(expected.count > 20)
        #expect(try Self.frames(libinput) == expected)
    }

    @Test("the touchscreen is chosen among the file's devices, as discovery would choose it")
    func choosesTheTouchscreen() throws {
        let (description, events) = try Self.threeM(events: 200)
        let touchpad = DeviceProfile.touchpad.capabilities()
        let text = LibinputText(devices: [
            .init(node: "/dev/input/event0", capabilities: Self.keyboard),
            .init(node: "/dev/input/event7", capabilities: description, events: events),
            .init(node: "/dev/input/event9", capabilities: touchpad),
        ]).text
        let recording = try RecordingFile.recording(bytes: Array(text.utf8))
        #expect(recording.description == description)
        #expect(try recording.allEvents() == LibinputText.relative(events))
        // By node and by name, another device; its replay then refuses it with the reason.
        let chosen = try RecordingFile.recording(bytes: Array(text.utf8), device: "/dev/input/event9")
        #expect(chosen.description == touchpad)
        #expect(throws: SkipReason.touchpad) { try ReplaySource(recording: chosen, id: DeviceID(1), label: "x") }
        #expect(try RecordingFile.recording(bytes: Array(text.utf8), device: Self.keyboard.name).description == Self.keyboard)
    }

    @Test("no touchscreen, several, or no such device: an error that lists the devices")
    func choiceErrors() throws {
        let (description, _) = try Self.threeM(events: 0)
        let none = LibinputText(devices: [
            .init(node: "/dev/input/event0", capabilities: Self.keyboard),
            .init(node: "/dev/input/event9", capabilities: DeviceProfile.touchpad.capabilities()),
        ]).text
        let two = LibinputText(devices: [
            .init(node: "/dev/input/event4", capabilities: description),
            .init(node: "/dev/input/event5", capabilities: description),
        ]).text
        func failure(_ text: String, _ device: String? = nil) -> String {
            do {
                _ = try RecordingFile.recording(bytes: Array(text.utf8), device: device)
                return "accepted"
            } catch {
                return error.located(in: "f.yml")
            }
        }
        #expect(
            failure(none)
                == "f.yml: no touchscreen among the recording's 2 devices (/dev/input/event0 \"AT Translated Set 2 keyboard\": no position axes (neither ABS_X/ABS_Y nor ABS_MT_POSITION_X/Y); /dev/input/event9 \"gestured virtual touchpad\": touchpad (BTN_TOOL_FINGER without INPUT_PROP_DIRECT)); choose one with --device"
        )
        #expect(failure(two).contains("2 touchscreens in the recording (/dev/input/event4 \"\(description.name)\", /dev/input/event5"))
        #expect(failure(two).hasSuffix("choose one with --device NODE or NAME"))
        #expect(failure(two, description.name).contains("2 devices are named"))
        #expect(try RecordingFile.recording(bytes: Array(two.utf8), device: "/dev/input/event5").description == description)
        #expect(failure(none, "/dev/input/event2").hasPrefix("f.yml: no device '/dev/input/event2' in the recording (it holds /dev/input/event0"))
        // An evemu file holds one device: --device must name it.
        var writer = EvemuWriter(device: description)
        writer.append(InputEvent(time: Timestamp(microseconds: 0), type: 0, code: 0, value: 0))
        #expect(failure(writer.text, "other").hasPrefix("f.yml: the recording is of \"\(description.name)\", not 'other'"))
        #expect(try RecordingFile.recording(bytes: Array(writer.text.utf8), device: description.name).format == .evemu)
    }

    @Test("keys and entries the reader does not use are skipped; flow style, comments and empty events read")
    func tolerant() throws {
        let text = """
            # hand-written
            version: 1
            future-key: {nested: [1, 2, {deep: true}]}
            devices:
            - {node: /dev/input/event1, extra: 3, events: [{hid: {time: [0, 0], hidraw0: [1, 2]}},
                {evdev: [[0, 0, 3, 57, 7], [0, 0, 3, 53, 100], [0, 0, 3, 54, 100], [0, 0, 0, 0, 0]]},
                {libinput: [{type: TOUCH_DOWN}]}, {evdev: [[0, 10000, 3, 57, -1], [0, 10000, 0, 0, 0]]}],
               evdev: {name: "Panel", codes: {1: [330], 3: [47, 53, 54, 57], 22: [0, 1]},
                       absinfo: {47: [0, 9, 0, 0, 0], 53: [0, 1000, 0, 0, 0], 54: [0, 1000, 0, 0, 0],
                                 57: [0, 65535, 0, 0, 0]}, properties: [1], unknown: x}}
            - node: /dev/input/event2
              evdev: {name: "Quiet", codes: {1: [330], 3: [0, 1]}, absinfo: {0: [0, 9, 0, 0, 0], 1: [0, 9, 0, 0, 0]}}
              events:
            """
        let file = try Self.parse(text)
        #expect(file.devices.count == 2)
        #expect(file.devices[0].events.count == 6)
        #expect(file.devices[0].description.has(property: EventCode.propDirect))
        #expect(file.devices[0].description.codes[22] == nil)  // EV_PWR: a type this module does not know
        #expect(file.devices[1].events.isEmpty)
        var replay = try ReplaySource(recording: Recording(file.devices[0]), id: DeviceID(1), label: "x")
        var frames = TouchFrameBuffer()
        while try replay.read(events: 512, into: &frames) {}
        #expect(frames.map { $0.touches.map(\.phase) } == [[.began], [.ended]])
    }

    @Test("udev's size and calibration reach the replay's model")
    func udevHints() throws {
        let (description, events) = try Self.threeM(events: 100)
        var device = LibinputText.Device(node: "/dev/input/event5", capabilities: description, events: events)
        device.udev = ["ID_INPUT=1", "ID_INPUT_TOUCHSCREEN=1", "ID_INPUT_WIDTH_MM=480", "ID_INPUT_HEIGHT_MM=270",
                       "LIBINPUT_CALIBRATION_MATRIX=0 -1 1 1 0 0"]
        let recording = try RecordingFile.recording(bytes: Array(LibinputText(devices: [device]).text.utf8))
        #expect(recording.udev == UdevHints(widthMM: 480, heightMM: 270, calibrationMatrix: "0 -1 1 1 0 0"))
        let replay = try ReplaySource(recording: recording, id: DeviceID(1), label: "x")
        #expect(replay.model.calibrationSource == "udev")
    }

    /// Each fault, the line it is on, and the text the error points at (its first character):
    /// the value at fault, or the collection that lacks something.
    @Test(
        "every fault is an error at its line and column",
        arguments: [
            ("", 1, "", "the file is empty"),
            ("# only a comment\n", 1, "", "the file is empty"),
            ("- 1\n", 1, "-", "expected a libinput recording (a mapping with 'version: 1' and 'devices:'), found a list"),
            ("version: 2\ndevices: []\n", 1, "2", "format version 2 is not read"),
            ("version: one\n", 1, "one", "expected the format version, an integer, found 'one'"),
            ("devices: []\n", 1, "devices", "no 'version:' key"),
            ("version: 1\ndevices: []\n", 1, "version", "no devices"),
            ("version: 1\nversion: 1\n", 2, "version", "duplicate key 'version'"),
            ("version: 1\ndevices: 3\n", 2, "3", "expected a list of devices, found '3'"),
            ("version: 1\ndevices:\n- node: x\n", 3, "node", "this device has no 'evdev:' description"),
            ("version: 1\ndevices:\n- evdev: {id: [1, 2, 3, 4]}\n", 3, "{", "the description has no 'name:'"),
            ("version: 1\ndevices:\n- evdev: {name: a, id: [1, 2, 3]}\n", 3, "[1", "id is [bustype, vendor, product, version]: found 3 values"),
            ("version: 1\ndevices:\n- evdev: {name: a, id: [1, 2, 3, 70000]}\n", 3, "70000", "an id field 70000 is outside 0…65535"),
            ("version: 1\ndevices:\n- evdev: {name: a, codes: {32: [1]}}\n", 3, "32", "event type 32 is outside 0…31"),
            ("version: 1\ndevices:\n- evdev: {name: a, codes: {3: [64]}}\n", 3, "64", "EV_ABS code 64 is outside 0…63"),
            ("version: 1\ndevices:\n- evdev: {name: a, absinfo: {0: [0, 1, 0, 0]}}\n", 3, "[0", "an axis is [min, max, fuzz, flat, resolution]: found 4 values"),
            ("version: 1\ndevices:\n- evdev: {name: a, absinfo: {0: [0, 3000000000, 0, 0, 0]}}\n", 3, "3000000000", "an axis value 3000000000 is outside"),
            ("version: 1\ndevices:\n- evdev: {name: a, properties: [40]}\n", 3, "40", "input property 40 is outside 0…31"),
            ("version: 1\ndevices:\n- evdev: {name: a}\n  events: [{evdev: [[0, 0, 3, 57]]}]\n", 4, "[0", "an event is [sec, usec, type, code, value]: found 4 values"),
            ("version: 1\ndevices:\n- evdev: {name: a}\n  events: [{evdev: [[0, 0, 3, 57, 1, 2]]}]\n", 4, "2]", "more than 5 values"),
            ("version: 1\ndevices:\n- evdev: {name: a}\n  events: [{evdev: [[0, 1000000, 3, 57, 1]]}]\n", 4, "1000000", "microseconds 1000000 outside 0…999999"),
            ("version: 1\ndevices:\n- evdev: {name: a}\n  events: [{evdev: [[-1, 0, 3, 57, 1]]}]\n", 4, "-1", "timestamp seconds -1 outside"),
            ("version: 1\ndevices:\n- evdev: {name: a}\n  events: [{evdev: [[0, 0, 3, 64, 1]]}]\n", 4, "64", "event code 64 outside 0…63, the codes of EV_ABS"),
            ("version: 1\ndevices:\n- evdev: {name: a}\n  events: [{evdev: [[0, 0, 3, 57, 4294967296]]}]\n", 4, "4294967296", "event value 4294967296 out of 32-bit range"),
            ("version: 1\ndevices:\n- evdev: {name: a}\n  events: [{evdev: [[0, 0, x, 57, 1]]}]\n", 4, "x", "expected an integer (an event is [sec, usec, type, code, value]), found 'x'"),
            ("version: 1\ndevices:\n- evdev: {name: a}\n  events: [7]\n", 4, "7", "expected an event entry"),
            ("version: 1\ndevices:\n- evdev: {name: a}\n  events: [{evdev: [[0, 0, 0, 0, 0]]\n", 5, "", "did not find expected ',' or '}'"),
            ("version: 1\ndevices: [{evdev: {name: a}}]\n---\nversion: 1\n", 3, "---", "a second YAML document"),
            ("version: 1\ndevices: [{evdev: {name: a}, events: *nowhere}]\n", 2, "*nowhere", "unknown alias '*nowhere'"),
            ("version: 1\ndevices: [{evdev: {name: \"a\u{01}\"}}]\n", 2, "\u{01}", "control characters are not allowed"),
        ])
    func faults(_ text: String, _ line: Int, _ at: String, _ message: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let column =
            at.isEmpty
            ? 1 : lines[line - 1].range(of: at).map { lines[line - 1].unicodeScalars.distance(from: lines[line - 1].startIndex, to: $0.lowerBound) + 1 } ?? 0
        do {
            let file = try Self.parse(text)
            Issue.record("accepted: \(file.devices.count) devices")
        } catch {
            #expect(error.mark == YAMLMark(line: line, column: column), "\(error)")
            #expect(error.message.contains(message), "\(error)")
        }
    }

    @Test("the format is told by the first line that is not a comment")
    func format() throws {
        #expect(!LibinputRecording.looksLikeLibinput(try Fixture.bytes("wetab.event")))
        #expect(!LibinputRecording.looksLikeLibinput(try Fixture.bytes("ntrig-dell-xt2-comments-only.event")))
        #expect(!LibinputRecording.looksLikeLibinput(Array("\r\n  # x\nE: 0.0 0 0 0\n".utf8)))
        #expect(!LibinputRecording.looksLikeLibinput(Array("".utf8)))
        #expect(LibinputRecording.looksLikeLibinput(Array("# libinput record\nversion: 1\n".utf8)))
        #expect(LibinputRecording.looksLikeLibinput(Array("---\nversion: 1\n".utf8)))
        #expect(LibinputRecording.looksLikeLibinput(Array("{version: 1}".utf8)))
        #expect(LibinputRecording.looksLikeLibinput(Array("# c\n\n  ndevices: 1\n".utf8)))
        // Garbage is evemu's to refuse: /dev/zero, a comment line that lost its '#', one letter keys.
        #expect(!LibinputRecording.looksLikeLibinput([UInt8](repeating: 0, count: 100)))
        #expect(!LibinputRecording.looksLikeLibinput(Array("# EVEMU 1.2\n  Event code 3 (SYN_DROPPED)\n".utf8)))
        #expect(!LibinputRecording.looksLikeLibinput(Array("N: a\nversion: 1\n".utf8)))
    }

    @Test("files: each format's line limit as the bytes come in; YAML faults as FILE:LINE:COLUMN")
    func files() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gestured-libinput-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func failure(_ name: String, _ content: String) throws -> String {
            let path = folder.appendingPathComponent(name).path
            try Data(content.utf8).write(to: URL(fileURLWithPath: path))
            do {
                _ = try RecordingFile.recording(at: path)
                return "accepted"
            } catch {
                return error.located(in: name)
            }
        }
        // A HID descriptor line of 8 KB is fine in YAML; a 70 KB line is not, nor 5 KB in evemu.
        let hid = "[" + Array(repeating: "255", count: 2000).joined(separator: ", ") + "]"
        #expect(try failure("a.yml", "version: 1\nhid: \(hid)\ndevices: [{evdev: {name: a}}]\n") == "accepted")
        let long = String(repeating: "x", count: 70_000)
        #expect(try failure("b.yml", "version: 1\n# \(long)\n") == "b.yml:2:65537: line longer than 65536 bytes")
        #expect(try failure("c.evemu", "N: a\n# \(String(repeating: "x", count: 5000))\n") == "c.evemu: line 2: line longer than 4096 bytes")
        #expect(try failure("d.yml", "version: 1\ndevices: [{evdev: {name: a}}\n").hasPrefix("d.yml:3:1: "))
        #expect(try failure("missing.yml", "").hasPrefix("missing.yml") == true)
        #expect(throws: RecordingFile.Failure.unreadable("No such file or directory")) {
            try RecordingFile.recording(at: folder.appendingPathComponent("none").path)
        }
    }
}
