// The registry of recognizer kinds. A kind is its file under Recognizers/ — its parameters and
// their descriptors, its machine, its definition (``KindDefinition``: its spelling, finger limit,
// table of failures, the checks and keys only it uses, and its answers to what only some kinds
// have) and its public names (``GestureKind/tap``, ``RecognizerParameters/tap(_:)`` and the
// rest) — and its one line in ``RegisteredKinds``, below. Everything else goes through the
// registry and never names a kind: coding and validating parameters, making a device's machines
// and feeding them (``MachineBanks``), explanations, the server's template limits
// (``RecognizerParameters/templateCount``), the picture of a replay
// (``RecognizerParameters/edgeBands``). CONTRIBUTING.md, "Adding a recognizer kind".

/// Every kind, one line each. A kind's position is its ``GestureKind`` (the order of
/// ``GestureKind/allCases``): a new kind's line goes at the end.
typealias RegisteredKinds = NoKinds
    .And<TapKind>
    .And<LongPressKind>
    .And<PanKind>
    .And<SwipeKind>
    .And<EdgeSwipeKind>
    .And<PinchKind>
    .And<RotateKind>
    .And<ShapeKind>
    .And<PressAndTapKind>

/// A recognizer kind, spelled in the config file and the protocol by its ``rawValue``: one of
/// ``allCases``. Each kind's file declares its name (``GestureKind/tap`` and the rest). A struct
/// rather than an enum so that a kind is declared in its own file; a `switch` over kinds needs a
/// `default`, as kinds are added.
public struct GestureKind: RawRepresentable, Hashable, Sendable, CaseIterable, Codable, CustomStringConvertible {
    /// Its position in ``RegisteredKinds``.
    var index: Int { Int(position.rawValue) }
    private let position: Position

    /// A position in the list, as an enum rather than an integer: the events that carry a kind
    /// keep the values it does not use for their own tags, as they did when GestureKind was an
    /// enum (an integer here made the engine's 10-touch frame 2–3 % slower). Room for 16 kinds.
    private enum Position: UInt8 {
        case k0, k1, k2, k3, k4, k5, k6, k7, k8, k9, k10, k11, k12, k13, k14, k15
    }

    private init(index: Int) {
        guard let position = Position(rawValue: UInt8(truncatingIfNeeded: index)), index == position.rawValue else {
            preconditionFailure("RegisteredKinds has more kinds than GestureKind.Position has room for")
        }
        self.position = position
    }

    /// The kind `Kind` defines.
    init<Kind: KindDefinition>(_: Kind.Type) {
        guard let index = RegisteredKinds.index(of: Kind.self) else {
            preconditionFailure("\(Kind.self) has no line in RegisteredKinds")
        }
        self.init(index: index)
    }

    /// The kind spelled `rawValue`; nil when no kind is.
    public init?(rawValue: String) {
        let positions = 0..<RegisteredKinds.count
        guard let index = positions.first(where: { GestureKind(index: $0).rawValue == rawValue }) else { return nil }
        self.init(index: index)
    }

    /// Its spelling in the config file and the protocol.
    public var rawValue: String { visit(KindName()) }

    public var description: String { rawValue }

    /// Every kind, in the order they are registered.
    public static var allCases: [GestureKind] { (0..<RegisteredKinds.count).map(GestureKind.init(index:)) }

    /// Continuous kinds report began/changed/ended/cancelled; discrete ones report recognized.
    public var isContinuous: Bool { visit(IsContinuous()) }

    public static func == (a: GestureKind, b: GestureKind) -> Bool { a.position == b.position }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(position)
    }
}

/// The kind of a recognizer and the parameters of that kind. Made with the kind's name
/// (`.tap(TapParameters())`, declared in each kind's file) and read back with ``value(as:)``.
public struct RecognizerParameters: Hashable, Sendable {
    /// The kind whose definition these parameters are of.
    public let kind: GestureKind
    private let parameters: any DescribedParameters

    init<Kind: KindDefinition>(_: Kind.Type, _ parameters: Kind.Parameters) {
        kind = GestureKind(Kind.self)
        self.parameters = parameters
    }

    /// The parameters, when they are a `P` (the kind's: ``TapParameters`` and the rest).
    public func value<P>(as _: P.Type) -> P? { parameters as? P }

    /// The parameters of `Kind`, the kind they are of.
    func of<Kind: KindDefinition>(_: Kind.Type) -> Kind.Parameters {
        guard let p = parameters as? Kind.Parameters else {
            preconditionFailure("\(kind) parameters read as \(Kind.self)'s")
        }
        return p
    }

