/// A state a recognizer reports. Raw values are the protocol's spellings.
public enum GestureState: String, Hashable, Sendable, CaseIterable, Codable {
    case began
    case changed
    case ended
    case cancelled
    /// The one report of a discrete recognizer.
    case recognized
}

/// Eight directions in surface coordinates (origin top-left, so `up` is decreasing y).
public enum Direction: String, Hashable, Sendable, CaseIterable, Codable {
    case up
    case down
    case left
    case right
    case upLeft = "up-left"
    case upRight = "up-right"
    case downLeft = "down-left"
    case downRight = "down-right"
}

/// The edges of the surface, for edge swipes.
public enum Edge: String, Hashable, Sendable, CaseIterable, Codable {
    case top
    case bottom
    case left
    case right
}

/// Who defined a recognizer or region: the configuration, or one client connection (whose
/// definitions go when it disconnects and whose gestures only it receives).
public enum Owner: Hashable, Sendable {
    case configuration
    case client(UInt64)
}

/// Up to ``capacity`` touch ids stored inline, so that emitting an event never allocates.
/// A gesture with more fingers than that lists the first ``capacity`` ids; ``GestureEvent/fingers``
/// is always the true count.
public struct TouchIDList: Sendable, Sequence, Hashable {
    public static let capacity = 16
    @usableFromInline var storage: InlineArray<16, TouchID>
    @usableFromInline var _count: Int
    /// How many ids the list holds.
    @inlinable public var count: Int { _count }
    /// Exact: `map` and `Array(_:)` allocate their result once, not growing it id by id.
    @inlinable public var underestimatedCount: Int { _count }

    @inlinable public init() {
        storage = InlineArray(repeating: TouchID(0))
        _count = 0
    }

    public init(_ ids: some Sequence<TouchID>) {
        self.init()
        for id in ids { append(id) }
    }

    /// Appends `id`; ignored once the list is full.
    @inlinable public mutating func append(_ id: TouchID) {
        guard _count < Self.capacity else { return }
        storage[_count] = id
        _count += 1
    }

    @inlinable public subscript(i: Int) -> TouchID {
        precondition(i >= 0 && i < count, "touch index out of range")
        return storage[i]
    }

    public struct Iterator: IteratorProtocol {
        @usableFromInline let list: TouchIDList
        @usableFromInline var index = 0
        @inlinable init(_ list: TouchIDList) { self.list = list }
        @inlinable public mutating func next() -> TouchID? {
            guard index < list.count else { return nil }
            defer { index += 1 }
            return list.storage[index]
        }
    }

    @inlinable public func makeIterator() -> Iterator { Iterator(self) }

    public static func == (lhs: TouchIDList, rhs: TouchIDList) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for i in 0..<lhs.count where lhs.storage[i] != rhs.storage[i] { return false }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for id in self { hasher.combine(id) }
    }
}

/// One report of a recognizer, as the engine makes it: who it goes to (``owner``), the device it
/// happened on, and what was recognized (``report``, whose fields are read through this event:
/// `event.name`, `event.position`).
///
/// The engine builds it with the synthesized memberwise initializers (internal: no other module
/// makes one), which assemble the event in place in the caller's buffer; a hand-written
/// initializer's assignments to `self` make the optimizer copy the whole event and destroy the
/// original (the optional `shape` string defeats it), about 200 instructions per event
/// (docs/performance-history.md, "Engine").
@dynamicMemberLookup
public struct GestureEvent: Sendable, Equatable {
    /// Who defined the recognizer: only its owner receives a client's gestures.
    public var owner: Owner
    public var device: DeviceID
    public var report: GestureReport
    /// What its touches are private to, from the private regions they landed in (``Privacy``):
    /// who may receive it, beside its owner's rule.
    public var privacy: Privacy = .open

    public subscript<Value>(dynamicMember field: WritableKeyPath<GestureReport, Value>) -> Value {
        get { report[keyPath: field] }
        set { report[keyPath: field] = newValue }
    }
}

