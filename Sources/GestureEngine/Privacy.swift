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
    /// One word, so that it costs a gesture event eight bytes: the top bit says it landed in a
    /// private region of the configuration; the others, the client whose private region it
    /// landed in (a connection's id; 0: none; all ones: more than one client's).
    private var bits: UInt64

    private static let configurationBit: UInt64 = 1 << 63
    private static let clientBits: UInt64 = ~configurationBit

    /// Not private: for whoever may see the message at all.
    public static let open = Privacy(bits: 0)

    private init(bits: UInt64) {
        self.bits = bits
    }

    /// Landed in a private region of `owner`.
    public init(privateTo owner: Owner) {
        switch owner {
        case .configuration: self.init(bits: Self.configurationBit)
        case .client(let id): self.init(bits: min(id, Self.clientBits))
        }
    }

    public var isOpen: Bool { bits == 0 }

    /// It landed in a private region of the configuration.
    public var configuration: Bool { bits & Self.configurationBit != 0 }

    private var client: UInt64 { bits & Self.clientBits }

    /// Private to everything either is private to.
    public mutating func formUnion(_ other: Privacy) {
        var client = self.client
        if client == 0 {
            client = other.client
        } else if other.client != 0 && other.client != client {
            client = Self.clientBits
        }
        bits = (bits | other.bits) & Self.configurationBit | client
    }

    /// Whether connection `client` (its id), which may or may not see raw touches
    /// (`seesPositions`), may see it.
    public func admits(client reader: UInt64, seesPositions: Bool) -> Bool {
        (!configuration || seesPositions) && (client == 0 || client == reader)
    }
}
