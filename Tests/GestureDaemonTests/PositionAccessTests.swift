import GestureProtocol
import GestureServer
import Testing

@testable import GestureDaemon

/// Who may see where fingers are (docs/RECORDING.md, "Who may see where fingers are"), the one
/// rule of ``PositionAccess``: who may record a panel — who may read the panel itself, decided as
/// the kernel decides a read of its node, plus root, the daemon's user and `record-group` — and
/// who may see raw touches — root, the daemon's user, `touches-group` and `record-group` on the
/// Unix socket, every page or none on the WebSocket endpoint (`websocket.allow-touches`). Every
/// row of the decision, on the pure function.
@Suite struct PositionAccessTests {
    static let daemonUser: UInt32 = 990
    /// A panel's node as udev leaves it on Debian: root:input, crw-rw----.
    static let inputNode = PositionAccess.Node(uid: 0, gid: 101, mode: 0o660)

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let peer: PeerCredentials?
        let node: PositionAccess.Node?
        let recordGroup: UInt32?
        let allowed: Bool
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "root", peer: PeerCredentials(uid: 0, gid: 0), node: inputNode, recordGroup: nil, allowed: true),
        Case(
            name: "root, even when the node lets no one read it", peer: PeerCredentials(uid: 0, gid: 0),
            node: PositionAccess.Node(uid: 0, gid: 0, mode: 0o000), recordGroup: nil, allowed: true),
        Case(
            name: "the daemon's own user", peer: PeerCredentials(uid: daemonUser, gid: 990), node: inputNode,
            recordGroup: nil, allowed: true),
        Case(
            name: "the daemon's own user, when the node cannot be looked at",
            peer: PeerCredentials(uid: daemonUser, gid: 990), node: nil, recordGroup: nil, allowed: true),
        Case(
            name: "a member of the node's group by a supplementary group",
            peer: PeerCredentials(uid: 1000, gid: 1000, groups: [24, 101]), node: inputNode, recordGroup: nil,
            allowed: true),
        Case(
            name: "a member of the node's group by its primary group", peer: PeerCredentials(uid: 1000, gid: 101),
            node: inputNode, recordGroup: nil, allowed: true),
        Case(
            name: "a member of the node's group when the group may not read it",
            peer: PeerCredentials(uid: 1000, gid: 1000, groups: [101]),
            node: PositionAccess.Node(uid: 0, gid: 101, mode: 0o604), recordGroup: nil, allowed: false),
        Case(
            name: "a kiosk user outside the node's group", peer: PeerCredentials(uid: 1000, gid: 1000, groups: [24]),
            node: inputNode, recordGroup: nil, allowed: false),
        Case(
            name: "a kiosk user in record-group", peer: PeerCredentials(uid: 1000, gid: 1000, groups: [24, 2000]),
            node: inputNode, recordGroup: 2000, allowed: true),
        Case(
            name: "a kiosk user whose primary group is record-group", peer: PeerCredentials(uid: 1000, gid: 2000),
            node: inputNode, recordGroup: 2000, allowed: true),
        Case(
            name: "a kiosk user, when record-group is another group",
            peer: PeerCredentials(uid: 1000, gid: 1000, groups: [24]), node: inputNode, recordGroup: 2000,
            allowed: false),
        Case(
            name: "the owner of the node with the owner's read bit",
            peer: PeerCredentials(uid: 1000, gid: 1000), node: PositionAccess.Node(uid: 1000, gid: 101, mode: 0o400),
            recordGroup: nil, allowed: true),
        Case(
            name: "the owner of the node without it, though its group may read",
            peer: PeerCredentials(uid: 1000, gid: 101), node: PositionAccess.Node(uid: 1000, gid: 101, mode: 0o040),
            recordGroup: nil, allowed: false),
        Case(
            name: "anyone, when the node is readable by others", peer: PeerCredentials(uid: 1000, gid: 1000),
            node: PositionAccess.Node(uid: 0, gid: 101, mode: 0o664), recordGroup: nil, allowed: true),
        Case(
            name: "a member of the node's group when only others may read it",
            peer: PeerCredentials(uid: 1000, gid: 101), node: PositionAccess.Node(uid: 0, gid: 101, mode: 0o604),
            recordGroup: nil, allowed: false),
        Case(
            name: "a user, when the node cannot be looked at", peer: PeerCredentials(uid: 1000, gid: 101, groups: [101]),
            node: nil, recordGroup: nil, allowed: false),
        Case(
            name: "a client the kernel does not name, even with record-group", peer: nil, node: inputNode,
            recordGroup: 0, allowed: false),
    ]

    static func access(recordGroup: UInt32?, touchesGroup: UInt32? = nil, pages: Bool = false) -> PositionAccess {
        PositionAccess(
            daemonUser: daemonUser, touchesGroup: touchesGroup, recordGroup: recordGroup, pagesSeeTouches: pages)
    }

    @Test(arguments: cases)
    func `who may record a panel is who may read it, root, the daemon's user and record-group`(_ c: Case) {
        let verdict = Self.access(recordGroup: c.recordGroup).decide(.local(c.peer), sees: .panel(c.node))
        switch verdict {
        case .allowed(let why):
            #expect(c.allowed, "allowed as \(why)")
        case .refused(let code, let why):
            #expect(!c.allowed, "refused: \(why)")
            #expect(code == .permissionDenied)
            #expect(why.contains("may not"), "a refusal says what the user may not do: \(why)")
        }
    }

    struct TouchCase: CustomTestStringConvertible, Sendable {
        let name: String
        let viewer: PositionAccess.Viewer
        let access: PositionAccess
        /// nil: allowed; else the refusal's code.
        let refusal: ErrorCode?
        var testDescription: String { name }
    }

    static let kiosk = PeerCredentials(uid: 1000, gid: 1000, groups: [24, 2000])

    static let touchCases: [TouchCase] = [
        TouchCase(
            name: "root", viewer: .local(PeerCredentials(uid: 0, gid: 0)), access: access(recordGroup: nil),
            refusal: nil),
        TouchCase(
            name: "the daemon's own user", viewer: .local(PeerCredentials(uid: daemonUser, gid: 990)),
            access: access(recordGroup: nil), refusal: nil),
        TouchCase(
            name: "a member of touches-group", viewer: .local(kiosk),
            access: access(recordGroup: nil, touchesGroup: 2000), refusal: nil),
        TouchCase(
            name: "a member of record-group, who may see more", viewer: .local(kiosk),
            access: access(recordGroup: 24), refusal: nil),
        TouchCase(
            name: "a socket client outside both groups", viewer: .local(kiosk),
            access: access(recordGroup: 7, touchesGroup: 8), refusal: .permissionDenied),
        TouchCase(
            name: "a socket client when no group is configured", viewer: .local(kiosk),
            access: access(recordGroup: nil),
            refusal: .permissionDenied),
        TouchCase(
            name: "a member of the panel's node's group: touches are every panel's, the node is one's",
            viewer: .local(PeerCredentials(uid: 1000, gid: 101)), access: access(recordGroup: nil),
            refusal: .permissionDenied),
        TouchCase(
            name: "a client the kernel does not name, even with the groups", viewer: .local(nil),
            access: access(recordGroup: 0, touchesGroup: 0), refusal: .permissionDenied),
        TouchCase(
            name: "a page, websocket.allow-touches off", viewer: .page, access: access(recordGroup: 0, touchesGroup: 0),
            refusal: .permissionDenied),
        TouchCase(
            name: "a page, websocket.allow-touches on", viewer: .page, access: access(recordGroup: nil, pages: true),
            refusal: nil),
    ]

    @Test(arguments: touchCases)
    func `who may see raw touches is root, the daemon's user, touches-group and record-group, or pages when allowed`(
        _ c: TouchCase
    ) {
        switch c.access.decide(c.viewer, sees: .touches) {
        case .allowed(let why):
            #expect(c.refusal == nil, "allowed as \(why)")
        case .refused(let code, let why):
            #expect(code == c.refusal, "refused: \(why)")
            #expect(why.contains("touches"), "the refusal names what was refused: \(why)")
        }
    }

    @Test func `a page may never record, whatever the configuration grants pages`() {
        for pages in [false, true] {
            let verdict = Self.access(recordGroup: 0, touchesGroup: 0, pages: pages).decide(
                .page, sees: .panel(Self.inputNode))
            #expect(!verdict.isAllowed)
            let refusal = PositionAccess.Verdict.refused(
                .unavailable, "panels are recorded through the Unix socket only: a page has no credentials to check")
            #expect(verdict == refusal)
        }
    }

    /// Whoever may record a panel may see raw touches too, except a user who reads the node
    /// itself (the node is one panel's; raw touches are every panel's): the rule never gives
    /// touches to someone it refuses a recording of a panel that everybody's node lets read.
    @Test func `whoever may see every event of every panel may see raw touches`() {
        let open = PositionAccess.Node(uid: 0, gid: 0, mode: 0o000)
        for uid in [UInt32(0), Self.daemonUser, 1000] {
            for recordGroup in [nil, UInt32(24), 7] {
                let access = Self.access(recordGroup: recordGroup)
                let peer = PeerCredentials(uid: uid, gid: 1000, groups: [24])
                if access.decide(.local(peer), sees: .panel(open)).isAllowed {
                    #expect(access.decide(.local(peer), sees: .touches).isAllowed, "uid \(uid)")
                }
            }
        }
    }

    /// The kernel's order, over every mode: the owner's bits decide for the owner, the group's
    /// for a member of the node's group, the others' for everyone else.
    @Test func `for a user who is neither root, the daemon's user nor in record-group, the node's mode decides as the kernel's would`() {
        for mode in UInt32(0)...0o777 {
            let node = PositionAccess.Node(uid: 1000, gid: 101, mode: mode)
            for (peer, bit) in [
                (PeerCredentials(uid: 1000, gid: 1000), UInt32(0o400)),
                (PeerCredentials(uid: 1001, gid: 1001, groups: [101]), 0o040),
                (PeerCredentials(uid: 1002, gid: 1002), 0o004),
            ] {
                let verdict = Self.access(recordGroup: 7).decide(.local(peer), sees: .panel(node))
                let allowed = if case .allowed = verdict { true } else { false }
                #expect(allowed == (mode & bit != 0), "mode \(String(mode, radix: 8)), uid \(peer.uid)")
            }
        }
    }
}
