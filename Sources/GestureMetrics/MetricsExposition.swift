/// The text formats a scraper reads a ``MetricsSnapshot`` in: Prometheus' text format 0.0.4 (what
/// node_exporter's textfile collector and every Prometheus read) and OpenMetrics 1.0.0 (what a
/// Prometheus asks for first). Names and labels follow Prometheus' naming conventions: a
/// `gestured_` prefix, base units (seconds), `_total` on counters, `_timestamp_seconds` on times.
///
/// Written by hand rather than through swift-prometheus: its registry holds live metrics that the
/// code being measured updates (atomics, a lock per registration), where gestured's counters are
/// the input thread's plain integers handed over as a snapshot; a snapshot cannot set a counter
/// to its value, nor a histogram's buckets to their counts, through that API, and it writes the
/// Prometheus format only.
public enum MetricsFormat: String, Sendable, CaseIterable {
    case prometheus
    case openMetrics = "openmetrics"

    /// The HTTP `Content-Type` of the format.
    public var contentType: String {
        switch self {
        case .prometheus: "text/plain; version=0.0.4; charset=utf-8"
        case .openMetrics: "application/openmetrics-text; version=1.0.0; charset=utf-8"
        }
    }

    /// The format an HTTP `Accept` header prefers: OpenMetrics when it names
    /// `application/openmetrics-text` (as Prometheus does), else the Prometheus text format.
    public static func negotiated(accept: String?) -> MetricsFormat {
        guard let accept else { return .prometheus }
        for part in accept.split(separator: ",") {
            let fields = part.split(separator: ";").map { $0.trimmingSpaces }
            guard fields.first == "application/openmetrics-text" else { continue }
            // A quality of 0 means "not this".
            if fields.contains(where: { $0 == "q=0" || $0 == "q=0.0" }) { continue }
            return .openMetrics
        }
        return .prometheus
    }
}

/// One metric family: its name (without a counter's `_total`), type, help and samples.
public struct MetricFamily: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case counter, gauge, histogram, info
    }

    public struct Sample: Sendable, Equatable {
        /// Appended to the family's name: `_total`, `_bucket`, `_info`, or nothing.
        public var suffix: String
        public var labels: [(String, String)]
        public var value: Double

        public init(suffix: String = "", labels: [(String, String)] = [], value: Double) {
            self.suffix = suffix
            self.labels = labels
            self.value = value
        }

        public static func == (a: Sample, b: Sample) -> Bool {
            a.suffix == b.suffix && a.value == b.value && a.labels.elementsEqual(b.labels, by: ==)
        }
    }

    public var name: String
    public var kind: Kind
    public var help: String
    public var samples: [Sample]

    public init(name: String, kind: Kind, help: String, samples: [Sample]) {
        self.name = name
        self.kind = kind
        self.help = help
        self.samples = samples
    }
}

public enum MetricsExposition {
    /// The snapshot in `format`: every family, `# HELP` and `# TYPE` first; OpenMetrics ends with
    /// `# EOF`.
    public static func render(_ snapshot: MetricsSnapshot, format: MetricsFormat) -> String {
        render(snapshot.families, format: format)
    }

    public static func render(_ families: [MetricFamily], format: MetricsFormat) -> String {
        var out = ""
        out.reserveCapacity(4096)
        for family in families {
            // Prometheus' text format has no `info` type and names a counter with its `_total`.
            let typeName: String
            let type: String
            switch (family.kind, format) {
            case (.counter, .prometheus): (typeName, type) = (family.name + "_total", "counter")
            case (.info, .prometheus): (typeName, type) = (family.name + "_info", "gauge")
            default: (typeName, type) = (family.name, family.kind.rawValue)
            }
            out += "# HELP \(typeName) \(family.help)\n"
            out += "# TYPE \(typeName) \(type)\n"
            for sample in family.samples {
                out += family.name
                out += sample.suffix
                if !sample.labels.isEmpty {
                    out += "{"
                    for (i, (name, value)) in sample.labels.enumerated() {
                        if i > 0 { out += "," }
                        out += name
                        out += "=\""
                        out += escaped(value)
                        out += "\""
                    }
                    out += "}"
                }
                out += " "
                out += number(sample.value)
                out += "\n"
            }
        }
        if format == .openMetrics { out += "# EOF\n" }
        return out
    }

    /// A label value as both formats quote it: backslash, double quote and line feed escaped.
    static func escaped(_ value: String) -> String {
        guard value.contains(where: { $0 == "\\" || $0 == "\"" || $0 == "\n" }) else { return value }
        var out = ""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }

    /// Integers without a fraction, others as Swift prints them (both formats read Go's float
    /// syntax: `0.25`, `1e-05`), infinities as `+Inf` and `-Inf`.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 { return String(Int64(value)) }
        return "\(value)"
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var s = self
        while s.first == " " || s.first == "\t" { s = s.dropFirst() }
        while s.last == " " || s.last == "\t" { s = s.dropLast() }
        return s
    }
}
