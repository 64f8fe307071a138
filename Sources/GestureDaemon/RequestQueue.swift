import CLinuxSupport
import GestureMetrics
import GestureServer

/// What the server (on the input thread itself, or on its own thread) and the
/// ``DefinitionCompiler`` hand to the input thread.
enum ClientRequest: Sendable {
    case connected(ClientID)
    case disconnected(ClientID)
    /// A request the daemon performs (``DaemonRequests/perform(_:on:)``).
    case perform(DaemonJob)
    /// A definition change the compiler's thread has made, to install.
    case compiled(CompiledChange)
    /// A scrape of the metrics endpoint wants the counters (``MetricsSnapshot``): the input
    /// thread copies them between two frames and hands them to the closure, which must return at
    /// once (it posts to the thread that asked).
    case snapshot(@Sendable (MetricsSnapshot) -> Void)
}

/// A request and when it was queued (CLOCK_MONOTONIC µs), so the input thread knows how far
/// behind it is (the watchdog only hears from a thread that keeps up).
struct QueuedRequest: Sendable {
    var request: ClientRequest
    var queuedAt: Int64
}

/// Requests from the server and the compiler to the input thread: a ``SignalledQueue`` the
/// input loop's epoll watches, so the input thread sleeps until there is work (no polling).
/// The server calls the delegate methods in socket order; the queue keeps that order.
final class RequestQueue: GestureServerDelegate {
    private let pending: SignalledQueue<QueuedRequest>

    init() throws(DaemonError) {
        do {
            pending = try SignalledQueue()
        } catch {
            throw DaemonError(error.message)
        }
    }

    /// The eventfd to register for EPOLLIN.
    var fileDescriptor: Int32 { pending.fileDescriptor }

    func clientConnected(_ client: ClientID) { enqueue(.connected(client)) }
    func clientDisconnected(_ client: ClientID) { enqueue(.disconnected(client)) }
    func perform(_ job: DaemonJob) { enqueue(.perform(job)) }
    func compiled(_ change: CompiledChange) { enqueue(.compiled(change)) }
    func snapshot(_ complete: @escaping @Sendable (MetricsSnapshot) -> Void) { enqueue(.snapshot(complete)) }

    private func enqueue(_ request: ClientRequest) {
        // One wake-up per batch: the input thread drains everything queued when it wakes.
        pending.append(QueuedRequest(request: request, queuedAt: gestured_monotonic_us()))
    }

    /// Everything queued, in order (input thread, when the eventfd is readable).
    func drain() -> [QueuedRequest] {
        pending.takeAll()
    }
}

/// A reason the daemon cannot start or go on, as a sentence for the log and the terminal.
public struct DaemonError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
