import Glibc
import Logging

/// A swift-log handler that writes one line per message to standard error in the form the
/// journal expects from a service: `<PRIORITY>message key=value…` (sd-daemon(3) prefixes, no
/// timestamp, since the journal adds its own) when started by systemd (`JOURNAL_STREAM` set),
/// and `TIME LEVEL message key=value…` on a terminal.
///
/// One message is one line, whatever it holds: control characters in the message and the
/// metadata (a newline or a NUL, where the journal starts a new entry that could claim its own
/// `<0>` priority; an escape sequence for a terminal) are written escaped (`\n`, `\0`, `\u{1B}`),
/// as a command's output or a name from a file may hold them.
public struct JournalLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    private let label: String
    private let underSystemd: Bool

    public init(label: String, level: Logger.Level, environment: [String: String]) {
        self.label = label
        self.logLevel = level
        self.underSystemd = environment["JOURNAL_STREAM"] != nil
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        var line = underSystemd ? "<\(Self.priority(event.level))>" : "\(Self.timestamp()) \(event.level) "
        line += Self.escaped("\(event.message)")
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
            line += " \(Self.escaped(key))=\(Self.escaped("\(value)"))"
        }
        line += "\n"
        line.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = write(2, bytes.baseAddress! + offset, bytes.count - offset)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return }
                offset += n
            }
        }
    }

    /// `text` with its control characters (C0, DEL, C1) escaped as Swift writes them in a string
    /// literal; text without any is returned as it is.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                out += scalar.escaped(asASCII: true)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (scalar.value >= 0x7F && scalar.value < 0xA0)
    }

    /// syslog(3) priorities, as sd-daemon(3) prefixes use them.
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    private static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var parts = tm()
        var seconds = now.tv_sec
        localtime_r(&seconds, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let millis = now.tv_nsec / 1_000_000
        let ms = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(ms)"
    }
}

extension LogLevel {
    /// The swift-log level of a configured log level.
    public var loggerLevel: Logger.Level {
        switch self {
        case .trace: .trace
        case .debug: .debug
        case .info: .info
        case .notice: .notice
        case .warning: .warning
        case .error: .error
        case .critical: .critical
        }
    }
}
