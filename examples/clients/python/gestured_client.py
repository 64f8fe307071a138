#!/usr/bin/env python3
"""A gestured client in plain Python (standard library only: socket, json).

As a module:

    from gestured_client import GestureClient

    with GestureClient("/run/gestured/gestured.sock") as client:
        print(client.hello["devices"])
        client.subscribe(kinds=["tap", "swipe"])
        for message in client.messages():
            if message["type"] == "gesture":
                print(message["name"], message["state"], message.get("direction"))

As a program it subscribes and prints every message it receives as one JSON line:

    python3 gestured_client.py --kind swipe --kind tap
    python3 gestured_client.py --socket /tmp/g.sock --count 3

The protocol (docs/PROTOCOL.md) is newline-delimited JSON over a Unix stream socket.
"""

import argparse
import json
import os
import socket
import sys

DEFAULT_SOCKET = os.environ.get("GESTURED_SOCKET", "/run/gestured/gestured.sock")


class ServerError(Exception):
    """The server answered a request with an `error` message."""

    def __init__(self, message):
        super().__init__(f"{message.get('code')}: {message.get('message')}")
        self.error = message


class GestureClient:
    """One connection. `hello` is read on connect; requests wait for their own reply."""

    def __init__(self, path=DEFAULT_SOCKET):
        self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._socket.connect(path)
        self._lines = self._socket.makefile("r", encoding="utf-8", newline="\n")
        self._pending = []  # messages read while waiting for a reply, handed out by messages()
        self._next_id = 1
        self.hello = self._read()
        if self.hello is None or self.hello.get("type") != "hello":
            raise ServerError(self.hello or {"code": "closed", "message": "no hello"})

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self._lines.close()
        self._socket.close()

    def subscribe(self, gestures=None, kinds=None, states=None, regions=None, devices=None, touches=False):
        """Replaces this connection's filters; None lets everything through."""
        request = {"type": "subscribe", "touches": touches}
        for key, value in (("gestures", gestures), ("kinds", kinds), ("states", states),
                           ("regions", regions), ("devices", devices)):
            if value is not None:
                request[key] = list(value)
        return self._request(request)

    def unsubscribe(self):
        return self._request({"type": "unsubscribe"})

    def define(self, regions=(), recognizers=()):
        """Defines regions and recognizers for this connection (spelled as in the config file)."""
        return self._request({"type": "define", "regions": list(regions), "recognizers": list(recognizers)})

    def ping(self):
        return self._request({"type": "ping"})

    def messages(self):
        """Yields every message the server sends (dicts), until it closes the connection."""
        while self._pending:
            yield self._pending.pop(0)
        while True:
            message = self._read()
            if message is None:
                return
            yield message

    def _request(self, request):
        request["id"] = self._next_id
        self._next_id += 1
        self._socket.sendall((json.dumps(request, separators=(",", ":")) + "\n").encode("utf-8"))
        while True:
            message = self._read()
            if message is None:
                raise ConnectionError("the server closed the connection")
            if message.get("id") == request["id"] and message["type"] in ("ok", "pong"):
                return message
            if message.get("id") == request["id"] and message["type"] == "error":
                raise ServerError(message)
            self._pending.append(message)

    def _read(self):
        line = self._lines.readline()
        return json.loads(line) if line else None


def main():
    parser = argparse.ArgumentParser(description="Print what gestured publishes, one JSON object per line.")
    parser.add_argument("--socket", default=DEFAULT_SOCKET)
    parser.add_argument("--gesture", action="append", dest="gestures")
    parser.add_argument("--kind", action="append", dest="kinds")
    parser.add_argument("--state", action="append", dest="states")
    parser.add_argument("--region", action="append", dest="regions")
    parser.add_argument("--device", action="append", dest="devices")
    parser.add_argument("--touches", action="store_true")
    parser.add_argument("--count", type=int, help="exit after this many gesture messages")
    args = parser.parse_args()
    try:
        client = GestureClient(args.socket)
    except OSError as error:
        print(f"cannot connect to {args.socket}: {error.strerror or error}", file=sys.stderr)
        return 1
    with client:
        print(json.dumps(client.hello), flush=True)
        try:
            reply = client.subscribe(args.gestures, args.kinds, args.states, args.regions, args.devices, args.touches)
        except ServerError as error:
            print(f"subscribe refused: {error}", file=sys.stderr)
            return 1
        print(json.dumps(reply), flush=True)
        gestures = 0
        for message in client.messages():
            print(json.dumps(message), flush=True)
            if message["type"] == "gesture":
                gestures += 1
                if args.count is not None and gestures >= args.count:
                    return 0
            if message["type"] == "error" and message["code"] in ("overflow", "shutdown", "too-many-clients"):
                return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        # The reader went away (`| head`): a normal end, not an error. Point stdout at /dev/null so
        # the interpreter's own flush at exit does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
