/// One panel's stage before its arena (``PanelSettings``; docs/ARBITRATION.md, "Before the
/// arena"): which contacts reach the arena at all, when a still one is ended, and when the panel is
/// idle. Pure and clock-free like the arena: frames and deadlines in, a frame for the arena and
/// ``PanelEvent``s out. A panel without settings has no gate, and its frames go straight to the
/// arena.
///
/// Each contact has a fate, decided where it lands and kept until it lifts:
///
/// | contact \ event | lands | moves, stays | still for `after` | lifts |
/// |---|---|---|---|---|
/// | (new) | in a dead zone → ignored; panel waking → swallowed; the screen off (or idle with `wakeAfterIdle`) and nothing else down → swallowed, the panel waking (`woken`); else → passing | — | — | — |
/// | passing | — | to the arena | → ended: `cancelled` to the arena, `stuckEnded` | to the arena; gone |
/// | swallowed | — | dropped | → ended, `stuckEnded` | dropped; gone |
/// | ignored | — | dropped | — | dropped; gone |
/// | ended | — | dropped | — | dropped; gone |
///
/// and the panel a state, in which passing and swallowed contacts count as touches:
///
/// | panel \ event | a touch lands | the last touch lifts or ends | `idleAfter` passed with none down |
/// |---|---|---|---|
/// | awake | the screen off and nothing down → waking | — | → idle (`idle`) |
/// | idle | `active`; the screen off, or `wakeAfterIdle` → waking; else → awake | — | — |
/// | waking | (swallowed) | → awake | — |
///
/// "The screen off" is what the caller last said (``GestureEngine/screen(_:isOn:)``), and a wake
/// clears it: the gate takes the screen to be on from then on until told otherwise.
struct ContactGate {
    /// What became of a contact where it landed (the table above).
    enum Fate: UInt8 {
        case passing, swallowed, ignored, ended

        /// A person's touch: it keeps the panel awake and may be stuck.
        var counts: Bool {
            switch self {
            case .passing, .swallowed: true
            case .ignored, .ended: false
            }
        }
    }

    enum State: UInt8 {
        case awake, idle, waking
    }

    struct Contact {
        var fate: Fate
        /// The touch as last reported (for the cancel the arena gets when it is ended).
        var last: Touch
        /// Where it has stayed, and since when (µs): it moved farther than the limit's distance
        /// from here before that, or landed then.
        var anchor: SurfacePoint
        var anchorTime: Int64
    }

    let device: DeviceID
    let deadZones: [SurfaceRect]
    /// The stuck-contact limit in µs (`Int64.max`: none) and in millimetres.
    let stuckAfter: Int64
    let stuckWithin: Double
    /// `Int64.max`: never idle.
    let idleAfter: Int64
    let wakeAfterIdle: Bool
    let scale: MeasuringScale

    private(set) var state = State.awake
    /// What the caller last said about the screen, until a wake.
    var screenOff = false
    /// The contacts on the panel, by id (a few at a time: a list beats hashing).
    private var contacts: [Contact] = []
    /// Passing and swallowed contacts down.
    private var touchesDown = 0
    /// When the last touch lifted or ended, or the panel was added (µs); nil: not known yet (the
    /// idle clock starts at the first frame).
    private var quietSince: Int64?
    /// The latest time seen: like the arena's, it never runs backwards.
    private var now = Int64.min
    /// When ``fire(at:into:)`` must be called next (µs; `Int64.max`: never).
    private(set) var deadline = Int64.max
    /// Where stuck contacts were ended, with how many there (at most ``stuckPlaceCount``).
    private var stuckPlaces: [(place: SurfacePoint, count: Int)] = []
    static let stuckPlaceCount = 8
    /// What reaches the arena of the frame given to ``admit(_:into:)`` or made by
    /// ``fire(at:into:)``; kept between frames for its storage.
    private(set) var admitted: TouchFrame

