import TouchValues

@testable import TouchInput

/// Writes a `libinput record` file (format 1) the way libinput-record(1) lays it out: a header,
/// each device's `evdev:` description with its `# …` comments, then its events grouped into one
/// `- evdev:` entry per SYN_REPORT, with times relative to the first event. For tests: the reader
/// is checked against files whose content is known.
struct LibinputText {
    struct Device {
        var node: String
        var capabilities: DeviceCapabilities
        var events: [InputEvent] = []
        var udev: [String] = ["ID_INPUT=1"]
    }

    var devices: [Device]
    /// Extra top-level lines (unknown keys a reader must ignore).
    var extra = "libinput:\n  version: \"1.22.1\"\n  git: \"unknown\"\nsystem:\n  os: \"debian:12\"\n  kernel: \"6.1.0\"\n"

    var text: String {
        var t = "# libinput record\nversion: 1\nndevices: \(devices.count)\n" + extra + "devices:\n"
        for device in devices {
            let c = device.capabilities
            t += "  - node: \(device.node)\n"
            t += "    evdev:\n"
            t += "      # Name: \(c.name)\n"
            t += "      # ID: \(c.id)\n"
            t += "      name: \"\(c.name)\"\n"
            t += "      id: [\(c.id.bustype), \(c.id.vendor), \(c.id.product), \(c.id.version)]\n"
            t += "      codes:\n"
            t += "        0: [0, 1, 2, 3, 4] # EV_SYN\n"
            for (type, codes) in c.codes.sorted(by: { $0.key < $1.key }) where !codes.isEmpty {
                t += "        \(type): [\(codes.sorted().map(String.init).joined(separator: ", "))]\n"
            }
            if !c.absInfo.isEmpty {
                t += "      absinfo:\n"
                for (code, a) in c.absInfo.sorted(by: { $0.key < $1.key }) {
                    t += "        \(code): [\(a.minimum), \(a.maximum), \(a.fuzz), \(a.flat), \(a.resolution)]\n"
                }
            }
            t += "      properties: [\(c.properties.sorted().map(String.init).joined(separator: ", "))]\n"
            t += "    hid: [5, 13, 9, 4, 161, 1]\n"
            t += "    udev:\n      properties:\n" + device.udev.map { "      - \($0)\n" }.joined()
            t += "    quirks:\n"
            t += "    events:\n"
            let origin = device.events.first?.time.microseconds ?? 0
            var open = false
            for event in device.events {
                if !open {
                    t += "    - evdev:\n"
                    open = true
                }
                let time = event.time.microseconds - origin
                t += "      - [\(pad(time / 1_000_000, 3)), \(pad(time % 1_000_000, 6)), \(pad(Int64(event.type), 3)), "
                t += "\(pad(Int64(event.code), 3)), \(pad(Int64(event.value), 5))] # comment\n"
                if event.type == EventCode.evSyn && event.code == 0 { open = false }
            }
            t += "    - libinput:\n      - {time: 0.000000, type: TOUCH_FRAME}\n"
        }
        return t
    }

    private func pad(_ value: Int64, _ width: Int) -> String {
        let s = String(value)
        return String(repeating: " ", count: max(0, width - s.count)) + s
    }

    /// The events with times made relative to the first, as libinput record writes them.
    static func relative(_ events: [InputEvent]) -> [InputEvent] {
        guard let origin = events.first?.time.microseconds else { return [] }
        return events.map {
            var e = $0
            e.time = Timestamp(microseconds: e.time.microseconds - origin)
            return e
        }
    }
}
