import EvdevValues
import TouchValues

/// Writes evemu 1.3 text (`N:/I:/P:/B:/A:` then `E:` lines), the form `evemu-record` writes and
/// ``EvemuRecording`` reads: used to generate fixtures and benchmark recordings, to save
/// simulated sessions, and by `gestured record` (its header, then ``line(_:)`` for each event
/// as it comes).
public struct EvemuWriter {
    public private(set) var text: String

    /// Starts a file with the description of `device`.
    public init(device: DeviceCapabilities) {
        var t = "# EVEMU 1.3\n"
        t += "# Input device name: \"\(device.name)\"\n"
        t += "N: \(device.name)\n"
        let id = device.id
        t +=
            "I: \(InputID.hex4(id.bustype)) \(InputID.hex4(id.vendor)) \(InputID.hex4(id.product)) \(InputID.hex4(id.version))\n"
        t += "P: \(Self.mask(device.properties, bytes: 8))\n"
        var types = Set(device.codes.keys.filter { !(device.codes[$0]?.isEmpty ?? true) })
        types.insert(EventCode.evSyn)
        t += "B: 00 \(Self.mask(types, bytes: 4))\n"
        for type in types.sorted() where type != EventCode.evSyn {
            guard let maximum = EventCode.maximumCode(ofType: type) else { continue }
            let bytes = (Int(maximum) + 8) / 8
            t += "B: \(Self.hex2(UInt8(type))) \(Self.mask(device.codes[type] ?? [], bytes: bytes))\n"
        }
        for (code, a) in device.absInfo.sorted(by: { $0.key < $1.key }) {
            t += "A: \(Self.hex2(UInt8(code))) \(a.minimum) \(a.maximum) \(a.fuzz) \(a.flat) \(a.resolution)\n"
        }
        text = t
    }

    /// Appends one event line.
    public mutating func append(_ event: InputEvent) {
        text += Self.line(event)
    }

    /// The `E:` line of `event`, newline included.
    public static func line(_ event: InputEvent) -> String {
        let us = event.time.microseconds
        let fraction = String(us % 1_000_000)
        return "E: \(us / 1_000_000).\(String(repeating: "0", count: 6 - fraction.count))\(fraction) "
            + "\(Self.hex4(event.type)) \(Self.hex4(event.code)) \(event.value)\n"
    }

    static func hex2(_ v: UInt8) -> String { v < 16 ? "0" + String(v, radix: 16) : String(v, radix: 16) }
    static func hex4(_ v: UInt16) -> String { InputID.hex4(v) }

    static func mask(_ codes: Set<UInt16>, bytes: Int) -> String {
        var out = [UInt8](repeating: 0, count: bytes)
        for code in codes where Int(code) / 8 < bytes { out[Int(code) / 8] |= 1 << (code % 8) }
        return out.map(hex2).joined(separator: " ")
    }
}
