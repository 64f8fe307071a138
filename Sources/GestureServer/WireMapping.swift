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

    /// The publications of `events`, in order, appended to `batch`: what no reader takes is left
    /// out before it is built. `deviceOf` gives the descriptor of an event's device, asked only
    /// for a kind of event some reader takes.
    public mutating func publications(
        of events: [EngineEvent], deviceOf descriptor: (DeviceID) -> DeviceDescriptor, for interest: Interest,
        into batch: inout [Publication]
    ) {
        for i in events.indices {
            // Each case decided where the event lies in the array: handing `events[i]` on copies
            // the whole event out of it and destroys the copy after (~480 instructions for a
            // gesture, whose report is ~300 bytes and three strings), where a gesture's case copies
            // its payload alone (~220), and raw touches and explanations nobody takes cost nothing.
            let publication: Publication?
            switch events[i] {
            case .gesture(let g): publication = self.publication(of: g, deviceOf: descriptor, for: interest)
            case .touch where !interest.takesTouches, .explanation where !interest.takesExplanations: continue
            default: publication = self.publication(of: events[i], deviceOf: descriptor, for: interest)
            }
            if let publication { batch.append(publication) }
        }
    }

    /// The publication of `event`, with the readers of `interest` that take it; nil when none
    /// does. `deviceOf` gives the descriptor of the event's device, asked only for a kind of
    /// event some reader takes (the publisher looks it up among those it knows).
    public mutating func publication(
        of event: EngineEvent, deviceOf descriptor: (DeviceID) -> DeviceDescriptor, for interest: Interest
    ) -> Publication? {
        switch event {
        case .gesture(let g):
            return publication(of: g, deviceOf: descriptor, for: interest)
        case .touch(let t):
            guard interest.takesTouches else { return nil }
            let device = descriptor(t.device)
            let publication = Publication.touch(
                TouchMessage(t, device: device, seq: seq + 1), clientRegions: t.clientRegions, privacy: t.privacy)
            guard let decided = interest.decided(publication) else { return nil }
            seq += 1
            return decided
        case .explanation(let e):
            guard interest.takesExplanations else { return nil }
            let device = descriptor(e.device)
            return interest.decided(
                .explain(ExplainMessage(e, deviceLabel: device.label), owner: e.audience, privacy: e.privacy))
        case .panel(let e):
            // Wake, idle and active go to everyone; what happened to a contact is an explanation.
            let message = e.declared(deviceLabel: descriptor(e.device).label).message
            guard case .contact(let contact) = message else { return .announcement(message) }
            return interest.takesExplanations ? interest.decided(.contact(contact)) : nil
        }
    }

    /// A gesture's publication: ruled out on its kind at a glance (a client following pans does
    /// not pay for the pinch's every frame), then the readers its filters pass.
    private mutating func publication(
        of g: GestureEvent, deviceOf descriptor: (DeviceID) -> DeviceDescriptor, for interest: Interest
    ) -> Publication? {
        guard interest.mayTake(gestureOf: g.report.kind) else { return nil }
        let device = descriptor(g.device)
        let audience = interest.audience(of: g, device: device.label)
        guard !audience.isEmpty else { return nil }
        seq += 1
        return .gesture(
            GestureMessage(g, deviceLabel: device.label, seq: seq), owner: g.owner, privacy: g.privacy,
            audience: audience)
    }
}
