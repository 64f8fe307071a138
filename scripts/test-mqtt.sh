#!/bin/bash
# `gestured mqtt` against a real broker (docs/FLEET.md, "Home Assistant and MQTT"): Debian's
# mosquitto on loopback with TLS (a CA, server and client certificates made here with openssl),
# client certificates required, a password file, and the ACL of examples/mqtt/mosquitto.acl.
#
#   1. A daemon replays a recording (a palm, 30 s of nothing, then examples/recordings/demo.evemu
#      eight times, 20 s apart, at --speed 2; idle after 3 s, `wake-after-idle`) with `gestured
#      listen` and `gestured mqtt` (every state of every gesture, idle/active/wake) attached; a
#      `mosquitto_sub` of the user homeassistant reads the broker (QoS 1, a persistent session).
#   2. While the stream flows, on the inbound topic: one good message (its rule runs), a 1 MiB
#      payload, a payload no rule has, a flood of 500 good ones (over max-per-minute) — each
#      refused with its reason, nothing run but the good ones; and a good one with retain, which
#      runs once when published and is refused as the broker's stored copy after the outage.
#   3. After two passes the broker is stopped for 30 s and started again (its persistence keeps
#      the subscriber's session and the retained values; it sends the wills as it stops).
#   4. When the replay is done and the subscriber has the listen client's last message, the
#      subscriber's stream must be the listen client's (the types published), in order: nothing
#      missing at the start or the end, and one gap, where the broker was away, exactly as long as
#      the drops the client counted (its queue holds 300 messages); a message sent twice (QoS 1,
#      at least once) is counted, not a failure. Availability goes online, offline (the will the
#      broker sent as it stopped, retained), online, and offline at the client's stop. The
#      discovery configs carry the keys Home Assistant documents for their components.
#   5. Beside it all, three `gestured mqtt` against brokers that are not: one that accepts and
#      never answers (mqtts://), one that sends random bytes (mqtt:// and mqtts://): each must
#      still run, stay within 64 MiB, and have said why in its log at every attempt (--verbose).
#   6. Bad files: a topic prefix with a wildcard, a broker URL that does not parse — refused at
#      FILE:LINE:COLUMN by check-config and by `gestured mqtt`, which exits 1.
#
# usage: scripts/test-mqtt.sh [--gestured BINARY]   (default .build/debug/gestured)
set -euo pipefail
cd "$(dirname "$0")/.."
gestured=.build/debug/gestured
[ "${1:-}" = --gestured ] && gestured=$2
gestured=$(realpath "$gestured")
for tool in mosquitto mosquitto_sub mosquitto_pub mosquitto_passwd openssl systemd-socket-activate python3; do
    command -v "$tool" > /dev/null || { echo "test-mqtt: $tool is missing (scripts/setup-debian.sh --test)" >&2; exit 1; }
