#!/bin/bash
# Regenerates Sources/gestured/startup.order: the functions of our static binary that the daemon
# runs from exec to READY with a configuration loaded, in the order callgrind lists them. Release
# links on Linux pass it to lld (--symbol-ordering-file, Package.swift), which places those
# functions side by side, so start-up faults in a few hundred KB of text instead of touching
# 64 KB windows all over 12 MB of it (idle RSS: docs/PERFORMANCE.md, "Footprint").
#
# A stale file costs memory, never correctness: renamed functions are simply not placed. Rerun it
# when the start-up path changes much (new dependencies, a different configuration loader).
# Needs valgrind (apt-get install valgrind).
#
#   scripts/startup-order.sh [CONFIG]      default: examples/gestured.yaml without its socket group
set -euo pipefail
cd "$(dirname "$0")/.."
config="${1:-}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -z "$config" ]; then
    # The example names a socket group the build machine may not have.
    grep -v '^\s*group:' examples/gestured.yaml > "$work/gestured.yaml"
    config="$work/gestured.yaml"
fi
source scripts/shipped-build.sh
swift build "${SHIPPED_BUILD[@]}" --product gestured >&2
# Valgrind cannot read the Swift DWARF; the symbol table is all it needs.
strip --strip-debug -o "$work/gestured" .build/release/gestured
valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/callgrind.out" \
    "$work/gestured" run --socket "$work/g.sock" --config "$config" 2>"$work/valgrind.log" &
daemon=$!
for _ in $(seq 600); do
    [ -S "$work/g.sock" ] && break
    kill -0 "$daemon" 2>/dev/null || { cat "$work/valgrind.log" >&2; exit 1; }
    sleep 0.1
done
[ -S "$work/g.sock" ] || { echo "startup-order: the daemon did not come up under valgrind" >&2; exit 1; }
sleep 1
kill -TERM "$daemon"
wait "$daemon" || true
python3 - "$work/callgrind.out" > Sources/gestured/startup.order <<'EOF'
import re, sys
objects, functions = {}, {}
current = None
seen = set()
for line in open(sys.argv[1], errors="replace"):
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
            functions[m.group(2)] = m.group(3)
        if m.group(1) == "fn" and current and current.endswith("/gestured"):
            name = re.sub(r"'\d+$", "", functions[m.group(2)])  # callgrind's recursion marks
            if name not in seen and not name.startswith("0x"):
                seen.add(name)
                print(name)
EOF
echo "startup-order: $(wc -l < Sources/gestured/startup.order) functions in Sources/gestured/startup.order" >&2
# SwiftPM does not relink when only the order file changes.
echo "startup-order: relink with: rm .build/release/gestured && swift build ${SHIPPED_BUILD[*]} --product gestured" >&2
