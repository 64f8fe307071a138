/// One touchscreen's gesture arena: its touches, one instance of every recognizer, and the
/// arbitration between them (docs/ARBITRATION.md, R1–R9). Each device has its own, so touches
/// on two panels never interact.
///
/// The arbitration in one sentence: a recognizer's proposal to begin or be recognized passes the
/// begin gate (R3), is refused if an active recognizer it may not preempt holds one of its
/// touches (R5), waits while a recognizer it requires to fail is undecided (R4), and when it
/// happens, fails or cancels every other recognizer on its touches it is not simultaneous with
/// (R5, R6) and takes its touches from the views (R8).
///
/// Recognizers are stored by kind in plain arrays of value types and mutated in place; the
/// per-frame path uses slot bitmasks, indices resolved at configuration time and reusable
/// buffers, so a frame in steady state allocates nothing.
struct DeviceArena {
    /// A recognizer's arbitration state (R2).
    enum Phase: UInt8 {
        case possible
        /// Would leave `possible` but waits for a failure requirement (R4).
        case held
        /// A continuous recognizer that began.
        case active
        case recognized
        case ended
        case cancelled
        case failed

        /// A final state: input is ignored until all its touches lift, then it resets (R2).
        @inline(__always) var isFinal: Bool {
            switch self {
            case .possible, .held, .active: false
            case .recognized, .ended, .cancelled, .failed: true
            }
        }

        /// Not yet decided: what R4 waits for and R8 delays views for.
        @inline(__always) var isUndecided: Bool {
            switch self {
            case .possible, .held: true
            case .active, .recognized, .ended, .cancelled, .failed: false
            }
        }

        /// Began or was recognized in this cycle (R4: its dependents fail).
        @inline(__always) var hasSucceeded: Bool {
            switch self {
            case .active, .recognized, .ended, .cancelled: true
            case .possible, .held, .failed: false
            }
        }
    }

    /// A transition held back by a failure requirement, with what happened meanwhile (R4).
    struct Held {
        var first: Report
        var change: Report?
        var end: Report?
    }

    /// One recognizer on this device, apart from its kind's own machine, its deadline and its
    /// held transition (kept in arrays of their own so the per-frame scans stay small).
    struct Instance {
        var phase = Phase.possible
        /// Every touch delivered since the last reset (slot mask).
        var seen: UInt64 = 0
        /// Touches delivered in the frame being processed.
        var added: UInt64 = 0
        /// Ids of the touches delivered since the last reset, for reports.
        var touchIDs = TouchIDList()
        /// When the first of them landed, for reports.
        var started = Timestamp(microseconds: 0)
    }

    /// A view event waiting in ``viewQueue`` (R8).
    struct QueuedViewEvent {
        var slot: Int
        var event: ViewTouchEvent
    }

