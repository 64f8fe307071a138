/// Whose eyes a touch is for when it landed in a region marked `private` (a PIN pad), and a
/// gesture or explanation made of such touches: the engine's half of the rule of who may see
/// where fingers are (docs/RECORDING.md, "Who may see where fingers are"; the server's half,
/// who may see positions at all, is GestureServer's `PositionAccess`).
///
/// A touch is private when the region it landed in, or an ancestor of it, is private — among the
/// configuration's regions and among the regions of each client it landed in (R1: each owner's
/// hit test); where it goes later does not matter, as a landing decides everything else (R1). A
/// client's private region is for that client alone; a private region of the configuration is
/// for the connections that may see raw touches. A gesture or explanation is as private as all the
/// touches its recognizer has taken, together: a touch in two clients' private regions (or a
/// gesture of touches in both) reaches no connection.
public struct Privacy: Hashable, Sendable {
    /// It landed in a private region of the configuration.
    public private(set) var configuration: Bool
    /// The client whose private region it landed in (a connection's id); 0: none;
    /// ``severalClients``: more than one.
    private var client: UInt64

    private static let severalClients = UInt64.max

    /// Not private: for whoever may see the message at all.
    public static let open = Privacy(configuration: false, client: 0)

    private init(configuration: Bool, client: UInt64) {
        self.configuration = configuration
        self.client = client
    }

    /// Landed in a private region of `owner`.
    public init(privateTo owner: Owner) {
        switch owner {
        case .configuration: self.init(configuration: true, client: 0)
        case .client(let id): self.init(configuration: false, client: id)
        }
    }

    public var isOpen: Bool { self == .open }

    /// Private to everything either is private to.
    public mutating func formUnion(_ other: Privacy) {
        configuration = configuration || other.configuration
        if client == 0 {
            client = other.client
        } else if other.client != 0 && other.client != client {
            client = Self.severalClients
        }
    }

    /// Whether connection `client` (its id), which may or may not see raw touches
    /// (`seesPositions`), may see it.
    public func admits(client reader: UInt64, seesPositions: Bool) -> Bool {
        (!configuration || seesPositions) && (client == 0 || client == reader)
    }
}
