#!/bin/sh
# How broad the daemon's frame path is per wake-up (docs/PERFORMANCE.md, "Frame path"): under
# valgrind's lackey, `gestured run --replay REC --speed S` with one client (`gestured listen
# --kind swipe --kind pan`: a line every few frames); for each wake-up (the span between two
# entries to the epoll wait) the instructions run, the distinct code pages, data pages and
# functions reached, and whether it sent lines to the client. A guest under TCG pays for each of
# those once per wake-up (scripts/vm/guest-costs.sh), so this is the host-side yardstick of what
# the VM charges beyond instructions.
#
# usage: scripts/measure-breadth.sh [BINARY] [SECONDS]  (default .build/release/gestured, 240)
# Environment: RECORDING (default examples/recordings/demo.evemu; docs/PERFORMANCE.md's pages row uses the
# peer bench's stream, `scripts/peer/gen_evemu.py 12000`), SPEED (default 0.02: lackey runs ~1 M
# instructions a second, so frames are paced far apart and each wake-up is one frame), METRICS=1
# (the daemon gets a metrics socket, as from gestured-metrics.socket, through
# systemd-socket-activate; nothing scrapes it: the cost of counting alone), SCRAPE=1 (with
# METRICS=1: a scraper fetches /metrics every second; the wake-ups that served a scrape are
# reported apart, and the frames' medians must not move), MQTT=1 (`gestured mqtt`, the same
# binary, is attached too, publishing what the listen client takes — swipes and pans, every state —
# to Debian's mosquitto on a loopback port: the daemon's cost of one more client taking the same
# lines; docs/FLEET.md, "Home Assistant and MQTT").
# Prints, over the wake-ups after the first 100 (start-up): the median and 90th percentile of
# each count (a wake-up is a frame); then the instructions per published line: the mean of the
# wake-ups that sent to the client minus the mean of those that did not, per line they sent
# (lines counted by the client) — building, encoding and sending a line, and the wake-up's
# difference in engine work, which the pan that reports causes. With MQTT=1 each line is sent to
# both clients, and the figure is a line's to the two.
# Needs valgrind and a C compiler (cc).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
binary=${1:-$here/.build/release/gestured}
seconds=${2:-240}
recording=${RECORDING:-$here/examples/recordings/demo.evemu}
work=$(mktemp -d)
trap 'kill $daemon $client $scraper $broker $mqtt 2>/dev/null || true; rm -rf "$work"' EXIT
# A signal ends it through the EXIT trap too (sh runs no EXIT trap for a signal it does not catch).
trap 'exit 130' INT
trap 'exit 143' TERM
daemon=
client=
scraper=
broker=
mqtt=

