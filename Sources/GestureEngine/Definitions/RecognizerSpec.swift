/// One recognizer as the configuration or a client defines it.
///
/// ```yaml
/// - name: tap
///   kind: tap
///   fingers: 1
///   requires-failure-of: [double-tap]
/// ```
/// The common keys are below; each kind adds its own (``TapParameters`` and the rest). The
/// relations follow UIKit: see docs/ARBITRATION.md for the rules (R1–R9) they feed.
public struct RecognizerSpec: Hashable, Sendable {
    public var name: String
    /// The region it is attached to (the root region when not given).
    public var region: String
    public var parameters: RecognizerParameters
    /// R4: this recognizer waits until each of these has failed (UIKit `require(toFail:)`).
    public var requiresFailureOf: [String]
    /// R6: these may be active on the same touches at the same time; `*` names every recognizer.
    public var simultaneousWith: [String]
    /// R5: when this begins or is recognized it cancels these even if they are already active.
    public var preempts: [String]
    /// R3: the begin gate (UIKit `gestureRecognizerShouldBegin`).
    public var when: BeginConditions
    /// R1: which touches this recognizer receives (UIKit `shouldReceive`).
    public var accepts: TouchFilter
    /// R8: views get `cancelled` for this recognizer's touches when it begins or is recognized
    /// (UIKit `cancelsTouchesInView`, default on).
    public var cancelsTouches: Bool
    /// R8: views get nothing of a touch until this recognizer has failed (UIKit
    /// `delaysTouchesBegan`, default off).
    public var delaysTouchesBegan: Bool
    /// R8: views get a touch's end only once this recognizer has decided (UIKit
    /// `delaysTouchesEnded`, default on).
    public var delaysTouchesEnded: Bool

    public var kind: GestureKind { parameters.kind }

    public init(
        name: String, region: String = RegionSpec.rootName, parameters: RecognizerParameters,
        requiresFailureOf: [String] = [], simultaneousWith: [String] = [], preempts: [String] = [],
        when: BeginConditions = BeginConditions(), accepts: TouchFilter = TouchFilter(),
        cancelsTouches: Bool = true, delaysTouchesBegan: Bool = false, delaysTouchesEnded: Bool = true
    ) {
        self.name = name
        self.region = region
        self.parameters = parameters
        self.requiresFailureOf = requiresFailureOf
        self.simultaneousWith = simultaneousWith
        self.preempts = preempts
        self.when = when
        self.accepts = accepts
        self.cancelsTouches = cancelsTouches
        self.delaysTouchesBegan = delaysTouchesBegan
        self.delaysTouchesEnded = delaysTouchesEnded
    }
}

/// R3: conditions checked when a recognizer would leave `possible`; any false → it fails.
public struct BeginConditions: Hashable, Sendable {
    /// Finger count at that moment must be within these bounds.
    public var minFingers: Int?
    public var maxFingers: Int?
    /// Every touch must have landed inside this rectangle.
    public var startIn: SurfaceRect?
    /// The device's name must match one of these globs (`*`, `?`); empty means any device.
    public var devices: [String]
    /// When set, begins only if a client is (true) or is not (false) connected to the socket.
    public var clientConnected: Bool?

    public init(
        minFingers: Int? = nil, maxFingers: Int? = nil, startIn: SurfaceRect? = nil, devices: [String] = [],
        clientConnected: Bool? = nil
    ) {
        self.minFingers = minFingers
        self.maxFingers = maxFingers
        self.startIn = startIn
        self.devices = devices
        self.clientConnected = clientConnected
    }
}

/// R1: which touches a recognizer receives.
public struct TouchFilter: Hashable, Sendable {
    /// Tool types received; palms are refused unless listed.
    public var tools: Set<ToolType>
    /// Touches whose contact is larger than this are refused (palm rejection by size).
    public var maxContactSize: Millimeters?
    /// The device's name must match one of these globs; empty means any device.
    public var devices: [String]

    public init(tools: Set<ToolType> = [.finger, .pen], maxContactSize: Millimeters? = nil, devices: [String] = []) {
        self.tools = tools
        self.maxContactSize = maxContactSize
        self.devices = devices
    }
}

// Each kind's parameters (their stored values are the defaults, docs/RECOGNIZERS.md gives their
// sources) and their descriptors (each key's spelling, unit and rule) are in its file under
// Recognizers/, with its machine.
