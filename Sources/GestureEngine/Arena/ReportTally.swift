/// Gesture reports by recognizer and state, for the daemon's metrics: counted where the arena
/// makes each report (``DeviceArena/emit(_:_:_:_:into:)``) with one addition to a counter of the
/// recognizer's index, so nobody reads the events again to count them; the counters of a compiled
/// set are folded into counts by name when the set is replaced (a reload, a client's `define`)
/// and when asked. By name: the configuration's recognizers; a client's by kind only, with an
/// empty name (their names are the clients' to choose: the set of names stays bounded by the
/// configuration, and by ``capacity`` whatever it holds). An arena counts its own; the engine
/// adds up its arenas and those of devices gone.
///
/// The running counters are a block of memory a count is one addition to, without the checks an
/// array's store makes each time (is its buffer shared? is the index in range?): those cost more
/// than the addition, several times a frame (a pinch and a rotate report every frame). The check
/// that the block is not shared with a copy is made once per entry into the arena instead
/// (``makeUnique()``), and the index is in range by construction (a recognizer of the running set,
/// a state of five).
struct ReportTally: Sendable {
    struct Entry: Sendable {
        var name: String
        var kind: GestureKind
        /// By ``GestureState``'s position: began, changed, ended, cancelled, recognized.
        var counts: [Int] = Array(repeating: 0, count: ReportTally.states)
    }

    static let states = 5
    /// Distinct names counted at most; the configuration's recognizers beyond it are counted under
    /// the name `other` (a configuration has far fewer).
    static let capacity = 512
    /// Counts of the running compiled set's recognizers: `states` a recognizer, by its index.
    private var running = Counters(count: 0)
    /// Counts folded by name.
    private var entries: [Entry] = []

    /// A report of recognizer `r` in `state`: one addition. The counters are this tally's own
    /// (``makeUnique()`` since the arena was entered).
    @inline(__always)
    func count(_ r: Int, _ state: GestureState) {
        running.base[r &* Self.states &+ state.position] &+= 1
    }

    /// Gives this tally counters of its own if a copy of it shares them: called where the arena is
    /// entered (a frame, a timer, an abort), before anything is counted.
    @inline(__always)
    mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&running) { running = running.copy() }
    }

    /// Counters for the recognizers of `c`, after folding those of the set it replaces, `old`.
    mutating func start(_ c: CompiledSet, replacing old: CompiledSet?) {
        if let old { fold(old) }
        running = Counters(count: c.count * Self.states)
    }

    /// The running counters added to the counts by name (the recognizers of `c`), and zeroed
    /// (fresh counters: a copy of this tally may share the old ones).
    private mutating func fold(_ c: CompiledSet) {
        for r in 0..<min(c.count, running.count / Self.states) {
            let counts = (0..<Self.states).map { running.base[r * Self.states + $0] }
            guard counts.contains(where: { $0 > 0 }) else { continue }
            let name: String
            switch c.owners[r] {
            case .configuration: name = c.names[r]
            case .client: name = ""
            }
            let i = index(name, c.kinds[r])
            for (s, n) in counts.enumerated() { entries[i].counts[s] += n }
        }
        running = Counters(count: running.count)
    }

    private mutating func index(_ name: String, _ kind: GestureKind) -> Int {
        if let i = entries.firstIndex(where: { $0.kind == kind && $0.name == name }) { return i }
        let name = entries.count < Self.capacity ? name : "other"
        if let i = entries.firstIndex(where: { $0.kind == kind && $0.name == name }) { return i }
        entries.append(Entry(name: name, kind: kind))
        return entries.count - 1
    }

    /// The counts by name, with `self`'s running counters (of `c`) folded in.
    func folded(_ c: CompiledSet) -> ReportTally {
        var copy = self
        copy.fold(c)
        return copy
    }

    /// `other`'s counts by name (folded) added to these.
    mutating func add(_ other: ReportTally) {
        for entry in other.entries {
            let i = index(entry.name, entry.kind)
            for s in 0..<Self.states { entries[i].counts[s] += entry.counts[s] }
        }
    }

    /// The counts of the states that happened.
    var counts: [ReportCount] {
        var out: [ReportCount] = []
        for entry in entries {
            for (s, n) in entry.counts.enumerated() where n > 0 {
                out.append(ReportCount(recognizer: entry.name, kind: entry.kind, state: GestureState.byPosition[s], count: n))
            }
        }
        return out
    }
}

extension GestureState {
    /// Its position among the states, for counters.
    var position: Int {
        switch self {
        case .began: 0
        case .changed: 1
        case .ended: 2
        case .cancelled: 3
        case .recognized: 4
        }
    }

    static let byPosition: [GestureState] = [.began, .changed, .ended, .cancelled, .recognized]
}

/// Reports of one recognizer in one state (``GestureEngine/reportCounts``).
public struct ReportCount: Sendable, Equatable {
    /// The configuration's recognizer; empty for the clients' recognizers of ``kind``, counted
    /// together.
    public var recognizer: String
    public var kind: GestureKind
    public var state: GestureState
    public var count: Int
}

/// A block of counters, zeroed when made, freed with the last reference (``ReportTally``).
/// Unchecked `Sendable`: a tally writes its block only after ``ReportTally/makeUnique()``, so a
/// block shared between copies (of an engine, on two threads) is only read.
final class Counters: @unchecked Sendable {
    let base: UnsafeMutablePointer<Int>
    let count: Int

    init(count: Int) {
        self.count = count
        base = UnsafeMutablePointer.allocate(capacity: max(count, 1))
        base.initialize(repeating: 0, count: max(count, 1))
    }

    deinit { base.deallocate() }

    func copy() -> Counters {
        let copy = Counters(count: count)
        copy.base.update(from: base, count: count)
        return copy
    }
}
