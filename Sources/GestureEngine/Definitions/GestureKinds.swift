// The registry of recognizer kinds: a kind is registered here — its spelling (``GestureKind``),
// its parameters (``RecognizerParameters``), its line in the one dispatch over kinds
// (``GestureKind/visit(_:_:)``) and its machines' bank (``MachineBanks``). The rest of a kind is in
// its file under Recognizers/: parameters and descriptors, machine, definition and the table of
// its failures and the checks and keys only it uses, and its answers to what only some kinds have
// (templates, edge bands, what it prepares), which the rest of the code asks for here
// (``RecognizerParameters/templateCount``, ``RecognizerParameters/edgeBands``) and never by
// naming a kind (CONTRIBUTING.md, "Adding a recognizer kind", says why the four entries are not
// one).

/// The recognizer kinds. Raw values are the spellings of the config file and the protocol.
public enum GestureKind: String, Hashable, Sendable, CaseIterable, Codable {
    case tap
    case longPress = "long-press"
    case pan
    case swipe
    case edgeSwipe = "edge-swipe"
    case pinch
    case rotate
    case shape
    case pressAndTap = "press-and-tap"

    /// Continuous kinds report began/changed/ended/cancelled; discrete ones report recognized.
    public var isContinuous: Bool { visit(IsContinuous()) }
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
    case pressAndTap(PressAndTapParameters)

    /// The kind whose definition these parameters are of (a kind's ``KindDefinition/unwrap(_:)``).
    public var kind: GestureKind {
        guard let kind = GestureKind.allCases.first(where: { $0.visit(Unwraps(parameters: self)) }) else {
            preconditionFailure("\(self) is the parameters of no kind in GestureKind.visit")
        }
        return kind
    }

    /// Shape templates these parameters define, named or built in (0 for kinds without
    /// templates): what the server's per-connection and all-connections limits on templates count.
    public var templateCount: Int { kind.visit(TemplateCount(parameters: self)) }

    /// The strips along the surface's edges where the recognizer's touches must land (none for
    /// most kinds; an edge swipe's `band-mm` along each of its `edges`): what `replay --svg` draws.
    public var edgeBands: [EdgeBand] { kind.visit(EdgeBands(parameters: self)) }
}

/// A strip along one edge of the surface, `width` deep, where a recognizer's touches must land;
/// `key` is the parameter that sets its width.
public struct EdgeBand: Hashable, Sendable {
    public var edge: Edge
    public var width: Millimeters
    public var key: ParameterKey

    public init(edge: Edge, width: Millimeters, key: ParameterKey) {
        self.edge = edge
        self.width = width
        self.key = key
    }
}

/// A recognizer kind as the engine knows it: its parameters (whose descriptors decode, encode,
/// validate and document them), its machine, and where a device's arena keeps its machines.
/// Each kind's file declares one (``TapKind`` and the rest); ``GestureKind/visit(_:_:)`` is the
/// one place that lists them.
protocol KindDefinition {
    associatedtype Parameters: DescribedParameters
    associatedtype Machine: Recognizer
    /// Continuous kinds report began/changed/ended/cancelled; discrete ones report recognized.
    static var isContinuous: Bool { get }
    static func wrap(_ parameters: Parameters) -> RecognizerParameters
    /// The parameters when they are of this kind.
    static func unwrap(_ parameters: RecognizerParameters) -> Parameters?
    /// The machine for recognizer `r` of a compiled set, on a device measured by `scale`.
    static func machine(_ r: Int, _ c: CompiledSet, scale: MeasuringScale) -> Machine
    /// This kind's machines in an arena.
    static var bank: WritableKeyPath<MachineBanks, [Machine]> { get }
    /// The most fingers it takes: more fail it before it begins, and once it began it takes no
    /// touch beyond them (R1).
    static func mostFingers(_ parameters: Parameters) -> Int
    /// Every check its machine fails with and the key whose limit it measures against (nil: a
    /// fixed limit): what explanations may say of the kind. A failure not in the table, a key
    /// that is not one of the kind's own, or a check without a sentence fails RegistryTests.
    static var failures: [(check: FailureCheck, key: ParameterKey?)] { get }
    /// What its machines are made from that is costly to work out, worked out once per owner's
    /// definitions (``CompiledSet/Definitions``), not at every recompile nor for every device; its
    /// `machine(_:_:scale:)` reads it back (``CompiledSet/prepared``). nil, the default: nothing
    /// to prepare. (``ShapeKind`` prepares its templates.)
    static func prepare(_ parameters: Parameters) -> (any PreparedParameters)?
    /// Shape templates its parameters define, named or built in: what the limits on templates
    /// count (``RecognizerParameters/templateCount``). 0, the default: none.
    static func templateCount(_ parameters: Parameters) -> Int
    /// The strips along the surface's edges its touches must land in, for pictures of a replay
    /// (``RecognizerParameters/edgeBands``). None, the default.
    static func edgeBands(_ parameters: Parameters) -> [EdgeBand]
}

extension KindDefinition {
    static func prepare(_: Parameters) -> (any PreparedParameters)? { nil }
    static func templateCount(_: Parameters) -> Int { 0 }
    static func edgeBands(_: Parameters) -> [EdgeBand] { [] }
}

