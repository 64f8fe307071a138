import EvdevValues
import TouchValues
import YAMLCoding

/// A `libinput record` file (libinput-tools): YAML holding one or more devices, each with its
/// kernel description and the events read from it, in the format libinput-record(1) documents
/// ("FILE FORMAT", format version 1):
/// ```
/// version: 1
/// devices:
///   - node: /dev/input/event5
///     evdev:
///       name: "ILITEK ILITEK-TP"
///       id: [3, 8746, 1, 272]                    # bustype, vendor, product, version
///       codes: {0: [0, 1, 2], 1: [330], 3: [0, 1, 47, 53, 54, 57]}
///       absinfo: {0: [0, 16383, 0, 0, 58], …}     # min, max, fuzz, flat, resolution
///       properties: [1]
///     udev:
///       properties: [ID_INPUT_TOUCHSCREEN=1, LIBINPUT_CALIBRATION_MATRIX=…]
///     events:
///       - evdev:
///         - [  0,      0,   3,  57,  1420]         # sec, usec, type, code, value
///         - [  0,      0,   0,   0,     0]
///       - libinput: …                            # other kinds of entries are skipped
/// ```
/// Keys this reader does not use (`libinput`, `system`, `hid`, `quirks`, libinput events…) are
/// ignored, as the format asks of every parser; a `version` other than 1 is refused.
///
/// The file is read as a stream (``YAMLEventReader``): each device's description is composed as a
/// node, its events go straight into a list of 16-byte ``InputEvent``s (a fifth of their text),
/// so the file is never held as a tree. Every problem is a ``YAMLError`` at its line and column.
/// Timestamps are checked one by one (they may go backwards: a replay holds them, as for evemu).
public struct LibinputRecording: Sendable {
    /// One recorded device.
    public struct Device: Sendable {
        /// The event node it was recorded from (`node:`), when the file says.
        public var node: String?
        public var description: DeviceCapabilities
        /// What udev said of it (`udev: properties:`): size and calibration.
        public var udev: UdevHints
        public var events: [InputEvent]
        /// Where the device's entry starts in the file.
        public var mark: YAMLMark

        /// `/dev/input/event5 "ILITEK ILITEK-TP"`, for messages: node and name at most
        /// ``summaryLength`` characters each (a kernel's names have fewer).
        public var summary: String {
            func short(_ text: String) -> String {
                text.count > Self.summaryLength ? text.prefix(Self.summaryLength) + "…" : text
            }
            return (node.map { "\(short($0)) " } ?? "") + "\"\(short(description.name))\""
        }

        static let summaryLength = 128
    }

    public var devices: [Device]

    /// Longest line accepted while reading the file (``RecordingFile``): a device's HID report
    /// descriptor (`hid: [5, 1, 9, …]`) is written on one line and can be a few kilobytes.
    public static let maximumLineLength = 64 * 1024

    /// Parses a whole recording.
    public init(bytes: [UInt8]) throws(YAMLError) {
        let parser = try LibinputParser(bytes: bytes)
        devices = try parser.document()
    }

