// R2–R6 (docs/ARBITRATION.md): what happens to a recognizer's proposal.

extension DeviceArena {
    /// Applies a machine's proposal. Only a machine that has not finished is asked (updates skip
    /// finished recognizers, a finished one has no timer), and a machine proposes a begin once, a
    /// change or an end only after it: any other pairing of proposal and phase is a bug in a
    /// machine or in the arena, and stops here rather than being dropped.
    /// `timer`: the proposal came from the recognizer's deadline (R7).
    /// The commonest proposal, none, is told apart where the machine was asked, without a call.
    @inline(__always)
    mutating func handle(
        _ r: Int, _ proposal: Proposal, at time: Timestamp, _ c: CompiledSet, into events: inout [EngineEvent],
        timer: Bool = false
    ) {
        if case .none = proposal { return }
        apply(r, proposal, at: time, c, into: &events, timer: timer)
    }

    /// ``handle(_:_:at:_:into:timer:)`` for a proposal other than none.
    private mutating func apply(
        _ r: Int, _ proposal: Proposal, at time: Timestamp, _ c: CompiledSet, into events: inout [EngineEvent],
        timer: Bool
    ) {
        switch proposal {
        case .none:
            return
        case .fail(let failure):
            explain(.failed(r, failure, timer: timer), at: time, c, into: &events)
            let phase = instances[r].phase
            switch phase {
            case .possible, .held:
                failures.failed(c.kinds[r], failure.check)
                fail(r, at: time, c, into: &events)
            case .active: cancel(r, at: time, c, into: &events)
            case .recognized, .ended, .cancelled, .failed: impossible(proposal, phase, expected: "not finished")
            }
        case .begin(let report), .recognize(let report):
            let phase = instances[r].phase
            guard phase == .possible else { impossible(proposal, phase, expected: "possible") }
            attempt(r, report, at: time, c, into: &events)
        case .change(let report):
            let phase = instances[r].phase
            switch phase {
            case .active: emit(r, .changed, report, c, into: &events)
            case .held: held[r]?.change = report
            case .possible, .recognized, .ended, .cancelled, .failed:
                impossible(proposal, phase, expected: "active or held")
            }
        case .end(let report):
            let phase = instances[r].phase
            switch phase {
            case .active:
                enterFinal(r, .ended)
                deadlines[r] = Int64.max
                emit(r, .ended, report, c, into: &events)
            case .held: held[r]?.end = report
            case .possible, .recognized, .ended, .cancelled, .failed:
                impossible(proposal, phase, expected: "active or held")
            }
        }
    }

    private func impossible(_ proposal: Proposal, _ phase: Phase, expected: String) -> Never {
        preconditionFailure("a recognizer proposed \(proposal) in phase \(phase); expected phase \(expected)")
    }

    /// A recognizer would leave `possible`: R3, then R5, then R4.
    private mutating func attempt(
        _ r: Int, _ report: Report, at time: Timestamp, _ c: CompiledSet, into events: inout [EngineEvent]
    ) {
        if let gate = gateCheck(r, report, c) {
            explain(.decision(r, gate), at: time, c, into: &events)
            fail(r, at: time, c, into: &events)
            return
        }
        if let blocker = activeBlocker(r, c) {
            explain(.naming(r, .blocked, other: blocker), at: time, c, into: &events)
            fail(r, at: time, c, into: &events)
            return
        }
        switch requirementStatus(r, c) {
        case .clear:
            commit(r, report, at: time, c, into: &events)
        case .waiting(let b):
            instances[r].phase = .held
            held[r] = Held(first: report)
            explain(.naming(r, .waits, other: b), at: time, c, into: &events)
        case .refused(let b):
            explain(.naming(r, .requirementSucceeded, other: b), at: time, c, into: &events)
            fail(r, at: time, c, into: &events)
        }
    }

