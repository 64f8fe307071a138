#!/usr/bin/env python3
"""Measures what the daemon's frame path costs per frame on this host (docs/PERFORMANCE.md,
"Frame path"): `gestured run --replay REC --loop --speed S` with one client (`gestured listen`,
subscribed as a kiosk application would be), over whole replay passes after a warm-up pass.

Per frame: CPU time of the daemon (every thread, from /proc/PID/task/*/schedstat, in ns), context
switches of every thread (voluntary + involuntary, /proc/PID/task/*/status: each is a wake-up
or a preemption), and, with --strace, system calls (a second run with `strace -c -f` attached
over the same passes; strace slows the daemon down, so its CPU is not reported). A frame is one
SYN_REPORT of the recording. Standard library only.

usage: scripts/measure-frame-path.py [--binary PATH] [--recording FILE] [--speed N|max]
                                     [--passes N] [--runs N] [--strace] [-- listen options...]
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time


def frames_in(recording):
    """SYN_REPORTs of an evemu recording: the frames the daemon assembles and processes."""
    pattern = re.compile(rb"^E: [0-9.]+ 0000 0000 ")
    with open(recording, "rb") as f:
        return sum(1 for line in f if pattern.match(line))


def threads_of(pid):
    """(ns on CPU, context switches) of each thread, by thread id."""
    result = {}
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                cpu = int(f.read().split()[0])
            with open(f"/proc/{pid}/task/{task}/status") as f:
                switches = sum(int(line.split()[1]) for line in f
                               if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")))
            result[task] = (cpu, switches)
        except (FileNotFoundError, ProcessLookupError):
            pass  # the thread ended meanwhile
    return result


class Daemon:
    """`gestured run --replay … --loop` with its log read on a thread, counting finished passes."""

    def __init__(self, binary, directory, recording, speed):
        self.socket = os.path.join(directory, "g.sock")
        self.passes = 0
        self.changed = threading.Condition()
        # The built-in recognizers at log level debug: the passes after the first are logged at
        # debug level only, and nothing else is logged per frame.
        config = os.path.join(directory, "gestured.yaml")
        with open(config, "w") as f:
            f.write("log-level: debug\n")
        self.process = subprocess.Popen(
            [binary, "run", "--config", config, "--socket", self.socket, "--replay", recording, "--loop",
             "--speed", speed],
            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stderr:
            if b"replay pass done" in line:
                with self.changed:
                    self.passes += 1
                    self.changed.notify_all()

    def wait_for_pass(self, count, timeout):
        deadline = time.monotonic() + timeout
        with self.changed:
            while self.passes < count:
                left = deadline - time.monotonic()
                if left <= 0 or self.process.poll() is not None:
                    raise SystemExit(f"pass {count} did not finish within {timeout} s")
                self.changed.wait(left)

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def client(binary, daemon, listen_args, received):
    deadline = time.monotonic() + 10
    while not os.path.exists(daemon.socket):
        if time.monotonic() > deadline:
            raise SystemExit("the daemon did not create its socket")
        time.sleep(0.01)
    listen = subprocess.Popen([binary, "listen", "--socket", daemon.socket] + listen_args,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def count():
        for _ in listen.stdout:
            received[0] += 1
    threading.Thread(target=count, daemon=True).start()
    return listen


def measure(args, frames_per_pass, with_strace):
    with tempfile.TemporaryDirectory(prefix="gestured-frames-") as directory:
        daemon = Daemon(args.binary, directory, args.recording, args.speed)
        received = [0]
        listen = client(args.binary, daemon, args.listen, received)
        try:
            daemon.wait_for_pass(1, 120)  # warm-up: the client is connected and subscribed by now
            strace = None
            if with_strace:
                summary = os.path.join(directory, "strace")
                strace = subprocess.Popen(["strace", "-c", "-f", "-o", summary, "-p", str(daemon.process.pid)],
                                          stderr=subprocess.DEVNULL)
                time.sleep(0.5)  # attached to every thread; the pass it started in is not counted
                start = daemon.passes + 1
                daemon.wait_for_pass(start, 120)
            else:
                start = daemon.passes
            before = threads_of(daemon.process.pid)
            lines_before = received[0]
            wall = time.monotonic()
            daemon.wait_for_pass(start + args.passes, 60 * args.passes)
            after = threads_of(daemon.process.pid)
            wall = time.monotonic() - wall
            lines = received[0] - lines_before
            if strace:
                strace.send_signal(signal.SIGINT)
                strace.wait(timeout=30)
        finally:
            listen.terminate()
            daemon.stop()
        frames = frames_per_pass * args.passes
        cpu = sum(after[t][0] - before.get(t, (0, 0))[0] for t in after)
        switches = {t: after[t][1] - before.get(t, (0, 0))[1] for t in after}
        result = {
            "frames": frames, "wall_s": wall, "lines": lines,
            "cpu_us_per_frame": cpu / 1000 / frames,
            "switches_per_frame": sum(switches.values()) / frames,
            "threads_waking": sum(1 for s in switches.values() if s > frames / 10),
        }
        if strace:
            calls = {}
            with open(summary) as f:
                for line in f:
                    fields = line.split()
                    # "% time seconds usecs/call calls [errors] syscall"
                    if len(fields) >= 5 and fields[0][0].isdigit() and fields[-1] != "total":
                        calls[fields[-1]] = int(fields[3])
            result["syscalls_per_frame"] = sum(calls.values()) / frames
            result["syscalls"] = {name: round(n / frames, 2) for name, n in
                                  sorted(calls.items(), key=lambda kv: -kv[1]) if n / frames >= 0.01}
        return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=".build/release/gestured")
    parser.add_argument("--recording", default="examples/recordings/demo.evemu")
    parser.add_argument("--speed", default="10", help="replay speed (times real time) or max")
    parser.add_argument("--passes", type=int, default=10, help="passes measured after the warm-up pass")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--strace", action="store_true", help="also count system calls (one more run)")
    parser.add_argument("listen", nargs="*", help="options for the client (default: --kind swipe --kind pan)")
    args = parser.parse_args()
    if not args.listen:
        args.listen = ["--kind", "swipe", "--kind", "pan"]
    frames_per_pass = frames_in(args.recording)
    print(f"{args.recording}: {frames_per_pass} frames a pass; speed {args.speed}; {args.passes} passes a run; "
          f"client: listen {' '.join(args.listen)}")
    for run in range(args.runs):
        r = measure(args, frames_per_pass, False)
        print(f"run {run + 1}: {r['cpu_us_per_frame']:.1f} µs CPU/frame, {r['switches_per_frame']:.2f} context "
              f"switches/frame ({r['threads_waking']} threads waking), {r['frames']} frames in {r['wall_s']:.1f} s, "
              f"{r['lines']} lines to the client")
    if args.strace:
        r = measure(args, frames_per_pass, True)
        print(f"strace: {r['syscalls_per_frame']:.2f} syscalls/frame: "
              + ", ".join(f"{name} {n}" for name, n in r["syscalls"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
