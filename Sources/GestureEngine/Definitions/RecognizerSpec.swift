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

/// The kind of a recognizer and the parameters of that kind.
public enum RecognizerParameters: Hashable, Sendable {
    case tap(TapParameters)
    case longPress(LongPressParameters)
    case pan(PanParameters)
    case swipe(SwipeParameters)
    case edgeSwipe(EdgeSwipeParameters)
    case pinch(PinchParameters)
    case rotate(RotateParameters)
    case shape(ShapeParameters)

    public var kind: GestureKind {
        switch self {
        case .tap: .tap
        case .longPress: .longPress
        case .pan: .pan
        case .swipe: .swipe
        case .edgeSwipe: .edgeSwipe
        case .pinch: .pinch
        case .rotate: .rotate
        case .shape: .shape
        }
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

// MARK: - Parameters per kind
// The stored values are the defaults (docs/RECOGNIZERS.md gives their public sources); each key's
// spelling, unit and rule is its descriptor (RecognizerSpecCoding.swift).

/// `tap`: `taps` taps of `fingers` fingers, each down at most `max-duration-ms`, taps at most
/// `max-gap-ms` apart and within `max-tap-distance-mm` of the first, no finger moving more than
/// `slop-mm`. Discrete.
public struct TapParameters: Hashable, Sendable {
    public var taps: Int = 1
    public var fingers: Int = 1
    public var maxDuration: TimeSpan = .milliseconds(500)
    public var maxGap: TimeSpan = .milliseconds(300)
    public var slop = Millimeters(3)
    public var maxTapDistance = Millimeters(16)
    public init() {}
}

/// `long-press`: `fingers` fingers held `min-duration-ms` without moving more than `slop-mm`
/// before it begins. Continuous (like UILongPressGestureRecognizer): began, changed as the
/// fingers move, ended when they lift.
public struct LongPressParameters: Hashable, Sendable {
    public var fingers: Int = 1
    public var minDuration: TimeSpan = .milliseconds(500)
    public var slop = Millimeters(3)
    public init() {}
}

/// `pan`: `min-fingers`…`max-fingers` fingers whose centroid moves `start-distance-mm`, once
/// the fingers landing within `settle-ms` of the first have settled. Continuous.
public struct PanParameters: Hashable, Sendable {
    public var minFingers: Int = 1
    public var maxFingers: Int = 5
    public var startDistance = Millimeters(3)
    public var settle: TimeSpan = .milliseconds(150)
    public init() {}
}

/// `swipe`: a straight stroke of `min-fingers`…`max-fingers` fingers (those landing within
/// `settle-ms` of the first), recognized while it moves: `min-distance-mm` covered within one of
/// `directions` (give or take `angle-tolerance-deg`). With one or two fingers it must be quick —
/// covered within `max-duration-ms` at `min-velocity-mm-s` or faster, and a stroke slower than
/// twice that keeps its direction for `hold-distance-mm` more before it is decided; with three or
/// more, `multi-finger-max-duration-ms` and `multi-finger-min-velocity-mm-s` apply instead (by
/// default distance and direction alone, as libinput and Touchégg decide multi-finger swipes).
/// Discrete.
public struct SwipeParameters: Hashable, Sendable {
    public var minFingers: Int = 1
    public var maxFingers: Int = 5
    public var directions: Set<Direction> = Set(Direction.allCases)
    public var minDistance = Millimeters(20)
    public var minVelocity = Millimeters(150)
    public var maxDuration: TimeSpan = .milliseconds(600)
    public var angleTolerance: Double = 22.5
    public var settle: TimeSpan = .milliseconds(150)
    /// How much farther than `minDistance` a stroke slower than twice its speed limit must keep
    /// its direction before it is decided.
    public var holdDistance = Millimeters(10)
    public var multiFingerMinVelocity = Millimeters(0)
    public var multiFingerMaxDuration: TimeSpan = .milliseconds(2000)
    /// The least displacement over path of the stretch that covers `minDistance` (a semicircle is
    /// 0.64 as long as its arc; a jittery straight line is above 0.95).
    public var minStraightness: Double = 0.8
    public init() {}
}

/// `edge-swipe`: `fingers` fingers landing within `band-mm` of one of `edges` and moving
/// `min-distance-mm` away from it. Continuous, like UIScreenEdgePanGestureRecognizer.
public struct EdgeSwipeParameters: Hashable, Sendable {
    public var edges: Set<Edge> = Set(Edge.allCases)
    public var fingers: Int = 1
    public var band = Millimeters(8)
    public var minDistance = Millimeters(10)
    public init() {}
}

/// `pinch`: `min-fingers`…`max-fingers` fingers whose spread changes by `min-scale-change`
/// (a ratio, 0.1 = 10 %). Continuous; reports scale and its velocity.
public struct PinchParameters: Hashable, Sendable {
    public var minFingers: Int = 2
    public var maxFingers: Int = 5
    public var minScaleChange: Double = 0.1
    public init() {}
}

/// `rotate`: `min-fingers`…`max-fingers` fingers turning by `min-rotation-deg`. Continuous;
/// reports radians and their velocity.
public struct RotateParameters: Hashable, Sendable {
    public var minFingers: Int = 2
    public var maxFingers: Int = 5
    public var minRotation: Double = 15
    public init() {}
}

/// `shape`: a stroke of `min-fingers`…`max-fingers` fingers (those landing within `settle-ms` of
/// the first) matched against `templates`: the built-in circle while the stroke moves, templates
/// of points when it lifts; recognized with the template's name when its score reaches
/// `min-score` and the shape spans `min-size-mm`. The `circle-…` limits are the built-in circle's
/// geometric check (docs/RECOGNIZERS.md, "The circle's geometric check"). Discrete.
public struct ShapeParameters: Hashable, Sendable {
    public var templates: [ShapeTemplate] = [.builtIn(.circle)]
    public var minScore: Double = 0.8
    public var minSize = Millimeters(20)
    public var minFingers: Int = 1
    public var maxFingers: Int = 1
    public var settle: TimeSpan = .milliseconds(150)
    /// Degrees a stroke lifted as a whole must go round its centre.
    public var circleMinTurn: Double = 285
    /// Degrees a loop of a longer or unfinished stroke must go round its centre.
    public var circleLoopTurn: Double = 330
    /// Coefficient of variation of the radius (ratio).
    public var circleMaxSpread: Double = 0.08
    /// The 3rd–5th harmonic of the radius over its mean (ratio).
    public var circleMaxCorners: Double = 0.1
    /// Difference of the end radii over the mean radius (ratio), for a loop of a longer or
    /// unfinished stroke.
    public var circleMaxSpiral: Double = 0.15
    /// The same for a stroke lifted after going round at most `circleOvershootTurn` degrees.
    public var circleMaxOvershoot: Double = 0.5
    public var circleOvershootTurn: Double = 540
    /// Short over long axis of the fitted ellipse (ratio).
    public var circleMinAxisRatio: Double = 0.3
    public var circleStraightRun = Millimeters(100)
    public var circleStraightRunDeviation = Millimeters(1.5)
    public init() {}
}

/// A shape to match: a built-in one by name, or a named list of points (any scale; only the
/// shape and the drawing order matter).
public enum ShapeTemplate: Hashable, Sendable {
    case builtIn(BuiltInShape)
    case points(name: String, points: [SurfacePoint])

    public var name: String {
        switch self {
        case .builtIn(let shape): shape.rawValue
        case .points(let name, _): name
        }
    }
}

/// Templates that ship with the engine.
public enum BuiltInShape: String, Hashable, Sendable, CaseIterable, Codable {
    case circle
}
