import GestureEngine
import GestureMetrics

/// What an event of the stage before a panel's arena is to everyone who hears of it, declared once
/// for each (``PanelEvent/declared(deviceLabel:)``): the message it becomes, its sentence — the
/// `contact` message's `text` and the journal's line alike — how loudly the journal says it, and
/// the counters it adds one to. The wire mapping sends the message; the frame path counts it and
/// writes the journal's line. A new panel event is a case of the engine's ``PanelEvent/What`` and
/// its case here (CONTRIBUTING.md, "Adding a panel event").
public struct PanelEventDeclaration: Sendable {
    /// `wake`, `idle` and `active` go to every connection; a `contact` to the connections that
    /// take explanations.
    public var message: ServerMessage
    public var sentence: String
    /// The journal's level for it; nil: the journal does not say it (what only explanations tell).
    public var journal: JournalLevel?
    public var counters: [Counter]

    /// A `contact` message, its `text` the sentence.
    static func contact(
        _ contact: ContactMessage, sentence: String, journal: JournalLevel?, counters: [Counter]
    ) -> PanelEventDeclaration {
        var contact = contact
        contact.text = sentence
        return PanelEventDeclaration(
            message: .contact(contact.roundedForWire()), sentence: sentence, journal: journal, counters: counters)
    }
}

/// A journal line's level, as syslog and swift-log's `Logger.Level` name them.
public enum JournalLevel: String, Sendable {
    case debug, info, notice, warning
}

extension PanelEvent {
    /// The declaration of this event on the panel labelled `deviceLabel`.
    public func declared(deviceLabel: String) -> PanelEventDeclaration {
        let at = ExplainMessage.seconds(time.microseconds)
        func contact(_ decision: ContactDecision, _ touch: TouchID, _ p: SurfacePoint) -> ContactMessage {
            ContactMessage(decision: decision, device: deviceLabel, time: time, touch: touch, position: p, text: "")
        }
        switch what {
        case .woken(let id, let p, let cause):
            return PanelEventDeclaration(
                message: .wake(
                    WakeMessage(device: deviceLabel, time: time, touch: id, position: p, cause: cause).roundedForWire()),
                sentence: "touch \(id.rawValue) woke the screen at \(at): \(Self.woke(cause)); it and the fingers landing "
                    + "with it reach nobody until they lift",
                journal: .info, counters: [cause == .screenOff ? .wakesScreenOff : .wakesIdle])
        case .idle(let after):
            return PanelEventDeclaration(
                message: .idle(IdleMessage(device: deviceLabel, time: time, afterMS: Int(after.microseconds / 1000))),
                sentence: "idle at \(at): no touch for \(ExplainMessage.seconds(after.microseconds))", journal: .debug,
                counters: [])
        case .active(let id):
            return PanelEventDeclaration(
                message: .active(ActiveMessage(device: deviceLabel, time: time, touch: id)),
                sentence: "active at \(at): touch \(id.rawValue) landed on the idle panel", journal: .debug, counters: [])
        case .swallowed(let id, let p, let cause):
            var message = contact(.swallowed, id, p)
            message.cause = cause
            let why = cause.map(Self.woke) ?? "it landed while the wake's touches were down"
            return .contact(
                message, sentence: "touch \(id.rawValue) swallowed at \(at): \(why); it reaches nobody until it lifts",
                journal: nil, counters: [.contactsSwallowed])
        case .ignored(let id, let p, let zone):
            var message = contact(.ignored, id, p)
            message.zone = zone
            return .contact(
                message,
                sentence: "touch \(id.rawValue) ignored at \(at): it landed in dead zone \(zone) (ignore[\(zone)]) at "
                    + "\(Self.place(p)); it reaches nobody until it lifts",
                journal: nil, counters: [.contactsIgnored])
        case .stuckEnded(let id, let p, let still, let repeats):
            var message = contact(.ended, id, p)
            message.stillMS = Int(still.microseconds / 1000)
            message.repeats = repeats
            return .contact(
                message,
                sentence: "touch \(id.rawValue) ended at \(at): it stayed still for \(ExplainMessage.seconds(still.microseconds))"
                    + " (stuck-contact) at \(Self.place(p)); cancelled for everyone"
                    + (repeats > 0 ? ", the \(Self.ordinal(repeats + 1)) ended at this place" : ""),
                journal: repeats > 0 ? .warning : .notice,
                counters: repeats > 0 ? [.stuckContactsEnded, .stuckContactsRecurring] : [.stuckContactsEnded])
        }
    }

    /// Why a wake happened.
    private static func woke(_ cause: WakeCause) -> String {
        switch cause {
        case .screenOff: "it woke the screen, which was off"
        case .idle: "it woke the idle panel (wake-after-idle)"
        }
    }

    private static func place(_ p: SurfacePoint) -> String {
        "\(ExplainMessage.number(p.x, 3)),\(ExplainMessage.number(p.y, 3))"
    }

    /// `2nd`, `3rd`, `11th`.
    static func ordinal(_ n: Int) -> String {
        let suffix =
            (11...13).contains(n % 100) ? "th" : n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th"
        return "\(n)\(suffix)"
    }
}
