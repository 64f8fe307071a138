#!/usr/bin/env python3
"""Measures the daemon's idle behaviour (docs/PERFORMANCE.md, "Daemon"): time from exec to
READY=1 (sd_notify), wake-ups while idle (context switches of every thread, from /proc), and
resident memory (anonymous and file-backed). Standard library only.

usage: scripts/measure-daemon.py [--binary PATH] [--idle SECONDS] [--runs N] [-- run options...]
"""
import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time


def switches(pid):
    """Voluntary + involuntary context switches of each thread, by thread id."""
    counts = {}
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/status") as status:
                counts[task] = sum(int(line.split()[1]) for line in status
                                   if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")))
        except FileNotFoundError:
            pass  # the thread ended meanwhile
    return counts


def wakeups_between(before, after):
    """Switches made in between; a thread that started meanwhile counts whole, and one that ended
    counts as at least one wake-up (it ran to end)."""
    total = sum(after[t] - before.get(t, 0) for t in after)
    return total + sum(1 for t in before if t not in after)


def status_field(pid, name):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(name + ":"):
                return line.split(":", 1)[1].strip()
    return "?"


def measure(binary, idle, settle, extra):
    with tempfile.TemporaryDirectory(prefix="gestured-measure-") as directory:
        notify_path = os.path.join(directory, "notify")
        notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        notify.bind(notify_path)
        notify.settimeout(10)
        env = dict(os.environ, NOTIFY_SOCKET=notify_path)
        args = [binary, "run", "--socket", os.path.join(directory, "g.sock")] + extra
        started = time.monotonic()
        daemon = subprocess.Popen(args, env=env, stderr=subprocess.DEVNULL)
        try:
            while True:
                message = notify.recv(4096).decode()
                if "READY=1" in message:
                    ready_ms = (time.monotonic() - started) * 1000
                    break
            # Start-up leaves Dispatch worker threads that exit after ~5 s of idleness (libdispatch's
            # own housekeeping); let that settle, then count.
            time.sleep(settle)
            before = switches(daemon.pid)
            threads = len(os.listdir(f"/proc/{daemon.pid}/task"))
            time.sleep(idle)
            wakeups = wakeups_between(before, switches(daemon.pid))
            rss = status_field(daemon.pid, "VmRSS")
            hwm = status_field(daemon.pid, "VmHWM")
            parts = f'{status_field(daemon.pid, "RssAnon")} anonymous, {status_field(daemon.pid, "RssFile")} file'
        finally:
            daemon.terminate()
            daemon.wait(timeout=10)
        return ready_ms, wakeups, threads, f"{rss} ({parts})", hwm, daemon.returncode


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=".build/release/gestured")
    parser.add_argument("--idle", type=float, default=10.0, help="seconds of idleness to observe")
    parser.add_argument("--settle", type=float, default=8.0, help="seconds after READY before counting")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("extra", nargs="*", help="more `gestured run` options (after --)")
    options = parser.parse_args()
    readies = []
    for run in range(options.runs):
        ready_ms, wakeups, threads, rss, hwm, code = measure(options.binary, options.idle, options.settle, options.extra)
        readies.append(ready_ms)
        print(f"run {run + 1}: READY after {ready_ms:.1f} ms; {wakeups} wake-ups in {options.idle:g} s idle "
              f"({threads} threads); RSS {rss} (peak {hwm}); exit status {code} after SIGTERM")
    readies.sort()
    print(f"READY: median {readies[len(readies) // 2]:.1f} ms, max {readies[-1]:.1f} ms over {len(readies)} runs")


if __name__ == "__main__":
    sys.exit(main())
