import Synchronization

/// What the server counts for the daemon's metrics, by transport: kept by the server thread
/// (the daemon's input thread) in plain integers, read there (``GestureServer/statistics()``).
/// Refusals of the WebSocket endpoint's connection gate happen on SwiftNIO's thread, before a
/// connection reaches the server, and are counted there with an atomic (``RefusedConnections``).
public struct ServerStatistics: Sendable, Equatable {
    public struct Transport: Sendable, Equatable {
        /// Connected now.
        public var connected = 0
        public var accepted: UInt64 = 0
        public var refused: UInt64 = 0
        /// `changed` updates coalesced away for a client that read too slowly.
        public var messagesDropped: UInt64 = 0
        /// Clients disconnected because their queue overflowed.
        public var overflowed: UInt64 = 0

        public init() {}
    }

    public var unix = Transport()
    public var webSocket = Transport()
    public init() {}
}

/// Connections a listener's gate refused (``WebSocketConnectionGate``), counted on SwiftNIO's thread.
public final class RefusedConnections: Sendable {
    private let count = Atomic<UInt64>(0)

    public init() {}

    func add() { count.add(1, ordering: .relaxed) }

    public var value: UInt64 { count.load(ordering: .relaxed) }
}
