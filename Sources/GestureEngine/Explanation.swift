// Why a gesture did not happen (issue 14): every failure of a recognizer's own checks carries the
// check, the measured value and the limit with the configuration key it comes from, and every
// arbitration decision that fails, holds, blocks or cancels a recognizer carries its rule (R1–R9,
// docs/ARBITRATION.md). The engine produces these values only while ``GestureEngine/explains`` is
// on, as plain values (no text); the protocol's `explain` message renders them
// (GestureProtocol's ExplainMessage), off the frame path.

/// One explained decision about one recognizer on one device.
public struct Explanation: Sendable, Equatable {
    /// The recognizer the decision is about.
    public var name: String
    public var kind: GestureKind
    public var owner: Owner
    public var device: DeviceID
    /// The recognizer's region.
    public var region: String
    /// The kernel time of the decision.
    public var time: Timestamp
    public var decision: Decision
    /// The owner of the other recognizer the decision names (R4–R6), when it names one.
    public var otherOwner: Owner?

    public init(
        name: String, kind: GestureKind, owner: Owner, device: DeviceID, region: String, time: Timestamp,
        decision: Decision, otherOwner: Owner? = nil
    ) {
        self.name = name
        self.kind = kind
        self.owner = owner
        self.device = device
        self.region = region
        self.time = time
        self.decision = decision
        self.otherOwner = otherOwner
    }

    /// Who may read it: everyone when it names only the configuration's recognizers; else the
    /// one client whose recognizer it is about or names (a decision never involves two clients'
    /// recognizers: they do not arbitrate with each other).
    public var audience: Owner {
        owner == .configuration ? otherOwner ?? .configuration : owner
    }

    /// The arbitration rule behind the decision; nil for a failure of the recognizer's own checks
    /// on a frame (a failure when a timer fires is R7's).
    public var rule: Rule? { decision.rule }
}

/// The rules of docs/ARBITRATION.md.
public enum Rule: Int, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case r1 = 1, r2, r3, r4, r5, r6, r7, r8, r9
    /// `R4`.
    public var description: String { "R\(rawValue)" }
}

/// What happened to a recognizer, and why.
public enum Decision: Sendable, Equatable {
    /// Its own check failed (docs/RECOGNIZERS.md); `timer`: when its deadline fired (R7).
    case failed(Failure, timer: Bool)
    /// R1: its `accepts` filter refused a landing touch.
    case refused(TouchID, Refusal)
    /// R1 with R2 or R4: it did not take a landing touch because it has decided (a final state,
    /// until all its touches lift: R2) or waits for a failure requirement (held: R4).
    case ignored(TouchID, held: Bool)
    /// R1: it is active with as many fingers down as it may have (its kind's finger limit and
    /// `when.max-fingers`), so it did not take a landing touch.
    case full(TouchID, fingers: Int)
    /// R2: every touch it received lifted, it has no timer, and it had not decided: it fails.
    case stranded
    /// R3: its begin gate (`when`) refused the transition; it fails.
    case gate(GateCheck)
    /// R4: it would begin or be recognized, but waits for this recognizer to fail (held).
    case waits(for: String)
    /// R4: the recognizer it waited for failed; its held transition happens now.
    case released(by: String)
    /// R4: a recognizer it requires to fail began or was recognized; it fails.
    case requirementSucceeded(String)
    /// R5: an active recognizer on its touches that it neither is simultaneous with nor
    /// preempts refused its transition; it fails.
    case blocked(by: String)
    /// R5: this recognizer began or was recognized on its touches and they are not
    /// simultaneous; it fails.
    case excluded(by: String)
    /// R5: this recognizer began or was recognized and preempts it; it is cancelled.
    case preempted(by: String)
    /// R5: this recognizer began or was recognized on its touches, but it preempts that one, so
    /// it keeps watching.
    case keepsWatching(String)
    /// R6: this recognizer began or was recognized on its touches; they are simultaneous, so it
    /// carries on.
    case simultaneous(with: String)
    /// R8: the views get nothing of this touch while it is undecided (delays-touches-began).
    case delaysTouch(TouchID)
    /// R8: the views get this touch's end only once it has decided (delays-touches-ended).
    case holdsTouchEnd(TouchID)
    /// R8: it began or was recognized: the views get `cancelled` for this touch
    /// (cancels-touches), or nothing more of it when it was delayed.
    case claimsTouch(TouchID)
    /// R9: a fault stopped it (cancelled when active, failed when undecided).
    case fault(Fault)

    public var rule: Rule? {
        switch self {
        case .failed(_, let timer): timer ? .r7 : nil
        case .refused, .full: .r1
        case .ignored(_, let held): held ? .r4 : .r2
        case .stranded: .r2
        case .gate: .r3
        case .waits, .released, .requirementSucceeded: .r4
        case .blocked, .excluded, .preempted, .keepsWatching: .r5
        case .simultaneous: .r6
        case .delaysTouch, .holdsTouchEnd, .claimsTouch: .r8
        case .fault: .r9
        }
    }
}

/// R1: why an `accepts` filter refused a touch.
public enum Refusal: Sendable, Equatable {
    /// The touch's tool is not in `tools`.
    case tool(ToolType)
    /// The contact is larger than `max-contact-size-mm` (measured, limit).
    case contactSize(Double, limit: Double)
    /// The device's name matches none of `accepts.devices`.
    case device
}

/// R3: the begin condition that was false.
public enum GateCheck: Sendable, Equatable {
    /// `when.min-fingers`: the fingers it reported, the least allowed.
    case minFingers(Int, least: Int)
    /// `when.max-fingers`: the fingers it reported, the most allowed.
    case maxFingers(Int, most: Int)
    /// `when.start-in`: this touch landed outside the rectangle.
    case startIn(TouchID)
    /// `when.devices`: the device's name matches none of the globs.
    case device
    /// `when.client-connected`: wanted a client connected (true) or none (false).
    case clientConnected(Bool)
}

/// R9: the fault that stopped a recognizer.
public enum Fault: Sendable, Equatable {
    case deviceRemoved
    /// Events were lost (SYN_DROPPED).
    case eventsLost
    case reload
    /// One of its touches was cancelled (palm, lost contact, a tracking id landing again).
    case touchCancelled(TouchID)
    /// Its owner's definitions were removed or replaced.
    case definitionsRemoved
}

/// A recognizer's own check that failed: what was measured, the limit, and the configuration key
/// the limit comes from (nil for the engine's fixed thresholds).
public struct Failure: Sendable, Equatable {
    public var check: FailureCheck
    public var key: ParameterKey?
    /// In the check's unit (the one its ``FailureCheck/sentence`` says).
    public var measured: Double
    public var limit: Double

    public init(_ check: FailureCheck, _ key: ParameterKey?, measured: Double, limit: Double) {
        self.check = check
        self.key = key
        self.measured = measured
        self.limit = limit
    }
}
