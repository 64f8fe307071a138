import EvdevValues
import Logging
import TouchValues

/// What `gestured devices` prints: the touchscreens found, with what was decided about them, and
/// every other event node with the reason it was skipped.
public struct DeviceReport: Hashable, Sendable, Encodable {
    /// One usable touchscreen.
    public struct Touchscreen: Hashable, Sendable, Encodable {
        public var devnode: String
        public var name: String
        /// `vendor:product` in hex.
        public var usb: String
        public var bus: String
        /// How contacts are reported (`multitouch, 10 slots`…).
        public var touchProtocol: String
        public var slots: Int?
        public var xAxis: Axis
        public var yAxis: Axis
        /// Physical size in mm after rotation, nil when unknown.
        public var widthMM: Double?
        public var heightMM: Double?
        /// Where the size came from: configuration, resolution, udev, unknown.
        public var sizeSource: String
        /// The size thresholds use (the real one, or the assumed one when unknown).
        public var measuringWidthMM: Double
        public var measuringHeightMM: Double
        public var rotation: Int
        public var calibration: [Double]?
        public var calibrationSource: String?
        /// Properties and the touch-related codes it reports (INPUT_PROP_DIRECT, ABS_MT_PRESSURE…).
        public var capabilities: [String]
        public var idPath: String?
        public var links: [String]
        public var phys: String?
        public var decidedBy: String
        /// Size candidates rejected by the sanity rules, unparsable calibration…
        public var warnings: [String]

        enum CodingKeys: String, CodingKey {
            case devnode, name, usb, bus, slots, rotation, calibration, capabilities, links, phys, warnings
            case touchProtocol = "protocol"
            case xAxis = "x_axis"
            case yAxis = "y_axis"
            case widthMM = "width_mm"
            case heightMM = "height_mm"
            case sizeSource = "size_source"
            case measuringWidthMM = "measuring_width_mm"
            case measuringHeightMM = "measuring_height_mm"
            case calibrationSource = "calibration_source"
            case idPath = "id_path"
            case decidedBy = "decided_by"
        }
    }

    /// An absolute axis as reported.
    public struct Axis: Hashable, Sendable, Encodable {
        public var minimum: Int32
        public var maximum: Int32
        public var resolution: Int32
    }

    /// An event node that is not used, and why.
    public struct Skipped: Hashable, Sendable, Encodable {
        public var devnode: String
        public var name: String
        public var reason: String
        /// A stable key for the reason (`touchpad`, `not-a-touchscreen`…).
        public var reasonKey: String
        public var decidedBy: String

        enum CodingKeys: String, CodingKey {
            case devnode, name, reason
            case reasonKey = "reason_key"
            case decidedBy = "decided_by"
        }
    }

    /// `udev` or `capabilities`.
    public var discovery: String
    public var touchscreens: [Touchscreen]
    public var skipped: [Skipped]

    /// Scans with `discovery` and opens each touchscreen read-only to describe it.
    public init(discovery: DeviceDiscovery, rules: [DeviceRule], logger: Logger) throws(InputError) {
        self.discovery = discovery.mode.rawValue
        touchscreens = []
        skipped = []
        for (index, found) in try discovery.scan().enumerated() {
            switch found.verdict {
            case .skipped(let reason):
                skipped.append(Self.skipped(found, reason))
            case .touchscreen:
                do {
                    let device = try found.open(id: DeviceID(UInt32(index + 1)), rules: rules, logger: logger)
                    touchscreens.append(Self.describe(device, found))
                    device.close()
                } catch {
                    skipped.append(Self.skipped(found, error.skipReason))
                }
            }
        }
    }

    static func skipped(_ found: DiscoveredDevice, _ reason: SkipReason) -> Skipped {
        Skipped(
            devnode: found.devnode, name: found.identity.name, reason: reason.description, reasonKey: reason.key,
            decidedBy: found.decidedBy.rawValue)
    }

