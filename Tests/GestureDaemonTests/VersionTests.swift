import Foundation
import GestureDaemon
import GestureProtocol
import Glibc
import TestSupport
import Testing

/// The version is said once, in the repository's VERSION file; the build writes it into
/// `gesturedVersion` (Plugins/GesturedVersion), and `gestured --version`, the `hello` message, the
/// Debian package (scripts/package-deb.sh) and its changelog must say the same. The package's
/// side — the installed binary, `dpkg-query`, the installed changelog — is checked by
/// scripts/test-package.sh.
@Suite("the version, from VERSION", .timeLimit(.minutes(10)))
struct VersionTests {
    static let version: String = {
        let file = DaemonProcessTests.repository.appendingPathComponent("VERSION")
        let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        return text.trimmingCharacters(in: .newlines)
    }()

    @Test("the build's gesturedVersion is the VERSION file")
    func constant() {
        #expect(!Self.version.isEmpty)
        #expect(gesturedVersion == Self.version)
    }

    @Test("the changelog's latest entry is VERSION (scripts/package-deb.sh refuses to build otherwise)")
    func changelog() throws {
        let changelog = try String(
            contentsOf: DaemonProcessTests.repository.appendingPathComponent("packaging/debian/changelog"),
            encoding: .utf8)
        // Its first line, as dpkg-parsechangelog reads it: `gestured (VERSION) DISTRIBUTION; urgency=…`.
        let first = changelog.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
        #expect(first.hasPrefix("gestured (\(Self.version)) "), "\(first)")
    }

    @Test("gestured --version and the hello of a running daemon say VERSION")
    func binaryAndHello() async throws {
        let gestured = try DaemonProcessTests.gestured()
        let version = try ChildProcess([gestured, "--version"])
        #expect(try await version.waitForExit() == 0)
        #expect(version.lines == [Self.version])

        let directory = try DaemonProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = directory + "/g.sock"
        let daemon = try await DaemonProcessTests.startDaemon([
            "--socket", socket, "--replay", DaemonProcessTests.recording, "--loop",
        ])
        defer { daemon.send(SIGKILL) }
        let listen = try ChildProcess([gestured, "listen", "--socket", socket])
        defer { listen.terminate() }
        try await listen.waitForLines(1)
        guard case .hello(let hello) = try JSONDecoder().decode(ServerMessage.self, from: Data(listen.lines[0].utf8))
        else {
            Issue.record("the first line is not a hello: \(listen.lines[0])")
            return
        }
        #expect(hello.daemonVersion == Self.version)
    }
}
