import GestureEngine
import GestureProtocol
import Synchronization

/// What the open connections want, as the server last posted it: the publisher decides on it,
/// once, who takes each publication (its ``Audience``), and drops what nobody takes before it
/// hands a batch to the server — a frame whose events nobody subscribed to (raw touches with no
/// touch subscriber, a gesture no filter matches) then costs no message and no hop to the
/// server's event loop. The server delivers to that audience, and decides again (with the same
/// ``Reader``) only for a connection whose subscription changed since ``version``.
public struct Interest: Sendable {
    /// One connection's subscription, and the one rule of what it takes.
    struct Reader: Sendable {
        var client: ClientID
        var subscription: Subscription
        /// Its place in an ``Audience``: given by the server while the connection is subscribed,
        /// taken by another connection after it stopped (``version`` tells them apart).
        var slot: Int
        /// The server's subscription clock when this connection's subscription last changed.
        var version: UInt64
        /// Whether it may see where fingers are (``PositionAccess``, decided by the server when it
        /// subscribed and at every change of the rule): raw touches, `contact` messages, and what
        /// landed in the configuration's private regions.
        var seesPositions: Bool

        /// How a reader sees a message it takes.
        enum View: Equatable {
            case asPublished
            /// A touch that landed in a region of the reader's own (R1): named so on its line.
            case landedIn(String)
        }

        /// Whether it takes the `gesture` message of `gesture`, on the device labelled `device`:
        /// decided on the engine's event, before the message is built.
        func takes(_ gesture: GestureEvent, device: String) -> Bool {
            subscription.matches(gesture.report, device: device) && sees(gesture.owner)
                && admits(gesture.privacy)
        }

        /// How it takes `publication`; nil when it does not. Gestures of a client's own
        /// recognizers, and explanations about or naming them, go to that client only; what
        /// landed in a private region, to those its ``GestureEngine/Privacy`` admits; raw touches
        /// and contacts, to a reader that may see where fingers are; a touch is seen where it
        /// landed among the configuration's regions and the reader's own.
        func view(of publication: Publication) -> View? {
            switch publication {
            case .gesture(let gesture, let owner, let privacy, _):
                return subscription.matches(gesture) && sees(owner) && admits(privacy) ? .asPublished : nil
            case .explain(let explanation, let owner, let privacy, _):
                return subscription.matches(explanation) && sees(owner) && admits(privacy) ? .asPublished : nil
            case .touch(var touch, let clientRegions, let privacy, _):
                guard seesPositions && admits(privacy) else { return nil }
                let landed = touch.region
                for own in clientRegions where own.owner == client.owner { touch.region = own.name }
                guard subscription.matches(touch) else { return nil }
                return touch.region == landed ? .asPublished : .landedIn(touch.region)
            case .contact(let contact, _):
                return seesPositions && subscription.explain
                    && (subscription.devices?.contains(contact.device) ?? true) ? .asPublished : nil
            case .device, .announcement, .recognizers, .recording, .raw:
                return nil
            }
        }

        private func admits(_ privacy: Privacy) -> Bool {
            privacy.isOpen || privacy.admits(client: client.rawValue, seesPositions: seesPositions)
        }

        private func sees(_ owner: Owner) -> Bool {
            switch owner {
            case .configuration: true
            case .client(let n): n == client.rawValue
            }
        }
    }

    var readers: [Reader] = []
    /// The server's subscription clock when it posted this: a reader whose ``Reader/version`` is
    /// later changed after this was decided on.
    public let version: UInt64
    /// Whether any connection takes raw touches at all (most take none: their messages need not
    /// even be built).
    public private(set) var takesTouches = false
    /// Whether any connection takes explanations (the engine makes them only then).
    public private(set) var takesExplanations = false
    /// Whether any connection takes gestures at all.
    public var takesGestures: Bool { !readers.isEmpty }
    /// The kinds some reader's `kinds` filter lets through; nil when a reader has none (it takes
    /// every kind). A few kinds in a list: looked up for every engine event, where hashing costs
    /// more than comparing a byte each.
    private var gestureKinds: [GestureKind]?

    /// Nobody subscribed (yet): only `device` messages go out.
    public init() {
        version = 0
    }

