import Foundation
import Glibc
import TestSupport
import Testing
import YAMLCoding

/// Who may write a drop-in (``DropInTrust``, docs/CONFIGURATION.md "Who may write a drop-in"):
/// every row of the decision on the pure function, then the files themselves through
/// ``YAMLFileSet/read(_:limit:kind:expecting:lists:)``, the one reader of the daemon's and the
/// actions' drop-ins.
@Suite("Drop-in trust")
struct DropInTrustTests {
    /// User 1000 (`kiosk`) has the private group 1000; group 100 (`users`) is anyone's.
    static let accounts = DropInTrust.Accounts { gid, uid in gid == 1000 && uid == 1000 }

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var owner: UInt32
        var group: UInt32
        var mode: UInt32
        var runningAs: UInt32
        /// What the refusal must say; nil: accepted.
        var refusal: String?
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "root's, 0644, read by root", owner: 0, group: 0, mode: 0o644, runningAs: 0),
        Row(name: "root's, 0644, read by a kiosk user", owner: 0, group: 0, mode: 0o644, runningAs: 1000),
        Row(name: "the reader's own, 0600", owner: 1000, group: 1000, mode: 0o600, runningAs: 1000),
        Row(
            name: "the reader's own, group-writable by its private group (umask 002)", owner: 1000, group: 1000,
            mode: 0o664, runningAs: 1000),
        Row(name: "root's directory 0755", owner: 0, group: 0, mode: 0o755, runningAs: 0),
        Row(
            name: "another user's, 0644", owner: 1001, group: 1001, mode: 0o644, runningAs: 1000,
            refusal: "owned by uid 1001 is not read: only root's and those of the user running this (uid 1000) are"),
        Row(
            name: "a kiosk user's, read by root (the daemon)", owner: 1000, group: 1000, mode: 0o644, runningAs: 0,
            refusal: "owned by uid 1000 is not read"),
        Row(
            name: "root's, writable by every user", owner: 0, group: 0, mode: 0o666, runningAs: 0,
            refusal: "that every user may write (mode 0666) is not read (chmod o-w it)"),
        Row(
            name: "root's directory 1777, sticky or not", owner: 0, group: 0, mode: 0o1777, runningAs: 0,
            refusal: "that every user may write (mode 1777)"),
        Row(
            name: "root's, writable by group users", owner: 0, group: 100, mode: 0o664, runningAs: 0,
            refusal: "that its group (gid 100) may write (mode 0664) is not read: only one whose group is its owner's "
                + "private group may be (chmod g-w it)"),
        Row(
            name: "the reader's own, writable by a group that is not its private one", owner: 1000, group: 100,
            mode: 0o620, runningAs: 1000, refusal: "that its group (gid 100) may write (mode 0620)"),
    ]

    @Test(arguments: rows)
    func `a drop-in is read only when its owner alone may write it`(_ row: Row) {
        let problem = DropInTrust.problem(
            owner: row.owner, group: row.group, mode: row.mode, kind: .file, runningAs: row.runningAs,
            accounts: Self.accounts)
        guard let refusal = row.refusal else {
            #expect(problem == nil)
            return
        }
        #expect(problem?.contains(refusal) == true, "\(problem ?? "accepted")")
        #expect(problem?.hasPrefix("a drop-in ") == true, "\(problem ?? "accepted")")
    }

    /// A file and its drop-in directory in a fresh directory, owned by root (the test runs as
    /// root where it changes owners).
    static func files() throws -> (directory: String, file: String) {
        var template = Array("/tmp/gdropin.XXXXXX".utf8CString)
        let directory = String(cString: try #require(mkdtemp(&template)))
        try "a: 1\n".write(toFile: directory + "/main.yaml", atomically: false, encoding: .utf8)
        #expect(mkdir(directory + "/main.yaml.d", 0o755) == 0)
        #expect(chmod(directory + "/main.yaml.d", 0o755) == 0)
        try "b: 2\n".write(toFile: directory + "/main.yaml.d/10-site.yaml", atomically: false, encoding: .utf8)
        #expect(chmod(directory + "/main.yaml.d/10-site.yaml", 0o644) == 0)
        return (directory, directory + "/main.yaml")
    }

    static func read(_ file: String) throws(YAMLFileError) -> YAMLFileSet {
        try YAMLFileSet.read(file, limit: 1 << 20, kind: "a test file", expecting: "expected a mapping", lists: [])
    }

    @Test(
        "a drop-in or its directory that another user may write, or owns, is refused with its path and the reason",
        .enabled(if: getuid() == 0, "giving files to other users needs root"))
    func refusedFiles() throws {
        let (directory, file) = try Self.files()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let dropIn = file + ".d/10-site.yaml"
        #expect(try Self.read(file).dropIns == [dropIn])

        func refusal() -> String {
            do {
                _ = try Self.read(file)
                return "accepted"
            } catch {
                return error.description
            }
        }
        // Group `nogroup` (65534) is nobody's private group.
        #expect(chown(dropIn, 0, 65534) == 0 && chmod(dropIn, 0o664) == 0)
        #expect(
            refusal().hasPrefix("\(dropIn):1:1: a drop-in that its group (gid 65534) may write (mode 0664) is not read")
        )
        #expect(chmod(dropIn, 0o646) == 0)
        #expect(refusal().hasPrefix("\(dropIn):1:1: a drop-in that every user may write (mode 0646) is not read"))
        #expect(chmod(dropIn, 0o644) == 0 && chown(dropIn, 65534, 65534) == 0)
        #expect(refusal().hasPrefix("\(dropIn):1:1: a drop-in owned by uid 65534 is not read"))
        #expect(chown(dropIn, 0, 0) == 0)
        #expect(try Self.read(file).dropIns == [dropIn])

        #expect(chmod(file + ".d", 0o1777) == 0)
        #expect(
            refusal().hasPrefix("\(file).d:1:1: a drop-in directory that every user may write (mode 1777) is not read"))
        #expect(chmod(file + ".d", 0o755) == 0 && chown(file + ".d", 65534, 0) == 0)
        #expect(refusal().hasPrefix("\(file).d:1:1: a drop-in directory owned by uid 65534 is not read"))
        // The file named on the command line is the administrator's choice, not a drop-in.
        #expect(chown(file + ".d", 0, 0) == 0 && chmod(file, 0o666) == 0)
        #expect(try Self.read(file).dropIns == [dropIn])
    }

    @Test("a link to a drop-in is judged by the file it names")
    func link() throws {
        let (directory, file) = try Self.files()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let target = directory + "/elsewhere.yaml"
        try "c: 3\n".write(toFile: target, atomically: false, encoding: .utf8)
        #expect(chmod(target, 0o666) == 0)
        #expect(symlink(target, file + ".d/20-link.yaml") == 0)
        #expect(throws: YAMLFileError.self) { try Self.read(file) }
        #expect(chmod(target, 0o644) == 0)
        #expect(try Self.read(file).dropIns.count == 2)
    }
}
