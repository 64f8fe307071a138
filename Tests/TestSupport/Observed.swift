import Synchronization

/// A value that changes on other threads, and a way to wait until it satisfies a condition —
/// with a deadline, never with a sleep standing in for synchronisation.
public final class Observed<State: Sendable>: Sendable {
    private struct Waiter {
        var condition: @Sendable (State) -> Bool
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct Storage {
        var value: State
        var waiters: [Int: Waiter] = [:]
        var expired: Set<Int> = []
        var nextWaiter = 0
    }

    private let storage: Mutex<Storage>

    public init(_ value: State) {
        storage = Mutex(Storage(value: value))
    }

    public var value: State { storage.withLock { $0.value } }

    /// Changes the value and wakes the waiters whose condition now holds.
    public func update(_ body: (inout State) -> Void) {
        let ready: [CheckedContinuation<Void, any Error>] = storage.withLock { s in
            body(&s.value)
            var ready: [CheckedContinuation<Void, any Error>] = []
            for (id, waiter) in s.waiters where waiter.condition(s.value) {
                ready.append(waiter.continuation)
                s.waiters[id] = nil
            }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// Returns once `condition` holds; throws ``TimedOut`` after `within`.
    public func wait(
        for what: String, within: Duration = .seconds(60), until condition: @escaping @Sendable (State) -> Bool
    ) async throws {
        let id = storage.withLock { s in
            s.nextWaiter += 1
            return s.nextWaiter
        }
        let deadline = Task {
            try await Task.sleep(for: within)
            self.expire(id, what: what)
        }
        defer { deadline.cancel() }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let outcome: Result<Void, TimedOut>? = storage.withLock { s in
                if s.expired.remove(id) != nil { return .failure(TimedOut(what: what)) }
                if condition(s.value) { return .success(()) }
                s.waiters[id] = Waiter(condition: condition, continuation: continuation)
                return nil
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    private func expire(_ id: Int, what: String) {
        let waiter: Waiter? = storage.withLock { s in
            guard let waiter = s.waiters.removeValue(forKey: id) else {
                s.expired.insert(id)
                return nil
            }
            return waiter
        }
        waiter?.continuation.resume(throwing: TimedOut(what: what))
    }
}

public struct TimedOut: Error, CustomStringConvertible {
    public var what: String
    public var description: String { "timed out waiting for \(what)" }
}
