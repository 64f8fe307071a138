@testable import GestureEngine

/// What the stage before the arena did to a case's contacts, once checked against its model.
struct PanelFates {
    /// Contacts kept from everyone, with why (a dead zone, a wake).
    var dropped: [TouchID: String] = [:]
    /// Contacts ended as stuck: when, and where the event is in the log.
    var stuck: [TouchID: (time: Timestamp, index: Int)] = [:]
    /// How many wakes and idle times there were.
    var wakes = 0
    var idles = 0

    static let deadZone = "in a dead zone"
    static let wake = "swallowed by a wake"
}

/// The stage before the arena as docs/ARBITRATION.md ("Before the arena") states it, computed from
/// a random case's input alone, and compared with what the engine said it did (its `panel`
/// events, explanations included).
enum PanelModel {
    typealias Emitted = ViewStreamPropertyTests.Emitted

    /// The first difference between the model and the engine, if any; fills `fates` from the
    /// engine's events once they agree.
    static func check(_ c: RandomTouchCase, _ log: [Emitted], _ fates: inout PanelFates) -> String? {
        let panel = c.panel
        // What the engine said.
        var woken: [TouchID: WakeCause] = [:]
        var swallowed = Set<TouchID>()
        var ignored: [TouchID: Int] = [:]
        var stuck: [TouchID: (time: Timestamp, index: Int)] = [:]
        var idles: [Timestamp] = []
        var actives: [TouchID: Timestamp] = [:]
        for (i, entry) in log.enumerated() {
            guard case .panel(let e)? = entry.event else { continue }
            guard e.time == entry.at else { return "\(e.what) at \(c.ms(e.time)) emitted at \(c.ms(entry.at))" }
            switch e.what {
            case .woken(let id, _, let cause): woken[id] = cause
            case .swallowed(let id, _, _): swallowed.insert(id)
            case .ignored(let id, _, let zone): ignored[id] = zone
            case .stuckEnded(let id, _, _, _): stuck[id] = (e.time, i)
            case .idle: idles.append(e.time)
            case .active(let id): actives[id] = e.time
            }
        }

        let contacts = c.contacts.values.sorted { ($0.landed, $0.id) < ($1.landed, $1.id) }
        let scale = RandomTouchCase.device.geometry.measuringSize

        // Dead zones: where it landed, and nothing else.
        for contact in contacts {
            let zone = panel.deadZones.firstIndex { $0.contains(contact.landing) }
            if zone != ignored[contact.id] {
                return "touch \(contact.id.rawValue) landed at \(contact.landing): dead zone \(zone.map(String.init) ?? "none"),"
                    + " the engine said \(ignored[contact.id].map(String.init) ?? "none")"
            }
        }

        // Stuck: still within the distance for the time, before it lifted.
        var end: [TouchID: Timestamp] = [:]
        for contact in contacts where ignored[contact.id] == nil {
            let predicted = panel.stuckContact.flatMap { stuckTime(contact, $0, scale) }
            if predicted != stuck[contact.id]?.time {
                return "touch \(contact.id.rawValue): stuck at \(predicted.map(c.ms) ?? "never"),"
                    + " the engine said \(stuck[contact.id].map { c.ms($0.time) } ?? "never")"
            }
            let gone = [contact.lifted?.time, contact.cancelled, predicted].compactMap { $0 }.min()
            end[contact.id] = gone ?? Timestamp(microseconds: Int64.max)
        }

        // Idle: each stretch without a touch down (from the start, or the end of the last touch
        // of a run of overlapping ones, to the next landing or the case's end) that lasts
        // `idleAfter` makes the panel idle then; the landing that ends it makes it active.
        let counted = contacts.filter { ignored[$0.id] == nil }
        var expectedIdles: [Timestamp] = []
        var idleLandings = Set<TouchID>()
        if let after = panel.idleAfter {
            var quietSince = RandomTouchCase.origin
            var downUntil = Timestamp(microseconds: Int64.min)
            for contact in counted {
                if contact.landed >= downUntil {
                    if downUntil > quietSince { quietSince = downUntil }
                    if quietSince + after <= contact.landed {
                        expectedIdles.append(quietSince + after)
                        idleLandings.insert(contact.id)
                    }
                }
                downUntil = max(downUntil, end[contact.id]!)
            }
            if downUntil > quietSince { quietSince = downUntil }
            if case .wait(let final)? = c.steps.last, quietSince + after <= final {
                expectedIdles.append(quietSince + after)
            }
        }
        if idles != expectedIdles {
            return "idle at \(idles.map(c.ms)), the model says at \(expectedIdles.map(c.ms))"
        }
        for contact in counted where idleLandings.contains(contact.id) != (actives[contact.id] != nil) {
            return "touch \(contact.id.rawValue) at \(c.ms(contact.landed)): the panel was"
                + " \(idleLandings.contains(contact.id) ? "" : "not ")idle, the engine said"
                + " \(actives[contact.id] != nil ? "" : "not ")active"
        }

        // Wakes: a touch landing with nothing down while the screen was said to be off (or on an
        // idle panel, with wake-after-idle) wakes it; every touch landing while a wake's touches
        // are down is swallowed too.
        var screenSteps = c.steps.compactMap { step -> (Timestamp, Bool)? in
            if case .screen(let t, let isOn) = step { (t, isOn) } else { nil }
        }[...]
        var screenOff = false
        var wakeContacts = Set<TouchID>()
        for (k, contact) in counted.enumerated() {
            let t = contact.landed
            let live = counted[..<k].filter { end[$0.id]! > t }
            while let step = screenSteps.first, step.0 <= t {
                screenOff = !step.1
                screenSteps.removeFirst()
            }
            let waking = live.contains { wakeContacts.contains($0.id) }
            let afterIdle = idleLandings.contains(contact.id) && panel.wakeAfterIdle
            let wakes = !waking && live.isEmpty && (screenOff || afterIdle)
            let cause: WakeCause? = wakes ? (screenOff ? .screenOff : .idle) : nil
            if wakes { screenOff = false }
            if woken[contact.id] != cause {
                return "touch \(contact.id.rawValue) at \(c.ms(t)): wake \(cause.map(\.rawValue) ?? "none"),"
                    + " the engine said \(woken[contact.id].map(\.rawValue) ?? "none")"
            }
            if (waking || wakes) != swallowed.contains(contact.id) {
                return "touch \(contact.id.rawValue) at \(c.ms(t)): \(waking || wakes ? "" : "not ")swallowed by the"
                    + " model, the engine said \(swallowed.contains(contact.id) ? "" : "not ")swallowed"
            }
            if waking || wakes { wakeContacts.insert(contact.id) }
        }

        for id in swallowed { fates.dropped[id] = PanelFates.wake }
        for id in ignored.keys { fates.dropped[id] = PanelFates.deadZone }
        fates.stuck = stuck
        fates.wakes = woken.count
        fates.idles = idles.count
        return nil
    }

    /// When `contact` is ended as stuck: the first time it has stayed within the distance of one
    /// point (where it landed, or last moved farther than that) for the limit's time while down.
    static func stuckTime(_ contact: RandomTouchCase.Contact, _ limit: StuckContactLimit, _ size: PhysicalSize)
        -> Timestamp?
    {
        func mm(_ a: SurfacePoint, _ b: SurfacePoint) -> Double {
            let dx = (a.x - b.x) * size.width.value
            let dy = (a.y - b.y) * size.height.value
            return (dx * dx + dy * dy).squareRoot()
        }
        var anchor = (point: contact.landing, time: contact.landed)
        for move in contact.moves {
            if anchor.time + limit.after <= move.time { return anchor.time + limit.after }
            if mm(move.position, anchor.point) > limit.within.value { anchor = (move.position, move.time) }
        }
        guard let gone = [contact.lifted?.time, contact.cancelled].compactMap({ $0 }).min() else {
            return anchor.time + limit.after
        }
        return anchor.time + limit.after <= gone ? anchor.time + limit.after : nil
    }
}
