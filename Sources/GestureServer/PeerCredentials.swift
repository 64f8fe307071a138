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