    static func describe(_ device: TouchDevice, _ found: DiscoveredDevice) -> Touchscreen {
        let model = device.model
        let d = model.description
        let size = model.size
        var slots: Int?
        if case .slots(let count) = model.touchProtocol { slots = count }
        var capabilities = d.properties.sorted().map { EvdevHandle.propertyName($0) }
        for code in d.absInfo.keys.sorted() {
            capabilities.append(EvdevHandle.codeName(type: EventCode.evAbs, code: code))
        }
        for code in (d.codes[EventCode.evKey] ?? []).sorted() {
            capabilities.append(EvdevHandle.codeName(type: EventCode.evKey, code: code))
        }
        func axis(_ info: AbsInfo) -> Axis {
            Axis(minimum: info.minimum, maximum: info.maximum, resolution: info.resolution)
        }
        let c = model.mapper.calibration
        return Touchscreen(
            devnode: found.devnode, name: d.name, usb: d.id.vendorProduct, bus: InputID.hex4(d.id.bustype),
            touchProtocol: model.touchProtocol.description, slots: slots, xAxis: axis(model.mapper.xAxis),
            yAxis: axis(model.mapper.yAxis), widthMM: size.geometry.physicalSize?.width.value,
            heightMM: size.geometry.physicalSize?.height.value, sizeSource: size.source.rawValue,
            measuringWidthMM: size.geometry.measuringSize.width.value,
            measuringHeightMM: size.geometry.measuringSize.height.value, rotation: model.mapper.rotation.rawValue,
            calibration: c.isIdentity ? nil : [c.a, c.b, c.c, c.d, c.e, c.f],
            calibrationSource: model.calibrationSource,
            capabilities: capabilities, idPath: found.identity.idPath, links: found.identity.links,
            phys: device.identity.phys, decidedBy: found.decidedBy.rawValue, warnings: model.warnings)
    }

    /// The report as text for people.
    public var text: String {
        var out = ""
        if touchscreens.isEmpty {
            out += "No touchscreen found (discovery through \(discovery)).\n"
        } else {
            out += "Touchscreens (discovery through \(discovery)):\n"
        }
        for t in touchscreens {
            out += "\n\(t.devnode)  \(t.name)\n"
            out += "  usb \(t.usb), bus \(t.bus), \(t.touchProtocol)\n"
            out += "  x \(t.xAxis.minimum)…\(t.xAxis.maximum) (resolution \(t.xAxis.resolution)),"
            out += " y \(t.yAxis.minimum)…\(t.yAxis.maximum) (resolution \(t.yAxis.resolution))\n"
            if let w = t.widthMM, let h = t.heightMM {
                out += "  size \(Self.mm(w)) × \(Self.mm(h)) mm (from \(t.sizeSource))\n"
            } else {
                out +=
                    "  size unknown; thresholds assume \(Self.mm(t.measuringWidthMM)) × \(Self.mm(t.measuringHeightMM)) mm\n"
            }
            if t.rotation != 0 { out += "  rotation \(t.rotation)°\n" }
            if let c = t.calibration {
                out +=
                    "  calibration \(c.map { "\($0)" }.joined(separator: " ")) (from \(t.calibrationSource ?? "?"))\n"
            }
            if let p = t.idPath { out += "  ID_PATH \(p)\n" }
            for link in t.links { out += "  link \(link)\n" }
            if let phys = t.phys { out += "  phys \(phys)\n" }
            out += "  capabilities \(t.capabilities.joined(separator: " "))\n"
            for w in t.warnings { out += "  warning: \(w)\n" }
        }
        if !skipped.isEmpty {
            out += "\nSkipped:\n"
            for s in skipped { out += "  \(s.devnode)  \(s.name.isEmpty ? "(no name)" : s.name): \(s.reason)\n" }
        }
        return out
    }

    static func mm(_ v: Double) -> String { String(Int(v.rounded())) }
}