    let device: DeviceDescriptor
    let scale: MeasuringScale
    var table = TouchTable()
    var instances: [Instance]
    /// Whether ``finishCycle(_:)`` must look for final recognizers to reset (R2): one became
    /// final since it last looked (``enterFinal(_:_:)``). A touch that lifted since then (a bit of
    /// ``liveAtLastCycle`` gone from the table) makes it look too; otherwise no final recognizer
    /// can have lost its last touch, and most frames skip the scan.
    private var resetScanDue = true
    private var liveAtLastCycle: UInt64 = 0
    /// Each recognizer's deadline in µs (`Int64.max`: none), and the earliest of them.
    var deadlines: DeadlineList
    private(set) var earliestDeadline = Int64.max
    /// R4: each recognizer's held transition.
    var held: [Held?]
    /// Each recognizer's index in the array of its kind.
    let kindSlot: [Int]
    var banks = MachineBanks()
    /// R1, resolved for this device: tool bits accepted (0 when the device is not accepted) and
    /// the largest contact size (infinity: no limit).
    let acceptedTools: [UInt8]
    let maxContactSize: [Double]
    /// R3: whether `when.devices` lets the recognizer begin on this device.
    let deviceMayBegin: [Bool]
    /// R1, R8: the most fingers each recognizer has down once it began (its kind's finger limit
    /// and `when.max-fingers`): an active one takes no touch beyond it.
    let mostFingers: [Int]
    /// R8: view events held back, in the order they happened — a touch's events while a
    /// delays-touches-began recognizer is undecided, its end while a delays-touches-ended one
    /// is — and every later view event of the device behind them, so the views get the device's
    /// touches in time order (DeviceArena+Views.swift).
    var viewQueue: [QueuedViewEvent] = []
    /// Scratch: each tracked touch of the frame being processed and its phase, in frame order:
    /// the first `frameEntryCount` entries. The array keeps its length between frames, so a frame
    /// overwrites entries instead of emptying and refilling it.
    var frameEntries: [(slot: Int, phase: TouchPhase)] = []
    var frameEntryCount = 0
    /// Scratch: the clients a landing touch lands in a region of their own for, and that region.
    private var ownLandings: [(group: CompiledSet.Group, region: Int)] = []
    /// The latest time seen on this device: time never runs backwards inside the arena.
    var now = Timestamp(microseconds: Int64.min)
    /// Connected clients, for `when: client-connected` (R3).
    var clientsConnected = 0
    /// Whether decisions are explained (``GestureEngine/explains``): only then are
    /// `.explanation` events made.
    var explaining = false
    /// Whether the views are told of touches that move or stay (``GestureEngine/reportsTouchMoves``).
    var reportingMoves = true
    /// The kinds whose reports make `gesture` events, one bit a kind
    /// (``GestureEngine/reportedKinds``).
    var reportedKinds = UInt32.max
    /// Touches that found no free slot (more than 64 at once) and were ignored.
    var droppedTouches = 0
    /// Recognizers that failed, by kind and reason, and their reports (the daemon's metrics).
    var failures = FailureTally()
    var reports = ReportTally()
    /// The stage before the arena (``ContactGate``), when the panel has one: boxed, so that an
    /// arena without one stays its size (copied on write, ``withGate(_:)``). Its deadline is the
    /// last of ``deadlines`` (``gateSlot``, after the recognizers'), so ``earliestDeadline`` takes
    /// it in with no test, and an arena without a stage has no such slot.
    private var gateBox: GateBox?
    private var gateSlot = 0
    /// Whether there is a stage: a flag, so a panel without one tests one byte.
    private(set) var gated = false

    /// The stage before the arena, if any (a copy, to read).
    var gate: ContactGate? { gateBox?.gate }

    init(device: DeviceDescriptor, compiled c: CompiledSet) {
        self.device = device
        scale = MeasuringScale(device.geometry)
        instances = Array(repeating: Instance(), count: c.count)
        reports.start(c, replacing: nil)
        deadlines = DeadlineList(count: c.count)
        held = Array(repeating: nil, count: c.count)
        var slots: [Int] = []
        var tools: [UInt8] = []
        var sizes: [Double] = []
        var mayBegin: [Bool] = []
        var most: [Int] = []
        for r in 0..<c.count {
            slots.append(banks.add(c.kinds[r], r, c, scale: scale))
            let filter = c.accepts[r]
            tools.append(DeviceNamePattern.matchesAny(filter.devices, device.name) ? filter.tools : 0)
            sizes.append(filter.maxContactSize ?? Double.infinity)
            mayBegin.append(DeviceNamePattern.matchesAny(c.when[r].devices, device.name))
            most.append(
                min(c.kinds[r].visit(MostFingers(parameters: c.parameters[r])), c.when[r].maxFingers ?? Int.max))
        }
        kindSlot = slots
        acceptedTools = tools
        maxContactSize = sizes
        deviceMayBegin = mayBegin
        mostFingers = most
        viewQueue.reserveCapacity(64)
        frameEntries.reserveCapacity(TouchTable.capacity)
    }

    // MARK: - Frames

    /// A frame of the panel: through its stage first, when it has one.
    @inline(__always)
    mutating func process(_ frame: TouchFrame, _ c: CompiledSet, into events: inout [EngineEvent]) {
        if gated {
            processThroughGate(frame, c, into: &events)
        } else {
            arbitrate(frame, c, into: &events)
        }
    }

    /// A frame through the stage, then what of it it lets through.
    @inline(never)
    private mutating func processThroughGate(_ frame: TouchFrame, _ c: CompiledSet, into events: inout [EngineEvent]) {
        let admitted = withGate { $0.admit(frame, into: &events) }
        deadlines[gateSlot] = gateBox!.gate.deadline
        if admitted {
            arbitrate(gateBox!.gate.admitted, c, into: &events)
        } else {
            updateEarliestDeadline()
        }
    }

