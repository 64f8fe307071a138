import GestureServer
import Testing

@testable import GestureDaemon

/// Who may record a panel (docs/RECORDING.md, "Who may record"): who may read the panel itself —
/// decided as the kernel decides a read of its node — plus root, the daemon's user and the
/// configuration's `record-group`. Every row of the decision, on the pure function.
@Suite struct RecordPermissionTests {
    static let daemonUser: UInt32 = 990
    /// A panel's node as udev leaves it on Debian: root:input, crw-rw----.
    static let inputNode = RecordPermission.Node(uid: 0, gid: 101, mode: 0o660)

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let peer: PeerCredentials?
        let node: RecordPermission.Node?
        let recordGroup: UInt32?
        let allowed: Bool
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "root", peer: PeerCredentials(uid: 0, gid: 0), node: inputNode, recordGroup: nil, allowed: true),
        Case(
            name: "root, even when the node lets no one read it", peer: PeerCredentials(uid: 0, gid: 0),
            node: RecordPermission.Node(uid: 0, gid: 0, mode: 0o000), recordGroup: nil, allowed: true),
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
            node: RecordPermission.Node(uid: 0, gid: 101, mode: 0o604), recordGroup: nil, allowed: false),
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
            peer: PeerCredentials(uid: 1000, gid: 1000), node: RecordPermission.Node(uid: 1000, gid: 101, mode: 0o400),
            recordGroup: nil, allowed: true),
        Case(
            name: "the owner of the node without it, though its group may read",
            peer: PeerCredentials(uid: 1000, gid: 101), node: RecordPermission.Node(uid: 1000, gid: 101, mode: 0o040),
            recordGroup: nil, allowed: false),
        Case(
            name: "anyone, when the node is readable by others", peer: PeerCredentials(uid: 1000, gid: 1000),
            node: RecordPermission.Node(uid: 0, gid: 101, mode: 0o664), recordGroup: nil, allowed: true),
        Case(
            name: "a member of the node's group when only others may read it",
            peer: PeerCredentials(uid: 1000, gid: 101), node: RecordPermission.Node(uid: 0, gid: 101, mode: 0o604),
            recordGroup: nil, allowed: false),
        Case(
            name: "a user, when the node cannot be looked at", peer: PeerCredentials(uid: 1000, gid: 101, groups: [101]),
            node: nil, recordGroup: nil, allowed: false),
        Case(
            name: "a client the kernel does not name, even with record-group", peer: nil, node: inputNode,
            recordGroup: 0, allowed: false),
    ]

    @Test(arguments: cases)
    func `who may record a panel is who may read it, root, the daemon's user and record-group`(_ c: Case) {
        let verdict = RecordPermission.decide(
            peer: c.peer, daemonUser: Self.daemonUser, node: c.node, recordGroup: c.recordGroup)
        switch verdict {
        case .allowed(let why):
            #expect(c.allowed, "allowed as \(why)")
        case .refused(let why):
            #expect(!c.allowed, "refused: \(why)")
            #expect(why.contains("may not"), "a refusal says what the user may not do: \(why)")
        }
    }

    /// The kernel's order, over every mode: the owner's bits decide for the owner, the group's
    /// for a member of the node's group, the others' for everyone else.
    @Test func `for a user who is neither root, the daemon's user nor in record-group, the node's mode decides as the kernel's would`() {
        for mode in UInt32(0)...0o777 {
            let node = RecordPermission.Node(uid: 1000, gid: 101, mode: mode)
            for (peer, bit) in [
                (PeerCredentials(uid: 1000, gid: 1000), UInt32(0o400)),
                (PeerCredentials(uid: 1001, gid: 1001, groups: [101]), 0o040),
                (PeerCredentials(uid: 1002, gid: 1002), 0o004),
            ] {
                let verdict = RecordPermission.decide(peer: peer, daemonUser: Self.daemonUser, node: node, recordGroup: 7)
                let allowed = if case .allowed = verdict { true } else { false }
                #expect(allowed == (mode & bit != 0), "mode \(String(mode, radix: 8)), uid \(peer.uid)")
            }
        }
    }
}