    init(device: DeviceDescriptor, settings: PanelSettings, at time: Timestamp?) {
        self.device = device.id
        deadZones = settings.deadZones
        stuckAfter = settings.stuckContact?.after.microseconds ?? Int64.max
        stuckWithin = settings.stuckContact?.within.value ?? 0
        idleAfter = settings.idleAfter?.microseconds ?? Int64.max
        wakeAfterIdle = settings.wakeAfterIdle && settings.idleAfter != nil
        scale = MeasuringScale(device.geometry)
        quietSince = time?.microseconds
        if let time { now = time.microseconds }
        admitted = TouchFrame(device: device.id, time: time ?? Timestamp(microseconds: 0), touches: [])
        admitted.touches.reserveCapacity(16)
        contacts.reserveCapacity(16)
        updateDeadline()
    }

    // MARK: - Frames

    /// Takes a frame of the panel: decides the fate of what lands, and leaves in ``admitted``
    /// what of it reaches the arena. Returns whether anything does.
    mutating func admit(_ frame: TouchFrame, into events: inout [EngineEvent]) -> Bool {
        if frame.time.microseconds > now { now = frame.time.microseconds }
        if quietSince == nil { quietSince = now }
        admitted.time = Timestamp(microseconds: now)
        admitted.touches.removeAll(keepingCapacity: true)
        for touch in frame.touches {
            let known = index(of: touch.id)
            switch touch.phase {
            case .began, .moved, .stationary:
                if let k = known {
                    guard touch.phase == .began else {
                        follow(k, touch)
                        continue
                    }
                    // The id landed again without a lift: the old contact is gone (the arena,
                    // which knows it too, ends it when the new one reaches it; else it is told).
                    let old = contacts[k]
                    forget(k)
                    if old.fate == .passing && land(touch, into: &events) != .passing {
                        var cancel = old.last
                        cancel.phase = .cancelled
                        admitted.touches.append(cancel)
                    }
                    continue
                }
                // A new contact, or one not seen land (down when the panel was added).
                _ = land(touch, into: &events)
            case .ended, .cancelled:
                guard let k = known else {
                    // Nothing the gate kept back: the arena ignores what it does not know.
                    admitted.touches.append(touch)
                    continue
                }
                if contacts[k].fate == .passing { admitted.touches.append(touch) }
                forget(k)
            }
        }
        updateDeadline()
        return !admitted.touches.isEmpty
    }

    /// Decides the fate of a contact that lands now; a passing one goes to ``admitted``.
    private mutating func land(_ touch: Touch, into events: inout [EngineEvent]) -> Fate {
        let p = touch.position
        for zone in deadZones.indices where deadZones[zone].contains(p) {
            emit(.ignored(touch.id, at: p, zone: zone), into: &events)
            contacts.append(Contact(fate: .ignored, last: touch, anchor: p, anchorTime: now))
            return .ignored
        }
        let fate: Fate
        switch state {
        case .waking:
            fate = .swallowed
            emit(.swallowed(touch.id, at: p, cause: nil), into: &events)
        case .idle:
            emit(.active(touch.id), into: &events)
            if screenOff || wakeAfterIdle {
                fate = wake(touch, cause: screenOff ? .screenOff : .idle, into: &events)
            } else {
                state = .awake
                fate = .passing
            }
        case .awake:
            fate = screenOff && touchesDown == 0 ? wake(touch, cause: .screenOff, into: &events) : .passing
        }
        if fate == .passing { admitted.touches.append(touch) }
        contacts.append(Contact(fate: fate, last: touch, anchor: p, anchorTime: now))
        touchesDown += 1
        return fate
    }

    /// The touch wakes the panel: it and every touch that lands before the wake's touches are
    /// all up reach nobody.
    private mutating func wake(_ touch: Touch, cause: WakeCause, into events: inout [EngineEvent]) -> Fate {
        state = .waking
        screenOff = false
        emit(.woken(touch.id, at: touch.position, cause: cause), into: &events)
        emit(.swallowed(touch.id, at: touch.position, cause: cause), into: &events)
        return .swallowed
    }

