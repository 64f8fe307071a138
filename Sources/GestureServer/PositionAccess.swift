import GestureProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Who may see where fingers are: the one rule (docs/RECORDING.md, "Who may see where fingers
/// are"), asked by everything that sends a finger's position out of the daemon — a `subscribe`
/// with `touches` on either transport (and what a connection may see of `contact` messages and of
/// gestures in the configuration's private regions), and a `record`. Where fingers land can be
/// a PIN typed on the screen, so the right to see it is given, not assumed.
///
/// Allowed to see raw touches: root; the daemon's own user (it reads the panels anyway); the
/// members of `touches-group`; the members of `record-group` (who may see more: below); and, on
/// the WebSocket endpoint, whose pages the kernel names no user for, every page of an allowed
/// origin when `websocket.allow-touches` is true. Allowed to record a panel (its every event,
/// regions and privacy aside): root, the daemon's user, a user the panel's node lets read it
/// (as the kernel decides a read of the node), and the members of `record-group`; never a page.
/// Everyone else is refused with an error code and the reason. A pure function of its inputs, so
/// every row is a test (GestureDaemonTests' `PositionAccessTests`).
///
/// A region marked `private` narrows what this grants (``GestureEngine/Privacy``): the
/// positions of touches that land in it, and the gestures made of them, reach its owner only.
public struct PositionAccess: Hashable, Sendable {
    /// The daemon's own user.
    public var daemonUser: UInt32
    /// `touches-group`'s gid: its members see raw touches.
    public var touchesGroup: UInt32?
    /// `record-group`'s gid: its members may record every panel, and see raw touches.
    public var recordGroup: UInt32?
    /// `websocket.allow-touches`: the endpoint's pages see raw touches.
    public var pagesSeeTouches: Bool

    /// Nobody but root and the daemon's own user (`daemonUser`, by default the process's
    /// effective user) sees where fingers are, unless the groups or pages are named.
    public init(
        daemonUser: UInt32 = geteuid(), touchesGroup: UInt32? = nil, recordGroup: UInt32? = nil,
        pagesSeeTouches: Bool = false
    ) {
        self.daemonUser = daemonUser
        self.touchesGroup = touchesGroup
        self.recordGroup = recordGroup
        self.pagesSeeTouches = pagesSeeTouches
    }

    /// Who asks.
    public enum Viewer: Hashable, Sendable {
        /// A client of the Unix socket, by its peer credentials (nil: the kernel would not say).
        case local(PeerCredentials?)
        /// A page through the WebSocket endpoint: the kernel names no user for it.
        case page
    }

    /// What it would see.
    public enum Sight: Hashable, Sendable {
        /// Raw touches: where fingers land and move (`touch`, and `contact` with `explain`).
        case touches
        /// Every event of the panel whose node is this (nil: it could not be looked at): a `record`.
        case panel(Node?)
    }

    /// The file mode and owners of a panel's node (its `stat`), or of the recording a replayed
    /// panel plays.
    public struct Node: Hashable, Sendable {
        public var uid: UInt32
        public var gid: UInt32
        /// The permission bits (`st_mode & 0o7777`).
        public var mode: UInt32

        public init(uid: UInt32, gid: UInt32, mode: UInt32) {
            self.uid = uid
            self.gid = gid
            self.mode = mode
        }
    }

    public enum Verdict: Hashable, Sendable {
        /// May see it; why, for the journal.
        case allowed(String)
        /// May not; the error's code and its sentence for the client.
        case refused(ErrorCode, String)

        public var isAllowed: Bool {
            if case .allowed = self { return true }
            return false
        }
    }

    /// Whether `viewer` may see `sight`.
    public func decide(_ viewer: Viewer, sees sight: Sight) -> Verdict {
        switch (viewer, sight) {
        case (.page, .touches):
            return pagesSeeTouches
                ? .allowed("websocket.allow-touches")
                : .refused(
                    .permissionDenied,
                    "pages get no raw touches: websocket.allow-touches is false (docs/RECORDING.md, "
                        + "\"Who may see where fingers are\")")
        case (.page, .panel):
            return .refused(
                .unavailable, "panels are recorded through the Unix socket only: a page has no credentials to check")
        case (.local(nil), .touches):
            return .refused(
                .permissionDenied,
                "a client the kernel does not name gets no raw touches: only root, the daemon's user, touches-group "
                    + "and record-group do")
        case (.local(nil), .panel):
            return .refused(
                .permissionDenied, "a client the kernel does not name may not record: only who may read the panel may")
        case (.local(let peer?), .touches):
            if let trusted = trusted(peer) { return .allowed(trusted) }
            if let touchesGroup, peer.isMember(of: touchesGroup) {
                return .allowed("a member of touches-group (gid \(touchesGroup))")
            }
            return .refused(
                .permissionDenied,
                "user \(peer.uid) gets no raw touches: only root, the daemon's user and the members of touches-group "
                    + "\(touchesGroup.map { "(gid \($0))" } ?? "(none is configured)") and record-group do "
                    + "(docs/RECORDING.md, \"Who may see where fingers are\")")
        case (.local(let peer?), .panel(let node)):
            if let trusted = trusted(peer) { return .allowed(trusted) }
            return Self.reads(peer, node)
        }
    }

    /// Why `peer` may see everything a panel sends, if it may whatever the panel's node says.
    private func trusted(_ peer: PeerCredentials) -> String? {
        if peer.uid == 0 { return "root" }
        if peer.uid == daemonUser { return "the daemon's own user" }
        if let recordGroup, peer.isMember(of: recordGroup) { return "a member of record-group (gid \(recordGroup))" }
        return nil
    }

    /// Whether `peer` may read the panel's `node`, as the kernel decides a read: the owner's bits
    /// for the owner, else the group's for a member, else the others'; the first class that
    /// applies decides, even when it grants less. ACLs and capabilities are not consulted.
    private static func reads(_ peer: PeerCredentials, _ node: Node?) -> Verdict {
        guard let node else {
            return .refused(
                .permissionDenied,
                "user \(peer.uid) may not record this panel: its node could not be looked at, so only root, "
                    + "the daemon's user and record-group may")
        }
        if peer.uid == node.uid {
            if node.mode & 0o400 != 0 { return .allowed("the owner of the panel's node") }
            return .refused(
                .permissionDenied,
                "user \(peer.uid) may not read the panel (it owns the node, whose mode \(octal(node.mode)) gives its "
                    + "owner no read), so it may not record it")
        }
        if peer.isMember(of: node.gid) {
            if node.mode & 0o040 != 0 { return .allowed("a member of the node's group (gid \(node.gid))") }
            return .refused(
                .permissionDenied,
                "user \(peer.uid) may not read the panel (it is in the node's group, gid \(node.gid), whose mode "
                    + "\(octal(node.mode)) gives that group no read), so it may not record it")
        }
        if node.mode & 0o004 != 0 { return .allowed("anyone may read the panel's node") }
        return .refused(
            .permissionDenied,
            "user \(peer.uid) may not read the panel (its node is uid \(node.uid) gid \(node.gid) mode "
                + "\(octal(node.mode))), so it may not record it: only root, the daemon's user, who may read the "
                + "node, and record-group may")
    }

    private static func octal(_ mode: UInt32) -> String {
        let digits = String(mode & 0o7777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

extension PositionAccess.Node {
    /// The node at `path` (`stat`, following links), nil when it cannot be looked at.
    public init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(uid: info.st_uid, gid: info.st_gid, mode: info.st_mode & 0o7777)
    }

    /// The node open as `descriptor` (`fstat`: the very node the daemon reads, whatever its path
    /// names now), nil when it cannot be looked at.
    public init?(descriptor: Int32) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        self.init(uid: info.st_uid, gid: info.st_gid, mode: info.st_mode & 0o7777)
    }
}

extension PeerCredentials {
    /// Whether `gid` is its primary group or one of its supplementary groups.
    func isMember(of gid: UInt32) -> Bool {
        self.gid == gid || groups.contains(gid)
    }
}