    /// Shape templates these parameters define, named or built in (0 for kinds without
    /// templates): what the server's per-connection and all-connections limits on templates count.
    public var templateCount: Int { kind.visit(TemplateCount(parameters: self)) }

    /// The strips along the surface's edges where the recognizer's touches must land (none for
    /// most kinds; an edge swipe's `band-mm` along each of its `edges`): what `replay --svg` draws.
    public var edgeBands: [EdgeBand] { kind.visit(EdgeBands(parameters: self)) }

    public static func == (a: RecognizerParameters, b: RecognizerParameters) -> Bool {
        a.kind == b.kind && a.parameters.isEqual(to: b.parameters)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        parameters.hash(into: &hasher)
    }
}

extension DescribedParameters {
    fileprivate func isEqual(to other: any DescribedParameters) -> Bool { (other as? Self) == self }
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

/// A recognizer kind as the engine knows it: its spelling, its parameters (whose descriptors
/// decode, encode, validate and document them) and its machine. Each kind's file declares one
/// (``TapKind`` and the rest); ``RegisteredKinds`` lists them.
protocol KindDefinition {
    associatedtype Parameters: DescribedParameters
    associatedtype Machine: Recognizer, Sendable
    /// Its spelling in the config file and the protocol (``GestureKind/rawValue``).
    static var name: String { get }
    /// Continuous kinds report began/changed/ended/cancelled; discrete ones report recognized.
    static var isContinuous: Bool { get }
    /// The machine for recognizer `r` of a compiled set, on a device measured by `scale`.
    static func machine(_ r: Int, _ c: CompiledSet, scale: MeasuringScale) -> Machine
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
        Machine(c.parameters[r].of(Self.self), scale: scale)
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

// MARK: - The list of kinds

/// A list of kinds, built one kind at a time (``RegisteredKinds``): each kind's type at its
/// position, and storage for each kind's machines (``Banks``). The compiler resolves the whole
/// list, so an operation on the kind at a position runs that kind's own code, specialised for its
/// concrete types (no existentials); the tests of the position fold into one `switch`.
protocol KindList {
    associatedtype Banks: MachineBankList
    /// How many kinds the list has.
    static var count: Int { get }
    /// `Kind`'s position; nil when it is not in the list.
    static func index<Kind: KindDefinition>(of: Kind.Type) -> Int?
    /// `visitor` run with the type of the kind at `index`.
    static func visit<V: KindVisitor>(_ index: Int, _ visitor: V) throws(V.Failure) -> V.Result
}

extension KindList {
    /// This list and `Kind` after it.
    typealias And<Kind: KindDefinition> = Kinds<Self, Kind>
}

/// The empty list of kinds.
enum NoKinds: KindList {
    static var count: Int { 0 }

    static func index<Kind: KindDefinition>(of: Kind.Type) -> Int? { nil }

    static func visit<V: KindVisitor>(_ index: Int, _: V) throws(V.Failure) -> V.Result {
        preconditionFailure("no kind at \(index)")
    }

    struct Banks: MachineBankList {
        mutating func add(_ kind: GestureKind, _: Int, _: CompiledSet, scale _: MeasuringScale) -> Int {
            preconditionFailure("no kind at \(kind.index)")
        }

        mutating func visit<V: MachineVisitor>(
            _ kind: GestureKind, _: Int, _: V, _: borrowing TouchTable
        ) -> V.Result {
            preconditionFailure("no kind at \(kind.index)")
        }

        mutating func carry(_ kind: GestureKind, _: Int, from _: Banks, _: Int) {
            preconditionFailure("no kind at \(kind.index)")
        }
    }
}

/// The kinds of `Earlier` and `Kind` after them, at position `Earlier.count`.
enum Kinds<Earlier: KindList, Kind: KindDefinition>: KindList {
    @inline(__always) static var count: Int { Earlier.count + 1 }

    static func index<K: KindDefinition>(of: K.Type) -> Int? {
        K.self == Kind.self ? Earlier.count : Earlier.index(of: K.self)
    }

    @inline(__always) static func visit<V: KindVisitor>(_ index: Int, _ visitor: V) throws(V.Failure) -> V.Result {
        index == Earlier.count ? try visitor.visit(Kind.self) : try Earlier.visit(index, visitor)
    }

    /// `Earlier`'s machines, and this kind's in an array of their concrete type (inline, not boxed).
    struct Banks: MachineBankList {
        var earlier = Earlier.Banks()
        var machines: [Kind.Machine] = []

        mutating func add(_ kind: GestureKind, _ r: Int, _ c: CompiledSet, scale: MeasuringScale) -> Int {
            guard kind.index == Earlier.count else { return earlier.add(kind, r, c, scale: scale) }
            machines.append(Kind.machine(r, c, scale: scale))
            return machines.count - 1
        }

