#!/bin/bash
# Regenerates Sources/gestured/link.order, the order in which the release link places our static
# binary's functions (lld's --symbol-ordering-file, Package.swift); the rest follow as they come.
#
# First the frame path: the functions a steady-state wake-up runs — `gestured run --replay` of the
# peer bench's stream (scripts/peer/gen_evemu.py) with a client taking swipes and pans (a line
# every few frames, so the publishing path is placed too), counted by callgrind after a warm-up:
# every function called at least once per hundred frames — and the live source's own
# (`LiveFrameSource`'s read, the loop's wait), which a replay does not run. Side by side they take
# ~50 pages where they were spread over ~110: a guest under TCG pays for every code page a
# wake-up first reaches (docs/PERFORMANCE.md, "The frame path's pages").
# Then start-up: the functions the daemon runs from exec to READY with a configuration loaded, in
# the order callgrind lists them, so start-up faults in a few hundred KB of text instead of
# touching 64 KB windows all over 12 MB of it (idle RSS: docs/PERFORMANCE.md, "Footprint").
#
# A stale file costs speed and memory, never correctness: renamed functions are simply not placed.
# Rerun it when the frame path or the start-up path changes much (link-time optimization inlines
# and renames). Needs valgrind (apt-get install valgrind).
#
#   scripts/link-order.sh [CONFIG]      default: examples/gestured.yaml without its socket group
set -euo pipefail
cd "$(dirname "$0")/.."
config="${1:-}"
work=$(mktemp -d)
daemon=
client=
trap 'kill $daemon $client 2>/dev/null || true; rm -rf "$work"' EXIT
if [ -z "$config" ]; then
    # The example names a socket group the build machine may not have.
    grep -v '^\s*group:' examples/gestured.yaml > "$work/gestured.yaml"
    config="$work/gestured.yaml"
fi
source scripts/shipped-build.sh
swift build "${SHIPPED_BUILD[@]}" --product gestured >&2
# Valgrind cannot read the Swift DWARF; the symbol table is all it needs.
strip --strip-debug -o "$work/gestured" .build/release/gestured

# waitfor SOCKET: until the daemon under valgrind has made its socket.
waitfor() {
    for _ in $(seq 600); do
        [ -S "$1" ] && return
        kill -0 "$daemon" 2>/dev/null || { cat "$work/valgrind.log" >&2; exit 1; }
        sleep 0.1
    done
    echo "link-order: the daemon did not come up under valgrind" >&2
    exit 1
}

# The frame path: 20 s (~2 400 frames) counted after a warm-up; the stream (67 s) is longer than
# both, so no pass boundary is counted.
python3 scripts/peer/gen_evemu.py 8000 > "$work/bench.evemu"
valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/frames.out" \
    "$work/gestured" run --socket "$work/f.sock" --replay "$work/bench.evemu" 2>"$work/valgrind.log" &
daemon=$!
waitfor "$work/f.sock"
"$work/gestured" listen --socket "$work/f.sock" --kind swipe --kind pan > "$work/lines" &
client=$!
# Counted from a few seconds after the client's hello: its connection and subscription (Foundation's
# encoder, the runtime's type lookups) are not the frame path.
for _ in $(seq 600); do [ -s "$work/lines" ] && break; sleep 0.1; done
sleep 4
callgrind_control --zero "$daemon" > /dev/null
sleep 20
# Not the shutdown either.
callgrind_control --instr=off "$daemon" > /dev/null
kill -TERM "$daemon"
wait "$daemon" || true
kill "$client" 2>/dev/null || true

valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/startup.out" \
    "$work/gestured" run --socket "$work/g.sock" --config "$config" 2>"$work/valgrind.log" &
daemon=$!
waitfor "$work/g.sock"
sleep 1
kill -TERM "$daemon"
wait "$daemon" || true

nm --defined-only "$work/gestured" | awk '$2 ~ /^[tTwW]$/ { print $3 }' > "$work/symbols"
python3 - "$work/frames.out" "$work/startup.out" "$work/symbols" > Sources/gestured/link.order <<'EOF'
import collections, re, sys

def functions_of(path):
    """The functions of our binary in callgrind's listing order, and the calls into each function
    (by name: the symbol table below keeps ours)."""
    objects, names, calls, order = {}, {}, collections.Counter(), []
    current = callee = None
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        m = re.match(r"(c?ob)=\((\d+)\)(?: (.*))?$", line)
        if m:
            if m.group(3):
                objects[m.group(2)] = m.group(3)
            if m.group(1) == "ob":
                current = objects.get(m.group(2))
            continue
        m = re.match(r"(c?fn)=\((\d+)\)(?: (.*))?$", line)
        if m:
            if m.group(3):
                names[m.group(2)] = re.sub(r"'\d+$", "", m.group(3))  # callgrind's recursion marks
            name = names[m.group(2)]
            if m.group(1) == "cfn":
                callee = name
            elif current and current.endswith("/gestured") and name not in order:
                order.append(name)
            continue
        m = re.match(r"calls=(\d+)", line)
        if m:
            calls[callee] += int(m.group(1))
    return order, calls

symbols = set(open(sys.argv[3]).read().split())
frame_order, frame_calls = functions_of(sys.argv[1])
frames = max(n for f, n in frame_calls.items() if "RecordingFrameSourceC4tick" in f and "TW" not in f)
# The live source's wake-up, which the replay does not run.
live = [s for s in sorted(symbols) if re.search(
    r"^\$s13GestureDaemon15LiveFrameSourceC(6handle|4read|AA0dE0A2aDP(6handle|10nextWakeUp|4tick))", s)]
live += ["$s13GestureDaemon9InputLoopC3runyyF", "gestured_epoll_wait", "gestured_monotonic_us"]
# The most called first: what every frame runs packed together, then what some frames add.
hot = sorted((f for f in frame_order if frame_calls[f] * 100 >= frames), key=lambda f: -frame_calls[f])
startup, _ = functions_of(sys.argv[2])
seen = set()
for name in live + hot + startup:
    if name in symbols and name not in seen and not name.startswith("0x"):
        seen.add(name)
        print(name)
print(f"link-order: {frames} frames counted, {len(live)} live-path and {len(hot)} frame-path functions first",
      file=sys.stderr)
EOF
echo "link-order: $(wc -l < Sources/gestured/link.order) functions in Sources/gestured/link.order" >&2
# SwiftPM does not relink when only the order file changes.
echo "link-order: relink with: rm .build/release/gestured && swift build ${SHIPPED_BUILD[*]} --product gestured" >&2
