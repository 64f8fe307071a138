import Foundation
import GestureClient
import Glibc
import TestSupport
import Testing

/// The soak's loaded phase in seconds.
private let soakSeconds = ProcessInfo.processInfo.environment["GESTURED_SOAK_SECONDS"].flatMap { Int($0) } ?? 20

/// The soak: everything hostile clients and a careless operator do, at once, against the
/// real daemon replaying a recording in real time, while a watching client counts its gestures
/// and how late they come. Connections churn; clients define and undefine recognizers (observer
/// taps, shapes with templates, some refused by the limits or the policy) and vanish with them
/// defined; stalled readers subscribe to everything and never read; the configuration is
/// reloaded (SIGHUP) between two versions every few seconds. It adds the WebSocket
/// endpoint's hostile clients beside them — ping floods that never read, half-sent handshakes
/// (as another user where the test may switch users), slow readers, pages flooding 54 KB
/// `define`s the endpoint refuses — connections churning 54 KB `define`s over the limits and
/// undefines, the metrics endpoint's and the recorders' (pipelined scrapes never read, requests
/// trickled a byte at a time, recorders that never read, in rounds), a `status` flood, and
/// descriptor pressure:
/// the daemon runs with `ulimit -n 64`, and bursts of connections to both transports take what
/// it has left, so both listeners run out and must resume. Afterwards the daemon's memory,
/// descriptors, CPU and recognizers must be back where they were, and the watching client (on
/// the Unix socket) must have been served throughout.
///
/// The watcher's lateness and its pings' round trips are measured and printed, not asserted
/// (speed is for benchmarks, docs/TESTING.md; on a shared machine a starved daemon is late too);
/// asserted are that the watcher lost no gesture a reload did not cut, that every ping it sent
/// was answered, that the limits and the policy refused some definitions and nothing else went
/// wrong, and the resources.
/// `GESTURED_SOAK_SECONDS` sets the loaded phase (default 20: the other suites run beside it);
/// the time limit, a hang guard, is 10 minutes more than that.
@Suite("soak", .timeLimit(.minutes(10 + soakSeconds / 60)))
struct SoakTests {