    /// A known contact moved or stayed: passing ones go on to the arena; a move farther than the
    /// stuck limit's distance from where it stayed starts its stillness again.
    private mutating func follow(_ k: Int, _ touch: Touch) {
        contacts[k].last = touch
        switch contacts[k].fate {
        case .passing: admitted.touches.append(touch)
        case .swallowed: break
        case .ignored, .ended: return
        }
        guard stuckAfter != Int64.max, touch.phase == .moved else { return }
        if scale.mm(touch.position - contacts[k].anchor).length > stuckWithin {
            contacts[k].anchor = touch.position
            contacts[k].anchorTime = now
        }
    }

    /// The contact lifted (or was cancelled by the panel): it is gone.
    private mutating func forget(_ k: Int) {
        if contacts[k].fate.counts { touchDone() }
        contacts.remove(at: k)
    }

    /// A touch lifted or ended: the last one ends a wake and starts the quiet.
    private mutating func touchDone() {
        touchesDown -= 1
        guard touchesDown == 0 else { return }
        quietSince = now
        if state == .waking { state = .awake }
    }

    // MARK: - Deadlines

    /// The deadline came (``deadline``, due at `time`): contacts still that long are ended — what
    /// the arena must hear of it is left in ``admitted`` (returns whether anything is) — and the
    /// panel goes idle when it is time.
    mutating func fire(at time: Int64, into events: inout [EngineEvent]) -> Bool {
        if time > now { now = time }
        admitted.time = Timestamp(microseconds: now)
        admitted.touches.removeAll(keepingCapacity: true)
        if stuckAfter != Int64.max {
            for k in contacts.indices where contacts[k].fate.counts && contacts[k].anchorTime &+ stuckAfter <= now {
                end(k, into: &events)
            }
        }
        if idleAfter != Int64.max, state == .awake, touchesDown == 0, let quietSince, quietSince &+ idleAfter <= now {
            state = .idle
            emit(.idle(after: TimeSpan(microseconds: idleAfter)), into: &events)
        }
        updateDeadline()
        return !admitted.touches.isEmpty
    }

    /// Ends a stuck contact: the arena gets it `cancelled` (when it had it), and the gate drops
    /// what the panel still reports of it until it lifts.
    private mutating func end(_ k: Int, into events: inout [EngineEvent]) {
        let contact = contacts[k]
        if contact.fate == .passing {
            var cancel = contact.last
            cancel.phase = .cancelled
            admitted.touches.append(cancel)
        }
        contacts[k].fate = .ended
        let place = contact.last.position
        let repeats = recordStuckPlace(place)
        emit(
            .stuckEnded(contact.last.id, at: place, still: TimeSpan(microseconds: now - contact.anchorTime), repeats: repeats),
            into: &events)
        touchDone()
    }

    /// How many contacts were ended at `place` before this one, which is counted there now.
    private mutating func recordStuckPlace(_ place: SurfacePoint) -> Int {
        let same = PanelEvent.samePlace.value
        if let i = stuckPlaces.firstIndex(where: { scale.mm(place - $0.place).length <= same }) {
            stuckPlaces[i].count += 1
            return stuckPlaces[i].count - 1
        }
        if stuckPlaces.count == Self.stuckPlaceCount { stuckPlaces.removeFirst() }
        stuckPlaces.append((place, 1))
        return 0
    }

    private mutating func updateDeadline() {
        var earliest = Int64.max
        if stuckAfter != Int64.max {
            for contact in contacts where contact.fate.counts {
                earliest = min(earliest, contact.anchorTime &+ stuckAfter)
            }
        }
        if idleAfter != Int64.max, state == .awake, touchesDown == 0, let quietSince {
            earliest = min(earliest, quietSince &+ idleAfter)
        }
        deadline = earliest
    }

    // MARK: - Helpers

    private func index(of id: TouchID) -> Int? {
        for k in contacts.indices where contacts[k].last.id == id { return k }
        return nil
    }

    private func emit(_ what: PanelEvent.What, into events: inout [EngineEvent]) {
        events.append(.panel(PanelEvent(device: device, time: Timestamp(microseconds: now), what: what)))
    }
}
