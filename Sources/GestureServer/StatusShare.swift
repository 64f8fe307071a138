import GestureProtocol
import NIOCore

/// `status` answered from one snapshot of the daemon for every request within ``freshFor`` of it
/// (docs/PROTOCOL.md, `status`), as the metrics endpoint's scrapes are: the daemon is asked for
/// its part (configuration, panels, counters) at most once at a time, the requests that come
/// while it is being made wait for it, and those within ``freshFor`` of its answer get that
/// answer — each with its own `id` and the clients connected when it asked. So however many
/// connections ask, and however often, the input thread makes at most one status a
/// ``freshFor``. What the daemon says has changed since (a reload, a panel come or gone:
/// ``invalidate()``) is never answered from an older snapshot.
///
/// A plain value with no I/O (SwiftNIO's style): time is passed in, and what waits is the
/// caller's (`Waiter`); the server thread's ``ServerCore`` keeps one.
struct StatusShare<Waiter> {
    /// An answer serves the requests within this of its arrival.
    static var freshFor: TimeAmount { .milliseconds(100) }

    typealias Answer = Result<StatusMessage, ErrorMessage>

    /// What to do with a request.
    enum Next {
        /// Answer it with this, at once.
        case answer(Answer)
        /// Ask the daemon; the request waits for ``arrived(_:at:)``.
        case ask
        /// The daemon is being asked already: the request waits for its answer.
        case wait
    }

    private var latest: (answer: Answer, at: NIODeadline)?
    private var waiting: [Waiter] = []
    /// Moves on every ``invalidate()``: an answer asked for before one serves no one after it.
    private var generation = 0
    private var askedIn = 0

    /// A request of `waiter`, at `now`.
    mutating func request(_ waiter: Waiter, at now: NIODeadline) -> Next {
        if let latest, now - latest.at < Self.freshFor { return .answer(latest.answer) }
        waiting.append(waiter)
        guard waiting.count == 1 else { return .wait }
        askedIn = generation
        return .ask
    }

    /// The daemon's answer, at `now`: the requests that waited for it, to answer with it.
    mutating func arrived(_ answer: Answer, at now: NIODeadline) -> [Waiter] {
        latest = askedIn == generation ? (answer, now) : nil
        defer { waiting = [] }
        return waiting
    }

    /// What a status says has changed: the next request asks the daemon again.
    mutating func invalidate() {
        latest = nil
        generation &+= 1
    }
}