        @inline(__always) mutating func visit<V: MachineVisitor>(
            _ kind: GestureKind, _ k: Int, _ visitor: V, _ touches: borrowing TouchTable
        ) -> V.Result {
            kind.index == Earlier.count
                ? visitor.visit(&machines[k], touches) : earlier.visit(kind, k, visitor, touches)
        }

        mutating func carry(_ kind: GestureKind, _ k: Int, from old: Banks, _ ok: Int) {
            guard kind.index == Earlier.count else { return earlier.carry(kind, k, from: old.earlier, ok) }
            machines[k] = old.machines[ok]
        }
    }
}

/// A device's machines: for each kind, an array of its machines' concrete type
/// (``Kinds/Banks``); a recognizer's machine is at its index in its kind's array.
typealias MachineBanks = RegisteredKinds.Banks

/// Where a list of kinds keeps a device's machines.
protocol MachineBankList: Sendable {
    init()
    /// Appends recognizer `r`'s machine, of kind `kind`, to its kind's array; its index there.
    mutating func add(_ kind: GestureKind, _ r: Int, _ c: CompiledSet, scale: MeasuringScale) -> Int
    /// `visitor` run on machine `k` of kind `kind`.
    mutating func visit<V: MachineVisitor>(
        _ kind: GestureKind, _ k: Int, _ visitor: V, _ touches: borrowing TouchTable
    ) -> V.Result
    /// Puts the machine `old` has at `ok` of kind `kind`'s array at `k` of this one's.
    mutating func carry(_ kind: GestureKind, _ k: Int, from old: Self, _ ok: Int)
}

/// Something done with a kind, whichever it is: the engine's one dispatch over kinds, in place
/// of a `switch` per operation. `visit` is specialised for each kind's concrete types.
protocol KindVisitor {
    associatedtype Result
    associatedtype Failure: Error = Never
    func visit<Kind: KindDefinition>(_ kind: Kind.Type) throws(Failure) -> Result
}

/// Something done with one machine, whichever kind it is (``MachineBankList/visit(_:_:_:_:)``),
/// specialised for the machine's concrete type.
protocol MachineVisitor {
    associatedtype Result
    func visit<Machine: Recognizer>(_ machine: inout Machine, _ touches: borrowing TouchTable) -> Result
}

extension GestureKind {
    /// `visitor` run with this kind's definition (``KindDefinition``).
    @inline(__always) func visit<V: KindVisitor>(_ visitor: V) throws(V.Failure) -> V.Result {
        try RegisteredKinds.visit(index, visitor)
    }

    /// The kind's table of failures (``KindDefinition/failures``).
    var failures: [(check: FailureCheck, key: ParameterKey?)] { visit(KindFailures()) }

    /// The keys of the kind's own parameters (their descriptors).
    var parameterKeys: [String] { visit(KindKeys()) }
}

private struct KindName: KindVisitor {
    func visit<Kind: KindDefinition>(_: Kind.Type) -> String { Kind.name }
}

private struct IsContinuous: KindVisitor {
    func visit<Kind: KindDefinition>(_: Kind.Type) -> Bool { Kind.isContinuous }
}

private struct KindFailures: KindVisitor {
    func visit<Kind: KindDefinition>(_: Kind.Type) -> [(check: FailureCheck, key: ParameterKey?)] {
        Kind.failures
    }
}

private struct KindKeys: KindVisitor {
    func visit<Kind: KindDefinition>(_: Kind.Type) -> [String] { Kind.Parameters.keyNames }
}

extension RecognizerParameters {
    /// What the kind works out once per owner's definitions (``KindDefinition/prepare(_:)``).
    var prepared: (any PreparedParameters)? { kind.visit(Prepare(parameters: self)) }
}

private struct Prepare: KindVisitor {
    let parameters: RecognizerParameters
    func visit<Kind: KindDefinition>(_: Kind.Type) -> (any PreparedParameters)? {
        Kind.prepare(parameters.of(Kind.self))
    }
}

private struct TemplateCount: KindVisitor {
    let parameters: RecognizerParameters
    func visit<Kind: KindDefinition>(_: Kind.Type) -> Int {
        Kind.templateCount(parameters.of(Kind.self))
    }
}

private struct EdgeBands: KindVisitor {
    let parameters: RecognizerParameters
    func visit<Kind: KindDefinition>(_: Kind.Type) -> [EdgeBand] {
        Kind.edgeBands(parameters.of(Kind.self))
    }
}
