#!/usr/bin/env python3
"""How late an MQTT subscriber gets a gesture compared with a socket client (docs/PERFORMANCE.md,
"MQTT"): a daemon replays a recording at real speed, looped; one process reads the daemon's
socket itself (a plain client, every gesture) and, through `mosquitto_sub -F '%U …'`, what
`gestured mqtt` (every state published) sent through Debian's mosquitto on loopback (plain TCP,
or TLS with --tls), both stamped on CLOCK_REALTIME as they arrive. For each report seen by both
(matched by `seq`), the delay of the MQTT copy; the median and 99th percentile, and the same for
the frame: frame → socket line is the ServerBenchmarks figure (docs/PERFORMANCE.md, "socket:
frame → line read"), so frame → MQTT message is that plus this.

usage: scripts/measure-mqtt-latency.py [--gestured BINARY] [--seconds N] [--tls] [--qos 0|1]
       (default .build/release/gestured, 60 s, plain TCP, QoS 1)
Standard library only; mosquitto, mosquitto_sub and (with --tls) openssl from Debian.
"""
import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait(what, seconds, check):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except OSError:
            pass
        time.sleep(0.2)
    sys.exit(f"measure-mqtt-latency: {what} did not happen within {seconds} s")


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gestured", default=os.path.join(REPO, ".build/release/gestured"))
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--tls", action="store_true")
    parser.add_argument("--qos", type=int, default=1)
    options = parser.parse_args()
    gestured = os.path.abspath(options.gestured)
    work = tempfile.mkdtemp(prefix="gestured-mqtt-latency-")
    os.chmod(work, 0o755)
    processes = []
    # SIGTERM and SIGHUP end it as SIGINT does, through the `finally` below, which ends what it started.
    for number in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, lambda n, _: sys.exit(128 + n))

    def start(args, log):
        p = subprocess.Popen(args, stdout=open(os.path.join(work, log), "w"), stderr=subprocess.STDOUT)
        processes.append(p)
        return p

    try:
        port = free_port()
        # Nagle's algorithm on the broker's side would hold each small message until the
        # subscriber's delayed ACK (40 ms): a broker for gestures sets set_tcp_nodelay.
        conf = [f"listener {port} 127.0.0.1", "allow_anonymous true", "set_tcp_nodelay true",
                f"log_dest file {work}/broker.log"]
        if os.getuid() == 0:
            conf.append("user root")
        sub_tls, url = [], f"mqtt://127.0.0.1:{port}"
        if options.tls:
            for args in (["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
                          "-subj", "/CN=ca", "-keyout", "ca.key", "-out", "ca.pem"],
                         ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=b",
                          "-keyout", "b.key", "-out", "b.csr"]):
                subprocess.run(["openssl"] + args, cwd=work, check=True, capture_output=True)
            with open(os.path.join(work, "san"), "w") as f:
                f.write("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
            subprocess.run(["openssl", "x509", "-req", "-in", "b.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                            "-CAcreateserial", "-days", "1", "-out", "b.pem", "-extfile", "san"],
                           cwd=work, check=True, capture_output=True)
            conf += [f"cafile {work}/ca.pem", f"certfile {work}/b.pem", f"keyfile {work}/b.key"]
            sub_tls = ["--cafile", f"{work}/ca.pem"]
            url = f"mqtts://localhost:{port}"
        with open(os.path.join(work, "mosquitto.conf"), "w") as f:
            f.write("\n".join(conf) + "\n")
        start(["mosquitto", "-c", os.path.join(work, "mosquitto.conf")], "mosquitto.out")
        wait("the broker", 30, lambda: socket.create_connection(("127.0.0.1", port)).close() or True)

        sock = os.path.join(work, "g.sock")
        start([gestured, "run", "--socket", sock, "--replay", os.path.join(REPO, "examples/recordings/demo.evemu"),
               "--speed", "1", "--loop"], "daemon.log")
        wait("the daemon's socket", 30, lambda: os.path.exists(sock))
        with open(os.path.join(work, "mqtt.yaml"), "w") as f:
            f.write(f"broker: {{url: \"{url}\"" + (f", ca-file: {work}/ca.pem" if options.tls else "") + "}\n"
                    f"topic-prefix: gestured/latency\nqos: {options.qos}\n"
                    "publish: {states: [began, changed, ended, cancelled, recognized]}\n")
        start([gestured, "mqtt", "--config", os.path.join(work, "mqtt.yaml"), "--socket", sock], "mqtt.log")
        sub = subprocess.Popen(["mosquitto_sub", "-h", "localhost" if options.tls else "127.0.0.1", "-p", str(port)]
                               + sub_tls + ["-q", str(options.qos), "-t", "gestured/latency/gesture", "-F", "%U %p"],
                               stdout=subprocess.PIPE, text=True)
        processes.append(sub)

        socket_times, mqtt_times = {}, {}

        def read_socket():
            s = socket.socket(socket.AF_UNIX)
            s.connect(sock)
            s.sendall(b'{"type":"subscribe","id":1}\n')
            buffer = b""
            while True:
                chunk = s.recv(65536)
                now = time.time_ns()
                if not chunk:
                    return
                buffer += chunk
                *lines, buffer = buffer.split(b"\n")
                for line in lines:
                    message = json.loads(line)
                    if message.get("type") == "gesture":
                        socket_times[message["seq"]] = now

        def read_mqtt():
            for line in sub.stdout:
                stamp, _, payload = line.partition(" ")
                mqtt_times[json.loads(payload)["seq"]] = int(stamp.replace(".", ""))

        threading.Thread(target=read_socket, daemon=True).start()
        threading.Thread(target=read_mqtt, daemon=True).start()
        time.sleep(options.seconds)
        both = sorted(set(socket_times) & set(mqtt_times))
        if len(both) < 100:
            sys.exit(f"measure-mqtt-latency: only {len(both)} reports seen by both clients")
        delays = [(mqtt_times[s] - socket_times[s]) / 1000 for s in both[20:]]
        print(f"{len(delays)} reports ({'TLS' if options.tls else 'plain TCP'}, QoS {options.qos}), "
              f"socket line → MQTT message: p50 {percentile(delays, 0.5):.0f} µs, p90 {percentile(delays, 0.9):.0f} µs, "
              f"p99 {percentile(delays, 0.99):.0f} µs, max {max(delays):.0f} µs")
    finally:
        for p in reversed(processes):
            p.terminate()
        for p in processes:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
