import CLinuxSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A list other threads append to and one thread empties, with an eventfd for that thread's
/// epoll: readable from the first append after a ``takeAll()`` on, so the taking thread sleeps
/// until there is something (no polling) and wakes once per burst. Items come out in the order
/// they went in. The server's ``Mailbox`` is one; the daemon's request queue is another.
public final class SignalledQueue<Element: Sendable>: Sendable {
    /// The eventfd (owned here; closed on deinit).
    public let fileDescriptor: Int32
    private let items = Mutex<[Element]>([])

    public init() throws(ServerError) {
        let fd = gestured_eventfd()
        guard fd >= 0 else { throw ServerError("cannot create an eventfd: \(errnoDescription())") }
        fileDescriptor = fd
    }

    deinit { close(fileDescriptor) }

    /// Queues `item`. Thread-safe.
    public func append(_ item: Element) {
        let wasEmpty = items.withLock { items in
            items.append(item)
            return items.count == 1
        }
        if wasEmpty { _ = gestured_eventfd_signal(fileDescriptor) }
    }

    /// Everything queued, in order (the taking thread, when the eventfd is readable).
    public func takeAll() -> [Element] {
        _ = gestured_eventfd_drain(fileDescriptor)
        return items.withLock { items in
            defer { items.removeAll(keepingCapacity: true) }
            return items
        }
    }
}

/// Work for the server thread from any other thread, run there in the order it was posted:
/// replies of the daemon (`pong`, `define`), the WebSocket connections' events from SwiftNIO's
/// loop, and publications from a thread other than the server's. The daemon's frame path does
/// not come this way (it publishes on the server thread itself).
final class Mailbox: Sendable {
    struct Job: @unchecked Sendable {
        let run: () -> Void
    }

    private let jobs: SignalledQueue<Job>

    init() throws(ServerError) {
        jobs = try SignalledQueue()
    }

    /// The eventfd in the server's epoll set.
    var fileDescriptor: Int32 { jobs.fileDescriptor }

    /// Queues `run` for the server thread. Thread-safe.
    func post(_ run: @escaping @Sendable () -> Void) {
        jobs.append(Job(run: run))
    }

    /// Everything posted, in order (server thread, when the eventfd is readable).
    func take() -> [Job] {
        jobs.takeAll()
    }
}
