// R8 (docs/ARBITRATION.md): the touches as the views see them — raw-touch subscribers and the
// passthrough mirror device.
//
// The views get one stream per device, in the order things happened: an event is shown at once
// when nothing is held back, else it joins the queue behind what is (``DeviceArena/viewQueue``).
// The queue is released from its head up to the first event a recognizer still holds: a touch's
// events while a delays-touches-began recognizer is undecided, and its end while a
// delays-touches-ended one is. Those two are tentative (a claim drops them); every other queued
// event is final and only waits for its turn, so holding one touch delays another's events but
// never changes them, and no released event goes back in time. The queue is empty or starts with
// a held event, at every moment: what was only waiting goes out as soon as nothing held is before
// it, so when an event goes out does not depend on what waits beside it (the views' moves, which
// the engine may leave out, change nothing else).
//
// | view phase \ event | began | moved | ended | cancelled (R9) | claimed (cancels-touches) | holders decided |
// |---|---|---|---|---|---|---|
// | untold | delaying holder → delayed, else → shown; queued | — | — | — | → finished (never seen) | — |
// | delayed | — | queued | queued | drop its events → finished | drop its events → finished | → shown, or its end as on `ended` |
// | shown | — | shown or queued | ending holder → ending, else → finished; queued | → finished; `cancelled` | → finished; `cancelled` | — |
// | ending | — | — | — | — | drop its end → finished; `cancelled` | → finished |
// | finished | ignored | ignored | ignored | ignored | — | — |

