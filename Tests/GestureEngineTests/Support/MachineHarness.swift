@testable import GestureEngine

/// Drives one recognizer's state machine directly (no arena), on a 344 × 194 mm panel, with
/// positions given in millimetres. Records proposals so tests can state the transition table.
struct MachineHarness<R: Recognizer> {
    static var size: PhysicalSize { PhysicalSize(width: Millimeters(344), height: Millimeters(194)) }
    var machine: R
    var table = TouchTable()
    var time = Timestamp(microseconds: 1_000_000)
    /// The machine's own touches (as the arena's `seen`).
    var mine: UInt64 = 0

    init(_ parameters: R.Parameters) {
        machine = R(parameters, scale: MeasuringScale(SurfaceGeometry(physicalSize: Self.size)))
    }

    static func point(_ x: Double, _ y: Double) -> SurfacePoint {
        SurfacePoint(x: x / size.width.value, y: y / size.height.value)
    }

    mutating func wait(_ ms: Double) { time = time + TimeSpan(microseconds: Int64(ms * 1000)) }

    /// Touches `ids` land at the given millimetre positions in one frame.
    @discardableResult
    mutating func down(_ touches: [(UInt32, Double, Double)]) -> Proposal {
        var added: UInt64 = 0
        for (id, x, y) in touches {
            let touch = Touch(id: TouchID(id), phase: .began, position: Self.point(x, y))
            let slot = table.allocate(touch, at: time, region: 0)!
            added |= .bit(slot)
        }
        mine |= added
        return machine.update(
            RecognizerInput(time: time, live: mine & table.live, added: added, lifted: 0, moved: 0), table)
    }

    /// Touches move to the given millimetre positions in one frame.
    @discardableResult
    mutating func move(_ touches: [(UInt32, Double, Double)]) -> Proposal {
        var moved: UInt64 = 0
        for (id, x, y) in touches {
            let slot = table.slot(of: TouchID(id))!
            table.lastTouch[slot].position = Self.point(x, y)
            moved |= .bit(slot)
        }
        return machine.update(
            RecognizerInput(time: time, live: mine & table.live, added: 0, lifted: 0, moved: moved), table)
    }

    /// Touches lift in one frame.
    @discardableResult
    mutating func up(_ ids: [UInt32]) -> Proposal {
        var lifted: UInt64 = 0
        for id in ids {
            let slot = table.slot(of: TouchID(id))!
            table.live &= ~.bit(slot)
            lifted |= .bit(slot)
        }
        return machine.update(
            RecognizerInput(time: time, live: mine & table.live, added: 0, lifted: lifted, moved: 0), table)
    }

    /// Lets time run to the machine's deadline and fires it.
    mutating func fire() -> Proposal? {
        guard let deadline = machine.deadline else { return nil }
        time = deadline
        return machine.timerFired(at: deadline, table)
    }

    /// Positions of `count` fingers spread 15 mm apart around (x, y).
    static func fingers(
        _ count: Int, at x: Double, _ y: Double, dx: Double = 0, dy: Double = 0
    ) -> [(UInt32, Double, Double)] {
        let spread = Double(count - 1) * 7.5
        return (0..<count).map { i -> (UInt32, Double, Double) in
            (UInt32(i + 1), x + Double(i) * 15 - spread + dx, y + dy)
        }
    }
}

extension Proposal {
    var name: String {
        switch self {
        case .none: "none"
        case .begin: "begin"
        case .recognize: "recognize"
        case .change: "change"
        case .end: "end"
        case .fail: "fail"
        }
    }

    var report: Report? {
        switch self {
        case .begin(let r), .recognize(let r), .change(let r), .end(let r): r
        case .none, .fail: nil
        }
    }
}
