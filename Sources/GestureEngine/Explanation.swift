// Why a gesture did not happen: every failure of a recognizer's own checks carries the check, the
// measured value and the limit with the configuration key it comes from, and every arbitration
// decision that fails, holds, blocks or cancels a recognizer carries its reason (its rule, R1–R9,
// docs/ARBITRATION.md, and its sentence). The engine produces these values only while
// ``GestureEngine/explains`` is on, as plain values: the texts are static, declared where each
// rule decides (the arena's files) as a kind declares its checks; the protocol's `explain`
// message fills them in (GestureProtocol's ExplainMessage), off the frame path.

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
    /// What the touches the recognizer had taken (and the touch the decision is about) are
    /// private to (``Privacy``).
    public var privacy: Privacy

    public init(
        name: String, kind: GestureKind, owner: Owner, device: DeviceID, region: String, time: Timestamp,
        decision: Decision, otherOwner: Owner? = nil, privacy: Privacy = .open
    ) {
        self.privacy = privacy
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
    public var rule: Rule? { decision.reason.rule }
}

/// The rules of docs/ARBITRATION.md.
public enum Rule: Int, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case r1 = 1, r2, r3, r4, r5, r6, r7, r8, r9
    /// `R4`.
    public var description: String { "R\(rawValue)" }
}

/// What happened to a recognizer, and why: the reason (what was decided, under which rule, and
/// how it is said) and the values its sentence names.
public struct Decision: Sendable, Equatable {
    public var reason: DecisionReason
    /// The recognizer's own check that failed (``DecisionReason/failed``,
    /// ``DecisionReason/failedAtDeadline``).
    public var failure: Failure?
    /// The other recognizer (R4–R6).
    public var other: String?
    /// The touch the decision is about (R1, R3, R8, R9).
    public var touch: TouchID?
    /// What the arena measured and the limit it held it to (R1's contact size and fingers, R3's
    /// finger counts).
    public var measured: Double?
    public var limit: Double?
    /// The tool R1's `accepts.tools` refused.
    public var tool: ToolType?

    public init(
        _ reason: DecisionReason, failure: Failure? = nil, other: String? = nil, touch: TouchID? = nil,
        measured: Double? = nil, limit: Double? = nil, tool: ToolType? = nil
    ) {
        self.reason = reason
        self.failure = failure
        self.other = other
        self.touch = touch
        self.measured = measured
        self.limit = limit
        self.tool = tool
    }

    /// The arbitration rule behind it (nil: a recognizer's own check on a frame).
    public var rule: Rule? { reason.rule }
}

/// A kind of arbitration decision, as `explain` says it: its spelling in the protocol
/// (`decision`), the rule that makes it, the verb that follows the recognizer's name, the
/// sentence that says why, and the check and configuration key it names, if any. Each is a static
/// value declared where its rule decides (the arena's files), as a kind declares its checks
/// (``FailureCheck``), and ``allCases`` lists them; GestureProtocol's `ExplainMessage` says any
/// of them from these texts alone.
///
/// The verb and the sentence hold the decision's values in braces: `{other}` the other
/// recognizer, `{touch}` the touch's id, `{tool}` its tool, `{m}` and `{l}` the measured value
/// and the limit, `{fingers}` the measured count of fingers, `{key}` the key, and `{check}` the
/// failed check's own sentence (``FailureCheck/sentence``, whose braces take the failure's
/// values). A sentence that starts with a space follows the verb and the time directly (`waits at
/// 1.200 s for "double-tap" to fail`); any other follows a colon.
public struct DecisionReason: Sendable, Equatable, CustomStringConvertible {
    private let name: Literal
    /// The rule that makes the decision; nil for a failure of the recognizer's own checks on a
    /// frame.
    public let rule: Rule?
    private let verbTemplate: Literal
    private let sentenceTemplate: Literal
    private let checkName: Literal?
    private let keyName: Literal?

    init(
        _ name: StaticString, _ rule: Rule?, verb: StaticString = "failed", sentence: StaticString,
        check: StaticString? = nil, key: StaticString? = nil
    ) {
        self.name = Literal(name)
        self.rule = rule
        verbTemplate = Literal(verb)
        sentenceTemplate = Literal(sentence)
        checkName = check.map(Literal.init)
        keyName = key.map(Literal.init)
    }

    /// The decision's spelling in the protocol (`blocked`, `gate`).
    public var decision: String { name.string }
    /// What follows the recognizer's name (`failed`, `refused touch {touch}`).
    public var verb: String { verbTemplate.string }
    /// Why (`"{other}" began first and they are not simultaneous`).
    public var sentence: String { sentenceTemplate.string }
    /// The arena's check it names (`min-fingers`, `tools`, `device-removed`), if any; a failure's
    /// check is its ``Failure/check``.
    public var check: String? { checkName?.string }
    /// The configuration key of that check (`when.min-fingers`), if any.
    public var key: String? { keyName?.string }

    public var description: String { decision }

    /// Every reason the arena gives, in the order of the rules.
    public static let allCases: [DecisionReason] = [
        .failed, .failedAtDeadline,
        .refusedTool, .refusedContactSize, .refusedDevice, .full, .ignoredDecided, .stranded,
        .gateMinFingers, .gateMaxFingers, .gateStartIn, .gateDevice, .gateClientConnected, .gateNoClientConnected,
        .ignoredHeld, .waits, .released, .requirementSucceeded,
        .blocked, .excluded, .preempted, .keepsWatching, .simultaneous,
        .delaysTouch, .holdsTouchEnd, .claimsTouch,
        .deviceRemoved, .eventsLost, .reload, .touchCancelled, .definitionsRemoved,
    ]
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
