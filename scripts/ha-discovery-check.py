#!/usr/bin/env python3
"""Home Assistant itself against `gestured mqtt` (docs/FLEET.md, "Discovery, checked by Home
Assistant"): run by hand, not in CI (installing Home Assistant takes ~30 minutes and 600 MB here).

A mosquitto on loopback (TLS with client certificates for gestured mqtt, a plain loopback listener
for Home Assistant, one password file and examples/mqtt/mosquitto.acl), Home Assistant (PyPI
`homeassistant`, in a Python 3.13 venv) onboarded through its REST API with the MQTT integration
set up by its config flow, then a daemon replaying a recording (20 s of nothing, a double tap, a
swipe, then nothing: idle after 2 s) with `gestured mqtt` attached (discovery on, one inbound
topic). Through Home Assistant's REST API it checks: the kiosk's entities exist and are available;
after the gestures the event entity's last event type and the last-gesture sensor say the last
gesture; after the idle the Active binary sensor is off; pressing the button entity in Home
Assistant runs the inbound rule on the kiosk; stopping `gestured mqtt` makes the entities
unavailable. Prints each entity's state as Home Assistant reports it.

usage: scripts/ha-discovery-check.py --venv DIR [--gestured BINARY]
  DIR: a venv with homeassistant and paho-mqtt, made with Python 3.13, e.g.
    ~/.pyenv/versions/3.13.0/bin/python3 -m venv DIR && DIR/bin/pip install homeassistant==2025.4.4 paho-mqtt==2.1.0
Standard library only (this script); mosquitto, mosquitto_passwd, openssl and
systemd-socket-activate from Debian.
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
import time
import urllib.error
import urllib.parse
import urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait(what, seconds, check):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            result = check()
            if result:
                return result
        except (OSError, ValueError, KeyError, urllib.error.URLError):
            pass
        time.sleep(0.5)
    sys.exit(f"ha-discovery-check: {what} did not happen within {seconds} s")


def run(*args, **kwargs):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kwargs)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--venv", required=True)
    parser.add_argument("--gestured", default=os.path.join(REPO, ".build/debug/gestured"))
    options = parser.parse_args()
    gestured = os.path.abspath(options.gestured)
    work = tempfile.mkdtemp(prefix="gestured-ha-")
    os.chmod(work, 0o755)
    processes = []
    # SIGTERM and SIGHUP end it as SIGINT does, through the `finally` below, which ends what it started.
    for number in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, lambda n, _: sys.exit(128 + n))

    def start(args, log, **kwargs):
        p = subprocess.Popen(args, stdout=open(os.path.join(work, log), "w"), stderr=subprocess.STDOUT, **kwargs)
        processes.append(p)
        return p

    try:
        # Certificates and passwords.
        run("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
            "-subj", "/CN=gestured-ha-ca", "-keyout", "ca.key", "-out", "ca.pem", cwd=work)
        for name, san in [("broker", "DNS:localhost,IP:127.0.0.1"), ("kiosk", "DNS:kiosk")]:
            run("openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", f"/CN={name}",
                "-keyout", f"{name}.key", "-out", f"{name}.csr", cwd=work)
            with open(os.path.join(work, "san"), "w") as f:
                f.write(f"subjectAltName={san}\n")
            run("openssl", "x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-days", "2", "-out", f"{name}.pem", "-extfile", "san", cwd=work)
        run("mosquitto_passwd", "-c", "-b", "passwords", "kiosk", "kiosk-secret", cwd=work)
        run("mosquitto_passwd", "-b", "passwords", "homeassistant", "ha-secret", cwd=work)
        with open(os.path.join(work, "kiosk.password"), "w") as f:
            f.write("kiosk-secret\n")

        tls_port, plain_port, ha_port = free_port(), free_port(), free_port()
        with open(os.path.join(work, "mosquitto.conf"), "w") as f:
            f.write(f"""per_listener_settings false
allow_anonymous false
password_file {work}/passwords
acl_file {REPO}/examples/mqtt/mosquitto.acl
log_dest file {work}/broker.log
listener {tls_port} 127.0.0.1
cafile {work}/ca.pem
certfile {work}/broker.pem
keyfile {work}/broker.key
require_certificate true
listener {plain_port} 127.0.0.1
""" + ("user root\n" if os.getuid() == 0 else ""))
        start(["mosquitto", "-c", os.path.join(work, "mosquitto.conf")], "mosquitto.out")
        wait("the broker's start", 30, lambda: socket.create_connection(("127.0.0.1", plain_port)).close() or True)

        # Home Assistant: api, config (for its flows), nothing else configured.
        config = os.path.join(work, "ha")
        os.makedirs(config)
        with open(os.path.join(config, "configuration.yaml"), "w") as f:
            f.write(f"""homeassistant:
  name: gestured check
  time_zone: UTC
  unit_system: metric
http:
  server_host: 127.0.0.1
  server_port: {ha_port}
api:
config:
onboarding:
logger:
  default: warning
