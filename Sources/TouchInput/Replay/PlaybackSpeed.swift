import TouchValues

/// How fast a recording or a gesture script plays: a factor of real time, or as fast as the
/// engine goes (`max`, where the command offers it).
///
/// The one check of the command line's `--speed`: `gestured run --replay` and `gestured
/// simulate` parse it here, so both take the same numbers and refuse the rest with the same
/// sentence. Inside ``factors`` a script's offsets scaled by the speed stay far inside the 64-bit
/// microsecond clock (an hour of script at 0.01 is 100 hours), so no caller converts an
/// out-of-range `Double` to `Int64`; the replay driver saturates its own arithmetic besides.
public enum PlaybackSpeed: Hashable, Sendable {
    /// Times real time (2: twice as fast).
    case factor(Double)
    /// As fast as the engine goes (`gestured run --replay` only).
    case max

    /// The factors accepted. Beyond them pacing means nothing (at 10^-14 a second of recording
    /// would take three million years; at 10^4 a frame every 1.6 µs).
    public static let factors: ClosedRange<Double> = 0.01...1000

    /// Parses `--speed`'s argument: a plain decimal number (`2`, `0.5`, `1e2`) within
    /// ``factors``, or `max` when `allowsMax`. Hexadecimal (`0x10`), `nan`, `inf` and the like,
    /// which `Double(_:)` would take, are refused.
    public init(parsing text: String, allowsMax: Bool) throws(PlaybackSpeedError) {
        if allowsMax && text == "max" {
            self = .max
            return
        }
        guard Self.isDecimal(text), let value = Double(text), Self.factors.contains(value) else {
            throw PlaybackSpeedError(allowsMax: allowsMax)
        }
        self = .factor(value)
    }

    /// The factor; nil for ``max``.
    public var factor: Double? {
        switch self {
        case .factor(let value): value
        case .max: nil
        }
    }

    /// How long `span` of a recording or script takes at this speed (nothing at ``max``), held
    /// within ±2^62 µs (146 000 years) so that adding it to a clock reading cannot wrap.
    public func scaled(_ span: TimeSpan) -> TimeSpan {
        guard let factor else { return TimeSpan(microseconds: 0) }
        let limit = Double(1 << 62)
        let value = Swift.max(-limit, Swift.min(limit, Double(span.microseconds) / factor))
        return TimeSpan(microseconds: Int64(value))
    }

    /// `[+-]digits[.digits][e[+-]digits]` (or `.digits`): what people write for a number.
    private static func isDecimal(_ text: String) -> Bool {
        var bytes = Substring(text).utf8[...]
        func digits() -> Int {
            var count = 0
            while let b = bytes.first, b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") {
                bytes.removeFirst()
                count += 1
            }
            return count
        }
        func sign() { if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") { bytes.removeFirst() } }
        sign()
        var mantissa = digits()
        if bytes.first == UInt8(ascii: ".") {
            bytes.removeFirst()
            mantissa += digits()
        }
        guard mantissa > 0 else { return false }
        if bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E") {
            bytes.removeFirst()
            sign()
            guard digits() > 0 else { return false }
        }
        return bytes.isEmpty
    }
}

/// A `--speed` that ``PlaybackSpeed`` refuses; its description is the sentence both commands
/// print.
public struct PlaybackSpeedError: Error, Hashable, Sendable, CustomStringConvertible {
    public var allowsMax: Bool

    public var description: String {
        let range = PlaybackSpeed.factors
        let number = "a number from \(plain(range.lowerBound)) to \(plain(range.upperBound)) (times real time)"
        return allowsMax ? "must be 'max' or \(number)" : "must be \(number)"
    }
}

/// A number as people write it: `1000`, `0.01`.
private func plain(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
}
