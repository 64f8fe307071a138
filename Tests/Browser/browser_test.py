#!/usr/bin/env python3
"""The browser test: a real headless Chromium, driven by Selenium, against the daemon's
WebSocket endpoint. Run by scripts/browser-test.sh (which makes the venv), from scripts/test.sh.

    python3 Tests/Browser/browser_test.py --gestured .build/debug/gestured

What it checks, on `gestured run --replay examples/recordings/demo.evemu --loop` (no uinput needed):
1. examples/clients/browser/demo.html, served from loopback by python's http.server and allowed by
   `websocket.allowed-origins`, shows in its own DOM the gestures of a whole replay pass — name,
   direction, state, in order — exactly as a Unix-socket client (examples/clients/python) saw them,
   and as `gestured replay` prints them offline.
2. The same page served from another origin is refused: the daemon answers its handshake 403 and
   says so in its log; the page never gets to `open`.
3. A page whose main thread stops (a busy loop: its WebSocket is no longer read) is cut off by the
   daemon (`overflow`) while the Unix-socket client goes on receiving every pass, complete.
It prints, not asserts, the latency of the browser behind the Unix-socket client for the same
messages (docs/PERFORMANCE.md): timings are for benchmarks, never for test verdicts.
"""

import argparse
import functools
import http.server
import importlib.util
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import unittest

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PAGES = os.path.join(ROOT, "examples", "clients", "browser")
RECORDING = os.path.join(ROOT, "examples", "recordings", "demo.evemu")
SPEED = "10"
DEADLINE = 120  # seconds for any one thing to happen; a loaded CI machine is slow, never this slow

spec = importlib.util.spec_from_file_location(
    "gestured_client", os.path.join(ROOT, "examples", "clients", "python", "gestured_client.py"))
gestured_client = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gestured_client)


def report(message):
    """What the gesture shows: its name, its direction (or edge, or shape), its state."""
    return (message["name"], message.get("direction") or message.get("edge") or message.get("shape") or "",
            message["state"])


class StaticServer:
    """python's http.server on a free loopback port, serving `directory` (plus `extra` files)."""

    def __init__(self, directory):
        handler = functools.partial(QuietHandler, directory=directory)
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.port = self.httpd.server_address[1]
        self.origin = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class Daemon:
    """`gestured run --replay … --loop` with its log read on a thread."""

    def __init__(self, gestured, config, socket):
        self.process = subprocess.Popen(
            [gestured, "run", "--config", config, "--socket", socket, "--replay", RECORDING, "--loop",
             "--speed", SPEED],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.log = []
        self.changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for raw in self.process.stderr:
            with self.changed:
                self.log.append(raw.decode("utf-8", "replace").rstrip("\n"))
                self.changed.notify_all()
        with self.changed:
            self.log.append(None)  # the daemon exited
            self.changed.notify_all()

    def mark(self):
        """Where the log is now, for ``wait_for(since:)``."""
        with self.changed:
            return len(self.log)

    def wait_for(self, pattern, since=0):
        """The first log line from line `since` on matching `pattern` (a regex), waiting for it
        with the deadline."""
        regex = re.compile(pattern)
        with self.changed:
            end = time.monotonic() + DEADLINE
            while True:
                for line in self.log[since:]:
                    if line is None:
                        raise AssertionError(f"the daemon exited before logging /{pattern}/:\n" + "\n".join(
                            l for l in self.log if l))
                    if regex.search(line):
                        return line
                if not self.changed.wait(end - time.monotonic()):
                    raise AssertionError(f"the daemon did not log /{pattern}/ within {DEADLINE} s")

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=DEADLINE)


