// R8 (docs/ARBITRATION.md): the touches as the views see them — raw-touch subscribers and the
// passthrough mirror device.

extension DeviceArena {
    /// A view event for a slot's touch as it is now, in the given phase.
    private func viewTouch(_ slot: Int, _ phase: TouchPhase, at time: Timestamp, _ c: CompiledSet) -> ViewTouchEvent {
        var touch = table.lastTouch[slot]
        touch.phase = phase
        touch.position = table.positions[slot]
        return ViewTouchEvent(device: device.id, region: c.regionNames[table.regions[slot]], touch: touch, time: time)
    }

    /// Whether a recognizer with `flag` that received the touch has not decided yet.
    private func undecided(_ slot: Int, _ flag: CompiledSet.Flags, _ c: CompiledSet) -> Bool {
        let bit = UInt64.bit(slot)
        for r in 0..<instances.count
        where instances[r].seen & bit != 0 && instances[r].phase.isUndecided && c.flags[r].contains(flag) {
            return true
        }
        return false
    }

    /// One touch of the frame, as the views should see it now.
    mutating func viewEvent(
        _ slot: Int, _ phase: TouchPhase, at time: Timestamp, _ c: CompiledSet, into events: inout [EngineEvent]
    ) {
        switch phase {
        case .began:
            let event = viewTouch(slot, .began, at: time, c)
            if undecided(slot, .delaysTouchesBegan, c) {
                table.views[slot] = .delayed
                table.viewPending |= .bit(slot)
                delayed.append(DelayedViewEvent(slot: slot, event: event))
                if explaining, let r = holder(slot, .delaysTouchesBegan, c) {
                    explain(r, .delaysTouch(event.touch.id), at: time, c, into: &events)
                }
            } else {
                table.views[slot] = .shown
                events.append(.touch(event))
            }
        case .moved, .stationary:
            // Nobody to tell (``GestureEngine/reportsTouchMoves``): the touch's state is the
            // same either way; only the event is not made.
            guard reportingMoves else { return }
            switch table.views[slot] {
            case .delayed: delayed.append(DelayedViewEvent(slot: slot, event: viewTouch(slot, phase, at: time, c)))
            case .shown: events.append(.touch(viewTouch(slot, phase, at: time, c)))
            case .endHeld, .finished: return
            }
        case .ended:
            switch table.views[slot] {
            case .delayed:
                delayed.append(DelayedViewEvent(slot: slot, event: viewTouch(slot, .ended, at: time, c)))
            case .shown:
                showEnd(slot, viewTouch(slot, .ended, at: time, c), c, into: &events)
            case .endHeld, .finished:
                return
            }
        case .cancelled:
            switch table.views[slot] {
            case .delayed:
                dropQueued(slot)
                table.views[slot] = .finished
            case .shown, .endHeld:
                table.heldEnds[slot] = nil
                table.views[slot] = .finished
                events.append(.touch(viewTouch(slot, .cancelled, at: time, c)))
            case .finished:
                return
            }
        }
    }

    /// A touch end the views may see now, unless a delays-touches-ended recognizer is undecided.
    private mutating func showEnd(
        _ slot: Int, _ event: ViewTouchEvent, _ c: CompiledSet, into events: inout [EngineEvent]
    ) {
        if undecided(slot, .delaysTouchesEnded, c) {
            table.views[slot] = .endHeld
            table.heldEnds[slot] = event
            table.viewPending |= .bit(slot)
            if explaining, let r = holder(slot, .delaysTouchesEnded, c) {
                explain(r, .holdsTouchEnd(event.touch.id), at: event.time, c, into: &events)
            }
        } else {
            table.views[slot] = .finished
            events.append(.touch(event))
        }
    }

    /// After recognizers decided: release what no undecided recognizer holds back any more, in
    /// order and with the original times.
    mutating func settleViews(at time: Timestamp, _ c: CompiledSet, into events: inout [EngineEvent]) {
        for slot in SlotBits(table.viewPending) {
            switch table.views[slot] {
            case .delayed:
                guard !undecided(slot, .delaysTouchesBegan, c) else { continue }
                table.views[slot] = .shown
                var kept = 0
                for i in delayed.indices {
                    let entry = delayed[i]
                    guard entry.slot == slot else {
                        delayed[kept] = entry
                        kept += 1
                        continue
                    }
                    switch entry.event.touch.phase {
                    case .ended: showEnd(slot, entry.event, c, into: &events)
                    case .began, .moved, .stationary, .cancelled: events.append(.touch(entry.event))
                    }
                }
                delayed.removeLast(delayed.count - kept)
                if table.views[slot] != .endHeld { table.viewPending &= ~.bit(slot) }
            case .endHeld:
                guard !undecided(slot, .delaysTouchesEnded, c), let end = table.heldEnds[slot] else { continue }
                table.heldEnds[slot] = nil
                table.views[slot] = .finished
                table.viewPending &= ~.bit(slot)
                events.append(.touch(end))
            case .shown, .finished:
                table.viewPending &= ~.bit(slot)
            }
        }
    }

    /// cancels-touches: a recognizer that began or was recognized takes its touches from the
    /// views. Those that saw a touch begin get `cancelled`; queued events of a delayed touch are
    /// dropped.
    mutating func cancelViews(_ mask: UInt64, at time: Timestamp, _ c: CompiledSet, into events: inout [EngineEvent]) {
        for slot in SlotBits(mask & table.allocated) {
            switch table.views[slot] {
            case .delayed:
                dropQueued(slot)
            case .shown, .endHeld:
                table.heldEnds[slot] = nil
                events.append(.touch(viewTouch(slot, .cancelled, at: time, c)))
            case .finished:
                continue
            }
            table.views[slot] = .finished
            table.viewPending &= ~.bit(slot)
        }
    }

    /// delays-touches-began without cancels-touches: a recognized gesture still drops what it
    /// held back; views never see those touches.
    mutating func dropDelayedViews(_ mask: UInt64) {
        for slot in SlotBits(mask & table.allocated) where table.views[slot] == .delayed {
            dropQueued(slot)
            table.views[slot] = .finished
            table.viewPending &= ~.bit(slot)
        }
    }

    private mutating func dropQueued(_ slot: Int) {
        var kept = 0
        for i in delayed.indices where delayed[i].slot != slot {
            delayed[kept] = delayed[i]
            kept += 1
        }
        delayed.removeLast(delayed.count - kept)
    }
}
