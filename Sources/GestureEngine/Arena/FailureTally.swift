/// How many recognizers failed, by kind and reason, for the daemon's metrics: the recognizer's
/// own check (``FailureCheck``), or the rules and faults (R3–R5, R9) for the rest. An arena
/// counts its own (a store per failure: failures come per touch, not per frame); the engine adds
/// up its arenas and those of devices gone.
struct FailureTally: Sendable {
    /// Failures of each kind, whatever the reason, by ``GestureKind``'s position.
    private var total: [Int] = Array(repeating: 0, count: RegisteredKinds.count)
    /// Failures by the recognizer's own check. A handful of entries, so a scan comparing the
    /// checks' addresses (``FailureCheck/address``) beats hashing their spellings, or comparing
    /// them (which makes their strings).
    private var own: [(kind: GestureKind, check: FailureCheck, count: Int)] = []

    /// A recognizer of `kind` failed (``DeviceArena/fail(_:at:_:into:)``).
    mutating func failed(_ kind: GestureKind) {
        total[kind.index] += 1
    }

    /// The failure about to be counted by ``failed(_:)`` was the recognizer's own `check`.
    mutating func failed(_ kind: GestureKind, _ check: FailureCheck) {
        let address = check.address
        if let i = own.firstIndex(where: { $0.check.address == address && $0.kind == kind }) {
            own[i].count += 1
        } else {
            own.append((kind, check, 1))
        }
    }

    mutating func add(_ other: FailureTally) {
        for i in total.indices { total[i] += other.total[i] }
        for entry in other.own {
            if let i = own.firstIndex(where: { $0.check.address == entry.check.address && $0.kind == entry.kind }) {
                own[i].count += entry.count
            } else {
                own.append(entry)
            }
        }
    }

    /// Every count, the recognizers' own checks first; `arbitration` for the rest of a kind's.
    var counts: [FailureCount] {
        var counts: [FailureCount] = []
        // Two declarations of one check's spelling are one reason.
        for entry in own {
            let reason = entry.check.rawValue
            if let i = counts.firstIndex(where: { $0.kind == entry.kind && $0.reason == reason }) {
                counts[i].count += entry.count
            } else {
                counts.append(FailureCount(kind: entry.kind, reason: reason, count: entry.count))
            }
        }
        let kinds = GestureKind.allCases
        for position in total.indices where total[position] > 0 {
            let kind = kinds[position]
            let checked = own.reduce(0) { $0 + ($1.kind == kind ? $1.count : 0) }
            if total[position] > checked {
                counts.append(FailureCount(kind: kind, reason: "arbitration", count: total[position] - checked))
            }
        }
        return counts
    }
}

/// Recognizers of one kind that failed for one reason (``GestureEngine/failureCounts``).
public struct FailureCount: Sendable, Equatable {
    public var kind: GestureKind
    /// The check's spelling (docs/PROTOCOL.md, `explain`'s `check`), or `arbitration` for a
    /// failure by the rules (R3 gate, R4 requirement, R5 exclusivity) or a fault (R9).
    public var reason: String
    public var count: Int
}
