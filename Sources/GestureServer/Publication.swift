import GestureEngine
import GestureProtocol

/// Something the daemon publishes to the clients.
public enum Publication: Sendable {
    /// A recognizer's report. Gestures of a client-owned recognizer (`owner == .client(n)`) go
    /// to connection `n` only; the configuration's go to every subscriber whose filters match.
    case gesture(GestureMessage, owner: Owner)
    /// A raw touch for the views of its region (R8), to subscribers with `touches: true`. A
    /// client listed in `clientRegions` sees it land in that region of its own instead of
    /// `region` (R1: a client sees the configuration's regions and its own).
    case touch(TouchMessage, clientRegions: [ClientRegion] = [])
    /// Why a recognizer failed, waits, or was blocked or cancelled, to subscribers with
    /// `explain: true`; routed like a gesture of `owner`, the explanation's audience: a client
    /// reads only explanations about or naming the configuration's recognizers and its own
    /// (``Explanation/audience``). Not numbered.
    case explain(ExplainMessage, owner: Owner)
    /// A device appeared or went away: sent to every connection, and kept for later `hello`s.
    case device(DeviceMessage)
    /// The recognizers running from now on (the configuration was loaded or reloaded, a client
    /// defined or went away): kept for later `hello`s, sent to no one.
    case recognizers([RecognizerSummary])

    /// The publication of one engine event. `device` describes `event`'s device; `seq` is the
    /// publisher's counter (one per `gesture` and `touch`, increasing; explanations have none).
    public init(_ event: EngineEvent, device: DeviceDescriptor, seq: UInt64) {
        switch event {
        case .gesture(let g):
            self = .gesture(GestureMessage(g, deviceLabel: device.label, seq: seq), owner: g.owner)
        case .touch(let t):
            self = .touch(TouchMessage(t, device: device, seq: seq), clientRegions: t.clientRegions)
        case .explanation(let e):
            self = .explain(ExplainMessage(e, deviceLabel: device.label), owner: e.audience)
        }
    }
}