    /// Puts a stage before the arena.
    mutating func placeGate(_ gate: ContactGate) {
        gateBox = GateBox(gate)
        gated = true
        gateSlot = deadlines.count
        deadlines.append(gate.deadline)
        updateEarliestDeadline()
    }

    /// Runs `body` on the stage, which must be there, copying it first if another arena shares it
    /// (an engine copied as a value).
    mutating func withGate<R>(_ body: (inout ContactGate) -> R) -> R {
        if !isKnownUniquelyReferenced(&gateBox!) { gateBox = GateBox(gateBox!.gate) }
        return body(&gateBox!.gate)
    }

    /// The frame's touches through the rules (R1–R9).
    private mutating func arbitrate(_ frame: TouchFrame, _ c: CompiledSet, into events: inout [EngineEvent]) {
        reports.makeUnique()
        if frame.time > now { now = frame.time }
        let time = now
        var added: UInt64 = 0
        var moved: UInt64 = 0
        var lifted: UInt64 = 0
        var cancelled: UInt64 = 0
        frameEntryCount = 0
        // The views hear of moves only while someone takes them (``viewEvent``): otherwise a
        // moving touch is not an entry of the frame at all.
        let recordsMoves = reportingMoves
        // The slot of the frame's touch before this one (``TouchTable/slot(of:after:)``).
        var previous = -1

        for touch in frame.touches {
            let known = table.slot(of: touch.id, after: previous)
            if let known { previous = known }
            switch touch.phase {
            case .began, .moved, .stationary:
                if let slot = known {
                    if touch.phase == .began {
                        // The id landed again while we think it is down (a device reusing
                        // tracking ids without a lift): the old contact is gone.
                        table.live &= ~.bit(slot)
                        table.orphans &= ~.bit(slot)
                        table.lastTouch[slot].phase = .cancelled
                        cancelled |= .bit(slot)
                        recordEntry(slot, .cancelled)
                    } else {
                        guard table.orphans & .bit(slot) == 0 else { continue }
                        table.lastTouch[slot] = touch
                        if touch.phase == .moved {
                            moved |= .bit(slot)
                            if recordsMoves { recordEntry(slot, .moved) }
                        }
                        continue
                    }
                }
                // A new touch, or one we have not seen land (down when the device appeared, or
                // before lost events): it lands now.
                var landing = touch
                landing.phase = .began
                guard let slot = land(landing, at: time, c, into: &events) else { continue }
                added |= .bit(slot)
                recordEntry(slot, .began)
            case .ended, .cancelled:
                guard let slot = known else { continue }
                table.live &= ~.bit(slot)
                if table.orphans & .bit(slot) != 0 {
                    table.orphans &= ~.bit(slot)
                    continue
                }
                table.lastTouch[slot] = touch
                if touch.phase == .ended { lifted |= .bit(slot) } else { cancelled |= .bit(slot) }
                recordEntry(slot, touch.phase)
            }
        }

        // R9: a cancelled touch (palm, lost contact) cancels what it took part in.
        if cancelled != 0 {
            for r in c.order where instances[r].seen & cancelled != 0 {
                explain(.touchesCancelled(r, cancelled), at: time, c, into: &events)
                abort(r, at: time, c, into: &events)
            }
        }

        let changed = added | moved | lifted
        if changed != 0 {
            for r in c.order {
                let seen = instances[r].seen
                let newlyAdded = instances[r].added
                if newlyAdded != 0 { instances[r].added = 0 }
                guard seen & changed != 0 else { continue }
                switch instances[r].phase {
                case .possible, .active: break
                case .held: guard c.kinds[r].isContinuous else { continue }
                case .recognized, .ended, .cancelled, .failed: continue
                }
                let input = RecognizerInput(
                    time: time, live: seen & table.live, added: newlyAdded, lifted: seen & lifted, moved: seen & moved)
                let (proposal, deadline) = update(r, c.kinds[r], input)
                syncDeadline(r, deadline)
                handle(r, proposal, at: time, c, into: &events)
            }
            if lifted != 0 { failStranded(at: time, c, into: &events) }
            if added != 0 { adopt(added, at: time, c, into: &events) }
        }

        for i in 0..<frameEntryCount {
            let entry = frameEntries[i]
            viewEvent(entry.slot, entry.phase, at: time, c, into: &events)
        }
        if table.viewPending != 0 { settleViews(at: time, c, into: &events) }
        finishCycle(c)
    }

