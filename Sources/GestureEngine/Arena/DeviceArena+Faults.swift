// R9 (docs/ARBITRATION.md): device removal, lost events and reloads cancel what is going on, and
// redefinitions carry the state of everything that stays.

extension DeviceArena {
    /// Cancels everything on this device: active gestures report `cancelled`, undecided ones fail
    /// silently (no held transition is released by it), views get what was final in their queue
    /// and then `cancelled` for every touch they saw begin, and nothing more of those delayed.
    /// Touches still down become orphans: ignored until they lift. Every recognizer starts over.
    mutating func abortAll(
        _ fault: DecisionReason, at time: Timestamp, _ c: CompiledSet, into events: inout [EngineEvent]
    ) {
        reports.makeUnique()
        if time > now { now = time }
        explain(.faults(fault), at: now, c, into: &events)
        for r in c.order {
            switch instances[r].phase {
            case .active: cancel(r, at: now, c, into: &events)
            case .possible, .held, .recognized, .ended, .cancelled, .failed: continue
            }
        }
        // What the views are sure to get goes first, in order: the queue's final events (a
        // touch's, but not those held back by a recognizer).
        for entry in viewQueue {
            switch table.views[entry.slot] {
            case .shown, .finished: events.append(.touch(entry.event))
            case .ending where entry.event.touch.phase != .ended: events.append(.touch(entry.event))
            case .untold, .delayed, .ending: continue
            }
        }
        viewQueue.removeAll(keepingCapacity: true)
        table.viewPending = 0
        for slot in SlotBits(table.allocated) {
            switch table.views[slot] {
            case .shown, .ending:
                var touch = table.lastTouch[slot]
                touch.phase = .cancelled
                events.append(
                    .touch(
                        ViewTouchEvent(
                            device: device.id, region: c.regionNames[table.regions[slot]],
                            clientRegions: table.withClientRegions & .bit(slot) == 0 ? [] : table.clientRegions[slot],
                            touch: touch, time: now, privacy: table.privacy(of: .bit(slot)))))
            case .untold, .delayed, .finished:
                break
            }
            table.views[slot] = .finished
        }
        table.orphans = table.live
        table.allocated = table.live
        for r in 0..<instances.count {
            instances[r] = Instance()
            deadlines[r] = Int64.max
            held[r] = nil
            resetMachine(r, c.kinds[r])
        }
        updateEarliestDeadline()
    }

    /// Before a client's recognizers go away: the active ones report `cancelled` (to their
    /// owner), the undecided ones simply stop.
    mutating func retire(_ removed: [Int], at time: Timestamp, _ c: CompiledSet, into events: inout [EngineEvent]) {
        reports.makeUnique()
        if time > now { now = time }
        for r in removed {
            explain(.fault(r, .definitionsRemoved), at: now, c, into: &events)
            switch instances[r].phase {
            case .active: cancel(r, at: now, c, into: &events)
            case .possible, .held:
                enterFinal(r, .failed)
                held[r] = nil
            case .recognized, .ended, .cancelled, .failed: continue
            }
        }
    }

    /// This device's state under a new compiled set. `previousIndex[r]` is the index recognizer
    /// `r` had before (-1: new, starts fresh); `changed` is the client whose definitions changed
    /// (its regions are gone: its touches forget landing there), nil for a reload. With
    /// `previousIndex` all -1 this is a fresh start that keeps only the touches (reload).
    init(carrying old: DeviceArena, compiled c: CompiledSet, previousIndex: [Int], changed: Owner?) {
        self.init(device: old.device, compiled: c)
        table = old.table
        for slot in SlotBits(table.allocated) where changed == nil {
            table.regions[slot] = 0
        }
        for slot in SlotBits(table.withClientRegions) {
            if let changed { table.clientRegions[slot].removeAll { $0.owner == changed } }
            if changed == nil || table.clientRegions[slot].isEmpty {
                table.clientRegions[slot] = []
                table.withClientRegions &= ~.bit(slot)
            }
        }
        viewQueue = old.viewQueue
        now = old.now
        clientsConnected = old.clientsConnected
        explaining = old.explaining
        reportingMoves = old.reportingMoves
        reportedKinds = old.reportedKinds
        droppedTouches = old.droppedTouches
        failures = old.failures
        // The old set's counters were folded by name (``GestureEngine/install(_:at:into:)``).
        reports = old.reports
        reports.start(c, replacing: nil)
        if let gate = old.gate { placeGate(gate) }
        for r in 0..<c.count {
            let o = previousIndex[r]
            guard o >= 0 else { continue }
            instances[r] = old.instances[o]
            deadlines[r] = old.deadlines[o]
            held[r] = old.held[o]
            let (k, ok) = (kindSlot[r], old.kindSlot[o])
            banks.carry(c.kinds[r], k, from: old.banks, ok)
        }
        updateEarliestDeadline()
    }
}

// R9 as explanations say it (``DecisionReason``).
extension DecisionReason {
    /// R9: its device was removed.
    public static var deviceRemoved: DecisionReason {
        DecisionReason("fault", .r9, verb: "stopped", sentence: "the device was removed", check: "device-removed")
    }
    /// R9: events were lost (SYN_DROPPED).
    public static var eventsLost: DecisionReason {
        DecisionReason("fault", .r9, verb: "stopped", sentence: "events were lost (SYN_DROPPED)", check: "events-lost")
    }
    /// R9: the configuration was reloaded.
    public static var reload: DecisionReason {
        DecisionReason("fault", .r9, verb: "stopped", sentence: "the configuration was reloaded", check: "reload")
    }
    /// R9: one of its touches was cancelled (palm, lost contact, a tracking id landing again).
    public static var touchCancelled: DecisionReason {
        DecisionReason(
            "fault", .r9, verb: "stopped", sentence: "touch {touch} was cancelled", check: "touch-cancelled")
    }
    /// R9: its owner's definitions were removed or replaced.
    public static var definitionsRemoved: DecisionReason {
        DecisionReason(
            "fault", .r9, verb: "stopped", sentence: "its definitions were removed", check: "definitions-removed")
    }
}