class UnixClient:
    """examples/clients/python's client on a thread: every message, with the time it was read."""

    def __init__(self, socket):
        self.client = gestured_client.GestureClient(socket)
        self.client.subscribe()
        self.messages = []  # (time.time(), message)
        self.changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        try:
            for message in self.client.messages():
                now = time.time()
                with self.changed:
                    self.messages.append((now, message))
                    self.changed.notify_all()
        except (OSError, ValueError):
            pass  # closed by close()

    def passes(self, start=0):
        """Whole replay passes from message `start` on: (first index, [(time, gesture)]) for each
        run of messages from a `device` `added` to its `removed`."""
        found = []
        with self.changed:
            messages = list(self.messages)
        begin = None
        for index in range(start, len(messages)):
            message = messages[index][1]
            if message["type"] == "device" and message["event"] == "added":
                begin = index
            elif message["type"] == "device" and message["event"] == "removed" and begin is not None:
                gestures = [m for m in messages[begin:index] if m[1]["type"] == "gesture"]
                found.append((begin, gestures))
                begin = None
        return found

    def wait_for_passes(self, count, start=0):
        end = time.monotonic() + DEADLINE
        with self.changed:
            while len(self.passes(start)) < count:
                if not self.changed.wait(end - time.monotonic()):
                    raise AssertionError(f"{count} whole passes not seen within {DEADLINE} s")
        return self.passes(start)

    def close(self):
        self.client.close()


