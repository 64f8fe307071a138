import Foundation
import GestureEngine
import GestureProtocol
import GestureServer
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Blocking POSIX sockets for tests that need no event loop of their own.
enum RawSocket {
    static func address(_ path: String) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.enumerated() { raw[i] = byte }
        }
        return address
    }

    static func withAddress<T>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        var address = address(path)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    static func stream() throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Unexpected("socket: \(String(cString: strerror(errno)))") }
        return fd
    }

    /// Connects and reads the first line (the `hello`), with a 20 s receive timeout.
    static func connectAndReadLine(_ path: String) throws -> (fd: Int32, line: String) {
        let fd = try stream()
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard withAddress(path, { connect(fd, $0, $1) }) == 0 else {
            close(fd)
            throw Unexpected("connect: \(String(cString: strerror(errno)))")
        }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(fd, &byte, 1) == 1 {
            if byte == UInt8(ascii: "\n") { return (fd, String(decoding: line, as: UTF8.self)) }
            line.append(byte)
        }
        close(fd)
        throw Unexpected("no line from the server")
    }

    /// A socket bound and listening at `path`.
    static func listening(_ path: String) throws -> Int32 {
        let fd = try stream()
        guard withAddress(path, { bind(fd, $0, $1) }) == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw Unexpected("bind/listen: \(String(cString: strerror(errno)))")
        }
        return fd
    }

    /// This process's descriptors of sockets bound under `directory`: the server's listener and
    /// the connections it accepted (Linux lists an accepted connection with its listener's
    /// path in /proc/net/unix). Other tests running meanwhile open descriptors of their own;
    /// these are the server's alone.
    static func serverDescriptors(under directory: String) throws -> Int {
        var inodes: Set<Substring> = []
        // Read to the end: `String(contentsOfFile:)` takes a proc file's first 4 KB only (its size
        // reads 0), which missed the listener once the machine had ~70 Unix sockets.
        guard let table = FileHandle(forReadingAtPath: "/proc/net/unix")?.readDataToEndOfFile() else {
            throw Unexpected("cannot read /proc/net/unix")
        }
        for line in String(decoding: table, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.count >= 8, fields[7].hasPrefix(directory + "/") { inodes.insert(fields[6]) }
        }
        return try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count { fd in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + fd),
                target.hasPrefix("socket:["), target.hasSuffix("]")
            else { return false }
            return inodes.contains(target.dropFirst("socket:[".count).dropLast())
        }
    }
}

extension SocketTests {
    @Suite struct Lifecycle {
        /// Must show 1: connecting and disconnecting leaves no descriptor behind.
        @Test func `a thousand connect and disconnect cycles leave no file descriptor behind`() async throws {
            let cycles = 1000
            let delegate = TestDelegate()
            try await ServerFixture.with(delegate: delegate) { f in
                // Warm up once, so lazily opened descriptors (event loops, the client group) exist.
                let warmUp = try RawSocket.connectAndReadLine(f.path)
                close(warmUp.fd)
                try await delegate.log.wait(for: "the warm-up disconnect") { $0.disconnected.count == 1 }
                let before = try RawSocket.serverDescriptors(under: f.directory)
                #expect(before == 1, "the listener")
                for _ in 0..<cycles {
                    let (fd, line) = try RawSocket.connectAndReadLine(f.path)
                    close(fd)
                    #expect(line.hasPrefix(#"{"client":"#), "\(line)")
                    f.log.received(line)
                }
                try await delegate.log.wait(for: "every disconnect") { $0.disconnected.count == cycles + 1 }
                #expect(try RawSocket.serverDescriptors(under: f.directory) == before)
                #expect(Set(delegate.log.value.connected).count == cycles + 1, "client ids are never reused")
            }
        }

        @Test func `every connection is logged with its peer's pid, uid and gid`() async throws {
            let records = Observed<[LogCapture.Record]>([])
            try await ServerFixture.with(logger: LogCapture.logger(into: records)) { f in
                let client = try await f.connect()
                _ = try await client.next(ofType: "hello")
                let id = try client.hello().client
                try await records.wait(for: "the connection's log line") { records in
                    records.contains { $0.message == "client connected" && $0.metadata["client"] == "client:\(id)" }
                }
                let line = try #require(records.value.first { $0.message == "client connected" })
                #expect(line.metadata["pid"] == String(getpid()))
                #expect(line.metadata["uid"] == String(getuid()))
                #expect(line.metadata["gid"] == String(getgid()))
            }
        }

        @Test func `a connection beyond the limit gets too-many-clients and is closed`() async throws {
            let delegate = TestDelegate()
            try await ServerFixture.with(limits: ServerLimits(maxClients: 2), delegate: delegate) { f in
                let first = try await f.subscriber()
                _ = try await f.subscriber()
                let third = try await f.connect()
                guard case .error(let error) = try await third.next() else { throw Unexpected("no error") }
                #expect(error.code == .tooManyClients)
                try await third.waitForEnd()
                #expect(delegate.log.value.connected.count == 2, "a refused connection is not a client")

                await first.close()
                try await delegate.log.wait(for: "a free place") { $0.disconnected.count == 1 }
                let fourth = try await f.connect()
                _ = try await fourth.next(ofType: "hello")
            }
        }

