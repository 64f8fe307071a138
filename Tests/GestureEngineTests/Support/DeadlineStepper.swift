import Testing

@testable import GestureEngine

/// Drives an engine through its deadlines one at a time, so that each event's emission time is
/// known: what a call emits goes to `sink` with the time it happened at. The scenario runner and
/// the random touch-stream tests both run the engine this way.
struct DeadlineStepper {
    private var events: [EngineEvent] = []
    private let sink: (Timestamp, EngineEvent) -> Void

    init(_ sink: @escaping (Timestamp, EngineEvent) -> Void) { self.sink = sink }

    /// Hands what the last call emitted to the sink, stamped `at`.
    private mutating func record(_ at: Timestamp) {
        for event in events {
            if let problem = RegistryTests.unlisted(event) { Issue.record("\(problem)") }
            sink(at, event)
        }
        events.removeAll(keepingCapacity: true)
    }

    /// Runs out every deadline up to `time`, each at its own time.
    mutating func advance(_ engine: inout GestureEngine, to time: Timestamp) {
        while let deadline = engine.nextDeadline, deadline <= time {
            engine.advance(to: deadline, into: &events)
            record(deadline)
        }
    }

    /// Runs out the deadlines before `time`, then calls `body` at `time` and records what it emits.
    mutating func step<R>(
        _ engine: inout GestureEngine, at time: Timestamp,
        _ body: (inout GestureEngine, inout [EngineEvent]) throws -> R
    ) rethrows -> R {
        advance(&engine, to: time)
        let result = try body(&engine, &events)
        record(time)
        return result
    }
}