    @inline(__always) private mutating func recordEntry(_ slot: Int, _ phase: TouchPhase) {
        if frameEntryCount < frameEntries.count {
            frameEntries[frameEntryCount] = (slot, phase)
        } else {
            frameEntries.append((slot, phase))
        }
        frameEntryCount += 1
    }

    /// Hit-tests and delivers a landing touch (R1); nil when no slot is free. Each owner's
    /// recognizers get it from the region it lands in among the regions that owner sees: the
    /// configuration's own (everyone's under `may-cover`), a client's own and the configuration's.
    private mutating func land(
        _ touch: Touch, at time: Timestamp, _ c: CompiledSet, into events: inout [EngineEvent]
    ) -> Int? {
        let p = touch.position
        let base = c.hitTest(p, seenBy: 0)
        guard let slot = table.allocate(touch, at: time, region: base) else {
            droppedTouches += 1
            return nil
        }
        ownLandings.removeAll(keepingCapacity: true)
        for region in c.firstClientRegion..<c.regionNames.count where c.regionRects[region].contains(p) {
            let group = c.regionGroups[region]
            guard !ownLandings.contains(where: { $0.group == group }) else { continue }
            let own = c.hitTest(p, seenBy: group)
            if c.regionGroups[own] == group { ownLandings.append((group, own)) }
        }
        let configurationRegion = c.configurationViewer == 0 ? base : c.hitTest(p, seenBy: c.configurationViewer)
        c.forEachDelivered(from: configurationRegion) { r in
            if c.groups[r] == 0 { offer(slot, to: r, at: time, c, &events) }
        }
        c.forEachDelivered(from: base) { r in
            let group = c.groups[r]
            if group != 0 && !ownLandings.contains(where: { $0.group == group }) {
                offer(slot, to: r, at: time, c, &events)
            }
        }
        var privacy = c.regionPrivacy[base]
        for landing in ownLandings { privacy.formUnion(c.regionPrivacy[landing.region]) }
        if !privacy.isOpen { table.setPrivacy(slot, privacy) }
        guard !ownLandings.isEmpty else { return slot }
        for (group, region) in ownLandings {
            c.forEachDelivered(from: region) { r in
                if c.groups[r] == group { offer(slot, to: r, at: time, c, &events) }
            }
        }
        table.clientRegions[slot] = ownLandings.map {
            ClientRegion(owner: c.regionOwners[$0.region], name: c.regionNames[$0.region])
        }
        table.withClientRegions |= .bit(slot)
        return slot
    }

    /// R1: ``deliver(_:to:_:)``, explained.
    @inline(__always) private mutating func offer(
        _ slot: Int, to r: Int, at time: Timestamp, _ c: CompiledSet, _ events: inout [EngineEvent]
    ) {
        let delivery = deliver(slot, to: r, c)
        explain(.delivery(r, slot: slot, delivery), at: time, c, into: &events)
    }

    /// What became of a touch offered to a recognizer (R1).
    enum Delivery {
        /// It is possible: it took the touch.
        case taken
        /// It is active with room for one more finger: it took the touch, and from the views if
        /// it claims or delays its touches (R8).
        case takenWhileActive
        /// Its `accepts` filter refused the touch.
        case refused
        /// It is active with as many fingers as it may have.
        case full
        /// It has decided (final) or waits for a failure requirement (held).
        case decided
    }

    /// R1: gives the touch in `slot` to recognizer `r` if its filter accepts it and it is
    /// listening: possible, or active with room for one more finger (a held or finished
    /// recognizer has decided). An active one takes the touch from the views at once (R8): they
    /// have not been told of it yet.
    @discardableResult
    mutating func deliver(_ slot: Int, to r: Int, _ c: CompiledSet) -> Delivery {
        let touch = table.lastTouch[slot]
        guard acceptedTools[r] & CompiledSet.Filter.bit(touch.tool) != 0,
            touch.contactSize?.value ?? 0 <= maxContactSize[r]
        else { return .refused }
        let delivery: Delivery
        switch instances[r].phase {
        case .possible:
            delivery = .taken
        case .active:
            guard hasRoom(r) else { return .full }
            let flags = c.flags[r]
            if flags.contains(.cancelsTouches) || flags.contains(.delaysTouchesBegan) {
                table.views[slot] = .finished
            }
            delivery = .takenWhileActive
        case .held, .recognized, .ended, .cancelled, .failed:
            return .decided
        }
        if instances[r].seen == 0 { instances[r].started = table.startTimes[slot] }
        instances[r].seen |= .bit(slot)
        instances[r].added |= .bit(slot)
        instances[r].touchIDs.append(touch.id)
        return delivery
    }