# The counter: reads lackey's trace (" L addr,size", "I  addr,size", ...) on stdin.
cat > "$work/breadth.c" <<'EOF'
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#define SET (1 << 16)
#define FUNCS (1 << 21)
static uint64_t code[SET], data[SET], fns[SET];
static unsigned code_gen[SET], data_gen[SET], fns_gen[SET], gen = 1;
static uint64_t entries[FUNCS];
static char entry_used[FUNCS];
static unsigned slot(uint64_t v, int bits) { return (unsigned)((v * 0x9E3779B97F4A7C15ull) >> (64 - bits)); }
/* 1 when v is new in this wake-up's set. */
static int add(uint64_t *set, unsigned *gens, uint64_t v) {
    for (unsigned h = slot(v, 16);; h = (h + 1) & (SET - 1)) {
        if (gens[h] != gen) { gens[h] = gen; set[h] = v; return 1; }
        if (set[h] == v) return 0;
    }
}
static int is_entry(uint64_t a) {
    for (unsigned h = slot(a, 21); entry_used[h]; h = (h + 1) & (FUNCS - 1))
        if (entries[h] == a) return 1;
    return 0;
}
int main(int argc, char **argv) {
    uint64_t wait_entry = strtoull(argv[1], 0, 16), send_entry = strtoull(argv[3], 0, 16);
    uint64_t snapshot_entry = argc > 4 ? strtoull(argv[4], 0, 16) : 0;
    char line[256];
    FILE *f = fopen(argv[2], "r");
    while (fgets(line, sizeof line, f)) {
        uint64_t a = strtoull(line, 0, 16);
        unsigned h = slot(a, 21);
        while (entry_used[h] && entries[h] != a) h = (h + 1) & (FUNCS - 1);
        entry_used[h] = 1;
        entries[h] = a;
    }
    long instructions = 0, code_pages = 0, data_pages = 0, functions = 0, sends = 0, wakeups = 0, snapshots = 0;
    while (fgets(line, sizeof line, stdin)) {
        char *p = line, kind;
        while (*p == ' ') p++;
        kind = *p;
        if (kind != 'I' && kind != 'L' && kind != 'S' && kind != 'M') continue;
        uint64_t a = strtoull(p + 1, 0, 16);
        if (kind != 'I') { data_pages += add(data, data_gen, a >> 12); continue; }
        if (a == wait_entry) {
            if (wakeups++ > 0)
                printf("%ld %ld %ld %ld %ld %ld\n", instructions, code_pages, data_pages, functions, sends, snapshots);
            instructions = code_pages = data_pages = functions = sends = snapshots = 0;
            gen++;
        }
        if (a == send_entry) sends++;
        if (snapshot_entry && a == snapshot_entry) snapshots++;
        instructions++;
        code_pages += add(code, code_gen, a >> 12);
        if (is_entry(a)) functions += add(fns, fns_gen, a);
    }
    return 0;
}
EOF
cc -O2 -o "$work/breadth" "$work/breadth.c"

# A copy without debug information: valgrind would otherwise spend minutes reading it.
strip --strip-debug -o "$work/gestured" "$binary"
binary=$work/gestured
# valgrind loads a position-independent executable at 0x108000.
base=0x108000
nm "$binary" | awk '$2 ~ /^[TtWw]$/ { print $1 }' | sort -u \
    | python3 -c "import sys; print(''.join('%x\\n' % (int(a, 16) + $base) for a in sys.stdin.read().split()), end='')" \
    > "$work/entries"
entry() { printf '%x' $((0x$(nm "$binary" | awk -v f="$1" '$3 == f { print $1 }') + base)); }
wait_entry=$(entry gestured_epoll_wait)
send_entry=$(entry gestured_send)
# The input thread's snapshot for a scrape (MetricsSnapshotBuilder.snapshot), in builds that have it.
snapshot_symbol=$(nm "$binary" | awk '$3 ~ /MetricsSnapshotBuilderV8snapshot/ && $2 ~ /^[Tt]$/ { print $3; exit }')
snapshot_entry=
[ -n "$snapshot_symbol" ] && snapshot_entry=$(entry "$snapshot_symbol")

socket=$work/g.sock
mkfifo "$work/trace"
"$work/breadth" "$wait_entry" "$work/entries" "$send_entry" $snapshot_entry < "$work/trace" > "$work/wakeups" &
counter=$!
activate=
if [ "${METRICS:-}" = 1 ]; then
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    # The daemon starts at the client's connection, as under systemd (the socket exists at once).
    activate="systemd-socket-activate -l $socket -l 127.0.0.1:$port --fdname=unix:metrics"
fi
$activate valgrind --tool=lackey --trace-mem=yes --log-file="$work/trace" \
    "$binary" run --socket "$socket" --replay "$recording" --speed "${SPEED:-0.02}" --loop > "$work/daemon.log" 2>&1 &
daemon=$!
# Start-up under lackey takes a minute or more.
i=0
while [ ! -S "$socket" ] && [ $i -lt 600 ]; do sleep 1; i=$((i + 1)); done
if [ ! -S "$socket" ]; then
    echo "the daemon did not start under valgrind:" >&2
    tail -5 "$work/daemon.log" >&2
    exit 1