    /// Whether `bytes` look like YAML (a `libinput record` file) rather than an evemu file: the
    /// first line that is not blank or a `#` comment opens a YAML document — a key of two or more
    /// characters and a colon (`version: 1`), `---`, `%YAML` or `{`. Anything else is read as evemu,
    /// whose lines are one letter and a colon (`N:`, `E:`), and whose parser says what is wrong
    /// with garbage (a file of comments alone is early evemu's).
    public static func looksLikeLibinput(_ bytes: some Collection<UInt8>) -> Bool {
        var index = bytes.startIndex
        // Skip blank lines, spaces and comment lines.
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "#") {
                while index != bytes.endIndex && bytes[index] != 0x0A { index = bytes.index(after: index) }
            } else if byte != 0x20 && byte != 0x09 && byte != 0x0D && byte != 0x0A {
                break
            }
            if index != bytes.endIndex { index = bytes.index(after: index) }
        }
        let line = bytes[index...].prefix(64).prefix { $0 != 0x0A }
        if line.starts(with: "---".utf8) || line.starts(with: "%YAML".utf8) || line.first == UInt8(ascii: "{") {
            return true
        }
        let key = line.prefix { byte in
            (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
        return key.count >= 2 && line.dropFirst(key.count).first == UInt8(ascii: ":")
    }

    /// The device a replay plays: the one named by `device` (its node, or its name), else the one
    /// touchscreen among the file's devices, chosen by the capability rules `gestured devices`
    /// applies (docs/INPUT.md, "Discovery"); a file of one device gives that device, whatever it is
    /// (a replay then refuses it with its reason, as for an evemu file).
    public func device(named device: String?) throws(RecordingFile.Failure) -> Device {
        let list = Self.listed(devices.map(\.summary), separator: ", ")
        if let device {
            let byNode = devices.filter { $0.node == device }
            if byNode.count == 1 { return byNode[0] }
            let byName = devices.filter { $0.description.name == device }
            switch byName.count {
            case 1: return byName[0]
            case 0: throw .device("no device '\(device)' in the recording (it holds \(list)): give a node or a name")
            default:
                throw .device("\(byName.count) devices are named '\(device)' in the recording: give the node instead (\(list))")
            }
        }
        if devices.count == 1 { return devices[0] }
        var touchscreens: [Device] = []
        var refusals: [String] = []
        for candidate in devices {
            switch DeviceClassifier.classify(candidate.description, forceTouchscreen: false) {
            case .success: touchscreens.append(candidate)
            case .failure(let reason): refusals.append("\(candidate.summary): \(reason)")
            }
        }
        switch touchscreens.count {
        case 1:
            return touchscreens[0]
        case 0:
            let why = Self.listed(refusals, separator: "; ")
            throw .device(
                "no touchscreen among the recording's \(devices.count) devices (\(why)); choose one with --device")
        default:
            let list = Self.listed(touchscreens.map(\.summary), separator: ", ")
            throw .device(
                "\(touchscreens.count) touchscreens in the recording (\(list)): choose one with --device NODE or NAME")
        }
    }

    /// The most devices a message names: a file may hold thousands, a message stays a sentence.
    static let listedInMessages = 8

    /// The first ``listedInMessages`` of `items`, and how many more there are.
    static func listed(_ items: [String], separator: String) -> String {
        let shown = items.prefix(listedInMessages).joined(separator: separator)
        guard items.count > listedInMessages else { return shown }
        return shown + "\(separator)and \(items.count - listedInMessages) more"
    }
}

/// The structure of a recording, walked event by event.
private struct LibinputParser {
    let reader: YAMLEventReader

    init(bytes: [UInt8]) throws(YAMLError) {
        reader = try YAMLEventReader(bytes: bytes)
    }

    static let start = YAMLMark(line: 1, column: 1)
    static let expectedFile = "a libinput recording (a mapping with 'version: 1' and 'devices:')"

    /// The next event, which must exist (libyaml reports a truncated structure itself; this is
    /// for a stream that ends where a value was due).
    func next(after mark: YAMLMark) throws(YAMLError) -> YAMLEvent {
        guard let event = try reader.next() else { throw YAMLError("the file ends here", at: mark) }
        return event
    }

    /// A value that is not what was expected: composed to say what it is and where.
    func mismatch(_ event: YAMLEvent, expected: String) -> YAMLError {
        do {
            let node = try reader.node(startingWith: event)
            return YAMLError("expected \(expected), found \(node.summary)", at: node.mark)
        } catch {
            return error
        }
    }

    /// Walks a mapping whose start was just read: `handle` gets each key and its value's first
    /// event, and must read the whole value.
    func mapping(
        at mark: YAMLMark, _ handle: (String, YAMLMark, YAMLEvent) throws(YAMLError) -> Void
    ) throws(YAMLError) {
        var keys: Set<String> = []
        while true {
            let event = try next(after: mark)
            if case .mappingEnd = event { return }
            guard case .scalar(let key, _, let keyMark) = event else {
                throw mismatch(event, expected: "a key that is a string")
            }
            guard keys.insert(key.text).inserted else {
                throw YAMLError("duplicate key '\(key.text)' in this mapping", at: keyMark)
            }
            try handle(key.text, keyMark, try next(after: keyMark))
        }
    }

    /// Reads and drops a value.
    func skip(_ event: YAMLEvent) throws(YAMLError) {
        _ = try reader.node(startingWith: event)
    }

