#!/bin/bash
# The metrics against the real consumers (docs/FLEET.md): Debian's Prometheus server scrapes a
# daemon replaying a recording through the metrics socket (systemd-socket-activate passes it, as
# gestured-metrics.socket does), and its HTTP API must return, per recognizer and state, exactly
# the gestures a `gestured listen` client saw in the same run; `promtool check metrics` passes on
# both exposition formats; `promtool check rules` on the alert rules of docs/FLEET.md, which the
# server loads too. Then node_exporter's textfile collector: `gestured status --format prometheus
# --output` writes the file (as the timer of docs/FLEET.md does), `promtool check metrics` passes
# on it, and Debian's prometheus-node-exporter, reading that directory, serves every one of
# gestured's samples in the file at its /metrics, with no textfile error.
#
# The recording is examples/recordings/demo.evemu behind a lead-in: one palm contact (which no
# recognizer accepts: no gesture) and 20 s of the recording's time (10 s at --speed 2) before the
# first finger, so the listen client — the connection that starts the daemon — is subscribed
# before anything is recognized. The panel goes idle after 5 s without a touch (the lead-in's pause) and the touch
# after that is a wake (`wake-after-idle`): Prometheus' wakes must be the `wake` lines the client
# saw. Everything listens on loopback ports picked free.
#
# usage: scripts/test-metrics.sh [--gestured BINARY]   (default .build/debug/gestured)
set -euo pipefail
cd "$(dirname "$0")/.."
gestured=.build/debug/gestured
[ "${1:-}" = --gestured ] && gestured=$2
gestured=$(realpath "$gestured")
for tool in prometheus promtool prometheus-node-exporter systemd-socket-activate; do
    command -v "$tool" > /dev/null || { echo "test-metrics: $tool is missing (scripts/setup-debian.sh --test)" >&2; exit 1; }
done
work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; done
    wait 2> /dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