    /// The load: `python3 -c load MODE SOCKET SECONDS PORT`. Prints one line of counts at the end.
    ///   churn       connects, reads `hello`, closes, ~200 times a second
    ///   define      8 threads: connect; define 64 observer taps, or a shape, or a recognizer that
    ///               would preempt the configuration; undefine; now and then leave with them defined
    ///   stall       4 threads: connect, subscribe to everything with raw touches, send 100 pings,
    ///               never read; close after 2 to 8 s and do it again
    ///   wsflood     2 threads: a WebSocket page that sends masked 125-byte pings for 2 s and
    ///               never reads; then closes and does it again
    ///   wshalf      4 threads: a TCP connection that sends half a handshake and waits for the
    ///               daemon to close it (the handshake timeout), or to refuse it at once
    ///   wsslow      2 threads: a page subscribed to raw touches that reads one message every
    ///               200 ms (a pong every 5 s, as its browser would) until the daemon cuts it
    ///               off (`overflow`) or the load ends
    ///   fdpressure  bursts: 40 Unix connections and 8 TCP connections to the WebSocket port,
    ///               held for a second, then let go for a second; more than the daemon's
    ///               descriptors allow, so both listeners run out
    ///   wsdefine    2 threads: a page (no allow-define) that sends 54 KB `define`s (64 chained
    ///               regions, 64 shapes, seven 1000-point templates) as masked text frames as
    ///               fast as the socket takes them for 2 s, never reading; a send the kernel holds
    ///               back for a second (the daemon stopped reading the page) ends the flood
    ///   defchurn    4 threads: connect, then for 2 s that `define` (over the template limit) and
    ///               an undefine, again and again, reading the replies; close and do it again
    ///   metrics     the metrics endpoint: 3 connections that write pipelined `GET /metrics` as
    ///               fast as the socket takes them and never read, and one that trickles a request
    ///               a byte every 0.2 s; a connection the daemon closes is opened again
    ///   recorders   rounds of 8 connections that send `record` and never read, closed after 2 s
    ///   status      6 connections asking `status` as fast as they can, reading the replies
    /// A connection the daemon refuses (closed before `hello` or before the handshake's answer)
    /// is counted as `refused`; nothing else may go wrong.
    static let load = """
        import base64, json, os, random, socket, sys, threading, time
        mode, path, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
        port = int(sys.argv[4])
        end = time.monotonic() + seconds
        counts = {}
        lock = threading.Lock()
        def count(key):
            with lock: counts[key] = counts.get(key, 0) + 1
        def connect():
            s = socket.socket(socket.AF_UNIX); s.connect(path); s.settimeout(60)
            f = s.makefile("rwb", buffering=0)
            f.readline()
            return s, f
        def request(f, message):
            f.write((json.dumps(message) + "\\n").encode())
            while True:
                line = f.readline()
                if not line: raise EOFError("closed")
                reply = json.loads(line)
                if reply.get("type") == "dropped": count("dropped")
                if reply.get("id") == message["id"]: return reply
        def churn():
            while time.monotonic() < end:
                s, f = connect(); s.close(); count("connections")
                time.sleep(0.005)
        def define(n):
            rng = random.Random(n)
            c = 0
            while time.monotonic() < end:
                # Names new for each connection: the last one's may not be gone yet.
                s, f = connect(); c += 1
                for i in range(rng.randint(1, 4)):
                    choice = rng.random()
                    if choice < 0.5:
                        # Observers of everything, as docs/CONFIGURATION.md recommends; 'swipe'
                        # exists in one of the two configurations only (a reload drops these).
                        others = ["*"] if rng.random() < 0.7 else ["swipe"]
                        recognizers = [{"name": f"t{n}-{c}-{k}", "kind": "tap", "simultaneous-with": others} for k in range(64)]
                    elif choice < 0.8:
                        points = [[round(rng.random(), 3), round(rng.random(), 3)] for _ in range(300)]
                        templates = [{"name": f"p{k}", "points": points} for k in range(4)]
                        recognizers = [{"name": f"s{n}-{c}", "kind": "shape", "templates": templates}]
                    else:
                        recognizers = [{"name": f"g{n}-{c}", "kind": "pan", "preempts": ["*"], "start-distance-mm": 0.1}]
                    reply = request(f, {"type": "define", "id": f"d{i}", "recognizers": recognizers})
                    # What the limits and the policy say is counted apart from any other error.
                    code = reply.get("code", reply["type"])
                    message = reply.get("message", "")
                    if code == "invalid-definition" and "may-preempt" in message: code = "policy"
                    if code == "invalid-definition" and "'swipe'" in message: code = "not-in-this-configuration"
                    count(code if code in ("ok", "too-many-recognizers", "policy", "not-in-this-configuration") else f"{code}: {message}")
                    if rng.random() < 0.7:
                        count(request(f, {"type": "define", "id": f"u{i}"})["type"] + "-undefine")
                s.close(); count("connections")
        def stall(n):
            while time.monotonic() < end:
                s, f = connect()
                f.write(b'{"type":"subscribe","touches":true}\\n')
                for i in range(100): f.write(b'{"type":"ping","id":%d}\\n' % i)
                count("stalled")
                time.sleep(max(0, min(2 + 6 * random.random(), end - time.monotonic())))
                s.close()
        def handshake(s):
            key = base64.b64encode(os.urandom(16)).decode()
            s.sendall(("GET / HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\n"
                f"Sec-WebSocket-Key: {key}\\r\\nSec-WebSocket-Version: 13\\r\\n"
                "Origin: http://localhost:8080\\r\\n\\r\\n").encode())
            head = b""
            while not head.endswith(b"\\r\\n\\r\\n"):
                byte = s.recv(1)
                if not byte: return False
                head += byte
            if not head.startswith(b"HTTP/1.1 101"): raise RuntimeError(head.decode(errors="replace"))
            return True
        def page():
            # None when the daemon refuses the connection (a limit): closed before its answer.
            s = socket.create_connection(("127.0.0.1", port)); s.settimeout(60)
            try:
                if handshake(s): return s
            except (ConnectionResetError, BrokenPipeError): pass
            s.close(); count("refused")
            return None
        def frame(opcode, payload):
            mask = os.urandom(4)
            n = len(payload)
            length = bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + n.to_bytes(2, "big")
            return bytes([0x80 | opcode]) + length + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        def read_frame(s):
            def exactly(k):
                data = b""
                while len(data) < k:
                    chunk = s.recv(k - len(data))
                    if not chunk: raise EOFError
                    data += chunk
                return data
            b0, b1 = exactly(2)
            n = b1 & 0x7F
            if n == 126: n = int.from_bytes(exactly(2), "big")
            elif n == 127: n = int.from_bytes(exactly(8), "big")
            return b0 & 0x0F, exactly(n)
        def wsflood(n):
            ping = frame(0x9, b"p" * 125) * 64
            while time.monotonic() < end:
                s = page()
                if not s: time.sleep(0.2); continue
                stop = min(end, time.monotonic() + 2)
                try:
                    while time.monotonic() < stop:
                        s.sendall(ping); count("pings")
                except OSError: count("flood cut off")
                s.close(); count("floods")
        def wshalf(n):
            while time.monotonic() < end:
                s = socket.create_connection(("127.0.0.1", port)); s.settimeout(60)
                try:
                    s.sendall(b"GET / HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nUpgrade: websocket\\r\\n")
                    started = time.monotonic()
                    data = s.recv(1)
                    count("closed at once" if time.monotonic() - started < 1 else "closed by the handshake timeout")
                    if data: raise RuntimeError("the daemon answered half a handshake")
                except (ConnectionResetError, BrokenPipeError): count("closed at once")
                s.close()
        def wsslow(n):
            while time.monotonic() < end:
                s = page()
                if not s: time.sleep(0.2); continue
                s.sendall(frame(0x1, b'{"type":"subscribe","touches":true}'))
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                last, said = b"", time.monotonic()
                try:
                    while time.monotonic() < end:
                        opcode, payload = read_frame(s)
                        if opcode == 0x1: last = payload
                        if opcode == 0x8: break
                        # A browser answers pings by itself, however busy its page: an unsolicited
                        # pong every 5 s keeps the connection alive (RFC 6455 5.5.3).
                        if time.monotonic() - said > 5: s.sendall(frame(0xA, b"")); said = time.monotonic()
                        time.sleep(0.2)
                except (EOFError, OSError): pass
                ended = "closed" if time.monotonic() < end else "still reading"
                count("cut off with overflow" if b'"overflow"' in last else ended)
                s.close()
        def fdpressure():
            while time.monotonic() < end:
                held = []
                for _ in range(40):
                    u = socket.socket(socket.AF_UNIX); u.setblocking(False)
                    try: u.connect(path); held.append(u)
                    except OSError: u.close(); count("unix backlog full")
                for _ in range(8):
                    try: held.append(socket.create_connection(("127.0.0.1", port), timeout=5))
                    except OSError: count("tcp not connected")
                count("bursts")
                time.sleep(1)
                for s in held: s.close()
                time.sleep(1)
        def big_define(n):
            regions = [{"name": "r0", "rect": {"x": 0, "y": 0, "width": 1, "height": 1}}]
            regions += [{"name": f"r{k}", "parent": f"r{k - 1}", "rect": {"x": 0.001, "y": 0.001, "width": 0.99, "height": 0.99}} for k in range(1, 64)]
            points = [[k % 2, (k // 2) % 2] for k in range(1000)]
            shapes = [{"name": f"s{k}", "kind": "shape", "region": f"r{k}"} for k in range(64)]
            for k in range(7): shapes[k]["templates"] = [{"name": "t", "points": points}]
            line = json.dumps({"type": "define", "id": n, "regions": regions, "recognizers": shapes}, separators=(",", ":"))
            return (line[:-1] + " " * (54000 - len(line)) + "}").encode()
        def masked(payload):
            mask = os.urandom(4); n = len(payload)
            key = (mask * (n // 4 + 1))[:n]
            body = (int.from_bytes(payload, "big") ^ int.from_bytes(key, "big")).to_bytes(n, "big")
            return bytes([0x81, 0x80 | 126]) + n.to_bytes(2, "big") + mask + body
        def wsdefine(n):
            frame_ = masked(big_define(n))
            while time.monotonic() < end:
                s = page()
                if not s: time.sleep(0.2); continue
                s.settimeout(1)
                stop = min(end, time.monotonic() + 2)
                try:
                    while time.monotonic() < stop:
                        s.sendall(frame_); count("defines")
                except socket.timeout: count("held back")
                except OSError: count("flood cut off")
                s.close(); count("floods")
        def defchurn(n):
            lines = {"d": big_define("d") + b"\\n", "u": b'{"type":"define","id":"u"}\\n'}
            while time.monotonic() < end:
                s, f = connect()
                stop = min(end, time.monotonic() + 2)
                while time.monotonic() < stop:
                    for want in ("d", "u"):
                        s.sendall(lines[want])
                        while True:
                            reply = json.loads(f.readline())
                            if reply.get("id") == want: break
                        count(reply.get("code", reply["type"]))
                s.close(); count("connections")
        mport = int(sys.argv[5])
        def mconnect():
            s = socket.create_connection(("127.0.0.1", mport)); s.settimeout(1)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            return s
        def pipeline(n):
            requests = b"GET /metrics HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n\\r\\n" * 200
            while time.monotonic() < end:
                try: s = mconnect()
                except OSError: count("not connected"); time.sleep(0.2); continue
                count("connections")
                try:
                    while time.monotonic() < end:
                        try: s.sendall(requests); count("sent")
                        except socket.timeout: count("held back")
                except OSError: count("closed by the daemon")
                s.close()
        def trickle():
            request = b"GET /metrics HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nX: " + b"y" * 200 + b"\\r\\n\\r\\n"
            while time.monotonic() < end:
                try: s = mconnect()
                except OSError: count("not connected"); time.sleep(0.2); continue
                try:
                    for byte in request:
                        if time.monotonic() >= end: count("trickling at the end"); break
                        s.sendall(bytes([byte])); time.sleep(0.2)
                    else: count("trickled whole")
                except OSError: count("closed at its deadline")
                s.close()
        def recorders():
            while time.monotonic() < end:
                held = []
                for _ in range(8):
                    r = socket.socket(socket.AF_UNIX); r.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                    try: r.connect(path); r.sendall(b'{"type":"record","id":1}\\n'); held.append(r)
                    except OSError: r.close(); count("refused")
                count("rounds")
                time.sleep(max(0, min(2, end - time.monotonic())))
                for r in held: r.close()
        def status(n):
            while time.monotonic() < end:
                try:
                    s, f = connect()
                    while time.monotonic() < end:
                        reply = request(f, {"type": "status", "id": "st"})
                        count(reply["type"])
                    s.close()
                except (OSError, EOFError, ValueError): count("refused")
        jobs = {
            "metrics": [lambda n=n: pipeline(n) for n in range(3)] + [trickle],
            "recorders": [recorders], "status": [lambda n=n: status(n) for n in range(6)],
            "wsdefine": [lambda n=n: wsdefine(n) for n in range(2)], "defchurn": [lambda n=n: defchurn(n) for n in range(4)],
            "churn": [churn], "define": [lambda n=n: define(n) for n in range(8)],
            "stall": [lambda n=n: stall(n) for n in range(4)], "wsflood": [lambda n=n: wsflood(n) for n in range(2)],
            "wshalf": [lambda n=n: wshalf(n) for n in range(4)], "wsslow": [lambda n=n: wsslow(n) for n in range(2)],
            "fdpressure": [fdpressure],
        }[mode]
        threads = [threading.Thread(target=job) for job in jobs]
        for t in threads: t.start()
        for t in threads: t.join()
        print(json.dumps({"mode": mode, **counts}, sort_keys=True), flush=True)
        """

