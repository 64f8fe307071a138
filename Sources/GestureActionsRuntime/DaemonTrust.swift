import GestureClient
import Glibc

/// Whom `gestured actions` takes for the daemon: the process serving its socket must run as root
/// (systemd, which holds the socket of `gestured.socket`, or a daemon run as root), as the user
/// `gestured` (the system unit's dynamic user, while it runs), as the user running `gestured
/// actions` (a daemon of the same session, a test), or as the file's `daemon-user`. Anyone else
/// listening on the path — another user's program on a socket in /tmp, which may have been
/// taken before the daemon bound it — is refused before anything is read from it or sent to it,
/// however it came to hold the path (docs/ACTIONS.md, "Which daemon").
///
/// The kernel says who serves the socket (SO_PEERCRED: the credentials of the process that
/// listened, which no peer can forge), so neither the socket file's owner nor its directory's
/// mode need be trusted. Names are looked up at each connection: the system unit's dynamic user
/// exists only while it runs.
public struct DaemonTrust: Sendable {
    /// The system daemon's user (systemd/gestured.service's `DynamicUser=` takes the unit's name).
    public static let systemUser = "gestured"

    /// The user `gestured actions` runs as.
    public var ownUID: UInt32
    /// The file's `daemon-user`, a name or a uid.
    public var daemonUser: String?

    public init(ownUID: UInt32 = getuid(), daemonUser: String? = nil) {
        self.ownUID = ownUID
        self.daemonUser = daemonUser
    }

    /// Why `server` is not the daemon, nil when it is taken for it.
    public func problem(with server: ServerCredentials) -> String? {
        if server.uid == 0 || server.uid == ownUID { return nil }
        if Self.uid(of: Self.systemUser) == server.uid { return nil }
        if let daemonUser, Self.uid(of: daemonUser) == server.uid { return nil }
        var taken = ["root", Self.systemUser, "this user (\(Self.name(of: ownUID)))"]
        if let daemonUser { taken.append("daemon-user \(daemonUser)") }
        return "it is served by \(Self.name(of: server.uid)) (pid \(server.pid)), not by "
            + taken.dropLast().joined(separator: ", ") + " or " + taken.last!
            + ": not taken for the daemon (docs/ACTIONS.md, \"Which daemon\")"
    }

    /// The uid of a user name (or a number), nil when there is no such user.
    static func uid(of user: String) -> UInt32? {
        if let number = UInt32(user) { return number }
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwnam_r(user, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return entry.pw_uid
    }

    /// `uid 1001 (mallory)`, or `uid 1001` for a uid without a name.
    static func name(of uid: UInt32) -> String {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name
        else { return "uid \(uid)" }
        return "uid \(uid) (\(String(cString: name)))"
    }
}