extension DeviceArena {
    /// A view event for a slot's touch as it is now, in the given phase.
    private func viewTouch(_ slot: Int, _ phase: TouchPhase, at time: Timestamp, _ c: CompiledSet) -> ViewTouchEvent {
        var touch = table.lastTouch[slot]
        touch.phase = phase
        return ViewTouchEvent(
            device: device.id, region: c.regionNames[table.regions[slot]],
            clientRegions: table.withClientRegions & .bit(slot) == 0 ? [] : table.clientRegions[slot], touch: touch,
            time: time, privacy: table.privacy(of: .bit(slot)))
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

    /// The views get the slot's touch in `phase` now, unless earlier events wait in the queue:
    /// then it waits behind them. (The event is made where it goes: handing a made one over
    /// would copy it, its region string and all, once per view event.)
    @inline(__always)
    private mutating func show(
        _ slot: Int, _ phase: TouchPhase, at time: Timestamp, _ c: CompiledSet, into events: inout [EngineEvent]
    ) {
        if viewQueue.isEmpty {
            events.append(.touch(viewTouch(slot, phase, at: time, c)))
        } else {
            enqueue(slot, viewTouch(slot, phase, at: time, c))
        }
    }

    private mutating func enqueue(_ slot: Int, _ event: ViewTouchEvent) {
        viewQueue.append(QueuedViewEvent(slot: slot, event: event))
        table.viewPending |= .bit(slot)
    }

    /// One touch of the frame, as the views should see it now.
    mutating func viewEvent(
        _ slot: Int, _ phase: TouchPhase, at time: Timestamp, _ c: CompiledSet, into events: inout [EngineEvent]
    ) {
        switch phase {
        case .began:
            // Anything but untold: a recognizer claimed the touch as it landed (R8), before the
            // views were told of it.
            guard table.views[slot] == .untold else { return }
            if undecided(slot, .delaysTouchesBegan, c) {
                table.views[slot] = .delayed
                enqueue(slot, viewTouch(slot, .began, at: time, c))
                explain(.holds(slot: slot, .delaysTouchesBegan), at: time, c, into: &events)
            } else {
                table.views[slot] = .shown
                show(slot, .began, at: time, c, into: &events)
            }
        case .moved, .stationary:
            // Nobody to tell (``GestureEngine/reportsTouchMoves``): the touch's state is the
            // same either way; only the event is not made.
            guard reportingMoves else { return }
            switch table.views[slot] {
            case .delayed: enqueue(slot, viewTouch(slot, phase, at: time, c))
            case .shown: show(slot, phase, at: time, c, into: &events)
            case .untold, .ending, .finished: return
            }
        case .ended:
            switch table.views[slot] {
            case .delayed: enqueue(slot, viewTouch(slot, .ended, at: time, c))
            case .shown: showEnd(slot, at: time, c, into: &events)
            case .untold, .ending, .finished: return
            }
        case .cancelled:
            switch table.views[slot] {
            case .delayed:
                dropQueued(slot, into: &events)
                table.views[slot] = .finished
            case .shown, .ending:
                dropHeldEnd(slot, into: &events)
                table.views[slot] = .finished
                show(slot, .cancelled, at: time, c, into: &events)
            case .untold, .finished:
                return
            }
        }
    }

    /// The end of a touch the views saw begin: held while a delays-touches-ended recognizer is
    /// undecided, else final.
    private mutating func showEnd(
        _ slot: Int, at time: Timestamp, _ c: CompiledSet, into events: inout [EngineEvent]
    ) {
        if undecided(slot, .delaysTouchesEnded, c) {
            table.views[slot] = .ending
            enqueue(slot, viewTouch(slot, .ended, at: time, c))
            explain(.holds(slot: slot, .delaysTouchesEnded), at: time, c, into: &events)
        } else {
            table.views[slot] = .finished
            show(slot, .ended, at: time, c, into: &events)
        }
    }

    /// After recognizers decided: what no undecided recognizer holds back any more becomes final,
    /// and the queue is released from its head, in order and with the original times, up to the
    /// first event still held.
    mutating func settleViews(at time: Timestamp, _ c: CompiledSet, into events: inout [EngineEvent]) {
        for slot in SlotBits(table.viewPending) {
            switch table.views[slot] {
            case .delayed:
                guard !undecided(slot, .delaysTouchesBegan, c) else { continue }
                guard table.live & .bit(slot) == 0 else {
                    table.views[slot] = .shown
                    continue
                }
                // It lifted while delayed: its end is queued, and now held or final.
                if undecided(slot, .delaysTouchesEnded, c) {
                    table.views[slot] = .ending
                    explain(.holdsQueuedEnd(slot: slot), at: time, c, into: &events)
                } else {
                    table.views[slot] = .finished
                }
            case .ending:
                guard !undecided(slot, .delaysTouchesEnded, c) else { continue }
                table.views[slot] = .finished
            case .untold, .shown, .finished:
                continue
            }
        }
        releaseQueue(into: &events)
        var pending: UInt64 = 0
        for entry in viewQueue { pending |= .bit(entry.slot) }
        table.viewPending = pending
    }

    /// Sends the queue's events from its head up to the first one still held.
    private mutating func releaseQueue(into events: inout [EngineEvent]) {
        var released = 0
        while released < viewQueue.count, !isHeld(viewQueue[released]) {
            events.append(.touch(viewQueue[released].event))
            released += 1
        }
        if released > 0 { viewQueue.removeFirst(released) }
    }

    /// Whether a queued event waits for a recognizer (tentative), rather than for its turn.
    @inline(__always) private func isHeld(_ entry: QueuedViewEvent) -> Bool {
        switch table.views[entry.slot] {
        case .delayed: true
        case .ending: entry.event.touch.phase == .ended
        case .untold, .shown, .finished: false
        }
    }

    /// The end of a touch, in the queue.
    func queuedEnd(_ slot: Int) -> ViewTouchEvent? {
        viewQueue.last { $0.slot == slot && $0.event.touch.phase == .ended }?.event
    }

    /// cancels-touches: a recognizer that began or was recognized takes its touches from the
    /// views. Those that saw a touch begin get `cancelled` (in place of its end, if that was
    /// held); the events of a delayed touch are dropped, and a touch the views were not told of
    /// yet never reaches them.
    mutating func cancelViews(_ mask: UInt64, at time: Timestamp, _ c: CompiledSet, into events: inout [EngineEvent]) {
        for slot in SlotBits(mask & table.allocated) {
            switch table.views[slot] {
            case .untold:
                break
            case .delayed:
                dropQueued(slot, into: &events)
            case .shown, .ending:
                dropHeldEnd(slot, into: &events)
                show(slot, .cancelled, at: time, c, into: &events)
            case .finished:
                continue
            }
            table.views[slot] = .finished
        }
    }

    /// delays-touches-began without cancels-touches: a recognized gesture still drops what it
    /// held back; views never see those touches.
    mutating func dropDelayedViews(_ mask: UInt64, into events: inout [EngineEvent]) {
        for slot in SlotBits(mask & table.allocated) {
            switch table.views[slot] {
            case .untold: break
            case .delayed: dropQueued(slot, into: &events)
            case .shown, .ending, .finished: continue
            }
            table.views[slot] = .finished
        }
    }

    /// Drops every queued event of the touch (all tentative: it is delayed), and sends what only
    /// waited behind them.
    private mutating func dropQueued(_ slot: Int, into events: inout [EngineEvent]) {
        viewQueue.removeAll { $0.slot == slot }
        releaseQueue(into: &events)
    }

    /// Drops the touch's held end, if it is queued, and sends what only waited behind it.
    private mutating func dropHeldEnd(_ slot: Int, into events: inout [EngineEvent]) {
        guard table.views[slot] == .ending else { return }
        viewQueue.removeAll { $0.slot == slot && $0.event.touch.phase == .ended }
        releaseQueue(into: &events)
    }
}

// R8 as explanations say it (``DecisionReason``).
extension DecisionReason {
    /// R8: the views get nothing of this touch while it is undecided (delays-touches-began).
    public static var delaysTouch: DecisionReason {
        DecisionReason(
            "delays-touch", .r8, verb: "holds touch {touch} from the views",
            sentence: "it is undecided and delays-touches-began")
    }
    /// R8: the views get this touch's end only once it has decided (delays-touches-ended).
    public static var holdsTouchEnd: DecisionReason {
        DecisionReason(
            "holds-touch-end", .r8, verb: "holds the end of touch {touch} from the views",
            sentence: "it is undecided and delays-touches-ended")
    }
    /// R8: it began or was recognized: the views get `cancelled` for this touch (cancels-touches),
    /// or nothing more of it when it was delayed.
    public static var claimsTouch: DecisionReason {
        DecisionReason(
            "claims-touch", .r8, verb: "takes touch {touch} from the views", sentence: "it won and cancels-touches")
    }
}