""")
        started = time.monotonic()
        start([os.path.join(options.venv, "bin", "hass"), "--config", config, "--skip-pip"], "ha.log")
        api = f"http://127.0.0.1:{ha_port}"

        def call(method, path, body=None, token=None, form=False):
            data = None
            headers = {}
            if body is not None:
                if form:
                    data = urllib.parse.urlencode(body).encode()
                    headers["Content-Type"] = "application/x-www-form-urlencoded"
                else:
                    data = json.dumps(body).encode()
                    headers["Content-Type"] = "application/json"
            if token:
                headers["Authorization"] = f"Bearer {token}"
            request = urllib.request.Request(api + path, data=data, headers=headers, method=method)
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read() or b"null")

        wait("Home Assistant's onboarding", 600, lambda: call("GET", "/api/onboarding"))
        print(f"Home Assistant up in {time.monotonic() - started:.0f} s")
        client_id = api + "/"
        code = call("POST", "/api/onboarding/users", {"client_id": client_id, "name": "check", "username": "check",
                                                      "password": "check-password", "language": "en"})["auth_code"]
        token = call("POST", "/auth/token", {"grant_type": "authorization_code", "code": code, "client_id": client_id},
                     form=True)["access_token"]
        flow = call("POST", "/api/config/config_entries/flow", {"handler": "mqtt"}, token)
        result = call("POST", f"/api/config/config_entries/flow/{flow['flow_id']}",
                      {"broker": "127.0.0.1", "port": plain_port, "username": "homeassistant", "password": "ha-secret"},
                      token)
        if result.get("type") != "create_entry":
            sys.exit(f"ha-discovery-check: the MQTT config flow did not create its entry: {result}")
        wait("Home Assistant's connection to the broker", 60,
             lambda: "as " in open(os.path.join(work, "broker.log")).read() and "u'homeassistant'" in
             open(os.path.join(work, "broker.log")).read())

        # The kiosk: a recording with 20 s of nothing first (discovery reaches Home Assistant), a
        # double tap, a swipe, then idle.
        replay = subprocess.run([gestured, "replay", os.path.join(REPO, "examples/recordings/demo.evemu")],
                                capture_output=True, text=True, check=True).stdout
        subprocess.run([sys.executable, os.path.join(REPO, "scripts/lead-in.py"),
                        os.path.join(REPO, "examples/recordings/demo.evemu"), os.path.join(work, "kiosk.evemu"), "20"],
                       check=True)
        gestures = [json.loads(l) for l in replay.splitlines()]
        with open(os.path.join(work, "gestured.yaml"), "w") as f:
            f.write("idle-after-ms: 2000\n")
        with open(os.path.join(work, "actions.yaml"), "w") as f:
            f.write(f"actions:\n  - on: mqtt\n    name: mark\n    shell: 'echo \"$GESTURED_RULE\" >> {work}/marker'\n")
        with open(os.path.join(work, "mqtt.yaml"), "w") as f:
            f.write(f"""broker:
  url: mqtts://localhost:{tls_port}
  ca-file: {work}/ca.pem
  cert-file: {work}/kiosk.pem
  key-file: {work}/kiosk.key
  username: kiosk
  password-file: {work}/kiosk.password
  client-id: gestured-kiosk
topic-prefix: gestured/kiosk
home-assistant:
  discovery: true
  device-name: Test kiosk
inbound:
  actions-file: {work}/actions.yaml
  topics:
    - {{topic: mark, rule: mark}}
""")
        sock = os.path.join(work, "g.sock")
        start(["systemd-socket-activate", "-l", sock, gestured, "run", "--config", os.path.join(work, "gestured.yaml"),
               "--replay", os.path.join(work, "kiosk.evemu")], "daemon.log")
        wait("the socket", 30, lambda: os.path.exists(sock))
        mqtt = start([gestured, "mqtt", "--config", os.path.join(work, "mqtt.yaml"), "--socket", sock], "mqtt.log")

        def states():
            return {s["entity_id"]: s for s in call("GET", "/api/states", token=token)
                    if s["entity_id"].split(".")[1].startswith("test_kiosk")}

        entities = wait("the kiosk's entities in Home Assistant", 120,
                        lambda: (lambda s: s if len(s) >= 4 and all(e["state"] != "unavailable" for e in s.values())
                                 else None)(states()))
        print(f"discovered: {', '.join(sorted(entities))}")
        chosen = [g for g in gestures if g["state"] in ("recognized", "began")]
        last = chosen[-1]["name"]

        def settled():
            s = states()
            event = next(e for i, e in s.items() if i.startswith("event."))
            sensor = next(e for i, e in s.items() if i.startswith("sensor."))
            active = next(e for i, e in s.items() if i.startswith("binary_sensor."))
            done = (event["attributes"].get("event_type") == last and sensor["state"] == last
                    and active["state"] == "off")
            return s if done else None

        entities = wait("the last gesture and the idle in Home Assistant", 120, settled)
        print(f"after {len(chosen)} gestures and an idle, Home Assistant's REST API (/api/states) says:")
        for entity_id, state in sorted(entities.items()):
            attributes = {k: v for k, v in state["attributes"].items() if k not in ("friendly_name", "icon")}
            print(f"  {entity_id}: {state['state']}  {json.dumps(attributes, sort_keys=True)}")
        button = next(i for i in entities if i.startswith("button."))
        call("POST", "/api/services/button/press", {"entity_id": button}, token)
        wait("the inbound rule, pressed in Home Assistant", 30,
             lambda: open(os.path.join(work, "marker")).read().strip() == "mark")
        print(f"{button} pressed in Home Assistant: the rule 'mark' ran on the kiosk")
        mqtt.terminate()
        mqtt.wait(timeout=30)
        wait("the entities unavailable", 60,
             lambda: all(e["state"] == "unavailable" for e in states().values()))
        print("gestured mqtt stopped: every entity unavailable")
        print("ha-discovery-check: passed")
    finally:
        for p in reversed(processes):
            p.terminate()
        for p in processes:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
        if os.environ.get("KEEP"):
            print(f"logs kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
