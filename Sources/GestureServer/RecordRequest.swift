import GestureProtocol

/// Who is at the other end of a Unix socket connection, as the kernel says (SO_PEERCRED and
/// SO_PEERGROUPS, as they were when the client connected): what decides whether it may record
/// a panel.
public struct PeerCredentials: Hashable, Sendable, CustomStringConvertible {
    public var uid: UInt32
    public var gid: UInt32
    /// Its supplementary groups.
    public var groups: [UInt32]

    public init(uid: UInt32, gid: UInt32, groups: [UInt32] = []) {
        self.uid = uid
        self.gid = gid
        self.groups = groups
    }

    public var description: String { "uid \(uid) gid \(gid)" }
}

/// A connection's `record`, on its way to the daemon, which decides (the panel, the permission)
/// and starts the recording — it publishes ``Publication/recording(_:client:)`` `started`, then
/// calls ``started()``, and from then on publishes the panel's ``Publication/raw(_:client:)``
/// messages — or calls ``refuse(_:)``. One of the two, once: until then the request counts
/// among the connection's requests waiting for the daemon.
public struct RecordRequest: Sendable {
    public let client: ClientID
    public let options: RecordOptions
    /// The request's `id`, for the `started` message (and an error) to echo.
    public let id: RequestID?
    /// The client's credentials; nil when the kernel would not say (then only what the
    /// configuration allows everyone may be recorded: nothing).
    public let peer: PeerCredentials?
    /// Called once with nil (started) or the refusal.
    let completion: @Sendable (ErrorMessage?) -> Void

    /// The recording started: its `started` message is published. Callable from any thread.
    public func started() { completion(nil) }

    /// Refuses the request with `error` (its `id` set to the request's). Callable from any
    /// thread; dropped if the connection has closed.
    public func refuse(_ error: ErrorMessage) {
        var error = error
        error.id = id
        completion(error)
    }
}
