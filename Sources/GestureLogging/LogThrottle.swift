import Logging
import NIOCore
import Synchronization

/// Repeated lines, at most ``burst`` of each cause — and of each peer, for the lines a peer
/// causes — per ``interval``; the others are counted, and the next one let through says how many
/// were left out (`suppressed`), as the kernel's printk rate limit does. The journal's own rate
/// limit counts a whole service (journald: 10 000 lines in 30 s by default), so one flood
/// (refused handshakes, connections over a limit, a user connecting in a loop) would otherwise
/// silence every other line of the daemon along with it — the reloads, the panels, the
/// recordings refused. Per peer, one peer's flood leaves another's lines alone.
///
/// A cause is one of a few fixed names the code chooses, never text a client sent; a peer is
/// what the kernel says of it (a uid, an address). The table is bounded: once it holds
/// ``maxWindows`` windows, those whose interval is over are forgotten (with the count of lines
/// they left out, which no line will report), and a peer that still finds no room shares one
/// window of its cause with the others in that case (`other peers`).
/// Time is passed in (``admit(_:peer:at:)``), so the rule is tested without a clock. `gestured
/// actions` uses it too, for what it logs of the daemon and for its commands' output and
/// refusals (a cause there is a command of its file).
public struct LogRateLimit: Sendable {
    /// Lines of one cause (and peer) let through per interval.
    public let burst: Int
    public let interval: TimeAmount
    /// Windows kept at most (a cause, or a cause and a peer, each).
    public let maxWindows: Int
    private var windows: [Key: Window] = [:]

    private struct Key: Hashable {
        var cause: String
        var peer: String?
    }

    /// The peer of a line whose own peer found no room.
    static let otherPeers = "other peers"

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

    public init(burst: Int = 5, interval: TimeAmount = .seconds(60), maxWindows: Int = 1024) {
        precondition(burst > 0 && maxWindows > 0, "a rate limit lets at least one line through")
        self.burst = burst
        self.interval = interval
        self.maxWindows = maxWindows
    }

    /// Windows held now.
    var windowCount: Int { windows.count }

    mutating func admit(_ cause: String, peer: String? = nil, at now: NIODeadline) -> Admission {
        var key = Key(cause: cause, peer: peer)
        if windows[key] == nil, windows.count >= maxWindows {
            windows = windows.filter { now - $0.value.start < interval }
            if windows.count >= maxWindows, peer != nil { key.peer = Self.otherPeers }
        }
        var window = windows[key] ?? Window(start: now)
        var suppressed = 0
        if now - window.start >= interval {
            suppressed = window.suppressed
            window = Window(start: now)
        }
        defer { windows[key] = window }
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

    /// Logs `message` unless its cause — of `peer`, when a peer caused it — has had its share of
    /// the interval; whether it did.
    @discardableResult
    public func log(
        _ level: Logger.Level, _ message: Logger.Message, cause: String, peer: String? = nil,
        metadata: Logger.Metadata = [:], to logger: Logger
    ) -> Bool {
        let time = now()
        switch limit.withLock({ $0.admit(cause, peer: peer, at: time) }) {
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
public func loggable(_ text: String, limit: Int = 128) -> String {
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