fail() {
    echo "test-metrics: $*" >&2
    for log in "$work"/*.log; do echo "--- $log" >&2; tail -n 30 "$log" >&2; done
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
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
metrics_port=$(free_port)
prometheus_port=$(free_port)
exporter_port=$(free_port)

# The recording with its lead-in (times shifted by 20 s; the palm lands and lifts at 0).
scripts/lead-in.py examples/recordings/demo.evemu "$work/lead-in.evemu" 20

printf 'idle-after-ms: 5000\nwake-after-idle: true\n' > "$work/gestured.yaml"

# The daemon, started by the first connection to either socket (the listen client's).
systemd-socket-activate -l "$work/g.sock" -l "127.0.0.1:$metrics_port" --fdname=unix:metrics \
    "$gestured" run --config "$work/gestured.yaml" --replay "$work/lead-in.evemu" --speed 2 > "$work/daemon.log" 2>&1 &
pids+=($!)
wait_for 30 "the socket" test -S "$work/g.sock"
"$gestured" listen --socket "$work/g.sock" > "$work/listen.out" 2> "$work/listen.log" &
listen=$!
pids+=($listen)
wait_for 60 "the daemon's start" grep -q "ready" "$work/daemon.log"

# Prometheus, scraping every second, with the alert rules.
promtool check rules examples/prometheus/gestured-alerts.yml > "$work/rules.log" 2>&1 ||
    fail "promtool check rules failed: $(cat "$work/rules.log")"
cat > "$work/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files: ["$PWD/examples/prometheus/gestured-alerts.yml"]
scrape_configs:
  - job_name: gestured
    static_configs:
      - targets: ["127.0.0.1:$metrics_port"]
YML
promtool check config "$work/prometheus.yml" > "$work/config.log" 2>&1 ||
    fail "promtool check config failed: $(cat "$work/config.log")"
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
    --web.listen-address="127.0.0.1:$prometheus_port" > "$work/prometheus.log" 2>&1 &
pids+=($!)
api=http://127.0.0.1:$prometheus_port/api/v1

wait_for 120 "the replay's end" grep -q "replay done" "$work/daemon.log"
done_at=$(date +%s.%N)
# Three scrapes after the replay ended: the counters are final in Prometheus.
query() { python3 -c 'import sys, urllib.parse, urllib.request; print(urllib.request.urlopen(sys.argv[1] + "/query?query=" + urllib.parse.quote(sys.argv[2])).read().decode())' "$api" "$1"; }
value() { python3 -c 'import json, sys; r = json.loads(sys.argv[1])["data"]["result"]; print(r[0]["value"][1] if r else 0)' "$(query "$1")"; }
scraped_after_end() {
    python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) >= 3 and float(sys.argv[2]) > float(sys.argv[3]) + 2 else 1)' \
        "$(value 'count_over_time(gestured_frames_read_total[10m])')" "$(value 'timestamp(gestured_frames_read_total)')" \
        "$done_at"
}
wait_for 120 "three scrapes after the replay's end" scraped_after_end
kill "$listen"
wait "$listen" 2> /dev/null || true

# Prometheus' counters by recognizer and state against the lines the client saw.
query 'gestured_gestures_total' > "$work/gestures.json"
python3 - "$work/gestures.json" "$work/listen.out" <<'PY' || fail "Prometheus and the listen client disagree"
import collections, json, sys
result = json.load(open(sys.argv[1]))["data"]["result"]
scraped = collections.Counter()
for series in result:
    labels = series["metric"]
    if labels["owner"] == "configuration":
        scraped[(labels["recognizer"], labels["state"])] = int(float(series["value"][1]))
seen = collections.Counter()
for line in open(sys.argv[2]):
    message = json.loads(line)
    if message.get("type") == "gesture":
        seen[(message["name"], message["state"])] += 1
scraped = +scraped
print("by recognizer and state (Prometheus = listen):")
for key in sorted(set(scraped) | set(seen)):
    print("  %-16s %-10s %5d %5d" % (key[0], key[1], scraped[key], seen[key]))
if not seen:
    sys.exit("the client saw no gesture")
if scraped != seen:
    sys.exit("they differ")
print("%d gestures, %d recognizers: equal" % (sum(seen.values()), len({k[0] for k in seen})))
PY
query 'gestured_screen_wakes_total' > "$work/wakes.json"
python3 - "$work/wakes.json" "$work/listen.out" <<'PY' || fail "Prometheus' wakes and the listen client's disagree"
import collections, json, sys
scraped = collections.Counter({s["metric"]["cause"]: int(float(s["value"][1])) for s in json.load(open(sys.argv[1]))["data"]["result"]})
seen = collections.Counter(m["cause"] for m in map(json.loads, open(sys.argv[2])) if m.get("type") == "wake")
print("wakes by cause (Prometheus = listen): %s = %s" % (dict(+scraped), dict(seen)))
if not seen["idle"]:
    sys.exit("the client saw no wake")
if +scraped != seen:
    sys.exit("they differ")
PY

# The exposition itself, in both formats, through promtool's linter.
fetch() { python3 -c 'import sys, urllib.request; r = urllib.request.Request(sys.argv[1], headers={"Accept": sys.argv[2]}); sys.stdout.write(urllib.request.urlopen(r).read().decode())' "http://127.0.0.1:$metrics_port/metrics" "$1"; }
fetch "text/plain;version=0.0.4" > "$work/metrics.prom"
fetch "application/openmetrics-text;version=1.0.0" > "$work/metrics.om"
promtool check metrics < "$work/metrics.prom" > "$work/lint.log" 2>&1 ||
    fail "promtool check metrics (text format): $(cat "$work/lint.log")"
tail -n 1 "$work/metrics.om" | grep -qx "# EOF" || fail "the OpenMetrics exposition does not end with # EOF"
grep -q '^# TYPE gestured_frames_read counter$' "$work/metrics.om" || fail "the OpenMetrics exposition names counters without _total"

# The dashboard and the alert rules: every query is valid PromQL for this server, and every
# gestured metric they name is one the daemon exposes.
python3 - "$api" examples/grafana/gestured-dashboard.json examples/prometheus/gestured-alerts.yml "$work/metrics.prom" <<'PY' ||
import json, re, sys, urllib.parse, urllib.request
api, dashboard, rules, exposition = sys.argv[1:]
# Every family, with or without samples now (no panel is open once the replay has ended).
exposed = {line.split()[2] for line in open(exposition) if line.startswith("# TYPE ")}
exposed |= {name + suffix for name in exposed for suffix in ("_bucket", "_sum", "_count")}
queries = [target["expr"] for panel in json.load(open(dashboard))["panels"] for target in panel["targets"]]
queries += [line.split("expr:", 1)[1].strip() for line in open(rules) if "expr:" in line]
for query in queries:
    for name in re.findall(r"gestured_[a-z_]+", query):
        if name not in exposed:
            sys.exit("%s is not exposed (in %s)" % (name, query))
    query = query.replace("$instance", ".*")
    answer = json.load(urllib.request.urlopen(api + "/query?query=" + urllib.parse.quote(query)))
    if answer["status"] != "success":
        sys.exit("%s: %s" % (query, answer))
print("test-metrics: %d dashboard and alert queries run, naming only exposed metrics" % len(queries))
PY
    fail "a dashboard or alert query is wrong"
echo "test-metrics: promtool check metrics passes; Prometheus read $(grep -c '^gestured_' "$work/metrics.prom") series"

# The textfile collector: the file `gestured status` writes, read by node_exporter.
mkdir "$work/textfile"
"$gestured" status --socket "$work/g.sock" --format prometheus --output "$work/textfile/gestured.prom" \
    2> "$work/status.log" || fail "gestured status --format prometheus --output failed: $(cat "$work/status.log")"
[ "$(ls -A "$work/textfile")" = gestured.prom ] || fail "the textfile's directory holds more than the file: $(ls -A "$work/textfile")"
promtool check metrics < "$work/textfile/gestured.prom" > "$work/textfile-lint.log" 2>&1 ||
    fail "promtool check metrics (the textfile): $(cat "$work/textfile-lint.log")"
prometheus-node-exporter --web.listen-address="127.0.0.1:$exporter_port" --collector.disable-defaults \
    --collector.textfile --collector.textfile.directory="$work/textfile" > "$work/node-exporter.log" 2>&1 &
pids+=($!)
exporter_metrics() { python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())' "http://127.0.0.1:$exporter_port/metrics"; }
wait_for 60 "node_exporter's start" exporter_metrics
exporter_metrics > "$work/node-exporter.prom"
python3 - "$work/textfile/gestured.prom" "$work/node-exporter.prom" <<'PY' || fail "node_exporter does not serve the textfile's samples"
import re, sys
sample = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')
label = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
def samples(path, prefix):
    found = {}
    for line in open(path):
        m = sample.match(line.strip())
        if m and m.group(1).startswith(prefix):
            labels = tuple(sorted(label.findall(m.group(3) or "")))
            found[(m.group(1), labels)] = float(m.group(4))
    return found
written = samples(sys.argv[1], "gestured_")
served = samples(sys.argv[2], "gestured_")
errors = samples(sys.argv[2], "node_textfile_scrape_error")
if errors.get(("node_textfile_scrape_error", ())) != 0.0:
    sys.exit("node_textfile_scrape_error is %s" % errors)
if not written:
    sys.exit("the textfile holds no gestured sample")
missing = {k: v for k, v in written.items() if served.get(k) != v}
if missing:
    sys.exit("not served as written: %s" % sorted(missing.items())[:5])
print("test-metrics: node_exporter serves all %d gestured samples of the textfile" % len(written))
PY
echo "test-metrics: passed"