        @Test func `shutdown tells every client, closes them and removes the socket`() async throws {
            try await ServerFixture.with { f in
                let a = try await f.subscriber()
                let b = try await f.connect()
                _ = try await b.next(ofType: "hello")
                await f.server.shutdown()
                for client in [a, b] {
                    guard case .error(let error) = try await client.next() else { throw Unexpected("no error") }
                    #expect(error.code == .shutdown)
                    try await client.waitForEnd()
                }
                #expect(!FileManager.default.fileExists(atPath: f.path))
                f.server.publish([.gesture(Sample.gesture(1), owner: .configuration)])  // harmless after shutdown
            }
        }

        /// A client that does not read held the stop for the whole close
        /// timeout (5 s in the daemon; 600 s here, so a stop that waits for it cannot pass). With a
        /// small queue the stalled client has overflowed and is being closed already; with a large
        /// one it is open, its socket full.
        @Test(arguments: [64, 100_000])
        func `shutdown tells a reading client and does not wait for one that does not read`(queue: Int) async throws {
            let events = 1500  // ~600 kB of lines: more than the socket and NIO's buffer hold
            let limits = ServerLimits(maxQueuedMessages: queue, maxQueuedBytes: queue * 1024)
            try await ServerFixture.with(limits: limits, closeTimeout: .seconds(600)) { f in
                let stalled = try await f.subscriber(reading: false)
                let reader = try await f.subscriber()
                for start in stride(from: 1, through: events, by: 50) {
                    f.server.publish(
                        (start..<start + 50).map { .gesture(Sample.gesture(UInt64($0)), owner: .configuration) })
                    try await reader.received.wait(for: "batch \(start) at the reader") {
                        $0.lines.count >= start + 49 + 2
                    }
                }
                let server = f.server
                let stopped = Observed(false)
                Task {
                    await server.shutdown()
                    stopped.update { $0 = true }
                }
                try await stopped.wait(for: "the server to stop", within: .seconds(10)) { $0 }
                guard case .error(let error) = try await reader.next(ofType: "error") else {
                    throw Unexpected("no error for the reader")
                }
                #expect(error.code == .shutdown)
                try await reader.waitForEnd()
                stalled.startReading()
                try await stalled.waitForEnd()
                // Closed with lines still unsent (with the small queue it had overflowed, and its
                // `overflow` error was stuck behind them too), not waited for.
                let got = try stalled.gestures().count
                #expect(got < events, "the stalled client got \(got) of \(events)")
                #expect(!FileManager.default.fileExists(atPath: f.path))
            }
        }

        @Test func `a stale socket is replaced and a live one is not`() async throws {
            let directory = ServerFixture.makeDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let path = directory + "/nested/dir/s.sock"
            try FileManager.default.createDirectory(
                atPath: directory + "/nested/dir", withIntermediateDirectories: true)
            close(try RawSocket.listening(path))  // bound, then abandoned: stale
            let server = GestureServer(
                configuration: .init(listener: .path(path), daemonVersion: "t"), delegate: nil,
                logger: ServerFixture.logger)
            try await server.start()
            let second = GestureServer(
                configuration: .init(listener: .path(path), daemonVersion: "t"), delegate: nil,
                logger: ServerFixture.logger)
            await #expect(throws: ServerError.self) { try await second.start() }
            // The refused server's shutdown must not take the socket from the running one.
            await second.shutdown()
            let (fd, line) = try RawSocket.connectAndReadLine(path)
            close(fd)
            #expect(line.contains(#""type":"hello""#), "the first server still owns the socket")
            await server.shutdown()
            #expect(!FileManager.default.fileExists(atPath: path), "the server that made it removes it")
        }

        @Test func `shutdown leaves a socket another process put at the path`() async throws {
            let directory = ServerFixture.makeDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let path = directory + "/s.sock"
            let server = GestureServer(
                configuration: .init(listener: .path(path), daemonVersion: "t"), delegate: nil,
                logger: ServerFixture.logger)
            try await server.start()
            // Someone else (systemd's socket unit, a newer daemon) takes the path over.
            unlink(path)
            let other = try RawSocket.listening(path)
            defer { close(other) }
            await server.shutdown()
            var info = stat()
            #expect(lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK, "the other socket is still there")
        }

        @Test func `a file that is not a socket is never replaced`() async throws {
            let directory = ServerFixture.makeDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let path = directory + "/s.sock"
            try Data("precious".utf8).write(to: URL(fileURLWithPath: path))
            let server = GestureServer(
                configuration: .init(listener: .path(path), daemonVersion: "t"), delegate: nil,
                logger: ServerFixture.logger)
            let error = await #expect(throws: ServerError.self) { try await server.start() }
            #expect(error?.message.contains("not a socket") == true)
            await server.shutdown()
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "precious")
        }

