import CLinuxSupport
import GestureServer
import Glibc
import Synchronization

/// What the server's event loop (and the ``DefinitionCompiler``) hands to the input thread.
enum ClientRequest: Sendable {
    case connected(ClientID)
    case disconnected(ClientID)
    case define(DefinitionRequest)
    case ping(PingRequest)
    /// A definition change the compiler's thread has made, to install.
    case compiled(CompiledChange)
}

/// A request and when it was queued (CLOCK_MONOTONIC µs), so the input thread knows how far
/// behind it is (the watchdog only hears from a thread that keeps up).
struct QueuedRequest: Sendable {
    var request: ClientRequest
    var queuedAt: Int64
}

/// Requests from the server's thread to the input thread: a locked queue plus an eventfd the
/// input loop's epoll watches, so the input thread sleeps until there is work (no polling).
/// The server calls the delegate methods in socket order; the queue keeps that order.
final class RequestQueue: GestureServerDelegate {
    /// The eventfd to register for EPOLLIN (owned here, closed on deinit).
    let fileDescriptor: Int32
    private let pending = Mutex<[QueuedRequest]>([])

    init() throws(DaemonError) {
        let fd = gestured_eventfd()
        guard fd >= 0 else { throw DaemonError("cannot create an eventfd: \(String(cString: strerror(errno)))") }
        fileDescriptor = fd
    }

    deinit { close(fileDescriptor) }

    func clientConnected(_ client: ClientID) { enqueue(.connected(client)) }
    func clientDisconnected(_ client: ClientID) { enqueue(.disconnected(client)) }
    func define(_ request: DefinitionRequest) { enqueue(.define(request)) }
    func ping(_ request: PingRequest) { enqueue(.ping(request)) }
    func compiled(_ change: CompiledChange) { enqueue(.compiled(change)) }

    private func enqueue(_ request: ClientRequest) {
        let queued = QueuedRequest(request: request, queuedAt: gestured_monotonic_us())
        let wasEmpty = pending.withLock { queue in
            queue.append(queued)
            return queue.count == 1
        }
        // One wake-up per batch: the input thread drains everything queued when it wakes.
        if wasEmpty { _ = gestured_eventfd_signal(fileDescriptor) }
    }

    /// Everything queued, in order (input thread, when the eventfd is readable).
    func drain() -> [QueuedRequest] {
        _ = gestured_eventfd_drain(fileDescriptor)
        return pending.withLock { queue in
            defer { queue.removeAll(keepingCapacity: true) }
            return queue
        }
    }
}

/// A reason the daemon cannot start or go on, as a sentence for the log and the terminal.
public struct DaemonError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
