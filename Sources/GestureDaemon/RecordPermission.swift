import GestureServer
import Glibc

/// Who may record a panel: who may read the panel itself (docs/RECORDING.md, "Who may record").
/// Raw touches on a kiosk can be a PIN typed on the screen, so `gestured record` gives no one
/// more than the panel's node already gives them.
///
/// Allowed: root; the daemon's own user (it reads the panel anyway); a user the node's mode lets
/// read it, decided as the kernel decides for a read of the node — its owner by the owner's read
/// bit, else a member of its group (primary or supplementary) by the group's, else anyone by the
/// others' bit; and the members of the configuration's `record-group`. Everyone else is refused,
/// and so is a client whose credentials the kernel would not give. ACLs and capabilities other
/// than root's are not consulted. A pure function of its inputs, so every case is a test.
enum RecordPermission {
    /// The file mode and owners of a panel's node (its `stat`), or of the recording a replayed
    /// panel plays.
    struct Node: Hashable, Sendable {
        var uid: UInt32
        var gid: UInt32
        /// The permission bits (`st_mode & 0o7777`).
        var mode: UInt32
    }

    enum Verdict: Hashable, Sendable {
        /// May record; why, for the journal.
        case allowed(String)
        /// May not; the sentence for the client.
        case refused(String)
    }

    /// Whether `peer` may record the panel whose node is `node` (nil: it could not be looked at)
    /// in a daemon running as `daemonUser` whose configuration names `recordGroup`.
    static func decide(peer: PeerCredentials?, daemonUser: UInt32, node: Node?, recordGroup: UInt32?) -> Verdict {
        guard let peer else {
            return .refused("a client the kernel does not name may not record: only who may read the panel may")
        }
        if peer.uid == 0 { return .allowed("root") }
        if peer.uid == daemonUser { return .allowed("the daemon's own user") }
        let groups = [peer.gid] + peer.groups
        if let recordGroup, groups.contains(recordGroup) { return .allowed("a member of record-group (gid \(recordGroup))") }
        guard let node else {
            return .refused(
                "user \(peer.uid) may not record this panel: its node could not be looked at, so only root, "
                    + "the daemon's user and record-group may")
        }
        // The kernel's order: the owner's bits for the owner, else the group's for a member,
        // else the others'; the first class that applies decides, even when it grants less.
        if peer.uid == node.uid {
            if node.mode & 0o400 != 0 { return .allowed("the owner of the panel's node") }
            return .refused(
                "user \(peer.uid) may not read the panel (it owns the node, whose mode \(octal(node.mode)) gives its owner "
                    + "no read), so it may not record it")
        }
        if groups.contains(node.gid) {
            if node.mode & 0o040 != 0 { return .allowed("a member of the node's group (gid \(node.gid))") }
            return .refused(
                "user \(peer.uid) may not read the panel (it is in the node's group, gid \(node.gid), whose mode "
                    + "\(octal(node.mode)) gives that group no read), so it may not record it")
        }
        if node.mode & 0o004 != 0 { return .allowed("anyone may read the panel's node") }
        return .refused(
            "user \(peer.uid) may not read the panel (its node is uid \(node.uid) gid \(node.gid) mode \(octal(node.mode))), "
                + "so it may not record it: only root, the daemon's user, who may read the node, and record-group may")
    }

    private static func octal(_ mode: UInt32) -> String {
        let digits = String(mode & 0o7777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

extension RecordPermission.Node {
    /// The node at `path` (`stat`, following links), nil when it cannot be looked at.
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(uid: info.st_uid, gid: info.st_gid, mode: info.st_mode & 0o7777)
    }

    /// The node open as `descriptor` (`fstat`: the very node the daemon reads, whatever its path
    /// names now), nil when it cannot be looked at.
    init?(descriptor: Int32) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        self.init(uid: info.st_uid, gid: info.st_gid, mode: info.st_mode & 0o7777)
    }
}