    /// Whether active recognizer `r` has fewer fingers down than it may have (R1).
    @inline(__always) func hasRoom(_ r: Int) -> Bool {
        (instances[r].seen & table.live).count < mostFingers[r]
    }

    /// Nothing stays stuck (R2): a recognizer still `possible` whose touches have all lifted and
    /// that has no timer left can never decide, so it fails. The kinds decide by then on their
    /// own; this is the arena's guarantee, not their logic.
    private mutating func failStranded(at time: Timestamp, _ c: CompiledSet, into events: inout [EngineEvent]) {
        for r in c.order where instances[r].phase == .possible {
            let seen = instances[r].seen
            if seen != 0 && seen & table.live == 0 && deadlines[r] == Int64.max {
                explain(.decision(r, Decision(.stranded)), at: time, c, into: &events)
                fail(r, at: time, c, into: &events)
            }
        }
    }

    /// R1's exception: a recognizer that finished in this frame with all its touches lifted
    /// resets now and receives the touches that `landed` in it — it was held or finished when
    /// they landed only because its decision came in this same frame (a held tap released by the
    /// next tap's landing must not miss that tap) — and handles them at once, as it would have
    /// had it been listening: its timers run from their landing (R7), its proposal is arbitrated,
    /// and the views hear of the touches knowing it (R8). A decision here can finish another
    /// recognizer in turn, so this goes on until none resets.
    private mutating func adopt(
        _ landed: UInt64, at time: Timestamp, _ c: CompiledSet, into events: inout [EngineEvent]
    ) {
        var resetOne = true
        while resetOne {
            resetOne = false
            for r in c.order where instances[r].phase.isFinal && instances[r].seen & table.live == 0 {
                resetOne = true
                reset(r, c)
                for slot in SlotBits(landed & table.live)
                where c.delivers(c.hitTest(table.starts[slot], seenBy: c.viewer(of: r)), to: r) {
                    deliver(slot, to: r, c)
                }
                let added = instances[r].added
                guard added != 0 else { continue }
                instances[r].added = 0
                let input = RecognizerInput(
                    time: time, live: instances[r].seen & table.live, added: added, lifted: 0, moved: 0)
                let (proposal, deadline) = update(r, c.kinds[r], input)
                syncDeadline(r, deadline)
                handle(r, proposal, at: time, c, into: &events)
            }
        }
    }

    /// Back to possible with no touches (R2).
    private mutating func reset(_ r: Int, _ c: CompiledSet) {
        instances[r] = Instance()
        deadlines[r] = Int64.max
        held[r] = nil
        resetMachine(r, c.kinds[r])
    }

    /// Puts recognizer `r` in the final state `phase` (R2): its input is ignored until all its
    /// touches lift, then ``finishCycle(_:)`` resets it.
    @inline(__always) mutating func enterFinal(_ r: Int, _ phase: Phase) {
        instances[r].phase = phase
        resetScanDue = true
    }

    /// Resets recognizers whose cycle is over (R2) and frees slots nobody refers to any more.
    mutating func finishCycle(_ c: CompiledSet) {
        if resetScanDue || liveAtLastCycle & ~table.live != 0 {
            resetScanDue = false
            for r in 0..<instances.count where instances[r].phase.isFinal && instances[r].seen & table.live == 0 {
                reset(r, c)
            }
        }
        liveAtLastCycle = table.live
        // Slots kept past their touch's lift (neither down nor waiting for the views): freed
        // unless a recognizer still counts them among its touches.
        let kept = table.allocated & ~(table.live | table.viewPending)
        if kept != 0 {
            var referenced: UInt64 = 0
            for r in 0..<instances.count { referenced |= instances[r].seen }
            table.allocated &= ~kept | referenced
        }
        updateEarliestDeadline()
    }

