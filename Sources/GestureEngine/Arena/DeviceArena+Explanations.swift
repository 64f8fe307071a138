// Explanations: the arena's decisions as `.explanation` events (``GestureEngine/explains``).
//
// Where a rule decides, it says so in one line — `explain(.naming(o, .excluded, other: r), at:
// time, c, into: &events)`, with the reason (``DecisionReason``, its texts) declared beside that
// rule — and this file is the one switch behind every such line: ``explain(_:at:_:into:)`` tests
// ``DeviceArena/explaining`` and only then builds the diagnostic (an autoclosure) and turns it
// into an ``Explanation`` out of line. Off, a diagnostic costs a load and a branch where it
// stands; the rules never test the flag themselves.

extension DeviceArena {
    /// One thing the arena can explain, as the rule that decided it sees it: recognizer indices,
    /// slots and masks; ``record(_:at:_:into:)`` looks up the names and turns it into
    /// explanations.
    enum Diagnostic {
        /// A decision about `r` that names no other recognizer.
        case decision(Int, Decision)
        /// A decision about `r` that names recognizer `other` (R4–R6).
        case naming(Int, DecisionReason, other: Int)
        /// `r`'s own check failed: its machine completes the reason (it has not reset yet).
        case failed(Int, Failure, timer: Bool)
        /// R9: a fault stops `r`.
        case fault(Int, DecisionReason)
        /// R9: a fault stops every recognizer of the device.
        case faults(DecisionReason)
        /// R9: touches of `r` in the mask were cancelled.
        case touchesCancelled(Int, UInt64)
        /// R1: what became of the touch in the slot offered to `r` (``deliver(_:to:_:)``).
        case delivery(Int, slot: Int, Delivery)
        /// R5, R6: the recognizers on these touches of `r` that carry on as it begins or is
        /// recognized.
        case companions(Int, UInt64)
        /// R8: `r`'s claim takes these touches from the views.
        case claim(Int, UInt64)
        /// R8: the recognizer with the flag holds the slot's touch (its events, or its end) back
        /// from the views.
        case holds(slot: Int, CompiledSet.Flags)
        /// R8: as `holds` with delays-touches-ended, for an end already queued (explained at its
        /// own time).
        case holdsQueuedEnd(slot: Int)
    }

    /// The one switch: explains `diagnostic` when decisions are explained, else does nothing (the
    /// diagnostic is not even made).
    @inline(__always)
    mutating func explain(
        _ diagnostic: @autoclosure () -> Diagnostic, at time: Timestamp, _ c: CompiledSet,
        into events: inout [EngineEvent]
    ) {
        if explaining { record(diagnostic(), at: time, c, into: &events) }
    }

