import GestureEngine
import GestureProtocol
import Synchronization

/// What the open connections want, for the publisher to drop the rest before it hands a batch
/// to the server: a frame whose events nobody subscribed to (raw touches with no touch
/// subscriber, a gesture no filter matches) then costs no hop to the server's event loop, and
/// does not wake it. The server decides with the same ``Reader`` for each connection, so the
/// two never disagree.
public struct Interest: Sendable {
    /// One connection's subscription.
    struct Reader: Sendable {
        var client: ClientID
        var subscription: Subscription

        /// Gestures of a client's own recognizers go to that client only.
        func wants(_ gesture: GestureMessage, from owner: Owner) -> Bool {
            subscription.matches(gesture) && sees(owner)
        }

        func wants(_ gesture: GestureEvent, device: String) -> Bool {
            subscription.matches(gesture, device: device) && sees(gesture.owner)
        }

        /// Explanations follow their recognizer's gestures: a client's own go to it only.
        func wants(_ explanation: ExplainMessage, from owner: Owner) -> Bool {
            subscription.matches(explanation) && sees(owner)
        }

        private func sees(_ owner: Owner) -> Bool {
            switch owner {
            case .configuration: true
            case .client(let n): n == client.rawValue
            }
        }

        func wants(_ touch: TouchMessage) -> Bool { subscription.matches(touch) }

        /// The touch as this connection sees it land: in a region of its own, when it landed in
        /// one (R1), else where `touch` says.
        func sees(_ touch: TouchMessage, clientRegions: [ClientRegion]) -> TouchMessage {
            var seen = touch
            for own in clientRegions where own.owner == client.owner { seen.region = own.name }
            return seen
        }
    }

    var readers: [Reader] = []
    /// Whether any connection takes raw touches at all (most take none: their messages need not
    /// even be built).
    public private(set) var takesTouches = false
    /// Whether any connection takes explanations (the engine makes them only then).
    public private(set) var takesExplanations = false
    /// Whether any connection takes gestures at all.
    public var takesGestures: Bool { !readers.isEmpty }

    /// Nobody subscribed (yet): only `device` messages go out.
    public init() {}

    /// `gestured replay`'s one reader: every gesture (the configuration's recognizers are the only
    /// ones), raw touches with `touches`, explanations with `explanations`.
    public static func replay(touches: Bool, explanations: Bool) -> Interest {
        Interest(readers: [
            Reader(client: ClientID(0), subscription: Subscription(touches: touches, explain: explanations))
        ])
    }

    init(readers: [Reader]) {
        self.readers = readers
        takesTouches = readers.contains { $0.subscription.touches }
        takesExplanations = readers.contains { $0.subscription.explain }
    }

    /// Whether some connection takes the `gesture` message of `gesture`, on the device labelled
    /// `device`: decided before the message is built, with the same filters as
    /// ``wants(_:)``.
    public func wants(_ gesture: GestureEvent, device: String) -> Bool {
        readers.contains { $0.wants(gesture, device: device) }
    }

    /// Whether some connection takes `publication` (`device` messages go to every connection;
    /// the recognizer list is for the server itself, for `hello`).
    public func wants(_ publication: Publication) -> Bool {
        switch publication {
        case .gesture(let gesture, let owner): readers.contains { $0.wants(gesture, from: owner) }
        case .touch(let touch, let clientRegions):
            readers.contains { $0.wants($0.sees(touch, clientRegions: clientRegions)) }
        case .explain(let explanation, let owner): readers.contains { $0.wants(explanation, from: owner) }
        case .device, .recognizers: true
        }
    }
}

/// The latest ``Interest``, written on the server's event loop and read by the publishing
/// thread: a generation number it can check without a lock on every batch, and the value under
/// a lock when that number moved.
final class InterestBoard: Sendable {
    private let generation = Atomic<UInt64>(0)
    private let current = Mutex(Interest())

    func post(_ interest: Interest) {
        current.withLock { $0 = interest }
        generation.add(1, ordering: .releasing)
    }

    /// The interest and its generation, when newer than `seen`.
    func read(newerThan seen: UInt64) -> (generation: UInt64, interest: Interest)? {
        let now = generation.load(ordering: .acquiring)
        guard now != seen else { return nil }
        return current.withLock { (now, $0) }
    }
}
