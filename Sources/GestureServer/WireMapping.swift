import GestureEngine
import GestureProtocol

/// The one mapping from the engine's events to the messages on the wire, for the daemon (its
/// ``Publication``s, for the Unix socket and the WebSocket alike) and for `gestured replay`.
///
/// The `seq` rule (docs/PROTOCOL.md, §7, `seq`): one counter for the stream's life; a `gesture` or a
/// `touch` takes the next number when some reader takes it, and only then; an `explain` takes
/// none. A connection alone on the socket therefore sees consecutive numbers, and gaps only
/// where coalescing left messages out (§9); with other connections it also sees gaps where
/// messages went to them only. `replay` reads everything its options ask for
/// (``Interest/replay(touches:explanations:)``).
///
/// Who takes each message is decided here, once, on the engine's event and the publisher's
/// ``Interest``: the publication carries that ``Audience`` to the server. What no reader takes
/// costs no message: raw touches with no touch subscriber, a gesture no filter passes.
public struct WireMapping {
    /// The last number given.
    public private(set) var seq: UInt64 = 0

    public init() {}

    /// The publication of `event`, on the device `device`, with the readers of `interest` that
    /// take it; nil when none does. `device` is looked up only for a kind of event some reader
    /// takes.
    public mutating func publication(
        of event: EngineEvent, device: @autoclosure () -> DeviceDescriptor, for interest: Interest
    ) -> Publication? {
        publication(of: event, deviceOf: { _ in device() }, for: interest)
    }

    /// The publication of `event`, with the readers of `interest` that take it; nil when none
    /// does. `deviceOf` gives the descriptor of the event's device, asked only for a kind of
    /// event some reader takes (the publisher looks it up among those it knows).
    public mutating func publication(
        of event: EngineEvent, deviceOf descriptor: (DeviceID) -> DeviceDescriptor, for interest: Interest
    ) -> Publication? {
        switch event {
        case .gesture(let g):
            guard interest.mayTake(gestureOf: g.report.kind) else { return nil }
            let device = descriptor(g.device)
            let audience = interest.audience(of: g, device: device.label)
            guard !audience.isEmpty else { return nil }
            seq += 1
            return .gesture(GestureMessage(g, deviceLabel: device.label, seq: seq), owner: g.owner, audience: audience)
        case .touch(let t):
            guard interest.takesTouches else { return nil }
            let device = descriptor(t.device)
            let publication = Publication.touch(
                TouchMessage(t, device: device, seq: seq + 1), clientRegions: t.clientRegions)
            guard let decided = interest.decided(publication) else { return nil }
            seq += 1
            return decided
        case .explanation(let e):
            guard interest.takesExplanations else { return nil }
            let device = descriptor(e.device)
            return interest.decided(.explain(ExplainMessage(e, deviceLabel: device.label), owner: e.audience))
        case .panel(let e):
            // Wake, idle and active go to everyone; what happened to a contact is an explanation.
            if let announcement = WakeMessage.announcement(e, deviceLabel: descriptor(e.device).label) {
                return .announcement(announcement)
            }
            guard interest.takesExplanations, let contact = ContactMessage(e, deviceLabel: descriptor(e.device).label)
            else {
                return nil
            }
            return interest.decided(.contact(contact))
        }
    }
}
