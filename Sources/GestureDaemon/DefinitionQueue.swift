/// The definition changes waiting for the compiler's thread (a `define`, the definitions of a
/// connection that closed, a reload), in the order they came, one with the compiler at a time;
/// and the `ping`s that wait for a `define` their own connection sent before them, so that a
/// `pong` comes after that connection's earlier definitions run.
///
/// A `ping` waits for nothing else: not for a reload, nor for another connection's `define`,
/// waiting or being compiled. The input thread answers it when it takes it, so a reload of the
/// largest configuration (compiled on the compiler's thread) never holds a health check.
///
/// No I/O: each method says what the input loop is to do (``Action``), as SwiftNIO's state
/// machines do. Generic over the change, the ping and the connection only so that tests can
/// drive it with plain values.
///
/// | event | waiting changes | ping | what happens |
/// |---|---|---|---|
/// | ``append(_:from:)`` | one more | — | it waits behind the others |
/// | ``ping(_:from:)`` | none of its connection | answered at once | `reply` |
/// | ``ping(_:from:)`` | some of its connection | held | `reply` once the last of those is done |
/// | ``next(skipping:into:)`` | first not with the compiler | — | `compile` it (a no-op is done at once) |
/// | ``compilerReturned()`` | first with the compiler | — | it may be handed out again (a stale result) |
/// | ``finishFirst(into:)`` | first done | held ones freed | `reply` each |
struct DefinitionQueue<Change, Ping, Connection: Equatable> {
    enum Action {
        /// Hand the change to the compiler, with the running definitions.
        case compile(Change)
        /// Send the `pong`.
        case reply(Ping)
    }

    /// The first is with the compiler while ``isCompiling``; each with the connection that
    /// caused it (nil: the operator's reload).
    private var waiting: [(change: Change, connection: Connection?)] = []
    private(set) var isCompiling = false
    /// Changes done, counted since the start: the first waiting change is number `done + 1`.
    private var done: UInt64 = 0
    /// Pings and the number of the change each waits for, in the order they came.
    private var held: [(ping: Ping, after: UInt64)] = []

    /// A change came: it waits behind those before it.
    mutating func append(_ change: Change, from connection: Connection?) {
        waiting.append((change, connection))
    }

    /// A ping came: returned to be answered at once unless a change of its own connection is
    /// waiting; held (nil) until the last of those is done otherwise.
    mutating func ping(_ ping: Ping, from connection: Connection) -> Ping? {
        guard let last = waiting.lastIndex(where: { $0.connection == connection }) else { return ping }
        held.append((ping, done + UInt64(last) + 1))
        return nil
    }

    /// Unless a change is with the compiler, the first waiting one is to be compiled; those
    /// `isNoOp` says need nothing (a connection that closed without definitions) are done on the
    /// way.
    mutating func next(skipping isNoOp: (Change) -> Bool, into actions: inout [Action]) {
        while !isCompiling, let first = waiting.first {
            if isNoOp(first.change) {
                finishFirst(into: &actions)
                continue
            }
            isCompiling = true
            actions.append(.compile(first.change))
        }
    }

    /// The compiler's result for the first change came back: whatever becomes of it, the
    /// compiler is free.
    mutating func compilerReturned() { isCompiling = false }

    /// The first change is done (installed, refused, or nothing to do): the pings that waited
    /// for it are answered, in the order they came.
    mutating func finishFirst(into actions: inout [Action]) {
        waiting.removeFirst()
        done += 1
        guard held.contains(where: { $0.after <= done }) else { return }
        for entry in held where entry.after <= done { actions.append(.reply(entry.ping)) }
        held.removeAll { $0.after <= done }
    }
}
