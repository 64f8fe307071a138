import Foundation
import Glibc
import TestSupport
import Testing

/// Who may see where fingers are (docs/RECORDING.md, "Who may see where fingers are"), through
/// the real daemon on a replayed panel: raw touches refused to a client without the right on the
/// Unix socket and on the WebSocket endpoint, given by the configuration's one line and taken
/// back by a reload; and a private region's touches and gestures kept from a stranger. The time
/// limit is a hang guard: every step waits on the event itself.
@Suite("who may see where fingers are", .timeLimit(.minutes(10)))
struct FingerPrivacyTests {
    /// A daemon replaying the panel in a loop, whose socket others may reach, with `config`.
    static func daemon(_ config: String) async throws -> (daemon: ChildProcess, directory: String, socket: String) {
        let directory = try DaemonProcessTests.temporaryDirectory()
        chmod(directory, 0o755)
        let socket = directory + "/g.sock"
        try config.write(toFile: directory + "/gestured.yaml", atomically: true, encoding: .utf8)
        let daemon = try await DaemonProcessTests.startDaemon([
            "--config", directory + "/gestured.yaml", "--socket", socket, "--replay", DaemonProcessTests.recording,
            "--loop",
        ])
        return (daemon, directory, socket)
    }

    /// Reloads the daemon with `config` and waits for it to say so.
    static func reload(_ daemon: ChildProcess, _ directory: String, _ config: String) async throws {
        let before = daemon.lines.filter { $0.contains("configuration reloaded") }.count
        try config.write(toFile: directory + "/gestured.yaml", atomically: true, encoding: .utf8)
        daemon.send(SIGHUP)
        try await daemon.output.wait(for: "the reload") { o in
            o.lines.filter { $0.contains("configuration reloaded") }.count > before
        }
    }

