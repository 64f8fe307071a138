import Logging
import NIOCore
import Synchronization

/// Repeated warnings, at most ``burst`` of each cause per ``interval``; the others are counted,
/// and the next one let through says how many were left out (`suppressed`), as the kernel's
/// printk rate limit does. The journal's own rate limit counts a whole service, so one flood
/// (refused handshakes, connections over a limit) would otherwise silence every other line of
/// the daemon along with it.
///
/// A cause is one of a few fixed names the code chooses, never text a client sent: the table
/// stays as small as the code's list of causes. Time is passed in (``admit(_:at:)``), so the
/// rule is tested without a clock. `gestured actions` uses it too, for its commands' output and
/// refusals (a cause there is a command of its file).
public struct LogRateLimit: Sendable {
    /// Lines of one cause let through per interval.
    public let burst: Int
    public let interval: TimeAmount
    private var causes: [String: Window] = [:]

    private struct Window {
        var start: NIODeadline
        var logged = 0
        var suppressed = 0
    }

    /// What to do with one line of a cause.
    enum Admission: Equatable {
        /// Log it, saying that `suppressed` lines of its cause were left out before it.
        case log(suppressed: Int)
        case suppress
    }

    public init(burst: Int = 5, interval: TimeAmount = .seconds(60)) {
        precondition(burst > 0, "a rate limit lets at least one line through")
        self.burst = burst
        self.interval = interval
    }

    mutating func admit(_ cause: String, at now: NIODeadline) -> Admission {
        var window = causes[cause] ?? Window(start: now)
        var suppressed = 0
        if now - window.start >= interval {
            suppressed = window.suppressed
            window = Window(start: now)
        }
        defer { causes[cause] = window }
        guard window.logged < burst else {
            window.suppressed += 1
            return .suppress
        }
        window.logged += 1
        return .log(suppressed: suppressed)
    }
}

/// ``LogRateLimit`` shared by the threads that log (the server thread, SwiftNIO's loop).
public final class LogThrottle: Sendable {
    private let limit: Mutex<LogRateLimit>
    private let now: @Sendable () -> NIODeadline

    public init(_ limit: LogRateLimit = LogRateLimit(), now: @escaping @Sendable () -> NIODeadline = { .now() }) {
        self.limit = Mutex(limit)
        self.now = now
    }

    /// Logs `message` unless its cause has had its share of the interval; whether it did.
    @discardableResult
    public func log(
        _ level: Logger.Level, _ message: Logger.Message, cause: String, metadata: Logger.Metadata = [:],
        to logger: Logger
    ) -> Bool {
        let time = now()
        switch limit.withLock({ $0.admit(cause, at: time) }) {
        case .suppress:
            return false
        case .log(let suppressed):
            var metadata = metadata
            if suppressed > 0 { metadata["suppressed"] = "\(suppressed)" }
            logger.log(level: level, message, metadata: metadata)
            return true
        }
    }
}

/// Text a peer sent, shortened for the log: at most `limit` bytes (whole characters), then how
/// long it was. An 80 KB `Origin` header is not written to the journal.
func loggable(_ text: String, limit: Int = 128) -> String {
    let bytes = text.utf8.count
    guard bytes > limit else { return text }
    var kept = ""
    var keptBytes = 0
    for character in text {
        keptBytes += character.utf8.count
        guard keptBytes <= limit else { break }
        kept.append(character)
    }
    return "\(kept)… (\(bytes) bytes)"
}
