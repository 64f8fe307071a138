#!/bin/sh
# Whether anything a client or a file sends holds the panel (docs/PERFORMANCE.md, "Nothing anyone
# sends holds the panel"): `gestured run --replay REC --loop` with one well-behaved subscriber (all
# gestures, a `ping` every 100 ms) on the Unix socket, first with nothing else, then under each
# load, a fresh daemon each:
#   websocket  defect 1: PAGES WebSocket pages (allowed Origin, no allow-define) sending 54 KB masked
#              text frames, each a `define` of 64 chained regions and 64 shapes with 1000-point
#              templates, as fast as the socket takes them (half of them read what they get, half
#              never read);
#   churn      defect 2: 60 Unix connections of the subscriber's user, each alternating that
#              `define` and an undefine as fast as the socket takes them (reading the replies);
#   reload     SIGHUP every 2 s of a configuration of the largest size allowed (1 MiB: the
#              loader's limit), valid — shape templates of 1000 points, on a region no touch
#              reaches — so that each reload is read and validated in full; it is the running
#              configuration, so nothing is installed (a reload that changes nothing for the
#              engine cancels nothing);
#   reload-changed  the same, alternating with a file of the same size whose corner region is
#              another size, so that each reload is also compiled and installed — cancelling the
#              gestures in progress by rule R9 (docs/ARBITRATION.md), which lengthens the gap by
#              design: the stall shows in the pongs and the latest `changed` update.
#   metrics    another local user (nobody, when run as root) on the metrics endpoint: its 4
#              connections each write pipelined `GET /metrics` as fast as the socket takes them and
#              never read (a connection closed is opened again);
#   recorders  that user's non-reading recorders in rounds: 60 Unix connections each send
#              `record` (the replayed file is world-readable, so anyone may), never read, and
#              close after 6 s; again until the load ends;
#   status     60 Unix connections of that user ask `status` as fast as they can, reading each
#              reply, with the largest configuration the loader takes (the reload phases' 1 MiB
#              file) running.
# The daemon gets its Unix socket and a metrics socket as systemd passes them (LISTEN_FDS), and a
# scraper (this script's user: another peer than the attackers) fetches /metrics every second of
# each phase: how many it got, how many failed, the slowest. Resident memory is read again 5 and
# 10 s after the load ends (the attackers gone) besides at its end.
# For each: the longest gap between two of the subscriber's gestures, and that against the run
# without load; the latest `changed` gesture (its delivery after its frame's time, less the
# earliest such in the run: the reports of continuous gestures are sent at their frame, so this
# is the stall a touch saw); the slowest `pong`; the daemon's resident memory before the load and
# at its end (and the peak); the input thread's CPU and the other threads'; and the time from
# SIGTERM, sent at the end of the load while it still runs, to the daemon's exit; and how long the
# input thread was runnable but waiting for a CPU (its schedstat): on a shared host, the load's
# part of the pongs' and the gaps' times, not the daemon's.
# Targets (docs/PERFORMANCE.md): the longest gap within 50 ms of the unloaded run's, pongs within
# 100 ms, resident memory growth within 64 MB and flat once the attackers leave, a scrape answered
# under every load, SIGTERM to exit within 1 s.
#
# usage: scripts/measure-stall.sh [BINARY] [SECONDS]  (default .build/release/gestured, 20)
# Environment: RECORDING (default examples/recordings/demo.evemu), PAGES (default 8: the endpoint's
# limit per peer), PHASES (default "none websocket churn reload reload-changed metrics recorders
# status").
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
binary=${1:-$here/.build/release/gestured}
seconds=${2:-20}
recording=${RECORDING:-$here/examples/recordings/demo.evemu}
exec python3 - "$binary" "$seconds" "$recording" "${PAGES:-8}" "${PHASES:-none websocket churn reload reload-changed metrics recorders status}" <<'EOF'
import fcntl, json, os, signal, socket, subprocess, sys, tempfile, threading, time

binary, seconds, recording, pages, phases = sys.argv[1], float(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5].split()
now_us = lambda: time.monotonic_ns() // 1000


