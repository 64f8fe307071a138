import Glibc

/// The descriptors the daemon may need at once, against its RLIMIT_NOFILE: every connection the
/// configuration's limits allow on each transport (a WebSocket connection waiting for its
/// handshake included), and a reserve for the daemon's own (its loops, timers, the journal,
/// udev, systemd's sockets), its touchscreens and their passthrough mirrors, a reload's file.
///
/// Out of descriptors, no listener spins and both resume as soon as some are free
/// (docs/DEPLOYMENT.md, "Descriptors"); the budget is what keeps that from happening while the
/// limits hold. gestured.service sets `LimitNOFILE=4096`: the budget of the largest limits the
/// configuration accepts (1024 connections on each transport) with room to spare.
struct DescriptorBudget: Equatable {
    /// The daemon's own descriptors, 64 touchscreens with a mirror each, and room: measured, the
    /// daemon holds ~25 with one replayed device and a WebSocket endpoint.
    static let reserve = 256

    var unixClients: Int
    var webSocketClients: Int

    init(_ configuration: DaemonConfiguration) {
        unixClients = configuration.socket.maxClients
        webSocketClients = configuration.websocket?.maxClients ?? 0
    }

    var needed: Int { unixClients + webSocketClients + Self.reserve }

    /// What ``ensure()`` found.
    enum Outcome: Equatable {
        /// The soft limit was enough, or was raised to `needed` (from `from`).
        case enough(raisedFrom: Int?)
        /// The hard limit is below what is needed: connections beyond it wait.
        case short(limit: Int)
    }

    /// Raises the soft limit to what is needed when the hard limit allows it (a soft limit of
    /// 1024, the usual default, is there for select(2), which the daemon does not use).
    func ensure() -> Outcome {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return .enough(raisedFrom: nil) }
        let wanted = rlim_t(needed)
        // RLIM_INFINITY is the largest rlim_t: no test of its own needed.
        if limit.rlim_cur >= wanted { return .enough(raisedFrom: nil) }
        let was = Int(limit.rlim_cur)
        let reachable = min(wanted, limit.rlim_max)
        limit.rlim_cur = reachable
        guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return .short(limit: was) }
        return reachable >= wanted ? .enough(raisedFrom: was) : .short(limit: Int(reachable))
    }
}