    /// `gestured replay`'s one reader: every gesture (the configuration's recognizers are the only
    /// ones), raw touches with `touches`, explanations with `explanations`.
    public static func replay(touches: Bool, explanations: Bool) -> Interest {
        Interest(
            readers: [
                Reader(
                    client: ClientID(0), subscription: Subscription(touches: touches, explain: explanations), slot: 0,
                    version: 1, seesPositions: true)
            ], version: 1)
    }

    init(readers: [Reader], version: UInt64) {
        self.readers = readers
        self.version = version
        takesTouches = readers.contains { $0.subscription.touches && $0.seesPositions }
        takesExplanations = readers.contains { $0.subscription.explain }
        var kinds: Set<GestureKind>? = []
        for reader in readers {
            guard let taken = reader.subscription.kinds else {
                kinds = nil
                break
            }
            kinds?.formUnion(taken)
        }
        gestureKinds = kinds.map(Array.init)
    }

    /// The kinds of gesture some reader may take (``mayTake(gestureOf:)``): none when nobody
    /// takes gestures, nil when a reader takes every kind. The engine makes the events of these
    /// kinds only (``GestureEngine/reportedKinds``).
    public var kindsTaken: Set<GestureKind>? {
        guard takesGestures else { return [] }
        return gestureKinds.map(Set.init)
    }

    /// Whether some reader may take a gesture of `kind`: false rules it out at the cost of a
    /// comparison or two (a client of swipes does not pay for the pan's every frame); true leaves
    /// it to ``audience(of:device:)``.
    @inline(__always) func mayTake(gestureOf kind: GestureKind) -> Bool {
        guard takesGestures else { return false }
        guard let gestureKinds else { return true }
        return gestureKinds.contains(kind)
    }

    /// The readers that take the `gesture` message of `gesture`, on the device labelled
    /// `device`: decided before the message is built, by the rule of ``Reader/view(of:)``.
    func audience(of gesture: GestureEvent, device: String) -> Audience {
        var audience = Audience(decidedAt: version)
        for reader in readers where reader.takes(gesture, device: device) {
            audience.add(reader.slot, sees: .asPublished)
        }
        return audience
    }

    /// The readers that take `publication`, each with how it sees it.
    func audience(of publication: Publication) -> Audience {
        var audience = Audience(decidedAt: version)
        for reader in readers {
            if let view = reader.view(of: publication) { audience.add(reader.slot, sees: view) }
        }
        return audience
    }

    /// `publication` with its audience decided on this interest; nil when no connection takes it.
    /// `device` messages and announcements go to every connection, a recording's messages to the
    /// connection that records, and the recognizer list to none (it is for `hello`): they come
    /// back as they are.
    public func decided(_ publication: Publication) -> Publication? {
        let audience = audience(of: publication)
        switch publication {
        case .gesture(let gesture, let owner, let privacy, _):
            return audience.isEmpty ? nil : .gesture(gesture, owner: owner, privacy: privacy, audience: audience)
        case .touch(let touch, let clientRegions, let privacy, _):
            return audience.isEmpty
                ? nil : .touch(touch, clientRegions: clientRegions, privacy: privacy, audience: audience)
        case .explain(let explanation, let owner, let privacy, _):
            return audience.isEmpty ? nil : .explain(explanation, owner: owner, privacy: privacy, audience: audience)
        case .contact(let contact, _):
            return audience.isEmpty ? nil : .contact(contact, audience: audience)
        case .device, .announcement, .recognizers, .recording, .raw:
            return publication
        }
    }
}

/// The latest ``Interest``, written on the server's event loop and read by the publishing
/// thread: its version, checked without a lock on every batch, and the value under a lock when
/// that number moved.
final class InterestBoard: Sendable {
    private let version = Atomic<UInt64>(0)
    private let current = Mutex(Interest())

    func post(_ interest: Interest) {
        current.withLock { $0 = interest }
        version.store(interest.version, ordering: .releasing)
    }

    /// The interest, when newer than version `seen`.
    func read(newerThan seen: UInt64) -> Interest? {
        guard version.load(ordering: .acquiring) != seen else { return nil }
        return current.withLock { $0 }
    }
}