    @inline(never)
    private mutating func record(
        _ diagnostic: Diagnostic, at time: Timestamp, _ c: CompiledSet, into events: inout [EngineEvent]
    ) {
        switch diagnostic {
        case .decision(let r, let decision):
            append(r, decision, at: time, c, into: &events)
        case .naming(let r, let reason, let other):
            append(r, Decision(reason, other: c.names[other]), naming: other, at: time, c, into: &events)
        case .failed(let r, let failure, let timer):
            let full = explainMachine(r, c.kinds[r], failure)
            append(r, Decision(timer ? .failedAtDeadline : .failed, failure: full), at: time, c, into: &events)
        case .fault(let r, let reason):
            appendFault(r, Decision(reason), at: time, c, into: &events)
        case .faults(let reason):
            for r in c.order { appendFault(r, Decision(reason), at: time, c, into: &events) }
        case .touchesCancelled(let r, let cancelled):
            let touch = table.lastTouch[(instances[r].seen & cancelled).trailingZeroBitCount].id
            appendFault(r, Decision(.touchCancelled, touch: touch), at: time, c, into: &events)
        case .delivery(let r, let slot, let delivery):
            let touch = table.lastTouch[slot]
            let about = UInt64.bit(slot)
            switch delivery {
            case .taken:
                return
            case .takenWhileActive:
                if c.flags[r].contains(.cancelsTouches) {
                    append(r, Decision(.claimsTouch, touch: touch.id), about: about, at: time, c, into: &events)
                }
            case .refused:
                append(r, refusal(touch, r), about: about, at: time, c, into: &events)
            case .full:
                let most = Double(mostFingers[r])
                append(
                    r, Decision(.full, touch: touch.id, measured: most, limit: most), about: about, at: time, c,
                    into: &events)
            case .decided:
                let reason: DecisionReason = instances[r].phase == .held ? .ignoredHeld : .ignoredDecided
                append(r, Decision(reason, touch: touch.id), about: about, at: time, c, into: &events)
            }
        case .companions(let r, let seen):
            for o in c.order where o != r && instances[o].seen & seen != 0 && c.meet(r, o) {
                switch instances[o].phase {
                case .possible, .held, .active:
                    if c.isSimultaneous(r, o) {
                        append(o, Decision(.simultaneous, other: c.names[r]), naming: r, at: time, c, into: &events)
                    } else if c.doesPreempt(o, r) {
                        append(o, Decision(.keepsWatching, other: c.names[r]), naming: r, at: time, c, into: &events)
                    }
                case .recognized, .ended, .cancelled, .failed: break
                }
            }
        case .claim(let r, let mask):
            for slot in SlotBits(mask & table.allocated) {
                switch table.views[slot] {
                case .delayed, .shown, .ending:
                    append(r, Decision(.claimsTouch, touch: table.ids[slot]), at: time, c, into: &events)
                case .untold, .finished:
                    continue
                }
            }
        case .holds(let slot, let flag):
            guard let r = holder(slot, flag, c) else { return }
            let reason: DecisionReason = flag == .delaysTouchesBegan ? .delaysTouch : .holdsTouchEnd
            append(r, Decision(reason, touch: table.ids[slot]), at: time, c, into: &events)
        case .holdsQueuedEnd(let slot):
            guard let r = holder(slot, .delaysTouchesEnded, c), let end = queuedEnd(slot) else { return }
            append(r, Decision(.holdsTouchEnd, touch: end.touch.id), at: end.time, c, into: &events)
        }
    }

    /// Appends an explanation of a decision about recognizer `r`, naming recognizer `other` if
    /// the decision does; as private as the touches `r` has taken and those of `about`.
    private func append(
        _ r: Int, _ decision: Decision, naming other: Int? = nil, about: UInt64 = 0, at time: Timestamp,
        _ c: CompiledSet, into events: inout [EngineEvent]
    ) {
        events.append(
            .explanation(
                Explanation(
                    name: c.names[r], kind: c.kinds[r], owner: c.owners[r], device: device.id,
                    region: c.regionNames[c.regionOf[r]], time: time, decision: decision,
                    otherOwner: other.map { c.owners[$0] }, privacy: table.privacy(of: instances[r].seen | about))))
    }

    /// R9: a fault stops `r`: explained when it is doing something (undecided with touches, held
    /// or active); a recognizer that has decided or never saw a touch has nothing to lose.
    private func appendFault(
        _ r: Int, _ fault: Decision, at time: Timestamp, _ c: CompiledSet, into events: inout [EngineEvent]
    ) {
        switch instances[r].phase {
        case .possible: guard instances[r].seen != 0 else { return }
        case .held, .active: break
        case .recognized, .ended, .cancelled, .failed: return
        }
        append(r, fault, at: time, c, into: &events)
    }

    /// R1: which part of `r`'s filter refused the touch (``deliver(_:to:_:)`` said that one did).
    private func refusal(_ touch: Touch, _ r: Int) -> Decision {
        if acceptedTools[r] == 0 { return Decision(.refusedDevice, touch: touch.id) }
        if acceptedTools[r] & CompiledSet.Filter.bit(touch.tool) == 0 {
            return Decision(.refusedTool, touch: touch.id, tool: touch.tool)
        }
        return Decision(
            .refusedContactSize, touch: touch.id, measured: touch.contactSize?.value ?? 0, limit: maxContactSize[r])
    }

    /// R8: the recognizer that holds a touch's view events back with `flag`, if any.
    private func holder(_ slot: Int, _ flag: CompiledSet.Flags, _ c: CompiledSet) -> Int? {
        let bit = UInt64.bit(slot)
        for r in c.order
        where instances[r].seen & bit != 0 && instances[r].phase.isUndecided && c.flags[r].contains(flag) {
            return r
        }
        return nil
    }
}
