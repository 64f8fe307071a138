import GestureEngine
import GestureProtocol

/// Something the daemon publishes to the clients. A `gesture`, `touch` or `explain` carries its
/// ``Audience``: the connections that take it, decided once by the publisher
/// (``Interest/decided(_:)``, ``WireMapping``); left ``Audience/undecided``, the server decides
/// for every connection.
public enum Publication: Sendable {
    /// A recognizer's report. Gestures of a client-owned recognizer (`owner == .client(n)`) go
    /// to connection `n` only; the configuration's go to every subscriber whose filters match;
    /// and either only where its `privacy` admits (touches in a private region: ``Privacy``).
    case gesture(GestureMessage, owner: Owner, privacy: Privacy = .open, audience: Audience = .undecided)
    /// A raw touch for the views of its region (R8), to subscribers with `touches: true`, which
    /// only a connection that may see where fingers are gets (``PositionAccess``), and only where
    /// its `privacy` admits. A client listed in `clientRegions` sees it land in that region of its
    /// own instead of `region` (R1: a client sees the configuration's regions and its own).
    case touch(
        TouchMessage, clientRegions: [ClientRegion] = [], privacy: Privacy = .open, audience: Audience = .undecided)
    /// Why a recognizer failed, waits, or was blocked or cancelled, to subscribers with
    /// `explain: true`; routed like a gesture of `owner`, the explanation's audience: a client
    /// reads only explanations about or naming the configuration's recognizers and its own
    /// (``Explanation/audience``), where its `privacy` admits. Not numbered.
    case explain(ExplainMessage, owner: Owner, privacy: Privacy = .open, audience: Audience = .undecided)
    /// A device appeared or went away: sent to every connection, and kept for later `hello`s.
    case device(DeviceMessage)
    /// A panel's day (`wake`, `idle`, `active`): sent to every connection as it happens, not kept.
    case announcement(ServerMessage)
    /// What the stage before a panel's arena did to a contact (`contact`: where it landed), to
    /// subscribers with `explain: true` whose `devices` filter takes its device and that may see
    /// where fingers are (``PositionAccess``). Not numbered.
    case contact(ContactMessage, audience: Audience = .undecided)
    /// A recording started or stopped, to the connection that records (``Record``).
    case recording(RecordingMessage, client: ClientID)
    /// Raw events of a panel being recorded, to a connection that records it. Never coalesced:
    /// a recorder that cannot keep up overflows and is disconnected, like any client.
    case raw(RawMessage, client: ClientID)
    /// The recognizers running from now on (the configuration was loaded or reloaded, a client
    /// defined or went away): kept for later `hello`s, sent to no one.
    case recognizers([RecognizerSummary])

    /// The message as the configuration's side sees it (a touch in the region it landed in among
    /// the configuration's); nil for the recognizer list, which is no message.
    public var message: ServerMessage? {
        switch self {
        case .gesture(let gesture, _, _, _): .gesture(gesture)
        case .touch(let touch, _, _, _): .touch(touch)
        case .explain(let explanation, _, _, _): .explain(explanation)
        case .device(let device): .device(device)
        case .announcement(let message): message
        case .contact(let contact, _): .contact(contact)
        case .recording(let recording, _): .recording(recording)
        case .raw(let raw, _): .raw(raw)
        case .recognizers: nil
        }
    }
}