    /// The watcher: subscribes to the configuration's taps; prints every message it receives as
    /// `RECEIVED_US JSON`, and pings every 250 ms (`ping ID SENT_US`), until killed.
    static let watcher = """
        import json, socket, sys, threading, time
        s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
        f = s.makefile("rwb", buffering=0)
        now = lambda: time.monotonic_ns() // 1000
        send, out = threading.Lock(), threading.Lock()
        def say(text):
            # One write per line under a lock: two threads' print()s can interleave.
            with out: sys.stdout.write(text + "\\n"); sys.stdout.flush()
        def write(message):
            with send: f.write((json.dumps(message) + "\\n").encode())
        def pings():
            n = 0
            while True:
                time.sleep(0.25); n += 1
                say(f"ping {n} {now()}")
                write({"type": "ping", "id": n})
        write({"type": "subscribe", "id": "sub", "gestures": ["tap"], "states": ["recognized"]})
        threading.Thread(target=pings, daemon=True).start()
        for line in f:
            say(f"{now()} {line.decode().rstrip()}")
        """

    /// Both configurations serve pages too (socket settings are read at start only), raw
    /// touches included (the slow pages subscribe to them).
    static let webSocket = """
        websocket:
          listen: "127.0.0.1:0"
          allowed-origins: ["http://localhost:8080"]
          allow-touches: true

        """
    static let configurations = [
        webSocket + "recognizers:\n  - {name: tap, kind: tap}\n",
        webSocket + "recognizers:\n  - {name: tap, kind: tap}\n  - {name: swipe, kind: swipe}\n",
    ]