extension KindDefinition where Machine.Parameters == Parameters {
    static func machine(_ r: Int, _ c: CompiledSet, scale: MeasuringScale) -> Machine {
        Machine(unwrap(c.parameters[r])!, scale: scale)
    }
}

/// What a kind works out from its parameters once per owner's definitions
/// (``KindDefinition/prepare(_:)``). Kept boxed in the compiled set and read when a device's
/// machines are made, never on the frame path: what a frame needs of it is copied out when the
/// set is compiled (``shapeNames``).
protocol PreparedParameters: Sendable {
    /// The names a report's ``Report/shape`` picks from, by index.
    var shapeNames: [String] { get }
}

/// Something done with a kind, whichever it is: the engine's one dispatch over kinds, in place
/// of a `switch` per operation. `visit` is specialised for each kind's concrete types (no
/// existentials), and works on a `subject` it may change (an arena, its machines).
protocol KindVisitor {
    associatedtype Subject
    associatedtype Result
    associatedtype Failure: Error = Never
    func visit<Kind: KindDefinition>(_ kind: Kind.Type, _ subject: inout Subject) throws(Failure) -> Result
}

extension GestureKind {
    /// The list of kinds: a new kind's line goes here, with its cases of ``GestureKind`` and
    /// ``RecognizerParameters`` and its bank in ``MachineBanks`` (this file).
    @inline(__always) func visit<V: KindVisitor>(_ visitor: V, _ subject: inout V.Subject) throws(V.Failure) -> V.Result
    {
        switch self {
        case .tap: try visitor.visit(TapKind.self, &subject)
        case .longPress: try visitor.visit(LongPressKind.self, &subject)
        case .pan: try visitor.visit(PanKind.self, &subject)
        case .swipe: try visitor.visit(SwipeKind.self, &subject)
        case .edgeSwipe: try visitor.visit(EdgeSwipeKind.self, &subject)
        case .pinch: try visitor.visit(PinchKind.self, &subject)
        case .rotate: try visitor.visit(RotateKind.self, &subject)
        case .shape: try visitor.visit(ShapeKind.self, &subject)
        case .pressAndTap: try visitor.visit(PressAndTapKind.self, &subject)
        }
    }

    /// ``visit(_:_:)`` for a visitor that needs no subject.
    @inline(__always) func visit<V: KindVisitor>(_ visitor: V) throws(V.Failure) -> V.Result where V.Subject == Void {
        var none: Void = ()
        return try visit(visitor, &none)
    }
}

/// A device's machines, one array of concrete value types per kind (``KindDefinition/bank``).
struct MachineBanks {
    var taps: [TapRecognizer] = []
    var longPresses: [LongPressRecognizer] = []
    var pans: [PanRecognizer] = []
    var swipes: [SwipeRecognizer] = []
    var edgeSwipes: [EdgeSwipeRecognizer] = []
    var pinches: [PinchRecognizer] = []
    var rotations: [RotateRecognizer] = []
    var shapes: [ShapeRecognizer] = []
    var pressAndTaps: [PressAndTapRecognizer] = []
}

struct IsContinuous: KindVisitor {
    func visit<Kind: KindDefinition>(_: Kind.Type, _: inout Void) -> Bool { Kind.isContinuous }
}

extension GestureKind {
    /// The kind's table of failures (``KindDefinition/failures``).
    var failures: [(check: FailureCheck, key: ParameterKey?)] { visit(KindFailures()) }

    /// The keys of the kind's own parameters (their descriptors).
    var parameterKeys: [String] { visit(KindKeys()) }
}

private struct KindFailures: KindVisitor {
    func visit<Kind: KindDefinition>(_: Kind.Type, _: inout Void) -> [(check: FailureCheck, key: ParameterKey?)] {
        Kind.failures
    }
}

private struct Unwraps: KindVisitor {
    let parameters: RecognizerParameters
    func visit<Kind: KindDefinition>(_: Kind.Type, _: inout Void) -> Bool { Kind.unwrap(parameters) != nil }
}

extension RecognizerParameters {
    /// What the kind works out once per owner's definitions (``KindDefinition/prepare(_:)``).
    var prepared: (any PreparedParameters)? { kind.visit(Prepare(parameters: self)) }
}

private struct Prepare: KindVisitor {
    let parameters: RecognizerParameters
    func visit<Kind: KindDefinition>(_: Kind.Type, _: inout Void) -> (any PreparedParameters)? {
        Kind.prepare(Kind.unwrap(parameters)!)
    }
}

private struct TemplateCount: KindVisitor {
    let parameters: RecognizerParameters
    func visit<Kind: KindDefinition>(_: Kind.Type, _: inout Void) -> Int {
        Kind.templateCount(Kind.unwrap(parameters)!)
    }
}

private struct EdgeBands: KindVisitor {
    let parameters: RecognizerParameters
    func visit<Kind: KindDefinition>(_: Kind.Type, _: inout Void) -> [EdgeBand] {
        Kind.edgeBands(Kind.unwrap(parameters)!)
    }
}

private struct KindKeys: KindVisitor {
    func visit<Kind: KindDefinition>(_: Kind.Type, _: inout Void) -> [String] { Kind.Parameters.keyNames }
}