fi
"$binary" listen --socket "$socket" --kind swipe --kind pan > "$work/lines" 2>&1 &
client=$!
if [ "${MQTT:-}" = 1 ]; then
    mqtt_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    printf 'listener %s 127.0.0.1\nallow_anonymous true\nset_tcp_nodelay true\n%s' "$mqtt_port" \
        "$([ "$(id -u)" = 0 ] && echo 'user root')" > "$work/mosquitto.conf"
    mosquitto -c "$work/mosquitto.conf" > "$work/mosquitto.log" 2>&1 &
    broker=$!
    printf 'broker: {url: "mqtt://127.0.0.1:%s"}\ntopic-prefix: gestured/breadth\npublish: {kinds: [swipe, pan], states: [began, changed, ended, cancelled, recognized]}\n' \
        "$mqtt_port" > "$work/mqtt.yaml"
    "$binary" mqtt --config "$work/mqtt.yaml" --socket "$socket" > "$work/mqtt.log" 2>&1 &
    mqtt=$!
fi
if [ "${SCRAPE:-}" = 1 ]; then
    python3 -c '
import sys, time, urllib.request
while True:
    time.sleep(1)
    try:
        urllib.request.urlopen(sys.argv[1], timeout=30).read()
    except OSError:
        pass
' "http://127.0.0.1:$port/metrics" &
    scraper=$!
fi
sleep "$seconds"
kill "$client" $scraper $mqtt $broker 2>/dev/null || true
if [ -n "$mqtt" ]; then
    echo "gestured mqtt attached: $(grep -c 'connected to the daemon' "$work/mqtt.log") connection(s) to the daemon," \
        "$(grep -c 'connected to the broker' "$work/mqtt.log") to the broker"
fi
kill -9 "$daemon" 2>/dev/null || true
wait "$counter" || true
echo "$(wc -l < "$work/wakeups") wake-ups in all; the first 100 (start-up) left out"
# The client's lines but its hello: every line the daemon sent.
lines=$(grep -c '"type":"gesture"' "$work/lines" || true)
# With MQTT=1 `gestured mqtt` takes the same lines as the listen client: each is sent twice.
clients=1
[ "${MQTT:-}" = 1 ] && clients=2
LINES=$lines CLIENTS=$clients python3 - "$work/wakeups" <<'PYTHON'
import os, sys
rows = [list(map(int, line.split())) for line in open(sys.argv[1])]
if len(rows) <= 100:
    sys.exit("no wake-ups after start-up: run longer")
# Wake-ups that made a snapshot for a scrape (SCRAPE=1), apart from the frames'.
scrapes = [row for row in rows[100:] if row[5]]
if scrapes:
    values = sorted(row[0] for row in scrapes)
    print(f"{len(scrapes)} wake-ups served a scrape: instructions median {values[len(values) // 2]}"
          f" (90th percentile {values[len(values) * 9 // 10]}); left out below")
    rows = rows[:100] + [row for row in rows[100:] if not row[5]]
print(f"{len(rows) - 100} wake-ups (frames); per wake-up, median (90th percentile):")
for column, name in enumerate(["instructions", "code pages", "data pages", "functions"]):
    values = sorted(row[column] for row in rows[100:])
    print(f"  {name} {values[len(values) // 2]} ({values[len(values) * 9 // 10]})")
# Lines: the client counted them over the whole run, the trace counted sends over the whole run.
lines, sends = int(os.environ["LINES"]), sum(row[4] for row in rows)
sending = [row[0] for row in rows[100:] if row[4]]
quiet = [row[0] for row in rows[100:] if not row[4]]
if not sending or not quiet or not sends:
    sys.exit("no published lines to measure (or no wake-up without one)")
clients = int(os.environ["CLIENTS"])
per_send = lines * clients / sends
mean = lambda values: sum(values) / len(values)
print(f"{len(sending)} wake-ups sent lines ({lines} lines in {sends} sends over the run, {per_send:.2f} a send to each client),"
      f" {len(quiet)} did not; mean instructions {mean(sending):.0f} against {mean(quiet):.0f}:")
print(f"  instructions per published line {(mean(sending) - mean(quiet)) / per_send:.0f}"
      + (f" (sent to {clients} clients)" if clients > 1 else ""))
PYTHON