    /// The daemon's descriptors: `ulimit -n 64`, the issue's; with ~20 of its own, the loads'
    /// Unix connections and the pages take the rest, and fdpressure more than that.
    static let descriptorLimit = 64

    /// Load modes, and the user each runs as: the half handshakes come from another local user
    /// (as a hostile one would) when the test may switch users.
    static let modes = [
        "churn", "define", "stall", "wsflood", "wshalf", "wsslow", "fdpressure", "wsdefine", "defchurn", "metrics",
        "recorders", "status",
    ]

    static func loadCommand(_ mode: String, _ socket: String, _ seconds: Int, _ port: Int, _ metricsPort: Int) -> [String] {
        let arguments = ["-c", load, mode, socket, String(seconds), String(port), String(metricsPort)]
        guard mode == "wshalf", getuid() == 0 else { return ["python3"] + arguments }
        // The system's Python: pyenv's, under /root, is out of that user's reach.
        return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3"] + arguments
    }

    /// Runs the rest of its arguments with a listening TCP socket on a free loopback port as fd 3,
    /// named `metrics` (`LISTEN_FDS`, as gestured-metrics.socket passes it): the daemon serves its
    /// metrics there (it logs the port: ``metricsPort(_:)``).
    static let metricsSocket = """
        import os, socket, sys
        s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16)
        fd = s.detach()
        if fd != 3: os.dup2(fd, 3); os.close(fd)
        os.set_inheritable(3, True)
        os.environ.update(LISTEN_FDS="1", LISTEN_FDNAMES="metrics", LISTEN_PID=str(os.getpid()))
        os.execvp(sys.argv[1], sys.argv[1:])
        """