/// What a recognizer reports, field by field: the engine's values at full precision and in typed
/// units, and — rounded for the wire — what a `gesture` message carries (GestureProtocol's
/// `GestureMessage` holds one; its table of fields, `GestureMessage.fields`, says each one's key,
/// rounding and whether it may be absent). A field added here and to that table is on the wire,
/// in the Swift client and checked against docs/protocol.schema.json (CONTRIBUTING.md, "Adding a
/// field to a message").
public struct GestureReport: Sendable, Hashable {
    /// The recognizer's name from the configuration or the client's `define`.
    public var name: String
    public var kind: GestureKind
    public var state: GestureState
    /// The region the recognizer is attached to.
    public var region: String
    /// The number of fingers taking part.
    public var fingers: Int
    public var touches: TouchIDList
    /// Kernel time of the input that caused this report. A report held back by a failure
    /// requirement (R4) keeps the time and position it had when it was first decided.
    public var time: Timestamp
    /// Kernel time the gesture's first touch landed (the first delivered to the recognizer since
    /// it was last possible): `time - startTime` is how long the gesture has lasted.
    public var startTime: Timestamp
    /// The centroid of the touches.
    public var position: SurfacePoint
    /// The centroid in millimetres, when the device's physical size is known.
    public var positionMM: PhysicalPoint?
    /// Centroid movement since the gesture began (zero for taps and long presses at begin).
    public var translation: SurfaceVector
    public var translationMM: PhysicalVector?
    /// Centroid velocity per second.
    public var velocity: SurfaceVector
    public var velocityMM: PhysicalVector?
    /// Pinch: distance ratio since begin (1 = unchanged).
    public var scale: Double?
    /// Rotate: radians since begin, positive clockwise on the surface (y grows downwards).
    public var rotation: Double?
    /// Pinch: scale change per second; rotate: radians per second.
    public var scaleVelocity: Double?
    public var rotationVelocity: Double?
    /// Swipe: the direction.
    public var direction: Direction?
    /// Edge swipe: the edge it started from.
    public var edge: Edge?
    /// Shape: the template that matched and its score (0…1, higher is better).
    public var shape: String?
    public var score: Double?
}

extension GestureReport {
    /// A report with what every gesture has, starting at `time`; set the kind's own fields
    /// (`direction`, `scale`…) and an earlier `startTime` afterwards. For clients and tests; the
    /// engine assembles its reports in place.
    public init(
        name: String, kind: GestureKind, state: GestureState, region: String, fingers: Int,
        touches: TouchIDList = TouchIDList(), time: Timestamp, position: SurfacePoint
    ) {
        self.init(
            name: name, kind: kind, state: state, region: region, fingers: fingers, touches: touches, time: time,
            startTime: time, position: position, positionMM: nil, translation: .zero, translationMM: nil,
            velocity: .zero,
            velocityMM: nil)
    }
}

/// A touch as the views see it (R8): raw-touch subscribers and the passthrough mirror device.
/// Arrives possibly later than the frame that caused it (delays-touches-began/ended), and a touch
/// a recognizer claims with cancels-touches arrives as `cancelled`.
public struct ViewTouchEvent: Sendable, Equatable {
    public var device: DeviceID
    /// The region the touch landed in among the configuration's (hit-tested once, where it
    /// landed): where every client sees it land, unless it landed in a region of its own.
    public var region: String
    /// The clients whose own regions the touch landed in, each with the region it landed in as
    /// that client sees it (R1: a client sees the configuration's regions and its own).
    public var clientRegions: [ClientRegion]
    /// The touch as it was in the frame that produced it (phase, position, tool, size).
    public var touch: Touch
    /// The time of that frame (held events keep their original time).
    public var time: Timestamp
    /// What the touch is private to, from the private regions it landed in (``Privacy``).
    public var privacy: Privacy

    public init(
        device: DeviceID, region: String, clientRegions: [ClientRegion] = [], touch: Touch, time: Timestamp,
        privacy: Privacy = .open
    ) {
        self.device = device
        self.region = region
        self.clientRegions = clientRegions
        self.touch = touch
        self.time = time
        self.privacy = privacy
    }

    /// The region the touch landed in as `owner` sees it.
    public func region(seenBy owner: Owner) -> String {
        for own in clientRegions where own.owner == owner { return own.name }
        return region
    }
}

/// A client's own region, where a touch landed as that client sees it.
public struct ClientRegion: Hashable, Sendable {
    public var owner: Owner
    public var name: String

    public init(owner: Owner, name: String) {
        self.owner = owner
        self.name = name
    }
}

/// What the engine emits, in order.
public enum EngineEvent: Sendable, Equatable {
    case gesture(GestureEvent)
    case touch(ViewTouchEvent)
    /// Why a recognizer failed, waits, or was blocked or cancelled: only while
    /// ``GestureEngine/explains`` is on.
    case explanation(Explanation)
    /// What the stage before a panel's arena did: a wake, idle, active, a stuck contact ended,
    /// and (only while ``GestureEngine/explains`` is on) each contact it kept from everyone.
    case panel(PanelEvent)
}
