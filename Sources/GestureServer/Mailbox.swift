import CLinuxSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Work for the server thread from any other thread: a locked list of jobs plus an eventfd in
/// the server's epoll, so the server thread sleeps until there is some. Jobs run in the order
/// they were posted. Replies of the daemon (`pong`, `define`), the WebSocket connections' events
/// from SwiftNIO's loop, and publications from a thread other than the server's come this way;
/// the frame path of the daemon does not (it publishes on the server thread itself).
final class Mailbox: Sendable {
    struct Job: @unchecked Sendable {
        let run: () -> Void
    }

    /// The eventfd (owned here; closed on deinit).
    let fileDescriptor: Int32
    private let jobs = Mutex<[Job]>([])

    init() throws(ServerError) {
        let fd = gestured_eventfd()
        guard fd >= 0 else { throw ServerError("cannot create an eventfd: \(errnoDescription())") }
        fileDescriptor = fd
    }

    deinit { close(fileDescriptor) }

    /// Queues `run` for the server thread. Thread-safe.
    func post(_ run: @escaping @Sendable () -> Void) {
        let wasEmpty = jobs.withLock { jobs in
            jobs.append(Job(run: run))
            return jobs.count == 1
        }
        // One wake-up per burst: the server thread takes every job queued when it wakes.
        if wasEmpty { _ = gestured_eventfd_signal(fileDescriptor) }
    }

    /// Everything queued, in order (server thread, when the eventfd is readable).
    func take() -> [Job] {
        _ = gestured_eventfd_drain(fileDescriptor)
        return jobs.withLock { jobs in
            defer { jobs.removeAll(keepingCapacity: true) }
            return jobs
        }
    }
}
