// Explanations (issue 14): the arena's decisions as `.explanation` events, made only while
// ``DeviceArena/explaining`` is on. Every call site checks the flag first, so an engine that does
// not explain runs none of this; these functions are kept out of line so the frame path's code
// does not grow either.

extension DeviceArena {
    /// Appends an explanation of a decision about recognizer `r`.
    @inline(never)
    mutating func explain(
        _ r: Int, _ decision: Decision, at time: Timestamp, _ c: CompiledSet, into events: inout [EngineEvent]
    ) {
        events.append(
            .explanation(
                Explanation(
                    name: c.names[r], kind: c.kinds[r], owner: c.owners[r], device: device.id,
                    region: c.regionNames[c.regionOf[r]], time: time, decision: decision)))
    }

    /// Appends an explanation of a decision about recognizer `r` that names recognizer `other`.
    @inline(never)
    mutating func explain(
        _ r: Int, _ decision: (String) -> Decision, naming other: Int, at time: Timestamp, _ c: CompiledSet,
        into events: inout [EngineEvent]
    ) {
        events.append(
            .explanation(
                Explanation(
                    name: c.names[r], kind: c.kinds[r], owner: c.owners[r], device: device.id,
                    region: c.regionNames[c.regionOf[r]], time: time, decision: decision(c.names[other]),
                    otherOwner: c.owners[other])))
    }

    /// A recognizer's own check failed: its machine completes the reason (it has not reset yet).
    @inline(never)
    mutating func explainFailure(
        _ r: Int, _ failure: Failure, timer: Bool, at time: Timestamp, _ c: CompiledSet,
        into events: inout [EngineEvent]
    ) {
        let full = explainMachine(r, c.kinds[r], failure)
        explain(r, .failed(full, timer: timer), at: time, c, into: &events)
    }

    /// R9: a fault stops `r`: explained when it is doing something (undecided with touches, held
    /// or active); a recognizer that has decided or never saw a touch has nothing to lose.
    @inline(never)
    mutating func explainFault(
        _ r: Int, _ fault: Fault, at time: Timestamp, _ c: CompiledSet, into events: inout [EngineEvent]
    ) {
        switch instances[r].phase {
        case .possible: guard instances[r].seen != 0 else { return }
        case .held, .active: break
        case .recognized, .ended, .cancelled, .failed: return
        }
        explain(r, .fault(fault), at: time, c, into: &events)
    }

    /// R1 as ``deliver(_:to:_:)``, saying why a recognizer does not take the touch (and that an
    /// active one takes it from the views, R8).
    @inline(never)
    mutating func deliverExplaining(
        _ slot: Int, to r: Int, at time: Timestamp, _ c: CompiledSet, into events: inout [EngineEvent]
    ) {
        let touch = table.lastTouch[slot]
        if acceptedTools[r] == 0 {
            explain(r, .refused(touch.id, .device), at: time, c, into: &events)
        } else if acceptedTools[r] & CompiledSet.Filter.bit(touch.tool) == 0 {
            explain(r, .refused(touch.id, .tool(touch.tool)), at: time, c, into: &events)
        } else if let size = touch.contactSize?.value, size > maxContactSize[r] {
            explain(r, .refused(touch.id, .contactSize(size, limit: maxContactSize[r])), at: time, c, into: &events)
        } else {
            switch instances[r].phase {
            case .possible:
                deliver(slot, to: r, c)
            case .active:
                guard hasRoom(r) else {
                    explain(r, .full(touch.id, fingers: mostFingers[r]), at: time, c, into: &events)
                    return
                }
                deliver(slot, to: r, c)
                if c.flags[r].contains(.cancelsTouches) {
                    explain(r, .claimsTouch(touch.id), at: time, c, into: &events)
                }
            case .held: explain(r, .ignored(touch.id, held: true), at: time, c, into: &events)
            case .recognized, .ended, .cancelled, .failed:
                explain(r, .ignored(touch.id, held: false), at: time, c, into: &events)
            }
        }
    }

    /// R8: the recognizer that holds a touch's view events back with `flag`, if any.
    func holder(_ slot: Int, _ flag: CompiledSet.Flags, _ c: CompiledSet) -> Int? {
        let bit = UInt64.bit(slot)
        for r in c.order
        where instances[r].seen & bit != 0 && instances[r].phase.isUndecided && c.flags[r].contains(flag) {
            return r
        }
        return nil
    }

    /// R8: explains that `r`'s claim takes these touches from the views.
    @inline(never)
    mutating func explainClaim(
        _ r: Int, _ mask: UInt64, at time: Timestamp, _ c: CompiledSet, into events: inout [EngineEvent]
    ) {
        for slot in SlotBits(mask & table.allocated) {
            switch table.views[slot] {
            case .delayed, .shown, .ending:
                explain(r, .claimsTouch(table.ids[slot]), at: time, c, into: &events)
            case .untold, .finished:
                continue
            }
        }
    }
}
