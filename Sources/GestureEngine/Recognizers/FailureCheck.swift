// The vocabulary of a recognizer's failures: the checks (with their sentences) and the keys they
// name. Both are open: a kind declares the checks and keys only it uses in its own file, as
// static members like the ones here (those of several kinds, and of the kinds that predate the
// split), and lists them in its table of failures (``KindDefinition/failures``). Explanations,
// the protocol and RegistryTests read them through that table, so a new kind edits neither this
// file nor GestureProtocol's ExplainMessage. Both are pointers to static text: a failure stays a
// small plain value on the frame path and in explanation events (no reference counting, no
// allocation).

/// A configuration key a failure can name: its spelling in the configuration file.
public struct ParameterKey: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    private let name: Literal

    public init(_ name: StaticString) { self.name = Literal(name) }

    /// The key of that spelling among those the kinds' tables of failures name.
    public init?(rawValue: String) {
        guard let key = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = key
    }

    public var rawValue: String { name.string }
    public var description: String { rawValue }

    public static func == (a: Self, b: Self) -> Bool { a.name == b.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    /// Every key the kinds' tables of failures name, in the order of the kinds.
    public static var allCases: [ParameterKey] {
        GestureKind.allCases.flatMap { $0.failures.compactMap(\.key) }.uniqued()
    }
}

/// A recognizer's own check (docs/RECOGNIZERS.md's tables): its spelling in the protocol and the
/// sentence an explanation says of it.
public struct FailureCheck: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    private let name: Literal
    private let template: Literal

    public init(_ name: StaticString, sentence: StaticString) {
        self.name = Literal(name)
        self.template = Literal(sentence)
    }

    /// What `explain` says when the check fails, with the failure's values in braces: `{m}` and
    /// `{l}` the measured value and the limit with one decimal, `{rm}` and `{rl}` with three (more
    /// where the two would read the same), `{key}` the key, `{fingers}` the measured count of
    /// fingers (`1 finger`, `3 fingers`).
    public var sentence: String { template.string }

    /// The check of that spelling among those of the kinds' tables of failures.
    public init?(rawValue: String) {
        guard let check = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = check
    }

    public var rawValue: String { name.string }
    public var description: String { rawValue }

    /// Where its spelling is in the binary: one comparison tells two uses of one declaration
    /// apart from others without making their strings (the metrics' ``FailureTally`` on the frame
    /// path; two declarations of one spelling have two addresses, and ``==`` is still true).
    var address: UnsafePointer<UInt8> { name.start }

    public static func == (a: Self, b: Self) -> Bool { a.name == b.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    /// Every check of the kinds' tables of failures, in the order of the kinds.
    public static var allCases: [FailureCheck] {
        GestureKind.allCases.flatMap { $0.failures.map(\.check) }.uniqued()
    }
}

/// A string literal as one pointer to its null-terminated UTF-8 in the binary: 8 bytes where a
/// `StaticString` takes 17 (a failure travels in every explanation event). The text is constant
/// for the life of the process, so sharing the pointer across threads is safe.
struct Literal: @unchecked Sendable, Equatable {
    let start: UnsafePointer<UInt8>

    /// `text` must be a literal of more than one character (one character has no pointer).
    init(_ text: StaticString) { start = text.utf8Start }

    var string: String { String(cString: start) }

    static func == (a: Self, b: Self) -> Bool { a.start == b.start || a.string == b.string }
}

extension Array where Element: Hashable {
    fileprivate func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}

extension ParameterKey {
    public static var fingers: ParameterKey { ParameterKey("fingers") }
    public static var minFingers: ParameterKey { ParameterKey("min-fingers") }
    public static var maxFingers: ParameterKey { ParameterKey("max-fingers") }
    public static var slop: ParameterKey { ParameterKey("slop-mm") }
    public static var maxDuration: ParameterKey { ParameterKey("max-duration-ms") }
    public static var maxGap: ParameterKey { ParameterKey("max-gap-ms") }
    public static var maxTapDistance: ParameterKey { ParameterKey("max-tap-distance-mm") }
    public static var minDuration: ParameterKey { ParameterKey("min-duration-ms") }
    public static var startDistance: ParameterKey { ParameterKey("start-distance-mm") }
    public static var settle: ParameterKey { ParameterKey("settle-ms") }
    public static var minDistance: ParameterKey { ParameterKey("min-distance-mm") }
    public static var minVelocity: ParameterKey { ParameterKey("min-velocity-mm-s") }
    public static var multiFingerMinVelocity: ParameterKey { ParameterKey("multi-finger-min-velocity-mm-s") }
    public static var minStraightness: ParameterKey { ParameterKey("min-straightness") }
    public static var angleTolerance: ParameterKey { ParameterKey("angle-tolerance-deg") }
    public static var band: ParameterKey { ParameterKey("band-mm") }
    public static var minScaleChange: ParameterKey { ParameterKey("min-scale-change") }
    public static var minRotation: ParameterKey { ParameterKey("min-rotation-deg") }
    public static var minScore: ParameterKey { ParameterKey("min-score") }
    public static var minSize: ParameterKey { ParameterKey("min-size-mm") }
    public static var circleMinTurn: ParameterKey { ParameterKey("circle-min-turn-deg") }
    public static var circleLoopTurn: ParameterKey { ParameterKey("circle-loop-turn-deg") }
    public static var circleMaxSpread: ParameterKey { ParameterKey("circle-max-spread") }
    public static var circleMaxCorners: ParameterKey { ParameterKey("circle-max-corners") }
    public static var circleMaxSpiral: ParameterKey { ParameterKey("circle-max-spiral") }
    public static var circleMaxOvershoot: ParameterKey { ParameterKey("circle-max-overshoot") }
    public static var circleMinAxisRatio: ParameterKey { ParameterKey("circle-min-axis-ratio") }
    public static var circleStraightRunDeviation: ParameterKey { ParameterKey("circle-straight-run-deviation-mm") }
}