    /// The metrics endpoint's port, as the daemon logged it.
    static func metricsPort(_ daemon: ChildProcess) throws -> Int {
        let line = try #require(daemon.lines.first { $0.contains("serving metrics") })
        let port = line.split(separator: ":").last.flatMap { Int($0.prefix { $0.isNumber }) }
        return try #require(port, "\(line)")
    }

    /// What the watcher printed so far, read.
    struct Watched {
        /// Per replay device, in order of its `added`: the taps' (received µs, time_us).
        var passes: [(device: String, removed: Bool, taps: [(received: Int64, time: Int64)])] = []
        var pingsSent: [Int: Int64] = [:]
        var roundTrips: [Int: Int64] = [:]

        init(_ lines: [String]) {
            for line in lines {
                let parts = line.split(separator: " ")
                if parts.count == 3, parts[0] == "ping", let id = Int(parts[1]), let sent = Int64(parts[2]) {
                    pingsSent[id] = sent
                    continue
                }
                let fields = line.split(separator: " ", maxSplits: 1)
                guard fields.count == 2, let received = Int64(fields[0]),
                    let message = try? JSONSerialization.jsonObject(with: Data(fields[1].utf8)) as? [String: Any]
                else { continue }
                switch message["type"] as? String {
                case "device":
                    let label = (message["device"] as? [String: Any])?["label"] as? String ?? ""
                    if message["event"] as? String == "added" {
                        passes.append((label, false, []))
                    } else if let i = passes.lastIndex(where: { $0.device == label }) {
                        passes[i].removed = true
                    }
                case "gesture":
                    let label = message["device"] as? String ?? ""
                    if let i = passes.lastIndex(where: { $0.device == label }), let time = (message["time_us"] as? NSNumber)?.int64Value {
                        passes[i].taps.append((received, time))
                    }
                case "pong":
                    if let id = (message["id"] as? NSNumber)?.intValue, let sent = pingsSent[id] { roundTrips[id] = received - sent }
                default: break
                }
            }
        }
    }