    /// R3: the first `when` condition that is false at the moment the recognizer would leave
    /// `possible`, if any, as the decision to explain.
    private func gateCheck(_ r: Int, _ report: Report, _ c: CompiledSet) -> Decision? {
        guard deviceMayBegin[r] else { return Decision(.gateDevice) }
        let when = c.when[r]
        let fingers = Double(report.fingers)
        if let least = when.minFingers, report.fingers < least {
            return Decision(.gateMinFingers, measured: fingers, limit: Double(least))
        }
        if let most = when.maxFingers, report.fingers > most {
            return Decision(.gateMaxFingers, measured: fingers, limit: Double(most))
        }
        if let area = when.startIn {
            for slot in SlotBits(instances[r].seen) where !area.contains(table.starts[slot]) {
                return Decision(.gateStartIn, touch: table.ids[slot])
            }
        }
        if let wanted = when.clientConnected, wanted != (clientsConnected > 0) {
            return Decision(wanted ? .gateClientConnected : .gateNoClientConnected)
        }
        return nil
    }

    /// R5: an active recognizer on one of these touches that this one is not simultaneous with
    /// and does not preempt keeps it from beginning.
    private func activeBlocker(_ r: Int, _ c: CompiledSet) -> Int? {
        let seen = instances[r].seen
        for o in 0..<instances.count where o != r && instances[o].phase == .active {
            if instances[o].seen & seen != 0 && !c.isSimultaneous(r, o) && !c.doesPreempt(r, o) { return o }
        }
        return nil
    }

    /// R4, with the recognizer that decides it (the first undecided one when waiting).
    enum RequirementStatus {
        case clear
        case waiting(Int)
        case refused(Int)
    }

    /// R4: the recognizers `r` requires to fail, among those that share a touch with it (one that
    /// never saw its touches has nothing to say about them).
    private func requirementStatus(_ r: Int, _ c: CompiledSet) -> RequirementStatus {
        let seen = instances[r].seen
        var waiting = -1
        for b in c.requires[r] where instances[b].seen & seen != 0 {
            let phase = instances[b].phase
            if phase.hasSucceeded { return .refused(b) }
            if phase.isUndecided && waiting < 0 { waiting = b }
        }
        return waiting >= 0 ? .waiting(waiting) : .clear
    }

    /// The transition happens: emit it (with what happened while it was held), then R5
    /// exclusivity, R4 dependents, R8 views.
    private mutating func commit(
        _ r: Int, _ report: Report, at time: Timestamp, _ c: CompiledSet, into events: inout [EngineEvent]
    ) {
        let waited = held[r]
        held[r] = nil
        if c.kinds[r].isContinuous {
            instances[r].phase = .active
            emit(r, .began, report, c, into: &events)
            if let change = waited?.change { emit(r, .changed, change, c, into: &events) }
            if let end = waited?.end {
                enterFinal(r, .ended)
                deadlines[r] = Int64.max
                emit(r, .ended, end, c, into: &events)
            }
        } else {
            enterFinal(r, .recognized)
            deadlines[r] = Int64.max
            emit(r, .recognized, report, c, into: &events)
        }

        // R5: every other recognizer on these touches that is not simultaneous with this one
        // fails (held ones too); active ones are cancelled only if this one preempts them. One
        // that preempts this one keeps watching: it may still take over.
        let seen = instances[r].seen
        explain(.companions(r, seen), at: time, c, into: &events)
        for o in c.order where o != r && instances[o].seen & seen != 0 && !c.isSimultaneous(r, o) {
            if c.doesPreempt(o, r) { continue }
            switch instances[o].phase {
            case .possible, .held:
                explain(.naming(o, .excluded, other: r), at: time, c, into: &events)
                fail(o, at: time, c, into: &events)
            case .active:
                if c.doesPreempt(r, o) {
                    explain(.naming(o, .preempted, other: r), at: time, c, into: &events)
                    cancel(o, at: time, c, into: &events)
                }
            case .recognized, .ended, .cancelled, .failed: break
            }
        }
        for o in c.dependents[r] where instances[o].seen & seen != 0 && instances[o].phase.isUndecided {
            explain(.naming(o, .requirementSucceeded, other: r), at: time, c, into: &events)
            fail(o, at: time, c, into: &events)
        }

        let flags = c.flags[r]
        if flags.contains(.cancelsTouches) {
            explain(.claim(r, seen), at: time, c, into: &events)
            cancelViews(seen, at: time, c, into: &events)
        } else if flags.contains(.delaysTouchesBegan) {
            dropDelayedViews(seen, into: &events)
        }
    }