    func document() throws(YAMLError) -> [LibinputRecording.Device] {
        guard let first = try reader.next() else {
            throw YAMLError("the file is empty: expected \(Self.expectedFile)", at: Self.start)
        }
        guard case .documentStart(let documentMark) = first else {
            throw YAMLError("expected \(Self.expectedFile)", at: Self.start)
        }
        let root = try next(after: documentMark)
        guard case .mappingStart(_, _, let rootMark) = root else {
            throw mismatch(root, expected: Self.expectedFile)
        }
        var version: Int?
        var devices: [LibinputRecording.Device]?
        try mapping(at: rootMark) { (key, keyMark, value) throws(YAMLError) in
            switch key {
            case "version":
                let node = try reader.node(startingWith: value)
                guard let number = node.scalar?.integer(Int.self) else {
                    throw YAMLError("expected the format version, an integer, found \(node.summary)", at: node.mark)
                }
                guard number == 1 else {
                    throw YAMLError(
                        "format version \(number) is not read: this reader knows libinput record's version 1",
                        at: node.mark)
                }
                version = number
            case "devices":
                devices = try deviceList(value, keyMark: keyMark)
            default:
                try skip(value)
            }
        }
        guard version != nil else {
            throw YAMLError("no 'version:' key: expected \(Self.expectedFile)", at: rootMark)
        }
        guard let devices, !devices.isEmpty else {
            throw YAMLError("no devices: 'devices:' lists none", at: rootMark)
        }
        while let event = try reader.next() {
            if case .documentStart(let mark) = event {
                throw YAMLError("a second YAML document; a recording holds one", at: mark)
            }
        }
        return devices
    }

    func deviceList(_ start: YAMLEvent, keyMark: YAMLMark) throws(YAMLError) -> [LibinputRecording.Device] {
        guard case .sequenceStart(_, _, let mark) = start else {
            throw mismatch(start, expected: "a list of devices")
        }
        var devices: [LibinputRecording.Device] = []
        while true {
            let event = try next(after: mark)
            if case .sequenceEnd = event { return devices }
            devices.append(try device(event))
        }
    }

    func device(_ start: YAMLEvent) throws(YAMLError) -> LibinputRecording.Device {
        guard case .mappingStart(_, _, let mark) = start else {
            throw mismatch(start, expected: "a device (a mapping with 'evdev:' and 'events:')")
        }
        var node: String?
        var description: DeviceCapabilities?
        var udev = UdevHints()
        var events: [InputEvent] = []
        try mapping(at: mark) { (key, _, value) throws(YAMLError) in
            switch key {
            case "node":
                let scalar = try reader.node(startingWith: value)
                guard let text = scalar.scalar?.text else {
                    throw YAMLError("expected the device node, found \(scalar.summary)", at: scalar.mark)
                }
                node = text
            case "evdev":
                description = try Self.description(try reader.node(startingWith: value))
            case "udev":
                udev = try Self.udevHints(try reader.node(startingWith: value))
            case "events":
                try self.events(value, into: &events)
            default:
                try skip(value)
            }
        }
        guard let description else {
            throw YAMLError("this device has no 'evdev:' description (name, id, codes, absinfo)", at: mark)
        }
        return LibinputRecording.Device(node: node, description: description, udev: udev, events: events, mark: mark)
    }

    // MARK: The description

    static func mapping(_ node: YAMLNode, _ what: String) throws(YAMLError) -> [YAMLPair] {
        guard let pairs = node.mapping else { throw YAMLError("expected \(what), found \(node.summary)", at: node.mark) }
        return pairs
    }

    static func list(_ node: YAMLNode, _ what: String) throws(YAMLError) -> [YAMLNode] {
        if let scalar = node.scalar, scalar.isNull { return [] }
        guard let items = node.sequence else { throw YAMLError("expected \(what), found \(node.summary)", at: node.mark) }
        return items
    }

    static func integer<T: FixedWidthInteger>(
        _ node: YAMLNode, _ what: String, _ range: ClosedRange<T>
    ) throws(YAMLError) -> T {
        guard let scalar = node.scalar, let wide = scalar.integer(Int64.self) else {
            throw YAMLError("expected \(what), an integer, found \(node.summary)", at: node.mark)
        }
        guard let value = T(exactly: wide), range.contains(value) else {
            throw YAMLError("\(what) \(wide) is outside \(range.lowerBound)…\(range.upperBound)", at: node.mark)
        }
        return value
    }