    /// Waits until `child` printed a line with `"type":"touch"` or ended; whether it did print one.
    static func printsTouches(_ child: ChildProcess) async throws -> Bool {
        try await child.output.wait(for: "a touch or the end", within: .seconds(120)) { o in
            o.ended || o.lines.contains { $0.contains(#""type":"touch""#) }
        }
        return child.lines.contains { $0.contains(#""type":"touch""#) }
    }

    @Test(
        "a socket client outside touches-group gets permission-denied, not touches; touches-group lets it in, a reload takes it back",
        .enabled(if: getuid() == 0, "switching the client to another user needs root"))
    func unixSocket() async throws {
        let gestured = try DaemonProcessTests.gestured()
        let open = "socket:\n  mode: \"0666\"\n"
        let (daemon, directory, socket) = try await Self.daemon(open)
        defer {
            daemon.send(SIGKILL)
            try? FileManager.default.removeItem(atPath: directory)
        }
        // Nobody may reach the socket, as a member of its group would; it does not get touches.
        let refused = try RecordTests.asNobody([gestured, "listen", "--socket", socket, "--touches"])
        defer { refused.send(SIGKILL) }
        #expect(try await !Self.printsTouches(refused), "\(refused.lines.prefix(3))")
        #expect(try await refused.waitForExit() == 1)
        #expect(
            refused.lines.contains {
                $0.contains("permission-denied") && $0.contains("user 65534 gets no raw touches")
            },
            "\(refused.lines)")
        try await daemon.output.wait(for: "the journal to say so") { o in
            o.lines.contains { $0.contains("raw touches refused") && $0.contains("user 65534") }
        }
        // Root may, as ever.
        let root = try ChildProcess([gestured, "listen", "--socket", socket, "--touches"])
        defer { root.send(SIGKILL) }
        #expect(try await Self.printsTouches(root))

        // The kiosk's one line.
        try await Self.reload(daemon, directory, open + "touches-group: nogroup\n")
        let allowed = try RecordTests.asNobody([gestured, "listen", "--socket", socket, "--touches"])
        defer { allowed.send(SIGKILL) }
        #expect(try await Self.printsTouches(allowed), "\(allowed.lines.prefix(3))")

        // Taken back: the connection is told, and gets no more touches.
        try await Self.reload(daemon, directory, open)
        try await allowed.output.wait(for: "the client to be told") { o in
            o.lines.contains { $0.contains("permission-denied") && $0.contains("raw touches stop") }
        }
        let told = try #require(allowed.lines.firstIndex { $0.contains("raw touches stop") })
        let count = allowed.lines.count
        try await root.output.wait(for: "more touches for root") { o in
            o.lines.filter { $0.contains(#""type":"touch""#) }.count > 50
        }
        #expect(allowed.lines.count >= count)
        #expect(
            !allowed.lines[(told + 1)...].contains { $0.contains(#""type":"touch""#) },
            "touches after the error: \(allowed.lines[(told + 1)...].prefix(2))")
    }

    /// A page on the WebSocket endpoint, in Python's standard library: connects with the allowed
    /// origin, subscribes to raw touches, and prints each text message until a `touch` or an
    /// `error` (argv: port).
    static let page = #"""
        import base64, os, socket, sys
        s = socket.create_connection(("127.0.0.1", int(sys.argv[1]))); s.settimeout(120)
        key = base64.b64encode(os.urandom(16)).decode()
        s.sendall(("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                   "Origin: http://localhost:8080\r\n\r\n").encode())
        head = b""
        while not head.endswith(b"\r\n\r\n"): head += s.recv(1)
        assert head.startswith(b"HTTP/1.1 101"), head
        payload = b'{"type":"subscribe","id":"s","touches":true}'
        mask = os.urandom(4)
        s.sendall(bytes([0x81, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
        def exactly(n):
            data = b""
            while len(data) < n:
                chunk = s.recv(n - len(data))
                if not chunk: raise EOFError
                data += chunk
            return data
        while True:
            b0, b1 = exactly(2)
            n = b1 & 0x7F
            if n == 126: n = int.from_bytes(exactly(2), "big")
            elif n == 127: n = int.from_bytes(exactly(8), "big")
            data = exactly(n)
            if b0 & 0x0F != 0x1: continue
            text = data.decode()
            print(text, flush=True)
            if '"type":"touch"' in text or '"type":"error"' in text: break
        """#

    @Test("a page gets permission-denied, not touches, unless websocket.allow-touches")
    func webSocket() async throws {
        let endpoint = "websocket:\n  listen: \"127.0.0.1:0\"\n  allowed-origins: [\"http://localhost:8080\"]\n"
        let (daemon, directory, _) = try await Self.daemon(endpoint)
        defer {
            daemon.send(SIGKILL)
            try? FileManager.default.removeItem(atPath: directory)
        }
        let listening = try #require(daemon.lines.first { $0.contains("listening for WebSockets") })
        let port = try #require(listening.split(separator: " ").first { $0.hasPrefix("port=") }?.dropFirst(5))
        let refused = try ChildProcess(["python3", "-c", Self.page, String(port)])
        #expect(try await refused.waitForExit(within: .seconds(120)) == 0, "\(refused.lines)")
        #expect(!refused.lines.contains { $0.contains(#""type":"touch""#) }, "\(refused.lines)")
        #expect(
            refused.lines.contains {
                $0.contains(#""code":"permission-denied""#) && $0.contains("websocket.allow-touches is false")
            }, "\(refused.lines)")

        try await Self.reload(daemon, directory, endpoint + "  allow-touches: true\n")
        let allowed = try ChildProcess(["python3", "-c", Self.page, String(port)])
        #expect(try await allowed.waitForExit(within: .seconds(120)) == 0, "\(allowed.lines)")
        #expect(allowed.lines.last?.contains(#""type":"touch""#) == true, "\(allowed.lines)")
    }

    /// Two connections of root (who may see raw touches) in one Python process: the owner
    /// defines a private region over the whole panel, then both subscribe to everything. Once the
    /// owner has seen `argv[2]` touches land (each in its region, as every touch landing after
    /// the first it sees does), prints how many it saw and their first time, the times of the
    /// touches the stranger saw land and of the gestures it got (when their first touch landed),
    /// and how many gestures each got. Times, not ids: a looped replay numbers each pass anew.
    static let pinPad = #"""
        import json, select, socket, sys
        class Connection:
            def __init__(self):
                self.sock = socket.socket(socket.AF_UNIX); self.sock.connect(sys.argv[1]); self.buffer = b""
                json.loads(self.line())
            def lines(self):
                # The complete lines received so far, after one read.
                data = self.sock.recv(65536)
                if not data: raise EOFError
                *complete, self.buffer = (self.buffer + data).split(b"\n")
                return complete
            def line(self):
                while b"\n" not in self.buffer:
                    data = self.sock.recv(65536)
                    if not data: raise EOFError
                    self.buffer += data
                line, self.buffer = self.buffer.split(b"\n", 1)
                return line
            def request(self, message):
                self.sock.sendall((json.dumps(message) + "\n").encode())
                while True:
                    reply = json.loads(self.line())
                    if reply.get("id") == message["id"]: return reply
        owner = Connection()
        region = {"name": "pin-pad", "rect": {"x": 0, "y": 0, "width": 1, "height": 1}, "private": True}
        print("define", owner.request({"type": "define", "id": "d", "regions": [region]})["type"], flush=True)
        print("owner", owner.request({"type": "subscribe", "id": "s", "touches": True})["type"], flush=True)
        stranger = Connection()
        print("stranger", stranger.request({"type": "subscribe", "id": "s", "touches": True})["type"], flush=True)
        began, landed, started, gestures = [], [], [], {"owner": 0, "stranger": 0}
        who = {owner.sock: ("owner", owner), stranger.sock: ("stranger", stranger)}
        def take(name, line):
            m = json.loads(line)
            if m["type"] == "gesture": gestures[name] += 1
            if name == "owner" and m["type"] == "touch" and m["phase"] == "began": began.append(m["time_us"])
            if name == "stranger" and m["type"] == "touch" and m["phase"] == "began": landed.append(m["time_us"])
            if name == "stranger" and m["type"] == "gesture": started.append(m["start_time_us"])
        # What came behind the replies first, then the sockets as they are readable.
        for name, connection in who.values():
            *complete, connection.buffer = connection.buffer.split(b"\n")
            for line in complete: take(name, line)
        while len(began) < int(sys.argv[2]):
            for sock in select.select(list(who), [], [], 120)[0]:
                name, connection = who[sock]
                for line in connection.lines(): take(name, line)
        print("owner saw", len(began), min(began), flush=True)
        print("stranger landings", *landed, flush=True)
        print("stranger gestures", *started, flush=True)
        print("gestures", gestures["owner"], gestures["stranger"], flush=True)
        """#

    @Test(
        "a private region's touches and the gestures made of them reach its owner, not a stranger who may see touches")
    func privateRegion() async throws {
        let directory = try DaemonProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A gesture of each common kind, again and again (ten touches a pass).
        let session = try await RecordTests.session(in: directory, quiet: 2)
        let socket = directory + "/g.sock"
        let daemon = try await DaemonProcessTests.startDaemon([
            "--socket", socket, "--replay", session, "--loop", "--speed", "1",
        ])
        defer { daemon.send(SIGKILL) }
        let clients = try ChildProcess(["python3", "-c", Self.pinPad, socket, "12"])
        defer { clients.send(SIGKILL) }
        #expect(try await clients.waitForExit(within: .seconds(300)) == 0, "\(clients.lines)")
        #expect(clients.lines.prefix(3) == ["define ok", "owner ok", "stranger ok"], "\(clients.lines)")
        func numbers(_ prefix: String) throws -> [Int64] {
            let line = try #require(clients.lines.first { $0.hasPrefix(prefix) }, "\(clients.lines)")
            return line.dropFirst(prefix.count).split(separator: " ").compactMap { Int64($0) }
        }
        let owner = try numbers("owner saw ")
        #expect(owner.first ?? 0 >= 12, "the owner saw the touches land in its region")
        // Every touch that landed since the owner's first landed in the private region.
        let first = try #require(owner.last)
        let landings = try numbers("stranger landings").filter { $0 >= first }
        #expect(landings.isEmpty, "the stranger saw \(landings.count) touches land in the private region")
        let gestures = try numbers("stranger gestures").filter { $0 >= first }
        #expect(gestures.isEmpty, "the stranger got \(gestures.count) gestures made in the private region")
        let counts = try numbers("gestures ")
        #expect(counts.first ?? 0 > 0, "the owner gets the configuration's gestures made in its region")
    }
}