def attack_define(n):
    """54 000 bytes: 64 chained regions and 64 shapes, seven of them with a 1000-point template
    (over the 16 templates a connection may have: the engine never sees it, the decoder reads it
    all), padded with JSON whitespace."""
    regions = [{"name": "r0", "rect": {"x": 0, "y": 0, "width": 1, "height": 1}}]
    regions += [{"name": f"r{k}", "parent": f"r{k - 1}", "rect": {"x": 0.001, "y": 0.001, "width": 0.99, "height": 0.99}}
                for k in range(1, 64)]
    points = [[k % 2, (k // 2) % 2] for k in range(1000)]
    shapes = [{"name": f"s{k}", "kind": "shape", "region": f"r{k}"} for k in range(64)]
    for k in range(7):
        shapes[k]["templates"] = [{"name": "t", "points": points}]
    line = json.dumps({"type": "define", "id": n, "regions": regions, "recognizers": shapes}, separators=(",", ":"))
    assert len(line) < 54000, len(line)
    return line[:-1] + " " * (54000 - len(line)) + "}"


DEFINE = attack_define(1).encode()
UNDEFINE = b'{"type":"define","id":2}'


def masked_text(payload):
    mask = os.urandom(4)
    n = len(payload)
    if n < 126:
        length = bytes([0x80 | n])
    elif n < 65536:
        length = bytes([0x80 | 126]) + n.to_bytes(2, "big")
    else:
        length = bytes([0x80 | 127]) + n.to_bytes(8, "big")
    key = (mask * (n // 4 + 1))[:n]
    body = (int.from_bytes(payload, "big") ^ int.from_bytes(key, "big")).to_bytes(n, "big")
    return bytes([0x81]) + length + mask + body


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def status(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def cpu_seconds(pid):
    """CPU time (user + system) of the input thread (the main one) and of the others."""
    tick = os.sysconf("SC_CLK_TCK")
    main, others = 0.0, 0.0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        used = (int(fields[11]) + int(fields[12])) / tick
        if int(task) == pid:
            main += used
        else:
            others += used
    return main, others


def waited_for_cpu(pid):
    """How long the input thread (the main one) was runnable and waiting for a CPU, in seconds
    (the second field of its schedstat): what the host's load, not the daemon, held it."""
    with open(f"/proc/{pid}/task/{pid}/schedstat") as f:
        return int(f.read().split()[1]) / 1e9


class Daemon:
    def __init__(self, directory, configuration):
        self.directory = directory
        self.config = os.path.join(directory, "gestured.yaml")
        with open(self.config, "w") as f:
            f.write(configuration)
        self.socket = os.path.join(directory, "g.sock")
        notify_path = os.path.join(directory, "notify")
        notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        notify.bind(notify_path)
        notify.settimeout(1)
        self.log = open(os.path.join(directory, "daemon.log"), "w")
        # The sockets as systemd passes them (gestured.socket, gestured-metrics.socket): fds 3 and
        # 4, named. The Unix socket is open to the attacking user.
        unix = socket.socket(socket.AF_UNIX)
        unix.bind(self.socket)
        os.chmod(self.socket, 0o666)
        unix.listen(128)
        metrics = socket.socket()
        metrics.bind(("127.0.0.1", 0))
        metrics.listen(16)
        self.metrics_port = metrics.getsockname()[1]
        # Above 4 whatever this process has open, so that the shell's moves cannot clash; bash,
        # since dash takes single-digit descriptors only in redirections.
        u, m = (fcntl.fcntl(sock.fileno(), fcntl.F_DUPFD, 10) for sock in (unix, metrics))
        self.process = subprocess.Popen(
            ["bash", "-c", f'exec 3<&{u} 4<&{m} {u}<&- {m}<&-; export LISTEN_PID=$$; exec "$@"', "sh", binary, "run", "--config",
             self.config, "--socket", self.socket, "--replay", recording, "--loop"],
            env=dict(os.environ, NOTIFY_SOCKET=notify_path, LISTEN_FDS="2", LISTEN_FDNAMES="unix:metrics"),
            stderr=self.log, stdout=subprocess.DEVNULL, pass_fds=(u, m))
        for fd in (u, m):
            os.close(fd)
        unix.close()
        metrics.close()
        deadline = time.monotonic() + 300
        while True:
            try:
                if b"READY=1" in notify.recv(4096):
                    break
            except socket.timeout:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.process.kill()
                with open(os.path.join(directory, "daemon.log")) as f:
                    sys.exit(f"the daemon did not start (status {self.process.wait()}):\n{f.read()[-2000:]}")
        notify.close()
        self.pid = self.process.pid

    def stop(self):
        """SIGTERM; SIGKILL after 30 s. The time to its exit in ms, and whether it was killed."""
        started = time.monotonic()
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
            killed = False
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            killed = True
        return (time.monotonic() - started) * 1000, killed


class Subscriber:
    """Subscribes to every gesture and pings every 100 ms; keeps when each gesture came and each
    pong's round trip."""

    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX)
        self.s.connect(path)
        self.f = self.s.makefile("rwb", buffering=0)
        self.f.readline()
        self.f.write(b'{"type":"subscribe","id":"s"}\n')
        self.gestures = []  # (received µs, time_us, state)
        self.sent = {}
        self.trips = []
        self.lock = threading.Lock()
        self.running = True
        threading.Thread(target=self.read, daemon=True).start()
        threading.Thread(target=self.ping, daemon=True).start()

    def read(self):
        try:
            for line in self.f:
                received = now_us()
                message = json.loads(line)
                with self.lock:
                    if message.get("type") == "gesture":
                        self.gestures.append((received, message["time_us"], message["state"]))
                    elif message.get("type") == "pong" and message.get("id") in self.sent:
                        self.trips.append(received - self.sent.pop(message["id"]))
        except OSError:
            return  # the daemon ended (stopped, or killed when SIGTERM did not end it)

    def ping(self):
        n = 0
        while self.running:
            time.sleep(0.1)
            n += 1
            with self.lock:
                self.sent[n] = now_us()
            try:
                self.f.write(b'{"type":"ping","id":%d}\n' % n)
            except OSError:
                return

    def window(self, start, end):
        with self.lock:
            gestures = [g for g in self.gestures if start <= g[0] <= end]
            trips = list(self.trips)
            # A ping still unanswered counts with the time it has waited so far.
            waiting = [end - sent for sent in self.sent.values() if sent >= start]
        return gestures, trips + waiting


def flood_page(port, stop, reads, counts):
    s = socket.create_connection(("127.0.0.1", port))
    key = "dGhlIHNhbXBsZSBub25jZQ=="
    s.sendall(("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nOrigin: http://localhost:8080\r\n\r\n").encode())
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        head += s.recv(1)
    if reads:
        threading.Thread(target=drain, args=(s, counts), daemon=True).start()
    frames = [masked_text(DEFINE) for _ in range(4)]
    n = 0
    try:
        while not stop.is_set():
            s.sendall(frames[n % 4])
            n += 1
    except OSError:
        pass
    counts["sent"] = counts.get("sent", 0) + n
    s.close()


def drain(s, counts):
    try:
        while True:
            data = s.recv(65536)
            if not data:
                return
            counts["received bytes"] = counts.get("received bytes", 0) + len(data)
    except OSError:
        return


def churn_connection(path, stop, counts):
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    threading.Thread(target=drain, args=(s, counts), daemon=True).start()
    n = 0
    try:
        while not stop.is_set():
            s.sendall(DEFINE + b"\n" + UNDEFINE + b"\n")
            n += 1
    except OSError:
        pass
    counts["sent"] = counts.get("sent", 0) + 2 * n
    s.close()


# The attacks another local user makes (run as nobody when this script runs as root, so that
# the scraper and the subscriber are other peers): python3 -c ATTACK MODE SOCKET PORT SECONDS.
ATTACK = r"""
import json, socket, sys, threading, time
mode, path, port, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
end = time.monotonic() + seconds
counts = {}
lock = threading.Lock()
def count(key, n=1):
    with lock: counts[key] = counts.get(key, 0) + n
def pipeline():
    requests = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" * 1000
    while time.monotonic() < end:
        try:
            s = socket.create_connection(("127.0.0.1", port)); s.settimeout(0.5)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        except OSError:
            count("not connected"); time.sleep(0.2); continue
        count("connections")
        try:
            while time.monotonic() < end:
                try:
                    s.sendall(requests); count("bytes sent", len(requests))
                except socket.timeout:
                    count("send held back")
        except OSError:
            count("closed by the daemon")
        s.close()
def recorders():
    while time.monotonic() < end:
        held = []
        for _ in range(60):
            s = socket.socket(socket.AF_UNIX)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            try:
                s.connect(path); s.sendall(b'{"type":"record","id":1}\n'); held.append(s)
            except OSError:
                s.close(); count("not connected")
        count("recorders", len(held))
        time.sleep(max(0, min(6, end - time.monotonic())))
        for s in held: s.close()
        count("rounds")
def status():
    try:
        s = socket.socket(socket.AF_UNIX); s.connect(path); s.settimeout(30)
        f = s.makefile("rwb", buffering=0)
        f.readline()
        while time.monotonic() < end:
            f.write(b'{"type":"status","id":1}\n')
            while True:
                line = f.readline()
                if not line: raise EOFError
                if b'"type":"status"' in line: count("statuses"); break
                if b'"type":"error"' in line: count("errors"); break
    except (OSError, EOFError):
        count("closed by the daemon")
threads = {"metrics": [pipeline] * 4, "recorders": [recorders], "status": [status] * 60}[mode]
threads = [threading.Thread(target=t) for t in threads]
for t in threads: t.start()
for t in threads: t.join()
print(json.dumps(counts), flush=True)
"""


def attacker(mode, path, port):
    command = ["python3", "-c", ATTACK, mode, path, str(port), str(seconds)]
    if os.getuid() == 0:
        command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3"] + command[1:]
    return subprocess.Popen(command, stdout=subprocess.PIPE, text=True)


class Scraper:
    """Fetches /metrics every second; keeps how long each took, and each failure."""

    def __init__(self, port):
        self.port, self.times, self.failures, self.running = port, [], [], True
        self.thread = threading.Thread(target=self.scrape, daemon=True)
        self.thread.start()

    def scrape(self):
        while self.running:
            started = time.monotonic()
            try:
                s = socket.create_connection(("127.0.0.1", self.port), timeout=10)
                s.sendall(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                data = b""
                while True:
                    chunk = s.recv(65536)
                    if not chunk: break
                    data += chunk
                s.close()
                if data.startswith(b"HTTP/1.1 200") and b"gestured_frames_read" in data:
                    self.times.append(time.monotonic() - started)
                else:
                    self.failures.append(data[:40].decode(errors="replace") or "closed without an answer")
            except OSError as error:
                self.failures.append(str(error))
            time.sleep(max(0, 1 - (time.monotonic() - started)))

    def stop(self):
        self.running = False
        self.thread.join()


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(p * len(values)))] if values else 0


def with_port(configuration, port):
    """The configuration with the WebSocket port in it, the same size (the 1 MiB one ends with a
    comment line of padding, which takes up the port's digits)."""
    text = configuration.replace("PORT", str(port))
    extra = len(text) - len(configuration)
    if extra and text.endswith("#" * 16 + "\n"):
        text = text[:-1 - extra] + "\n"
    return text


def run(phase, configuration, reload_configurations=()):
    with tempfile.TemporaryDirectory(prefix="gestured-stall-") as directory:
        os.chmod(directory, 0o755)  # the attacking user reaches the socket
        port = free_port()
        daemon = Daemon(directory, with_port(configuration, port))
        subscriber = Subscriber(daemon.socket)
        time.sleep(3)
        rss_before = status(daemon.pid, "VmRSS")
        cpu_before = cpu_seconds(daemon.pid)
        waited_before = waited_for_cpu(daemon.pid)
        stop = threading.Event()
        counts = {}
        threads = []
        if phase == "websocket":
            threads = [threading.Thread(target=flood_page, args=(port, stop, k % 2 == 0, counts)) for k in range(pages)]
        elif phase == "churn":
            threads = [threading.Thread(target=churn_connection, args=(daemon.socket, stop, counts)) for _ in range(60)]
        scraper = Scraper(daemon.metrics_port)
        start = now_us()
        attack = attacker(phase, daemon.socket, daemon.metrics_port) if phase in ("metrics", "recorders", "status") else None
        for t in threads:
            t.start()
        if phase.startswith("reload"):
            reloads = 0
            while now_us() - start < seconds * 1e6:
                # Written whole, then renamed: a reload never reads half a file.
                with open(daemon.config + ".new", "w") as f:
                    f.write(with_port(reload_configurations[reloads % len(reload_configurations)], port))
                os.rename(daemon.config + ".new", daemon.config)
                os.kill(daemon.pid, signal.SIGHUP)
                reloads += 1
                time.sleep(2)
            counts["reloads"] = reloads
        else:
            time.sleep(seconds)
        end = now_us()
        rss_end = status(daemon.pid, "VmRSS")
        peak = status(daemon.pid, "VmHWM")
        cpu_end = cpu_seconds(daemon.pid)
        waited = waited_for_cpu(daemon.pid) - waited_before
        scraper.stop()
        rss_gone = []
        if attack:
            attack_counts = attack.communicate()[0].strip()
            counts.update(json.loads(attack_counts.splitlines()[-1]) if attack_counts else {"attacker": "no counts"})
            # The attackers are gone: resident memory 5 and 10 s later.
            for _ in range(2):
                time.sleep(5)
                rss_gone.append(status(daemon.pid, "VmRSS") / 1024)
        exit_ms, killed = daemon.stop()
        stop.set()
        subscriber.running = False
        for t in threads:
            t.join()
        gestures, trips = subscriber.window(start, end)
        times = [g[0] for g in gestures]
        gaps = [b - a for a, b in zip(times, times[1:])]
        changed = [g[0] - g[1] for g in gestures if g[2] == "changed"]
        late = [c - min(changed) for c in changed] if changed else []
        with open(os.path.join(directory, "daemon.log")) as f:
            errors = sum(1 for line in f if " error " in line or "critical" in line)
        return {
            "phase": phase, "gestures": len(gestures), "cancelled": sum(1 for g in gestures if g[2] == "cancelled"), "longest gap ms": max(gaps, default=0) / 1000,
            "latest changed ms": max(late, default=0) / 1000, "changed p99 ms": percentile(late, 0.99) / 1000,
            "slowest pong ms": max(trips, default=0) / 1000, "pong p99 ms": percentile(trips, 0.99) / 1000,
            "pongs": len(trips), "RSS before MB": rss_before / 1024, "RSS at end MB": rss_end / 1024,
            "RSS peak MB": peak / 1024, "RSS 5 s and 10 s after MB": rss_gone,
            "scrapes": len(scraper.times), "scrapes failed": len(scraper.failures), "scrape failures": scraper.failures[:5],
            "slowest scrape ms": max(scraper.times, default=0) * 1000,
            "input thread CPU s": cpu_end[0] - cpu_before[0],
            "other threads CPU s": cpu_end[1] - cpu_before[1], "input thread waiting for a CPU s": waited, "SIGTERM to exit ms": exit_ms, "killed after 30 s": killed,
            "load": counts, "daemon errors logged": errors,
        }


default_configuration = subprocess.run([binary, "config", "--default"], capture_output=True, text=True, check=True).stdout
websocket = 'websocket:\n  listen: "127.0.0.1:PORT"\n  allowed-origins: ["http://localhost:8080"]\n'
configuration = websocket + default_configuration
# The largest configuration the loader takes, valid: the default's recognizers and shapes whose
# templates of 1000 points fill the file to 1 MiB, on a region in a corner no touch reaches.
template = "[" + ",".join(f"[{(k * 37) % 1000 / 1000},{(k * 91) % 1000 / 1000}]" for k in range(1000)) + "]"
large = configuration.replace("regions: []\n", "regions:\n  - {name: corner, rect: {x: 0, y: 0, width: 0.001, height: 0.001}}\n", 1)
assert large != configuration, "the default configuration has no regions list to extend"
shapes = ""
k = 0
while True:
    entry = f"- {{name: filler-{k}, kind: shape, region: corner, templates: [{{name: t, points: {template}}}]}}\n"
    if len(large) + len(shapes) + len(entry) > 1048576 - 64:
        break
    shapes += entry
    k += 1
assert "\nrecognizers:\n- " in large, "the default configuration's recognizers are not a block list at column 0"
large = large.replace("\nrecognizers:\n", "\nrecognizers:\n" + shapes, 1)
large += "#" * (1048576 - len(large.encode()) - 1) + "\n"
assert len(large.encode()) == 1048576
# The same, its corner region another size: the engine's configuration differs.
other = large.replace("width: 0.001, height: 0.001", "width: 0.002, height: 0.002", 1)
assert other != large and len(other.encode()) == 1048576

print(f"measure-stall: {binary}, {seconds:g} s a phase, recording {os.path.basename(recording)}, "
      f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; reload file {len(large.encode())} bytes, {k} filler shapes", flush=True)
results = {}
for phase in phases:
    base = large if phase.startswith("reload") or phase == "status" else configuration
    reloads = {"reload": (large,), "reload-changed": (other, large)}.get(phase, ())
    results[phase] = run(phase, base, reload_configurations=reloads)
    print(json.dumps(results[phase]), flush=True)
unloaded = results.get("none")
if unloaded:
    print("\nphase          longest gap (vs none)   latest changed   slowest pong   RSS before → end (peak) → 5 s, 10 s after   scrapes (failed, slowest)   SIGTERM→exit   input thread CPU (waiting for one)")
    for phase, r in results.items():
        delta = r["longest gap ms"] - unloaded["longest gap ms"]
        after = ", ".join(f"{v:.1f}" for v in r["RSS 5 s and 10 s after MB"]) or "-"
        print(f"{phase:14} {r['longest gap ms']:7.1f} ms ({delta:+6.1f})   {r['latest changed ms']:7.1f} ms   "
              f"{r['slowest pong ms']:7.1f} ms   {r['RSS before MB']:6.1f} → {r['RSS at end MB']:6.1f} ({r['RSS peak MB']:.1f}) → {after} MB   "
              f"{r['scrapes']} ({r['scrapes failed']}, {r['slowest scrape ms']:.0f} ms)   "
              f"{r['SIGTERM to exit ms']:6.0f} ms{' (killed)' if r['killed after 30 s'] else ''}   {r['input thread CPU s']:.2f} s ({r['input thread waiting for a CPU s']:.2f} s)")
EOF
