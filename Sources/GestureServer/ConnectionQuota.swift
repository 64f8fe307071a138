/// How many connections a transport holds at once, in all and per peer (a user on the Unix
/// socket; a local user, or an address, on the WebSocket endpoint: ``TCPPeer``). Each transport
/// has its own, so a peer that can only reach one transport — any local user reaches the
/// WebSocket's loopback port — cannot fill the other's slots (docs/PROTOCOL.md §10).
///
/// A plain value with no I/O (SwiftNIO's style): the Unix socket's is the server thread's, in
/// ``ServerCore``; the WebSocket endpoint's lives on SwiftNIO's loop, in
/// ``WebSocketConnectionGate``.
struct ConnectionQuota<Peer: Hashable> {
    /// Connections at once through the transport.
    let total: Int
    /// Connections at once of one peer.
    let perPeer: Int
    private(set) var open = 0
    private var byPeer: [Peer: Int] = [:]

    enum Verdict: Equatable {
        case admitted
        /// The transport holds ``total`` connections.
        case full
        /// The peer holds ``perPeer`` connections.
        case peerFull
    }

    init(total: Int, perPeer: Int) {
        precondition(total > 0 && perPeer > 0, "a quota admits at least one connection")
        self.total = total
        self.perPeer = perPeer
    }

    /// Counts a new connection of `peer` if the quota has room for it.
    mutating func admit(_ peer: Peer) -> Verdict {
        guard open < total else { return .full }
        let held = byPeer[peer, default: 0]
        guard held < perPeer else { return .peerFull }
        open += 1
        byPeer[peer] = held + 1
        return .admitted
    }

    /// A connection ``admit(_:)`` admitted has closed.
    mutating func release(_ peer: Peer) {
        guard let held = byPeer[peer] else {
            assertionFailure("a connection released that was never admitted")
            return
        }
        open -= 1
        byPeer[peer] = held > 1 ? held - 1 : nil
    }

    /// Connections `peer` holds.
    func held(by peer: Peer) -> Int { byPeer[peer, default: 0] }
}
