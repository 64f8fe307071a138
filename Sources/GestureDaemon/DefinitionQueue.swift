/// The definition changes waiting for the compiler's thread (a `define`, the definitions of a
/// connection that closed, a reload), in the order they came, one with the compiler at a time;
/// and the `ping`s that wait for the changes that came before them, so that a `pong` covers the
/// compiler's thread too.
///
/// No I/O: each method says what the input loop is to do (``Action``), as SwiftNIO's state
/// machines do. Generic over the change and the ping only so that tests can drive it with
/// plain values.
///
/// | event | waiting changes | ping | what happens |
/// |---|---|---|---|
/// | ``append(_:)`` | one more | — | it waits behind the others |
/// | ``ping(_:)`` | none | answered at once | `reply` |
/// | ``ping(_:)`` | some | held | `reply` once those are done |
/// | ``next(skipping:into:)`` | first not with the compiler | — | `compile` it (a no-op is done at once) |
/// | ``compilerReturned()`` | first with the compiler | — | it may be handed out again (a stale result) |
/// | ``finishFirst(into:)`` | first done | held ones freed | `reply` each |
struct DefinitionQueue<Change, Ping> {
    enum Action {
        /// Hand the change to the compiler, with the running definitions.
        case compile(Change)
        /// Send the `pong`.
        case reply(Ping)
    }

    /// The first is with the compiler while ``isCompiling``.
    private var waiting: [Change] = []
    private(set) var isCompiling = false
    /// Changes taken and done, counted since the start.
    private var taken: UInt64 = 0
    private var done: UInt64 = 0
    /// Pings and the count of changes taken before each.
    private var held: [(ping: Ping, after: UInt64)] = []

    /// A change came: it waits behind those before it.
    mutating func append(_ change: Change) {
        waiting.append(change)
        taken += 1
    }

    /// A ping came: returned to be answered at once when every change before it is done; held
    /// (nil) otherwise.
    mutating func ping(_ ping: Ping) -> Ping? {
        guard done != taken else { return ping }
        held.append((ping, taken))
        return nil
    }

    /// Unless a change is with the compiler, the first waiting one is to be compiled; those
    /// `isNoOp` says need nothing (a connection that closed without definitions) are done on the
    /// way.
    mutating func next(skipping isNoOp: (Change) -> Bool, into actions: inout [Action]) {
        while !isCompiling, let change = waiting.first {
            if isNoOp(change) {
                finishFirst(into: &actions)
                continue
            }
            isCompiling = true
            actions.append(.compile(change))
        }
    }

    /// The compiler's result for the first change came back: whatever becomes of it, the
    /// compiler is free.
    mutating func compilerReturned() { isCompiling = false }

    /// The first change is done (installed, refused, or nothing to do): the pings that came
    /// behind it and no later change are answered.
    mutating func finishFirst(into actions: inout [Action]) {
        waiting.removeFirst()
        done += 1
        while let first = held.first, first.after <= done {
            actions.append(.reply(first.ping))
            held.removeFirst()
        }
    }
}