    /// possible/held → failed (no report); recognizers held on this one try again (R4).
    mutating func fail(_ r: Int, at time: Timestamp, _ c: CompiledSet, into events: inout [EngineEvent]) {
        failures.failed(c.kinds[r])
        enterFinal(r, .failed)
        held[r] = nil
        deadlines[r] = Int64.max
        for o in c.dependents[r] where instances[o].phase == .held {
            switch requirementStatus(o, c) {
            case .waiting:
                continue
            case .refused(let b):
                explain(.naming(o, .requirementSucceeded, other: b), at: time, c, into: &events)
                fail(o, at: time, c, into: &events)
            case .clear:
                guard let waiting = held[o] else { continue }
                if let blocker = activeBlocker(o, c) {
                    explain(.naming(o, .blocked, other: blocker), at: time, c, into: &events)
                    fail(o, at: time, c, into: &events)
                } else {
                    explain(.naming(o, .released, other: r), at: time, c, into: &events)
                    // Emitted now, with the time and position it had when it was decided.
                    commit(o, waiting.first, at: time, c, into: &events)
                }
            }
        }
    }

    /// active → cancelled, reporting the gesture as it stands.
    mutating func cancel(_ r: Int, at time: Timestamp, _ c: CompiledSet, into events: inout [EngineEvent]) {
        enterFinal(r, .cancelled)
        deadlines[r] = Int64.max
        emit(r, .cancelled, snapshot(r, c.kinds[r], at: time), c, into: &events)
    }

    /// A touch of the recognizer was cancelled (R9): whatever it was doing stops.
    mutating func abort(_ r: Int, at time: Timestamp, _ c: CompiledSet, into events: inout [EngineEvent]) {
        switch instances[r].phase {
        case .possible, .held: fail(r, at: time, c, into: &events)
        case .active: cancel(r, at: time, c, into: &events)
        case .recognized, .ended, .cancelled, .failed: return
        }
    }

    /// Appends the report as a gesture event.
    mutating func emit(
        _ r: Int, _ state: GestureState, _ report: Report, _ c: CompiledSet, into events: inout [EngineEvent]
    ) {
        let geometry = device.geometry
        var shape: String?
        if let index = report.shape { shape = c.shapeNames[r]?[index] }
        reports.count(r, state)
        guard reportedKinds & 1 << c.kinds[r].index != 0 else { return }
        // The memberwise initializers (GestureEvent): the event is assembled in place, with no copy
        // of it made and destroyed on the way into the caller's buffer.
        events.append(
            .gesture(
                GestureEvent(
                    owner: c.owners[r], device: device.id,
                    report: GestureReport(
                        name: c.names[r], kind: c.kinds[r], state: state, region: c.regionNames[c.regionOf[r]],
                        fingers: report.fingers, touches: instances[r].touchIDs, time: report.time,
                        startTime: instances[r].started,
                        position: report.position, positionMM: geometry.physical(report.position),
                        translation: report.translation, translationMM: geometry.physical(report.translation),
                        velocity: report.velocity, velocityMM: geometry.physical(report.velocity),
                        scale: report.scale, rotation: report.rotation, scaleVelocity: report.scaleVelocity,
                        rotationVelocity: report.rotationVelocity, direction: report.direction, edge: report.edge,
                        shape: shape, score: report.score),
                    privacy: table.privacy(of: instances[r].seen))))
    }
}

// R3–R7 as explanations say them (``DecisionReason``).
extension DecisionReason {
    /// Its own check failed on a frame (docs/RECOGNIZERS.md): the check's sentence says why.
    public static var failed: DecisionReason { DecisionReason("failed", nil, sentence: "{check}") }
    /// R7: its own check failed when its deadline fired.
    public static var failedAtDeadline: DecisionReason { DecisionReason("failed", .r7, sentence: "{check}") }