done
started=$(date +%s)
work=$(mktemp -d)
# Everything this script starts in the background runs in a session and process group of its own
# (`setsid`, which here execs in place: $! is the group's leader and its id), and is listed in
# pids; on every way out — success, a failure, an error under `set -e`, SIGINT, SIGTERM or SIGHUP —
# each group is sent SIGTERM, then SIGKILL after 5 s if anything of it is left, and reaped. Not the
# script's own group: a signal to it from a terminal or a test runner does not reach these.
pids=()
cleanup() {
    local pid left
    trap - EXIT INT TERM HUP
    for pid in "${pids[@]}"; do kill -TERM -- "-$pid" 2> /dev/null || true; done
    for _ in $(seq 25); do
        left=
        for pid in "${pids[@]}"; do pgrep -g "$pid" > /dev/null && left=1; done
        [ -z "$left" ] && break
        sleep 0.2
    done
    for pid in "${pids[@]}"; do kill -KILL -- "-$pid" 2> /dev/null || true; done
    wait 2> /dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
fail() {
    echo "test-mqtt: $*" >&2
    for log in "$work"/*.log; do echo "--- $log" >&2; tail -n 25 "$log" | cut -c1-300 >&2; done
    exit 1
}
# wait_for SECONDS WHAT COMMAND...: until COMMAND succeeds (generous: the host may be loaded).
wait_for() {
    local seconds=$1 what=$2
    shift 2
    for _ in $(seq $((seconds * 5))); do
        "$@" > /dev/null 2>&1 && return 0
        sleep 0.2
    done
    fail "$what did not happen within $seconds s"
}
# at_least N FILE: FILE has N lines or more.
at_least() { [ "$(wc -l < "$2")" -ge "$1" ]; }
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
port=$(free_port)
silent_port=$(free_port)
garbage_port=$(free_port)

# Certificates: a CA, the broker's (localhost, 127.0.0.1), and one for each client.
cd "$work"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=gestured-test-ca \
    -keyout ca.key -out ca.pem 2> openssl.log
certificate() {
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$1" -keyout "$1.key" -out "$1.csr" \
        2>> openssl.log
    openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -out "$1.pem" \
        -extfile <(printf 'subjectAltName=%s\n' "$2") 2>> openssl.log
}
certificate broker DNS:localhost,IP:127.0.0.1
certificate kiosk DNS:kiosk
certificate homeassistant DNS:homeassistant
mosquitto_passwd -c -b passwords kiosk kiosk-secret
mosquitto_passwd -b passwords homeassistant ha-secret
printf 'kiosk-secret\n' > kiosk.password
cd - > /dev/null
chmod 0755 "$work"

mkdir "$work/persistence"
{
    echo "listener $port 127.0.0.1"
    echo "cafile $work/ca.pem"
    echo "certfile $work/broker.pem"
    echo "keyfile $work/broker.key"
    echo "require_certificate true"
    echo "allow_anonymous false"
    echo "password_file $work/passwords"
    echo "acl_file $PWD/examples/mqtt/mosquitto.acl"
    echo "persistence true"
    echo "persistence_location $work/persistence/"
    echo "max_queued_messages 100000"
    echo "log_dest file $work/broker.log"
    echo "log_type error"
    echo "log_type warning"
    echo "log_type notice"
    echo "log_type information"
    echo "set_tcp_nodelay true"
    # As root it would become the user mosquitto, who cannot read this directory.
    [ "$(id -u)" = 0 ] && echo "user root"
} > "$work/mosquitto.conf"
broker=
start_broker() {
    setsid mosquitto -c "$work/mosquitto.conf" > /dev/null 2>&1 &
    broker=$!
    pids+=("$broker")
    wait_for 30 "the broker's start" python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])))' "$port"
}
start_broker

# The recording: a palm at 0 (no gesture), nothing until 30 s, then the demo eight times, 20 s apart.
scripts/lead-in.py examples/recordings/demo.evemu "$work/stream.evemu" 30 8 20
printf 'idle-after-ms: 3000\nwake-after-idle: true\n' > "$work/gestured.yaml"

cat > "$work/actions.yaml" <<YML
actions:
  - on: mqtt
    name: mark
    shell: 'echo "\$GESTURED_RULE \$GESTURED_TOPIC \$GESTURED_PAYLOAD" >> $work/marker'
YML
common="  ca-file: $work/ca.pem
  connect-timeout-s: 5
  reconnect-max-s: 2"
cat > "$work/mqtt.yaml" <<YML
broker:
  url: mqtts://localhost:$port
$common
  cert-file: $work/kiosk.pem
  key-file: $work/kiosk.key
  username: kiosk
  password-file: $work/kiosk.password
  client-id: gestured-kiosk
  keepalive-s: 5
topic-prefix: gestured/kiosk
qos: 1
publish:
  states: [began, changed, ended, cancelled, recognized]
queue:
  max-messages: 300
home-assistant:
  discovery: true
  device-name: Test kiosk
inbound:
  actions-file: $work/actions.yaml
  max-per-minute: 5
  topics:
    - {topic: mark, rule: mark}
YML
"$gestured" check-config "$work/mqtt.yaml" > "$work/check.log" 2>&1 || fail "check-config refused the test's file"
# docs/FLEET.md's example, with the named rules of examples/mqtt/actions.yaml.
sed "s#/etc/gestured/actions.yaml#$PWD/examples/mqtt/actions.yaml#" examples/mqtt/mqtt.yaml > "$work/example.yaml"
"$gestured" check-config "$work/example.yaml" > "$work/example.log" 2>&1 ||
    fail "check-config refused examples/mqtt/mqtt.yaml: $(cat "$work/example.log")"

# Bad files: each refused at its line and column, by check-config and by the client itself.
bad() {
    local name=$1 expected=$2
    "$gestured" check-config "$work/$name.yaml" > "$work/$name.out" 2>&1 && fail "check-config took $name.yaml"
    grep -qE "^$work/$name.yaml:[0-9]+:[0-9]+: .*$expected" "$work/$name.out" ||
        fail "check-config of $name.yaml: $(cat "$work/$name.out")"
    "$gestured" mqtt --config "$work/$name.yaml" --socket "$work/none.sock" > "$work/$name.run" 2>&1 &&
        fail "gestured mqtt ran with $name.yaml"
    grep -qE "$work/$name.yaml:[0-9]+:[0-9]+: .*$expected" "$work/$name.run" ||
        fail "gestured mqtt with $name.yaml: $(cat "$work/$name.run")"
    echo "refused as it should be: $(head -n 1 "$work/$name.out")"
}
printf 'broker:\n  url: mqtts://localhost:%s\ntopic-prefix: gestured/+/kiosk\n' "$port" > "$work/wildcard.yaml"
bad wildcard "cannot hold the wildcard '\+'"
printf 'broker:\n  url: mqtts://user:secret@localhost:%s\n' "$port" > "$work/userinfo.yaml"
bad userinfo "not a broker URL: a user or password in the URL"
printf 'broker:\n  url: "tcp//localhost:1883"\n' > "$work/unparsable.yaml"
bad unparsable "not a broker URL: it has no scheme"
printf 'broker:\n  url: mqtts://localhost:99999\n' > "$work/port.yaml"
bad port "the port '99999' is not a number from 1 to 65535"

# The subscriber, as Home Assistant logs in: QoS 1, a persistent session.
ha_login=(-h localhost -p "$port" --cafile "$work/ca.pem" --cert "$work/homeassistant.pem"
    --key "$work/homeassistant.key" -u homeassistant -P ha-secret)
pub() { mosquitto_pub "${ha_login[@]}" -t gestured/kiosk/command/mark "$@"; }
setsid mosquitto_sub "${ha_login[@]}" -c -i test-reader -q 1 -v -t 'gestured/kiosk/#' -t 'homeassistant/#' > "$work/sub.out" 2> "$work/sub.log" &
pids+=($!)
wait_for 30 "the subscriber's connection" grep -q "as test-reader" "$work/broker.log"

# The daemon, started by the listen client's connection; then gestured mqtt.
setsid systemd-socket-activate -l "$work/g.sock" "$gestured" run --config "$work/gestured.yaml" \
    --replay "$work/stream.evemu" --speed 2 > "$work/daemon.log" 2>&1 &
pids+=($!)
wait_for 30 "the socket" test -S "$work/g.sock"
setsid "$gestured" listen --socket "$work/g.sock" > "$work/listen.out" 2> "$work/listen.log" &
listen=$!
pids+=($listen)
wait_for 60 "the listen client's hello" grep -q '"type":"hello"' "$work/listen.out"
setsid "$gestured" mqtt --config "$work/mqtt.yaml" --socket "$work/g.sock" > "$work/mqtt.log" 2>&1 &
client=$!
pids+=($client)
wait_for 60 "gestured mqtt's connection to the daemon" grep -q "connected to the daemon" "$work/mqtt.log"
wait_for 60 "gestured mqtt's connection to the broker" grep -q "connected to the broker" "$work/mqtt.log"

# Brokers that are not: one silent, one sending random bytes.
setsid python3 - "$silent_port" "$garbage_port" > /dev/null 2>&1 <<'PY' &
import random, socket, sys, threading
def listen(port, serve):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", port))
    s.listen(16)
    def accept():
        while True:
            c, _ = s.accept()
            threading.Thread(target=serve, args=(c,), daemon=True).start()
    threading.Thread(target=accept, daemon=True).start()
def silent(c):
    try:
        while c.recv(65536):
            pass
    except OSError:
        pass
def garbage(c):
    rng = random.Random(53)
    try:
        while True:
            c.sendall(rng.randbytes(65536))
    except OSError:
        pass
listen(int(sys.argv[1]), silent)
listen(int(sys.argv[2]), garbage)
threading.Event().wait()
PY
pids+=($!)
misbehaving=()
for name in silent:mqtts:$silent_port garbage:mqtt:$garbage_port garbage-tls:mqtts:$garbage_port; do
    IFS=: read -r label scheme at <<< "$name"
    printf 'broker:\n  url: %s://127.0.0.1:%s\n  connect-timeout-s: 2\n  reconnect-max-s: 2\n' "$scheme" "$at" \
        > "$work/$label.yaml"
    [ "$scheme" = mqtts ] && printf '  ca-file: %s\n' "$work/ca.pem" >> "$work/$label.yaml"
    printf 'topic-prefix: gestured/%s\nqueue: {max-messages: 100}\n' "$label" >> "$work/$label.yaml"
    setsid "$gestured" mqtt --config "$work/$label.yaml" --socket "$work/g.sock" --verbose > "$work/$label.log" 2>&1 &
    pids+=($!)
    misbehaving+=("$label:$!")
done

# Inbound, while the stream flows.
wait_for 120 "the first gesture on the broker" grep -q "^gestured/kiosk/gesture " "$work/sub.out"
pub -m PRESS
wait_for 30 "the inbound rule's command" test -s "$work/marker"
head -c 1048576 /dev/zero | tr '\0' A > "$work/big"
pub -f "$work/big"
wait_for 30 "the 1 MiB payload's refusal" grep -q "a payload of 1048576 bytes" "$work/mqtt.log"
pub -m NOPE
wait_for 30 "the unknown payload's refusal" grep -q "none of this topic's payloads" "$work/mqtt.log"
pub -r -m PRESS
wait_for 30 "the retained message's run" at_least 2 "$work/marker"
printf 'PRESS\n%.0s' $(seq 500) | pub -l
wait_for 30 "the flood's refusal" grep -q "over the limit of 5 a minute" "$work/mqtt.log"

# The outage: after the second idle on the broker, 30 s without it.
wait_for 120 "two passes on the broker" \
    python3 -c 'import sys; sys.exit(0 if sum(1 for l in open(sys.argv[1]) if l.startswith("gestured/kiosk/panel ") and "\"idle\"" in l) >= 2 else 1)' "$work/sub.out"
kill "$broker"
wait "$broker" 2> /dev/null || true
outage=$(date +%s)
wait_for 30 "gestured mqtt noticing the outage" grep -q "connection to the broker .* lost" "$work/mqtt.log"
left=$((30 - ($(date +%s) - outage)))
# In the background, waited for: a signal meanwhile ends the script at once, not after the sleep.
[ "$left" -le 0 ] || { setsid sleep "$left" & pids+=($!); wait $!; }
start_broker
wait_for 60 "gestured mqtt's reconnection" \
    python3 -c 'import sys; sys.exit(0 if open(sys.argv[1]).read().count("connected to the broker") >= 2 else 1)' "$work/mqtt.log"
wait_for 30 "the stored retained message's refusal" grep -q "a retained message" "$work/mqtt.log"
pub -r -n

# The end: the replay done, the listen client's last message on the broker too.
wait_for 180 "the replay's end" grep -q "replay done" "$work/daemon.log"
last=$(python3 -c '
import json, sys
lines = [l for l in open(sys.argv[1]) if json.loads(l)["type"] in ("gesture", "idle", "active", "wake")]
print(lines[-1].strip())' "$work/listen.out")
wait_for 120 "the last message on the broker" grep -qF "$last" "$work/sub.out"
for entry in "${misbehaving[@]}"; do
    IFS=: read -r label pid <<< "$entry"
    kill -0 "$pid" 2> /dev/null || fail "gestured mqtt against the $label broker is gone"
    hwm=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
    [ "$hwm" -le 65536 ] || fail "gestured mqtt against the $label broker peaked at $hwm kB"
    echo "the $label broker: gestured mqtt runs, peak resident memory $hwm kB"
done
kill "$client"
wait "$client" || fail "gestured mqtt exited with $? on SIGTERM"
wait_for 30 "availability offline at the client's stop" \
    python3 -c 'import sys; sys.exit(0 if open(sys.argv[1]).read().splitlines()[-1] == "gestured/kiosk/availability offline" else 1)' "$work/sub.out"
kill "$listen"

python3 - "$work" <<'PY' || fail "the broker's stream and the listen client's disagree"
import json, re, sys
work = sys.argv[1]
published = ("gesture", "idle", "active", "wake")
listen = [l.strip() for l in open(f"{work}/listen.out") if json.loads(l)["type"] in published]
# From the first gesture: the idle after the lead-in's palm comes before gestured mqtt connects.
first = next(i for i, l in enumerate(listen) if json.loads(l)["type"] == "gesture")
listen = listen[first:]
events, availability, active, configs = [], [], [], {}
for line in open(f"{work}/sub.out"):
    topic, _, payload = line.rstrip("\n").partition(" ")
    if topic in ("gestured/kiosk/gesture", "gestured/kiosk/panel"):
        events.append(payload)
    elif topic == "gestured/kiosk/availability":
        availability.append(payload)
    elif topic == "gestured/kiosk/active":
        active.append(payload)
    elif topic.startswith("homeassistant/") and topic.endswith("/config"):
        configs[topic] = json.loads(payload)
    elif topic != "gestured/kiosk/command/mark":
        sys.exit(f"a topic nothing publishes: {topic}")
# QoS 1 is at least once: a message sent again after the outage may arrive twice.
seen, unique = set(), []
for e in events:
    if e not in seen:
        seen.add(e)
        unique.append(e)
twice = len(events) - len(unique)
index = {line: i for i, line in enumerate(listen)}
unique = unique[unique.index(listen[0]):] if listen[0] in unique else unique
missing = [e for e in unique if e not in index]
if missing:
    sys.exit(f"{len(missing)} messages on the broker the listen client did not get, the first: {missing[0][:200]}")
positions = [index[e] for e in unique]
if positions != sorted(positions):
    sys.exit("the broker's messages are not in the listen client's order")
if positions[0] != 0 or positions[-1] != len(listen) - 1:
    sys.exit(f"missing at the start or the end: the broker has listen's {positions[0]}th to {positions[-1]}th of {len(listen)}")
gaps = [(a, b) for a, b in zip(positions, positions[1:]) if b != a + 1]
log = open(f"{work}/mqtt.log").read()
reconnected = re.findall(r"connected to the broker .*", log)[-1]
dropped = int(re.search(r"dropped=(\d+)", reconnected).group(1)) if "dropped=" in reconnected else 0
held = int(re.search(r"waiting=(\d+)", reconnected).group(1))
gap = sum(b - a - 1 for a, b in gaps)
print(f"listen: {len(listen)} messages; broker: {len(events)} ({twice} twice), in listen's order, "
      f"one gap of {gap} in {len(gaps)} place(s); the client held {held} and dropped {dropped} while the broker was away")
if len(gaps) != 1 or gap != dropped or dropped == 0:
    sys.exit(f"expected one gap as long as the drops ({dropped}): {gaps}")
if not 0 < held <= 300:
    sys.exit(f"the queue held {held} messages at the reconnection (bound 300)")
# Availability: online, the will the broker sent as it stopped (offline), online again, offline at the stop.
collapsed = [a for i, a in enumerate(availability) if i == 0 or a != availability[i - 1]]
print("availability:", " → ".join(collapsed))
if collapsed[-4:] != ["online", "offline", "online", "offline"]:
    sys.exit("availability did not go online, offline, online, offline")
if "ON" not in active or "OFF" not in active:
    sys.exit(f"the active state never went both ways: {active}")
print("active:", " → ".join(a for i, a in enumerate(active) if i == 0 or a != active[i - 1]))
# Discovery: the keys Home Assistant's MQTT integration documents for each component.
common = {"name", "unique_id", "availability_topic", "device", "origin", "icon", "device_class", "value_template"}
documented = {
    "binary_sensor": (common | {"state_topic", "payload_on", "payload_off"}, {"state_topic"}),
    "event": (common | {"state_topic", "event_types"}, {"state_topic", "event_types"}),
    "sensor": (common | {"state_topic"}, {"state_topic"}),
    "button": (common | {"command_topic", "payload_press"}, {"command_topic"}),
}
for topic, config in sorted(configs.items()):
    component = topic.split("/")[1]
    allowed, required = documented[component]
    if set(config) - allowed or required - set(config):
        sys.exit(f"{topic}: keys {sorted(set(config) - allowed)} undocumented, {sorted(required - set(config))} missing")
    if config["availability_topic"] != "gestured/kiosk/availability" or not config["device"]["identifiers"]:
        sys.exit(f"{topic}: not the kiosk's device and availability")
components = sorted(t.split("/")[1] for t in configs)
if components != ["binary_sensor", "button", "event", "sensor"]:
    sys.exit(f"discovery components {components}")
event = next(c for t, c in configs.items() if "/event/" in t)
names = {json.loads(l)["name"] for l in listen if json.loads(l)["type"] == "gesture"}
if not names <= set(event["event_types"]):
    sys.exit(f"gestures {sorted(names - set(event['event_types']))} are not event types")
print(f"discovery: {len(configs)} configs ({', '.join(components)}), keys as documented; event types {len(event['event_types'])}")
# Inbound: the rule ran for the good messages only, and each bad one was refused with its reason.
stopped = re.findall(r"stopped .*", log)[-1]
counts = dict(re.findall(r"([a-z-]+)=(\d+)", stopped))
runs = int(counts["inbound-run"])
marks = open(f"{work}/marker").read().splitlines()
print("inbound:", stopped)
if len(marks) != runs or any(m != "mark gestured/kiosk/command/mark PRESS" for m in marks):
    sys.exit(f"the rule ran {len(marks)} times, the client says {runs}: {marks[:3]}")
# Unknown payloads: NOPE, and the empty message that clears the retained one (delivered live too).
expect = {"refused-too-long": 1, "refused-unknown-payload": 2, "refused-retained": 1}
for key, n in expect.items():
    if int(counts.get(key, 0)) != n:
        sys.exit(f"{key} is {counts.get(key, 0)}, expected {n}")
if runs + int(counts.get("refused-over-rate", 0)) != 502 or not 5 <= runs <= 7:
    sys.exit(f"of 502 good messages {runs} ran and {counts.get('refused-over-rate')} were refused over the rate")
PY
for label in silent garbage garbage-tls; do
    case $label in
    silent) reason="did not complete it" ;;
    # Random bytes: a packet claiming more than the receive guard lets through, or one that is
    # not MQTT.
    garbage) reason="not an MQTT broker|protocol error" ;;
    garbage-tls) reason="TLS error" ;;
    esac
    n=$(grep -cE "cannot connect to the broker.*($reason)" "$work/$label.log" || true)
    [ "$n" -ge 2 ] || fail "gestured mqtt against the $label broker did not say '$reason' at each attempt"
    echo "the $label broker: $n attempts, each logged with '$reason'"
done
echo "test-mqtt: passed in $(( $(date +%s) - started )) s"
