import Glibc

/// Whether a drop-in — a file of a `FILE.d` directory, or that directory — may be merged, decided
/// as OpenSSH's `StrictModes` decides for `authorized_keys` (docs/CONFIGURATION.md, "Who may
/// write a drop-in"). A drop-in changes what the daemon does (its socket's mode, who may record)
/// or what `gestured actions` runs (`run:`, `shell:`), and it is found by its place alone, never named
/// on a command line: one that a user other than the administrator can write would hand that
/// user the program's rights.
///
/// Trusted: owned by root or by the user the program runs as (its effective uid); not writable
/// by others; not writable by its group, unless that group is its owner's private group — named
/// as the owner is, the owner's primary group, with no member but the owner — which is what a
/// umask of 002 with user-private groups makes of every file, and which Debian's OpenSSH accepts
/// for the same reason. Anything else is refused with the reason and what to run. A pure
/// function of the file's `stat` and the two lookups, so every row is a test
/// (YAMLCodingTests' `DropInTrustTests`).
public enum DropInTrust {
    /// What the owner and group of a drop-in are, as the user database says.
    public struct Accounts: Sendable {
        /// Whether `gid` is the private group of user `uid` (named as the user, its primary group,
        /// no other member).
        public var isPrivateGroup: @Sendable (_ gid: UInt32, _ of: UInt32) -> Bool

        public init(isPrivateGroup: @escaping @Sendable (_ gid: UInt32, _ of: UInt32) -> Bool) {
            self.isPrivateGroup = isPrivateGroup
        }

        /// The system's user and group databases (`getpwuid_r`, `getgrgid_r`).
        public static let system = Accounts { gid, uid in
            guard let user = Self.user(uid), user.gid == gid, let group = Self.groupEntry(gid) else { return false }
            return group.name == user.name && group.members.allSatisfy { $0 == user.name }
        }

        private static func user(_ uid: UInt32) -> (name: String, gid: UInt32)? {
            var entry = passwd()
            var result: UnsafeMutablePointer<passwd>? = nil
            var buffer = [CChar](repeating: 0, count: 16_384)
            guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
            return (String(cString: entry.pw_name), entry.pw_gid)
        }

        private static func groupEntry(_ gid: UInt32) -> (name: String, members: [String])? {
            var entry = Glibc.group()
            var result: UnsafeMutablePointer<Glibc.group>? = nil
            var buffer = [CChar](repeating: 0, count: 65_536)
            guard getgrgid_r(gid, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
            var members: [String] = []
            var member = entry.gr_mem
            while let name = member?.pointee {
                members.append(String(cString: name))
                member = member?.successor()
            }
            return (String(cString: entry.gr_name), members)
        }
    }

    /// What one drop-in is: a file, or the directory of them.
    public enum Kind: Sendable {
        case file, directory

        var noun: String {
            switch self {
            case .file: "a drop-in"
            case .directory: "a drop-in directory"
            }
        }
    }

    /// Why the drop-in whose `stat` says `owner`, `group` and `mode` (its permission bits) may not
    /// be merged by a program running as `user`; nil when it may.
    public static func problem(
        owner: UInt32, group: UInt32, mode: UInt32, kind: Kind, runningAs user: UInt32,
        accounts: Accounts = .system
    ) -> String? {
        let bits = octal(mode)
        if owner != 0 && owner != user {
            return "\(kind.noun) owned by uid \(owner) is not read: only root's and those of the user running this "
                + "(uid \(user)) are (chown root it)"
        }
        if mode & 0o002 != 0 {
            return "\(kind.noun) that every user may write (mode \(bits)) is not read (chmod o-w it)"
        }
        if mode & 0o020 != 0 && !accounts.isPrivateGroup(group, owner) {
            return "\(kind.noun) that its group (gid \(group)) may write (mode \(bits)) is not read: only one "
                + "whose group is its owner's private group may be (chmod g-w it)"
        }
        return nil
    }

    /// ``problem(owner:group:mode:kind:runningAs:accounts:)`` of the file open as `descriptor` (its
    /// `fstat`: the very file read, whatever its path names by now); the system's reason when it
    /// cannot be looked at.
    public static func problem(ofOpen descriptor: Int32, kind: Kind) -> String? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            return "cannot look at \(kind.noun): \(String(cString: strerror(errno)))"
        }
        return problem(
            owner: info.st_uid, group: info.st_gid, mode: info.st_mode & 0o7777, kind: kind, runningAs: geteuid())
    }

    private static func octal(_ mode: UInt32) -> String {
        let digits = String(mode & 0o7777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