    /// Resources as seen from inside a connection whose ping was answered (so every earlier
    /// close and request has been handled), and the recognizers a new connection is told of; and
    /// how much of 3 s the daemon's threads were runnable (on a CPU or waiting for one, so a
    /// loaded machine does not make an idle daemon look busy: DescriptorExhaustionTests).
    static func resources(_ daemon: ChildProcess, _ socket: String) async throws -> (
        rss: Int, fds: Int, recognizers: [String], cpu: Double
    ) {
        let (rss, fds) = try await GestureClient.connect(to: socket) { client in
            try await client.ping()
            return (try daemon.status("VmRSS"), try daemon.openDescriptors())
        }
        let cpu = try await DescriptorExhaustionTests.runnableShare(daemon.processIdentifier, over: .seconds(3))
        return (rss, fds, try await HostileClientTests.listed(socket), cpu)
    }

    static func percentile(_ values: [Int64], _ p: Double) -> Int64 {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }

    @Test("churn, defines, stalled readers, hostile pages, few descriptors, reloads: nothing lost, resources return")
    func soak() async throws {
        let (directory, socket) = try HostileClientTests.place()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/gestured.yaml"
        try Self.configurations[0].write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try await DaemonProcessTests.startDaemon(
            ["--config", config, "--socket", socket, "--replay", DaemonProcessTests.recording, "--loop"],
            limitingDescriptorsTo: Self.descriptorLimit, launcher: ["python3", "-c", Self.metricsSocket])
        defer { daemon.send(SIGKILL) }
        let port = try DescriptorExhaustionTests.webSocketPort(daemon)
        let metricsPort = try Self.metricsPort(daemon)
        let watcher = try ChildProcess(["python3", "-c", Self.watcher, socket])
        defer { watcher.send(SIGKILL) }

        // A quiet pass first: how many taps a pass has, and how late they come unloaded.
        try await watcher.output.wait(for: "a whole pass", within: .seconds(60)) { o in
            Watched(o.lines).passes.contains { $0.removed }
        }
        let quiet = try #require(Watched(watcher.lines).passes.first { $0.removed })
        let perPass = quiet.taps.count
        #expect(perPass > 0)
        let baseline = quiet.taps.map { $0.received - $0.time }.min() ?? 0

        func runLoad(_ seconds: Int, reloading: Bool) async throws -> (reloads: Int, counts: [String]) {
            let loads = try Self.modes.map { try ChildProcess(Self.loadCommand($0, socket, seconds, port, metricsPort)) }
            defer { for load in loads { load.send(SIGKILL) } }
            var reloads = 0
            if reloading {
                let end = ContinuousClock.now + .seconds(seconds)
                while ContinuousClock.now < end {
                    try await Task.sleep(for: .seconds(3))
                    reloads += 1
                    try Self.configurations[reloads % 2].write(toFile: config, atomically: true, encoding: .utf8)
                    daemon.send(SIGHUP)
                }
            }
            for load in loads {
                #expect(try await load.waitForExit(within: .seconds(Double(seconds) + 90)) == 0, "\(load.lines.suffix(5))")
            }
            // End on the first configuration, where the resources were measured — once the
            // loads are gone, whichever the last reload under load asked for: the loads take the
            // daemon's descriptors, and a reload that finds none to read the file with keeps the
            // configuration it has (and says so).
            if reloading {
                try Self.configurations[0].write(toFile: config, atomically: true, encoding: .utf8)
                daemon.send(SIGHUP)
                reloads += 1
            }
            return (reloads, loads.compactMap { $0.lines.last })
        }

        // A warm-up round of the same load (the allocator's and NIO's pools grow once), then
        // the resources to come back to.
        _ = try await runLoad(5, reloading: false)
        let configurationOnly = ["tap"]
        try await HostileClientTests.settle(socket, to: configurationOnly)
        let start = try await Self.resources(daemon, socket)
        #expect(start.recognizers == configurationOnly)
        let loadedFrom = Watched(watcher.lines).passes.count

        let (reloads, counts) = try await runLoad(soakSeconds, reloading: true)
        try await HostileClientTests.settle(socket, to: configurationOnly)
        let end = try await Self.resources(daemon, socket)
        // Every ping the watcher sent by now is answered (it goes on pinging).
        let pinged = Set(Watched(watcher.lines).pingsSent.keys)
        do {
            try await watcher.output.wait(for: "the watcher's pongs", within: .seconds(30)) { o in
                pinged.isSubset(of: Watched(o.lines).roundTrips.keys)
            }
        } catch {
            Issue.record("no pong for pings \(pinged.subtracting(Watched(watcher.lines).roundTrips.keys).sorted())")
        }
        let watched = Watched(watcher.lines)
        daemon.send(SIGTERM)
        #expect(try await daemon.waitForExit(within: .seconds(10)) == 0)

        // The watcher: every pass played under load brought its taps, but for those a reload
        // cut (a reload cancels gestures in progress and ignores touches down until they lift;
        // one tap at a time in this recording).
        let loaded = watched.passes.dropFirst(loadedFrom).filter(\.removed)
        let lost = loaded.count * perPass - loaded.map(\.taps.count).reduce(0, +)
        #expect(loaded.count > 0)
        #expect(lost >= 0 && lost <= reloads, "\(lost) taps lost in \(loaded.count) passes with \(reloads) reloads")
        #expect(end.recognizers == start.recognizers)
        #expect(end.fds == start.fds, "descriptors \(start.fds) → \(end.fds)")
        #expect(end.rss - start.rss < 4096, "RSS \(start.rss) kB → \(end.rss) kB")
        // Nothing left spinning: a spinning thread is runnable the whole window (+1.0), however
        // loaded the machine; the replay's own work, with its wait for a CPU, moves by tenths with
        // the host's load (6 % → 17 % seen at load ~10, other suites running beside this one).
        #expect(end.cpu < start.cpu + 0.5, "runnable \(Int(start.cpu * 100)) % → \(Int(end.cpu * 100)) % of the time")
        // Every define was answered ok, or refused by the limits or the policy; nothing else.
        let answers = counts.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let defines = try #require(answers.first { $0["mode"] as? String == "define" }, "\(counts)")
        let expected: Set = [
            "mode", "connections", "ok", "ok-undefine", "too-many-recognizers", "policy", "dropped",
            "not-in-this-configuration",
        ]
        #expect(Set(defines.keys).isSubset(of: expected), "\(defines)")
        // The bounds and the policy were reached (a daemon without them took every one).
        #expect(defines["too-many-recognizers"] != nil && defines["policy"] != nil, "\(defines)")
        #expect(answers.count == Self.modes.count, "\(counts)")
        // The pages did what they came for, and nothing else happened to them.
        func load(_ mode: String, allowed: Set<String>) -> [String: Any] {
            let counts = answers.first { $0["mode"] as? String == mode } ?? [:]
            #expect(Set(counts.keys).isSubset(of: allowed.union(["mode"])), "\(mode): \(counts)")
            return counts
        }
        let flood = load("wsflood", allowed: ["floods", "pings", "flood cut off", "refused"])
        #expect(flood["pings"] != nil, "\(flood)")
        let half = load("wshalf", allowed: ["closed at once", "closed by the handshake timeout"])
        #expect(half["closed by the handshake timeout"] != nil, "\(half)")
        _ = load("wsslow", allowed: ["cut off with overflow", "still reading", "refused"])
        // The 54 KB defines: refused `unavailable` on their heads (the page never reads, so the
        // daemon stops reading it); over the template limit, or undefined, on the Unix socket.
        let wsDefines = load("wsdefine", allowed: ["floods", "defines", "held back", "flood cut off", "refused"])
        #expect(wsDefines["defines"] != nil, "\(wsDefines)")
        let churned = load("defchurn", allowed: ["connections", "invalid-definition", "ok"])
        #expect(churned["invalid-definition"] != nil && churned["ok"] != nil, "\(churned)")
        _ = load("fdpressure", allowed: ["bursts", "unix backlog full", "tcp not connected"])
        // The metrics endpoint: the pipelines sent, and were held back once their answers waited
        // (the daemon reads a connection's next request only once its answer is written); the
        // trickled request was closed at its deadline.
        let metrics = load(
            "metrics",
            allowed: [
                "connections", "sent", "held back", "closed by the daemon", "not connected", "trickled whole",
                "trickling at the end", "closed at its deadline",
            ])
        #expect(metrics["sent"] != nil && metrics["held back"] != nil, "\(metrics)")
        #expect(metrics["closed at its deadline"] != nil && metrics["trickled whole"] == nil, "\(metrics)")
        let recorders = load("recorders", allowed: ["rounds", "refused"])
        #expect(recorders["rounds"] != nil, "\(recorders)")
        let statuses = load("status", allowed: ["status", "refused"])
        #expect(statuses["status"] != nil, "\(statuses)")
        // Descriptor pressure reached the limit: the Unix listener ran out (and came back, or the
        // watcher's pings and the probes above would have gone unanswered).
        let journal = daemon.lines
        let outOfDescriptors = journal.count { $0.contains("cannot accept a connection") }
        #expect(outOfDescriptors > 0, "the loads never ran the daemon out of descriptors")

        // Lateness: reception minus the tap's time, less the same for the quiet pass's earliest
        // tap. Each pass starts a gap after the last ended, in wall time, so a pass that started
        // late counts all its taps late: an upper bound. Within a pass: against its own earliest.
        let lateness = loaded.flatMap { $0.taps.map { $0.received - $0.time - baseline } }
        let withinPass = loaded.flatMap { pass in
            let earliest = pass.taps.map { $0.received - $0.time }.min() ?? 0
            return pass.taps.map { $0.received - $0.time - earliest }
        }
        let trips = Array(watched.roundTrips.values)
        let refusedPages = journal.count { $0.contains("WebSocket connection refused") }
        let handshakeTimeouts = journal.count { $0.contains("no WebSocket handshake in time") }
        print(
            """
            soak: \(soakSeconds) s, \(reloads) reloads, \(loaded.count) passes under load, \(perPass) taps a pass, \
            \(lost) lost; lateness against the quiet pass p50 \(Self.percentile(lateness, 0.5) / 1000) ms, \
            p99 \(Self.percentile(lateness, 0.99) / 1000) ms, max \(lateness.max().map { $0 / 1000 } ?? 0) ms (within a pass p99 \(Self.percentile(withinPass, 0.99) / 1000) ms); \
            watcher ping round trip p50 \(Self.percentile(trips, 0.5) / 1000) ms, p99 \(Self.percentile(trips, 0.99) / 1000) ms, \
            max \(trips.max().map { $0 / 1000 } ?? 0) ms; RSS \(start.rss) → \(end.rss) kB, \
            descriptors \(start.fds) → \(end.fds), \
            runnable \(Int(start.cpu * 1000)) → \(Int(end.cpu * 1000)) ‰ of the time; \
            journal: \(outOfDescriptors) times out of descriptors (rate-limited), \(refusedPages) refused pages, \
            \(handshakeTimeouts) handshake timeouts; \
            load \(counts.joined(separator: " "))
            """)
    }
}