extension FailureCheck {
    /// More fingers down than the key allows (count).
    public static var tooManyFingers: FailureCheck {
        FailureCheck("too-many-fingers", sentence: "{fingers} down > {key} {l}")
    }
    /// Fewer fingers than the key asks for (count).
    public static var tooFewFingers: FailureCheck { FailureCheck("too-few-fingers", sentence: "{fingers} < {key} {l}") }
    /// A finger moved farther than `slop-mm` from where it landed (mm).
    public static var moved: FailureCheck { FailureCheck("moved", sentence: "a finger moved {m} mm > {key} {l}") }
    /// A tap's fingers stayed down `max-duration-ms` (ms).
    public static var heldTooLong: FailureCheck { FailureCheck("held-too-long", sentence: "held {m} ms ≥ {key} {l}") }
    /// No next tap within `max-gap-ms` (ms).
    public static var gapTooLong: FailureCheck {
        FailureCheck("gap-too-long", sentence: "no next tap within {key} {l}")
    }
    /// The next tap landed farther than `max-tap-distance-mm` from the first (mm).
    public static var tapTooFar: FailureCheck {
        FailureCheck(
            "tap-too-far", sentence: "the next tap landed {m} mm from the first > {key} {l}")
    }
    /// A long press lifted before `min-duration-ms` (ms).
    public static var liftedTooSoon: FailureCheck {
        FailureCheck("lifted-too-soon", sentence: "lifted after {m} ms < {key} {l}")
    }
    /// A pan's fingers lifted before they moved `start-distance-mm` (mm).
    public static var notFarEnough: FailureCheck {
        FailureCheck(
            "not-far-enough", sentence: "lifted after moving {m} mm < {key} {l}")
    }
    /// A finger landed after the finger count was committed: the hand had moved 8 mm or all
    /// `max-fingers` were down (ms after the first landing; `settle-ms` is the landing window).
    public static var landedAfterSettling: FailureCheck {
        FailureCheck(
            "landed-after-settling",
            sentence:
                "a finger landed {m} ms after the first, once the hand had moved 8 mm (the count was committed; {key} {l})"
        )
    }
    /// A finger landed after one had lifted.
    public static var landedAfterLift: FailureCheck {
        FailureCheck(
            "landed-after-lift", sentence: "a finger landed after one had lifted")
    }
    /// The fingers lifted before their count settled (ms after the first landing; they had moved
    /// less than 8 mm), so a gesture that had reached its threshold never began.
    public static var liftedBeforeSettling: FailureCheck {
        FailureCheck(
            "lifted-before-settling",
            sentence: "lifted {m} ms after landing, before the finger count settled ({key} {l}, or 8 mm of travel)")
    }
    /// A swipe's stroke was shorter than `min-distance-mm` (mm).
    public static var strokeTooShort: FailureCheck {
        FailureCheck("stroke-too-short", sentence: "stroke {m} mm < {key} {l}")
    }
    /// The stroke did not cover `min-distance-mm` within `max-duration-ms` (mm: the most it
    /// covered in its last `max-duration-ms`).
    public static var tooSlowToCover: FailureCheck {
        FailureCheck(
            "too-slow-to-cover", sentence: "covered {m} mm in its last max-duration-ms < {key} {l}")
    }
    /// The same for three fingers or more, within `multi-finger-max-duration-ms`.
    public static var multiFingerTooSlowToCover: FailureCheck {
        FailureCheck(
            "multi-finger-too-slow-to-cover",
            sentence: "covered {m} mm in its last multi-finger-max-duration-ms < {key} {l}")
    }
    /// The stretch that covered the distance was not straight enough (ratio, `min-straightness`).
    public static var notStraight: FailureCheck {
        FailureCheck("not-straight", sentence: "straightness {rm} < {key} {rl}")
    }
    /// The stretch was slower than `min-velocity-mm-s` or, with three fingers or more,
    /// `multi-finger-min-velocity-mm-s` (mm/s).
    public static var tooSlow: FailureCheck { FailureCheck("too-slow", sentence: "speed {m} mm/s < {key} {l}") }
    /// Its direction was farther than `angle-tolerance-deg` from every allowed one (degrees).
    public static var offDirection: FailureCheck {
        FailureCheck(
            "off-direction", sentence: "{m}° off the nearest allowed direction > {key} {l}")
    }
    /// An edge swipe's finger landed farther than `band-mm` from every allowed edge (mm).
    public static var outsideBand: FailureCheck {
        FailureCheck(
            "outside-band", sentence: "landed {m} mm from the nearest allowed edge > {key} {l}")
    }
    /// An edge swipe's finger landed at another edge than the first.
    public static var otherEdge: FailureCheck {
        FailureCheck(
            "other-edge", sentence: "a finger landed at another edge than the first")
    }
    /// An edge swipe's finger lifted before it moved `min-distance-mm` inward (mm).
    public static var liftedBeforeEdgeSwipe: FailureCheck {
        FailureCheck(
            "lifted-before-edge-swipe", sentence: "lifted after moving {m} mm inward < {key} {l}")
    }
    /// An edge swipe moved `min-distance-mm` along its edge, more than inward (mm).
    public static var alongEdge: FailureCheck {
        FailureCheck(
            "along-edge", sentence: "moved {m} mm along the edge ≥ {key} {l}, more than inward")
    }
    /// A pinch's fingers lifted before the spread changed by `min-scale-change` (ratio).
    public static var scaleTooSmall: FailureCheck {
        FailureCheck(
            "scale-too-small", sentence: "lifted with a scale change of {rm} < {key} {rl}")
    }
    /// A rotation's fingers lifted before they turned `min-rotation-deg` (degrees).
    public static var rotationTooSmall: FailureCheck {
        FailureCheck(
            "rotation-too-small", sentence: "lifted after turning {m}° < {key} {l}")
    }
    /// A circle-only shape ran straight: its last `circle-straight-run-mm` of path stayed this
    /// near its chord (mm, limit `circle-straight-run-deviation-mm`).
    public static var straightRun: FailureCheck {
        FailureCheck(
            "straight-run", sentence: "ran straight over circle-straight-run-mm: {m} mm from its chord ≤ {key} {l}")
    }
    /// The loop went round its centre less than `circle-min-turn-deg` or `circle-loop-turn-deg`
    /// (degrees).
    public static var turnTooSmall: FailureCheck {
        FailureCheck(
            "turn-too-small", sentence: "went round its centre {m}° < {key} {l}")
    }
    /// The shape spanned less than `min-size-mm` (mm).
    public static var shapeTooSmall: FailureCheck {
        FailureCheck("shape-too-small", sentence: "size {m} mm < {key} {l}")
    }
    /// The loop is not round: the spread of its radius (ratio, `circle-max-spread`).
    public static var notRound: FailureCheck {
        FailureCheck(
            "not-round", sentence: "not round: radius spread {rm} > {key} {rl}")
    }
    /// The loop has corners: a harmonic of its radius (ratio, `circle-max-corners`).
    public static var corners: FailureCheck {
        FailureCheck("corners", sentence: "corners: radius harmonic {rm} > {key} {rl}")
    }
    /// The loop is a spiral: its radius at the ends differs (ratio, `circle-max-spiral` or
    /// `circle-max-overshoot`).
    public static var spiral: FailureCheck {
        FailureCheck("spiral", sentence: "a spiral: end radii differ by {rm} > {key} {rl}")
    }
    /// The loop is flat: short over long axis (ratio, `circle-min-axis-ratio`).
    public static var flat: FailureCheck { FailureCheck("flat", sentence: "flat: axis ratio {rm} < {key} {rl}") }
    /// The best template scored below `min-score`.
    public static var scoreTooLow: FailureCheck { FailureCheck("score-too-low", sentence: "score {rm} < {key} {rl}") }
}

/// The failures of a finger count outside its range, as the kinds with a range propose them.
extension Failure {
    /// `fingers` are more than `max-fingers`.
    static func tooManyFingers(_ fingers: Int, most: Int) -> Failure {
        Failure(.tooManyFingers, .maxFingers, measured: Double(fingers), limit: Double(most))
    }

    /// `fingers` are fewer than `min-fingers`.
    static func tooFewFingers(_ fingers: Int, least: Int) -> Failure {
        Failure(.tooFewFingers, .minFingers, measured: Double(fingers), limit: Double(least))
    }
}