        /// `run --socket /nonexistent/dir/g.sock` made `/nonexistent/dir` (as root, 0755) and
        /// left it: only the default's directory is made; elsewhere a missing one is an error
        /// that names it, and nothing is created.
        @Test func `a socket's missing directory is an error that names it, and is not made`() async throws {
            let directory = ServerFixture.makeDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let server = GestureServer(
                configuration: .init(listener: .path(directory + "/typo/dir/s.sock"), daemonVersion: "t"),
                delegate: nil, logger: ServerFixture.logger)
            let error = await #expect(throws: ServerError.self) { try await server.start() }
            #expect(error?.message.hasPrefix("the socket's directory \(directory)/typo/dir does not exist") == true)
            await server.shutdown()
            #expect(!FileManager.default.fileExists(atPath: directory + "/typo"))
        }

        @Test func `the socket gets its mode and group`() async throws {
            let directory = ServerFixture.makeDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let path = directory + "/s.sock"
            let server = GestureServer(
                configuration: .init(
                    listener: .path(path), daemonVersion: "t", socketMode: 0o600, socketGroup: String(getgid())),
                delegate: nil, logger: ServerFixture.logger)
            try await server.start()
            var info = stat()
            #expect(stat(path, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o600)
            #expect(info.st_gid == getgid())
            await server.shutdown()

            let unknownGroup = GestureServer(
                configuration: .init(listener: .path(path), daemonVersion: "t", socketGroup: "no-such-group-gestured"),
                delegate: nil, logger: ServerFixture.logger)
            let error = await #expect(throws: ServerError.self) { try await unknownGroup.start() }
            #expect(error?.message.contains("no group named") == true)
            #expect(!FileManager.default.fileExists(atPath: path), "a socket that failed to set up is removed")
            await unknownGroup.shutdown()
        }

        /// The socket was bound (mode from the umask) and chmod-ed after, so
        /// under umask 000 anyone could connect in between. An unprivileged process (`nobody`)
        /// tries to connect all the while the server starts and stops, under umask 000.
        @Test(.enabled(if: getuid() == 0, "needs root, to run the intruder as nobody"))
        func `under umask 000 another user never connects to a starting server`() async throws {
            let directory = ServerFixture.makeDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            #expect(chmod(directory, 0o755) == 0)  // others may look for the socket, as in /run/gestured
            let path = directory + "/s.sock"
            let stop = directory + "/stop"
            let intruder = try ChildProcess(["python3", "-c", Self.intruder, path, stop])
            defer { intruder.terminate() }
            try await intruder.output.wait(for: "the intruder to run as nobody") { $0.lines.contains("ready") }
            let previous = umask(0)
            defer { umask(previous) }
            for _ in 0..<200 {
                let server = GestureServer(
                    configuration: .init(listener: .path(path), daemonVersion: "t", socketMode: 0o660),
                    delegate: nil, logger: ServerFixture.logger)
                try await server.start()
                var info = stat()
                #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o660)
                await server.shutdown()
            }
            umask(previous)
            #expect(FileManager.default.createFile(atPath: stop, contents: nil))
            #expect(try await intruder.waitForExit() == 0, "\(intruder.lines)")
            let report = try #require(intruder.lines.last { $0.hasPrefix("connected ") })
            #expect(report.hasPrefix("connected 0 "), "\(report)")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0 != "stop" }
            #expect(leftovers.isEmpty, "no private directory is left behind: \(leftovers)")
        }

        /// Connects to argv[1] as fast as it can, as user nobody, until argv[2] exists; prints
        /// how many connections succeeded and how many were tried.
        static let intruder = """
            import os, pwd, socket, sys
            nobody = pwd.getpwnam("nobody")
            os.setgroups([]); os.setgid(nobody.pw_gid); os.setuid(nobody.pw_uid)
            print("ready", flush=True)
            connected = tried = 0
            while not os.path.exists(sys.argv[2]):
                s = socket.socket(socket.AF_UNIX)
                try:
                    s.connect(sys.argv[1]); connected += 1
                except OSError:
                    pass
                finally:
                    s.close()
                tried += 1
            print(f"connected {connected} of {tried}", flush=True)
            """

        @Test func `a socket path longer than a client could reach is refused with a clear error`() async throws {
            let path = "/tmp/" + String(repeating: "x", count: 99)
            let server = GestureServer(
                configuration: .init(listener: .path(path), daemonVersion: "t"), delegate: nil,
                logger: ServerFixture.logger)
            let error = await #expect(throws: ServerError.self) { try await server.start() }
            #expect(
                error?.message == "socket path '\(path)' is 104 bytes long; a Unix socket path may be at most 103 bytes"
            )
            await server.shutdown()
        }

        @Test func `an inherited listening socket is adopted, as under systemd socket activation`() async throws {
            let directory = ServerFixture.makeDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let path = directory + "/s.sock"
            let fd = try RawSocket.listening(path)
            let server = GestureServer(
                configuration: .init(listener: .inherited(descriptor: fd), daemonVersion: "t"), delegate: nil,
                logger: ServerFixture.logger)
            try await server.start()
            #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0)
            let (client, line) = try RawSocket.connectAndReadLine(path)
            close(client)
            #expect(line.contains(#""type":"hello""#))
            await server.shutdown()
        }
    }
}