class BrowserTest(unittest.TestCase):
    gestured = None

    @classmethod
    def setUpClass(cls):
        cls.directory = tempfile.mkdtemp(prefix="gbrowser.")
        # What the static servers serve: the example's two files, and the stalled page's release.
        cls.served = os.path.join(cls.directory, "www")
        os.mkdir(cls.served)
        for name in ["demo.html", "gestured.js"]:
            shutil.copy(os.path.join(PAGES, name), cls.served)
        cls.pages = StaticServer(cls.served)
        cls.stranger = StaticServer(cls.served)  # the same page from another origin
        config = os.path.join(cls.directory, "gestured.yaml")
        with open(config, "w") as f:
            f.write(f'websocket:\n  listen: "127.0.0.1:0"\n  allowed-origins: ["{cls.pages.origin}"]\n'
                    '  allow-touches: true\n')
        socket = os.path.join(cls.directory, "g.sock")
        cls.daemon = Daemon(cls.gestured, config, socket)
        port = re.search(r"\bport=(\d+)", cls.daemon.wait_for(r"listening for WebSockets")).group(1)
        cls.ws = f"ws://127.0.0.1:{port}/"
        cls.daemon.wait_for(r"\bready\b")
        cls.unix = UnixClient(socket)
        offline = subprocess.run([cls.gestured, "replay", RECORDING], check=True, capture_output=True, text=True)
        cls.expected = [report(m) for m in map(json.loads, offline.stdout.splitlines()) if m["state"] != "changed"]
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         f"--user-data-dir={cls.directory}/chromium"]:
            options.add_argument(argument)
        cls.browser = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        cls.browser.set_script_timeout(DEADLINE)

    @classmethod
    def tearDownClass(cls):
        cls.browser.quit()
        cls.unix.close()
        cls.daemon.stop()
        cls.pages.close()
        cls.stranger.close()
        shutil.rmtree(cls.directory, ignore_errors=True)

    def open_page(self, server, touches=True):
        self.browser.get(f"{server.origin}/demo.html?ws={self.ws}&touches={1 if touches else 0}")

    def page_state(self):
        return self.browser.find_element(By.ID, "status").get_attribute("data-state")

    def wait_until_open(self):
        WebDriverWait(self.browser, DEADLINE).until(lambda _: self.page_state() == "open")

    def shown(self):
        """The gestures the page lists, oldest first: (seq, report, received ms) from its DOM."""
        items = self.browser.execute_script("""
            return [...document.querySelectorAll('#gestures li')].reverse().map((li) => [
              Number(li.dataset.seq), li.querySelector('.name').textContent,
              li.querySelector('.direction').textContent, li.querySelector('.state').textContent,
              Number(li.dataset.receivedMs)]);""")
        return [(seq, (name, direction, state), received) for seq, name, direction, state, received in items]

    def test_1_page_shows_the_gestures_a_unix_client_sees(self):
        self.open_page(self.pages)
        self.wait_until_open()
        # The first pass that begins after the page subscribed is the second one to start from
        # here (the first may have begun before): compare that one.
        start = len(self.unix.messages)
        passes = self.unix.wait_for_passes(2, start)
        _, gestures = passes[1]
        unix = [(m["seq"], report(m), t) for t, m in gestures if m["state"] != "changed"]
        self.assertEqual([r for _, r, _ in unix], self.expected,
                         "the Unix-socket client's pass differs from `gestured replay`")
        first, last = unix[0][0], unix[-1][0]
        WebDriverWait(self.browser, DEADLINE).until(lambda _: any(seq >= last for seq, _, _ in self.shown()))
        page = [item for item in self.shown() if first <= item[0] <= last]
        self.assertEqual([(seq, r) for seq, r, _ in page], [(seq, r) for seq, r, _ in unix],
                         "the page shows other gestures (or another order) than the Unix-socket client got")
        behind = sorted(received - t * 1000 for (_, _, received), (_, _, t) in zip(page, unix))
        print(f"\n  page shows {len(page)} gestures of a pass (of {len(self.expected)} offline), as the Unix "
              f"client; browser message after the Unix client's: median {statistics.median(behind):.2f} ms, "
              f"max {behind[-1]:.2f} ms", file=sys.stderr)

    def test_2_page_from_another_origin_is_refused(self):
        since = self.daemon.mark()
        self.open_page(self.stranger)
        self.daemon.wait_for(rf"WebSocket handshake refused.*origin=http://127\.0\.0\.1:{self.stranger.port}\b", since)
        WebDriverWait(self.browser, DEADLINE).until(
            lambda _: "closed with 1006" in self.browser.find_element(By.ID, "status").text)
        self.assertNotEqual(self.page_state(), "open")

    def test_3_page_that_stops_reading_does_not_delay_unix_clients(self):
        release = os.path.join(self.served, "release")
        self.open_page(self.pages)
        self.wait_until_open()
        since = self.daemon.mark()
        # The page's main thread stops: nothing reads its WebSocket until the test releases it.
        # Stopping waits for the test's word (a file the static server starts to serve), so that
        # chromedriver has its answer to this script first; then a busy loop asks synchronously
        # for the release file, which is served 404 until the test creates it.
        self.browser.execute_script(f"""
            const poll = setInterval(async () => {{
              if (!(await fetch('/stall', {{ cache: 'no-store' }})).ok) return;
              clearInterval(poll);
              const end = Date.now() + {DEADLINE * 1000};
              while (Date.now() < end) {{
                const probe = new XMLHttpRequest();
                probe.open('GET', '/release', false);
                probe.send();
                if (probe.status === 200) break;
              }}
            }}, 50);""")
        with open(os.path.join(self.served, "stall"), "w") as f:
            f.write("stop\n")
        start = len(self.unix.messages)
        stalled_at = time.monotonic()
        self.daemon.wait_for(r"client reads too slowly, disconnecting", since)
        cut_off = time.monotonic() - stalled_at
        passes = self.unix.wait_for_passes(3, start)
        for _, gestures in passes[1:]:
            self.assertEqual([report(m) for _, m in gestures if m["state"] != "changed"], self.expected,
                             "a Unix-socket client missed gestures while a page stalled")
        durations = [gestures[-1][0] - gestures[0][0] for _, gestures in passes[1:]]
        print(f"\n  stalled page cut off after {cut_off:.1f} s; the Unix client meanwhile got {len(passes) - 1} whole "
              f"passes, first to last gesture {min(durations):.2f}–{max(durations):.2f} s "
              f"(median {statistics.median(durations):.2f})", file=sys.stderr)
        with open(release, "w") as f:
            f.write("go\n")
        # The page comes back: gestured.js reconnects and subscribes again.
        self.wait_until_open()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gestured", default=os.path.join(ROOT, ".build", "debug", "gestured"))
    args, rest = parser.parse_known_args()
    BrowserTest.gestured = os.path.abspath(args.gestured)
    unittest.main(argv=[sys.argv[0], "-v"] + rest)


if __name__ == "__main__":
    main()