    /// Brings ``earliestDeadline`` up to date (after every input, so the engine reads it without
    /// scanning).
    mutating func updateEarliestDeadline() {
        earliestDeadline = deadlines.earliest()
    }

    // MARK: - Timers (R7)

    /// Fires the earliest deadline (ties in processing order), which must be due. The stage's
    /// deadline is a frame of its own at that time: recognizer timers due then fire first (R7).
    mutating func fireEarliest(_ c: CompiledSet, into events: inout [EngineEvent]) {
        reports.makeUnique()
        var chosen = -1
        var earliest = Int64.max
        for r in c.order where deadlines[r] < earliest {
            earliest = deadlines[r]
            chosen = r
        }
        if gated && deadlines[gateSlot] < earliest {
            let due = deadlines[gateSlot]
            let admitted = withGate { $0.fire(at: due, into: &events) }
            deadlines[gateSlot] = gateBox!.gate.deadline
            if admitted {
                arbitrate(gateBox!.gate.admitted, c, into: &events)
            } else {
                updateEarliestDeadline()
            }
            return
        }
        guard chosen >= 0 else { preconditionFailure("fireEarliest with no timer running; expected a due deadline") }
        let time = Timestamp(microseconds: earliest)
        if time > now { now = time }
        let (proposal, deadline) = timerFired(chosen, c.kinds[chosen], at: time)
        syncDeadline(chosen, deadline)
        if deadlines[chosen] <= earliest {
            // A machine that does not move its deadline would be fired forever.
            deadlines[chosen] = Int64.max
        }
        handle(chosen, proposal, at: time, c, into: &events, timer: true)
        failStranded(at: time, c, into: &events)
        if table.viewPending != 0 { settleViews(at: time, c, into: &events) }
        finishCycle(c)
    }

    /// Keeps the machine's `deadline` unless the recognizer is done (R2). ``DeadlineList``
    /// stores it only when it moves (most frames leave it where it was).
    @inline(__always) mutating func syncDeadline(_ r: Int, _ deadline: Timestamp?) {
        deadlines[r] = instances[r].phase.isFinal ? Int64.max : deadline?.microseconds ?? Int64.max
    }

    // MARK: - Dispatch to the machines (through the registry: specialised, no existentials)

    /// The machine's proposal for `input`, and its deadline after it.
    @inline(__always) mutating func update(
        _ r: Int, _ kind: GestureKind, _ input: RecognizerInput
    ) -> (Proposal, deadline: Timestamp?) {
        banks.visit(kind, kindSlot[r], UpdateMachine(input: input), table)
    }

    /// The machine's proposal when its deadline came, and its deadline after it.
    mutating func timerFired(_ r: Int, _ kind: GestureKind, at time: Timestamp) -> (Proposal, deadline: Timestamp?) {
        banks.visit(kind, kindSlot[r], FireMachine(time: time), table)
    }

    mutating func snapshot(_ r: Int, _ kind: GestureKind, at time: Timestamp) -> Report {
        banks.visit(kind, kindSlot[r], SnapshotMachine(time: time), table)
    }

    mutating func resetMachine(_ r: Int, _ kind: GestureKind) {
        banks.visit(kind, kindSlot[r], ResetMachine(), table)
    }

    /// The machine's whole reason for the failure it just proposed (explanations only).
    mutating func explainMachine(_ r: Int, _ kind: GestureKind, _ failure: Failure) -> Failure {
        banks.visit(kind, kindSlot[r], ExplainMachine(failure: failure), table)
    }
}

/// The kind's finger limit (``KindDefinition/mostFingers(_:)``).
private struct MostFingers: KindVisitor {
    let parameters: RecognizerParameters

    func visit<Kind: KindDefinition>(_: Kind.Type) -> Int {
        Kind.mostFingers(parameters.of(Kind.self))
    }
}

private struct UpdateMachine: MachineVisitor {
    let input: RecognizerInput

    @inline(__always) func visit<Machine: Recognizer>(
        _ machine: inout Machine, _ touches: borrowing TouchTable
    ) -> (Proposal, deadline: Timestamp?) {
        (machine.update(input, touches), machine.deadline)
    }
}