    /// R3: it reported fewer fingers than `when.min-fingers`.
    public static var gateMinFingers: DecisionReason {
        DecisionReason("gate", .r3, sentence: "{fingers} < {key} {l}", check: "min-fingers", key: "when.min-fingers")
    }
    /// R3: it reported more fingers than `when.max-fingers`.
    public static var gateMaxFingers: DecisionReason {
        DecisionReason("gate", .r3, sentence: "{fingers} > {key} {l}", check: "max-fingers", key: "when.max-fingers")
    }
    /// R3: one of its touches landed outside `when.start-in`.
    public static var gateStartIn: DecisionReason {
        DecisionReason(
            "gate", .r3, sentence: "touch {touch} landed outside {key}", check: "start-in", key: "when.start-in")
    }
    /// R3: the device's name matches none of `when.devices`.
    public static var gateDevice: DecisionReason {
        DecisionReason(
            "gate", .r3, sentence: "the device's name matches no glob of {key}", check: "devices", key: "when.devices")
    }
    /// R3: `when.client-connected` is true and no client is connected.
    public static var gateClientConnected: DecisionReason {
        DecisionReason(
            "gate", .r3, sentence: "{key} is true and no client is connected", check: "client-connected",
            key: "when.client-connected")
    }
    /// R3: `when.client-connected` is false and a client is connected.
    public static var gateNoClientConnected: DecisionReason {
        DecisionReason(
            "gate", .r3, sentence: "{key} is false and a client is connected", check: "client-connected",
            key: "when.client-connected")
    }

    /// R4: it waits for a failure requirement (held) and takes no landing touch.
    public static var ignoredHeld: DecisionReason {
        DecisionReason(
            "ignored", .r4, verb: "ignored touch {touch}",
            sentence: "it waits for a recognizer it requires to fail and takes no new touches")
    }
    /// R4: it would begin or be recognized, but waits for the other recognizer to fail (held).
    public static var waits: DecisionReason {
        DecisionReason("waits", .r4, verb: "waits", sentence: " for \"{other}\" to fail")
    }
    /// R4: the recognizer it waited for failed; its held transition happens now.
    public static var released: DecisionReason {
        DecisionReason("released", .r4, verb: "released", sentence: "\"{other}\", which it waited for, failed")
    }
    /// R4: a recognizer it requires to fail began or was recognized; it fails.
    public static var requirementSucceeded: DecisionReason {
        DecisionReason(
            "requirement-succeeded", .r4, sentence: "\"{other}\", which it requires to fail, began or was recognized")
    }

    /// R5: an active recognizer on its touches that it neither is simultaneous with nor preempts
    /// refused its transition; it fails.
    public static var blocked: DecisionReason {
        DecisionReason(
            "blocked", .r5, verb: "blocked", sentence: "\"{other}\" began first and they are not simultaneous")
    }
    /// R5: the other recognizer began or was recognized on its touches and they are not
    /// simultaneous; it fails.
    public static var excluded: DecisionReason {
        DecisionReason("excluded", .r5, sentence: "\"{other}\" took its touches and they are not simultaneous")
    }
    /// R5: the other recognizer began or was recognized and preempts it; it is cancelled.
    public static var preempted: DecisionReason {
        DecisionReason("preempted", .r5, verb: "cancelled", sentence: "\"{other}\" preempts it")
    }
    /// R5: the other recognizer began or was recognized on its touches, but it preempts that one,
    /// so it keeps watching.
    public static var keepsWatching: DecisionReason {
        DecisionReason(
            "keeps-watching", .r5, verb: "keeps watching",
            sentence: "\"{other}\" took its touches, and it preempts \"{other}\"")
    }
    /// R6: the other recognizer began or was recognized on its touches; they are simultaneous, so
    /// it carries on.
    public static var simultaneous: DecisionReason {
        DecisionReason(
            "simultaneous", .r6, verb: "carries on", sentence: "\"{other}\" took its touches, and they are simultaneous")
    }
}
