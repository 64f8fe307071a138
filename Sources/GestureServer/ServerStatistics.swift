import GestureMetrics
import Synchronization

/// What the server counts for the daemon's metrics, by transport, as the snapshot carries it:
/// kept by the server thread (the daemon's input thread) in plain integers, read there
/// (``GestureServer/statistics()``). Refusals of the WebSocket endpoint's connection gate happen
/// on SwiftNIO's thread, before a connection reaches the server, and are counted there with an
/// atomic (``RefusedConnections``).
public struct ServerStatistics: Sendable, Equatable {
    public var unix = MetricsSnapshot.TransportCounts(transport: "unix")
    public var webSocket = MetricsSnapshot.TransportCounts(transport: "websocket")
    public init() {}
}

extension ClientSession.Transport {
    /// Where the server counts its connections.
    var counts: WritableKeyPath<ServerStatistics, MetricsSnapshot.TransportCounts> {
        if case .webSocket = self { \.webSocket } else { \.unix }
    }
}

/// Connections a listener's gate refused (``WebSocketConnectionGate``), counted on SwiftNIO's thread.
public final class RefusedConnections: Sendable {
    private let count = Atomic<UInt64>(0)

    public init() {}

    func add() { count.add(1, ordering: .relaxed) }

    public var value: UInt64 { count.load(ordering: .relaxed) }
}