private struct FireMachine: MachineVisitor {
    let time: Timestamp

    func visit<Machine: Recognizer>(
        _ machine: inout Machine, _ touches: borrowing TouchTable
    ) -> (Proposal, deadline: Timestamp?) {
        (machine.timerFired(at: time, touches), machine.deadline)
    }
}

private struct SnapshotMachine: MachineVisitor {
    let time: Timestamp

    func visit<Machine: Recognizer>(_ machine: inout Machine, _ touches: borrowing TouchTable) -> Report {
        machine.snapshot(at: time, touches)
    }
}

private struct ExplainMachine: MachineVisitor {
    let failure: Failure

    func visit<Machine: Recognizer>(_ machine: inout Machine, _ touches: borrowing TouchTable) -> Failure {
        machine.explain(failure, touches)
    }
}

private struct ResetMachine: MachineVisitor {
    func visit<Machine: Recognizer>(_ machine: inout Machine, _: borrowing TouchTable) {
        machine.reset()
    }
}

// R1 and R2 as explanations say them (``DecisionReason``).
extension DecisionReason {
    /// R1: `accepts.tools` refused a landing touch's tool.
    public static var refusedTool: DecisionReason {
        DecisionReason(
            "refused", .r1, verb: "refused touch {touch}", sentence: "tool {tool} is not in {key}", check: "tools",
            key: "accepts.tools")
    }
    /// R1: the landing contact is larger than `accepts.max-contact-size-mm` (mm).
    public static var refusedContactSize: DecisionReason {
        DecisionReason(
            "refused", .r1, verb: "refused touch {touch}", sentence: "contact {m} mm > {key} {l}",
            check: "max-contact-size-mm", key: "accepts.max-contact-size-mm")
    }
    /// R1: the device's name matches none of `accepts.devices`.
    public static var refusedDevice: DecisionReason {
        DecisionReason(
            "refused", .r1, verb: "refused touch {touch}", sentence: "the device's name matches no glob of {key}",
            check: "devices", key: "accepts.devices")
    }
    /// R1: it is active with as many fingers down as it may have (its kind's finger limit and
    /// `when.max-fingers`), so it did not take a landing touch.
    public static var full: DecisionReason {
        DecisionReason(
            "ignored", .r1, verb: "ignored touch {touch}",
            sentence: "it is active with its most fingers ({l}) down and takes no more", check: "max-fingers")
    }
    /// R2: it has decided (a final state) and takes no new touch until all its touches lift.
    public static var ignoredDecided: DecisionReason {
        DecisionReason(
            "ignored", .r2, verb: "ignored touch {touch}",
            sentence: "it has decided and takes no new touch until all of its own have lifted")
    }
    /// R2: every touch it received lifted, it has no timer, and it had not decided: it fails.
    public static var stranded: DecisionReason {
        DecisionReason("stranded", .r2, sentence: "all its touches lifted and no timer was left before it decided")
    }
}

/// A ``ContactGate`` on the heap (``DeviceArena/withGate(_:)``). `@unchecked Sendable` as the
/// standard library's copy-on-write buffers are: it is written only by an arena holding the one
/// reference to it (``DeviceArena/withGate(_:)`` copies it first otherwise), so no two values, on
/// any threads, ever see it change.
final class GateBox: @unchecked Sendable {
    var gate: ContactGate
    init(_ gate: ContactGate) { self.gate = gate }
}

/// The recognizers' deadlines in µs (`Int64.max`: none), then the stage's, if any. The earliest is
/// found again only after one changed: the arena asks after every input, and most frames set no
/// timer and clear none.
struct DeadlineList {
    private var values: [Int64]
    private var earliestValue = Int64.max
    private var changed = false

    init(count: Int) {
        values = Array(repeating: Int64.max, count: count)
    }

    var count: Int { values.count }

    subscript(r: Int) -> Int64 {
        get { values[r] }
        set {
            guard values[r] != newValue else { return }
            values[r] = newValue
            changed = true
        }
    }

    mutating func append(_ deadline: Int64) {
        values.append(deadline)
        changed = true
    }

    /// The earliest deadline, `Int64.max` when there is none.
    mutating func earliest() -> Int64 {
        if changed {
            changed = false
            earliestValue = values.min() ?? Int64.max
        }
        return earliestValue
    }
}
