import GestureEngine

// What the stage before a panel's arena did (docs/ARBITRATION.md, "Before the arena"): a wake,
// idle and active go to every connection, as they happen; what it did to each contact goes to
// the connections that take explanations (`contact`). Each is a table of fields (``WireMessage``);
// which event becomes which message, with what sentence, is declared in ``PanelEventDeclaration``.

/// `wake`: a touch landed while the panel's screen was off (or the panel idle, with
/// `wake-after-idle`): it woke the screen and reaches nobody, nor do the fingers that land before
/// it lifts. `gestured actions` runs the command that turns the screen on (`on: wake`).
public struct WakeMessage: Hashable, Sendable {
    public static let type = "wake"
    public var device: String
    public var time: Timestamp
    /// The touch that woke it.
    public var touch: TouchID
    public var position: SurfacePoint
    public var cause: WakeCause

    public init(device: String, time: Timestamp, touch: TouchID, position: SurfacePoint, cause: WakeCause) {
        self.device = device
        self.time = time
        self.touch = touch
        self.position = position
        self.cause = cause
    }
}

extension WakeMessage: WireMessage {
    static func fields(_ v: inout some WireFieldVisitor<Self>) {
        v.field("cause", \.cause)
        v.field("device", \.device)
        v.field("position", \.position, .sixDecimals)
        v.field("time_us", \.time)
        v.field("touch", \.touch)
        v.type()
    }

    static var blank: WakeMessage {
        WakeMessage(
            device: "", time: Timestamp(microseconds: 0), touch: TouchID(0), position: SurfacePoint(x: 0, y: 0),
            cause: .screenOff)
    }
}

/// `idle`: nobody touched the panel for `after_ms` (`idle-after-ms`).
public struct IdleMessage: Hashable, Sendable {
    public static let type = "idle"
    public var device: String
    public var time: Timestamp
    /// Milliseconds without a touch.
    public var afterMS: Int

    public init(device: String, time: Timestamp, afterMS: Int) {
        self.device = device
        self.time = time
        self.afterMS = afterMS
    }
}

extension IdleMessage: WireMessage {
    static func fields(_ v: inout some WireFieldVisitor<Self>) {
        v.field("after_ms", \.afterMS)
        v.field("device", \.device)
        v.field("time_us", \.time)
        v.type()
    }

    static var blank: IdleMessage { IdleMessage(device: "", time: Timestamp(microseconds: 0), afterMS: 0) }
}

/// `active`: a touch landed on an idle panel.
public struct ActiveMessage: Hashable, Sendable {
    public static let type = "active"
    public var device: String
    public var time: Timestamp
    public var touch: TouchID

    public init(device: String, time: Timestamp, touch: TouchID) {
        self.device = device
        self.time = time
        self.touch = touch
    }
}

extension ActiveMessage: WireMessage {
    static func fields(_ v: inout some WireFieldVisitor<Self>) {
        v.field("device", \.device)
        v.field("time_us", \.time)
        v.field("touch", \.touch)
        v.type()
    }

    static var blank: ActiveMessage { ActiveMessage(device: "", time: Timestamp(microseconds: 0), touch: TouchID(0)) }
}

/// What the stage before the arena did to one contact, and why (`contact`, to connections that
/// take explanations, and `gestured replay --explain`).
public enum ContactDecision: String, Hashable, Sendable, CaseIterable, Codable {
    /// It reaches nobody until it lifts: it woke the screen, or landed during a wake.
    case swallowed
    /// It landed in a dead zone and reaches nobody until it lifts.
    case ignored
    /// It stayed still past the stuck-contact limit and was ended (cancelled for everyone).
    case ended
}

extension ContactDecision: SpelledWireValue {}
extension WakeCause: SpelledWireValue {}

public struct ContactMessage: Hashable, Sendable {
    public static let type = "contact"
    public var decision: ContactDecision
    public var device: String
    public var time: Timestamp
    public var touch: TouchID
    /// Where it landed (swallowed, ignored) or where it stayed (ended).
    public var position: SurfacePoint
    /// `swallowed`: why its wake happened; absent when it landed during one.
    public var cause: WakeCause?
    /// `ignored`: the dead zone's index in `devices[].ignore`.
    public var zone: Int?
    /// `ended`: how long it stayed still, in milliseconds.
    public var stillMS: Int?
    /// `ended`: how many contacts were ended at this place on this panel before.
    public var repeats: Int?
    /// The decision as a sentence, for people.
    public var text: String

    public init(
        decision: ContactDecision, device: String, time: Timestamp, touch: TouchID, position: SurfacePoint,
        cause: WakeCause? = nil, zone: Int? = nil, stillMS: Int? = nil, repeats: Int? = nil, text: String
    ) {
        self.decision = decision
        self.device = device
        self.time = time
        self.touch = touch
        self.position = position
        self.cause = cause
        self.zone = zone
        self.stillMS = stillMS
        self.repeats = repeats
        self.text = text
    }
}

extension ContactMessage: WireMessage {
    static func fields(_ v: inout some WireFieldVisitor<Self>) {
        v.field("cause", \.cause, absent: .omitted)
        v.field("decision", \.decision)
        v.field("device", \.device)
        v.field("position", \.position, .sixDecimals)
        v.field("repeats", \.repeats, absent: .omitted)
        v.field("still_ms", \.stillMS, absent: .omitted)
        v.field("text", \.text)
        v.field("time_us", \.time)
        v.field("touch", \.touch)
        v.type()
        v.field("zone", \.zone, absent: .omitted)
    }

    static var blank: ContactMessage {
        ContactMessage(
            decision: .ignored, device: "", time: Timestamp(microseconds: 0), touch: TouchID(0),
            position: SurfacePoint(x: 0, y: 0), text: "")
    }
}