    /// The `evdev:` mapping, with the checks an evemu description gets (docs/INPUT.md).
    static func description(_ node: YAMLNode) throws(YAMLError) -> DeviceCapabilities {
        var name: String?
        var id = InputID()
        var codes: [(type: UInt16, code: UInt16)] = []
        var absInfo: [UInt16: AbsInfo] = [:]
        var properties: Set<UInt16> = []
        for pair in try mapping(node, "the device's description (name, id, codes, absinfo)") {
            let value = pair.value
            switch pair.key.scalar?.text {
            case "name":
                guard let text = value.scalar?.text else {
                    throw YAMLError("expected the device name, found \(value.summary)", at: value.mark)
                }
                name = text
            case "id":
                let items = try list(value, "[bustype, vendor, product, version]")
                guard items.count == 4 else {
                    throw YAMLError("id is [bustype, vendor, product, version]: found \(items.count) values", at: value.mark)
                }
                var numbers: [UInt16] = []
                for item in items { numbers.append(try integer(item, "an id field", UInt16.min...UInt16.max)) }
                id = InputID(bustype: numbers[0], vendor: numbers[1], product: numbers[2], version: numbers[3])
            case "codes":
                for entry in try mapping(value, "the supported codes by event type ({type: [code, …]})") {
                    let type = try integer(entry.key, "event type", 0...EventCode.evMax)
                    let items = try list(entry.value, "a list of event codes")
                    // Types this module does not know (EV_PWR, EV_FF_STATUS) are skipped, as in evemu files.
                    guard let maximum = EventCode.maximumCode(ofType: type), type != EventCode.evSyn else { continue }
                    for item in items {
                        let code = try integer(item, "\(EventCode.typeName(type)) code", 0...maximum)
                        codes.append((type, code))
                    }
                }
            case "absinfo":
                for entry in try mapping(value, "the axes ({code: [min, max, fuzz, flat, resolution]})") {
                    let code = try integer(entry.key, "axis code", 0...EventCode.absMax)
                    let items = try list(entry.value, "[min, max, fuzz, flat, resolution]")
                    guard items.count == 5 else {
                        throw YAMLError(
                            "an axis is [min, max, fuzz, flat, resolution]: found \(items.count) values",
                            at: entry.value.mark)
                    }
                    var numbers: [Int32] = []
                    for item in items { numbers.append(try integer(item, "an axis value", Int32.min...Int32.max)) }
                    absInfo[code] = AbsInfo(
                        minimum: numbers[0], maximum: numbers[1], fuzz: numbers[2], flat: numbers[3],
                        resolution: numbers[4])
                }
            case "properties":
                for item in try list(value, "a list of input properties") {
                    properties.insert(try integer(item, "input property", 0...EventCode.propMax))
                }
            default:
                continue
            }
        }
        guard let name else {
            throw YAMLError("the description has no 'name:'", at: node.mark)
        }
        var capabilities = DeviceCapabilities(name: name, id: id, properties: properties)
        for (type, code) in codes {
            // An axis without an absinfo entry has no range; libinput record always writes both.
            if type == EventCode.evAbs && absInfo[code] == nil { continue }
            capabilities.addCode(type, code)
        }
        for (code, info) in absInfo { capabilities.addAxis(code, info) }
        return capabilities
    }

    /// `udev: properties: [KEY=VALUE, …]`: the size and calibration udev gave the device.
    static func udevHints(_ node: YAMLNode) throws(YAMLError) -> UdevHints {
        var hints = UdevHints()
        for pair in try mapping(node, "the udev mapping (properties: [KEY=VALUE, …])")
        where pair.key.scalar?.text == "properties" {
            for item in try list(pair.value, "a list of udev properties KEY=VALUE") {
                guard let text = item.scalar?.text, let equals = text.firstIndex(of: "=") else {
                    throw YAMLError("expected a udev property KEY=VALUE, found \(item.summary)", at: item.mark)
                }
                let value = String(text[text.index(after: equals)...])
                switch text[..<equals] {
                case "ID_INPUT_WIDTH_MM": hints.widthMM = Double(value)
                case "ID_INPUT_HEIGHT_MM": hints.heightMM = Double(value)
                case "LIBINPUT_CALIBRATION_MATRIX": hints.calibrationMatrix = value
                default: continue
                }
            }
        }
        return hints
    }

    // MARK: The events

    /// The largest timestamp, in seconds, an evemu file can hold (12 digits): the same clock
    /// range for both formats.
    static let maximumSeconds: Int64 = 999_999_999_999

    /// `events:`: a list of entries, each `evdev:` (a frame of kernel events) or another kind.
    func events(_ start: YAMLEvent, into events: inout [InputEvent]) throws(YAMLError) {
        if case .scalar(let scalar, _, _) = start, scalar.isNull { return }
        guard case .sequenceStart(_, _, let mark) = start else {
            throw mismatch(start, expected: "a list of event entries ('- evdev: [...]')")
        }
        while true {
            let entry = try next(after: mark)
            if case .sequenceEnd = entry { return }
            guard case .mappingStart(_, _, let entryMark) = entry else {
                throw mismatch(entry, expected: "an event entry ('evdev: [[sec, usec, type, code, value], ...]')")
            }
            try mapping(at: entryMark) { (key, _, value) throws(YAMLError) in
                if key == "evdev" {
                    try frame(value, into: &events)
                } else {
                    try skip(value)
                }
            }
        }
    }

    /// `evdev: [[sec, usec, type, code, value], …]`.
    func frame(_ start: YAMLEvent, into events: inout [InputEvent]) throws(YAMLError) {
        if case .scalar(let scalar, _, _) = start, scalar.isNull { return }
        guard case .sequenceStart(_, _, let mark) = start else {
            throw mismatch(start, expected: "a list of kernel events [sec, usec, type, code, value]")
        }
        while true {
            let item = try next(after: mark)
            if case .sequenceEnd = item { return }
            guard case .sequenceStart(_, _, let eventMark) = item else {
                throw mismatch(item, expected: "a kernel event [sec, usec, type, code, value]")
            }
            events.append(try event(at: eventMark))
        }
    }

    /// The five numbers of one event, checked as the evemu parser checks an `E:` line.
    func event(at mark: YAMLMark) throws(YAMLError) -> InputEvent {
        var fields: [(Int64, YAMLMark)] = []
        fields.reserveCapacity(5)
        while true {
            let item = try next(after: mark)
            if case .sequenceEnd = item { break }
            guard case .scalar(let scalar, _, let itemMark) = item, let number = scalar.integer(Int64.self) else {
                throw mismatch(item, expected: "an integer (an event is [sec, usec, type, code, value])")
            }
            guard fields.count < 5 else {
                throw YAMLError("an event is [sec, usec, type, code, value]: more than 5 values", at: itemMark)
            }
            fields.append((number, itemMark))
        }
        guard fields.count == 5 else {
            throw YAMLError("an event is [sec, usec, type, code, value]: found \(fields.count) values", at: mark)
        }
        let (seconds, secondsMark) = fields[0]
        guard (0...Self.maximumSeconds).contains(seconds) else {
            throw YAMLError("timestamp seconds \(seconds) outside 0…\(Self.maximumSeconds)", at: secondsMark)
        }
        let (micros, microsMark) = fields[1]
        guard (0...999_999).contains(micros) else {
            throw YAMLError("microseconds \(micros) outside 0…999999", at: microsMark)
        }
        let (type, typeMark) = fields[2]
        guard (0...Int64(EventCode.evMax)).contains(type) else {
            throw YAMLError("event type \(type) outside 0…\(EventCode.evMax) (EV_MAX)", at: typeMark)
        }
        let (code, codeMark) = fields[3]
        let maximum = EventCode.maximumCode(ofType: UInt16(type)) ?? EventCode.keyMax
        guard (0...Int64(maximum)).contains(code) else {
            throw YAMLError(
                "event code \(code) outside 0…\(maximum), the codes of \(EventCode.typeName(UInt16(type)))", at: codeMark)
        }
        let (value, valueMark) = fields[4]
        guard let value32 = Int32(exactly: value) else {
            throw YAMLError("event value \(value) out of 32-bit range", at: valueMark)
        }
        return InputEvent(
            time: Timestamp(microseconds: seconds * 1_000_000 + micros), type: UInt16(type), code: UInt16(code),
            value: value32)
    }
}
