#!/bin/sh
# Instructions per engine frame (callgrind), and a digest of everything the engine emitted, for
# the frame cycles of EngineBenchmarks. Usage: Benchmarks/Profiling/engine-callgrind.sh [REPO]
# (default: this repository). Compiles the engine as its own module the way a release build does
# (-O, whole module; build-driver.sh), links FrameDriver.swift (with the benchmarks' FrameCycle.swift) to it, then for 1, 2 and 10 fingers counts the
# instructions of 12 200 frames (100 cycles) after 2 000 warm-up frames, minus a run with none;
# then the same with explanations on, and with moving touches not reported to the views (quiet).
# The counts include the driver's share (clearing the caller's event buffer, class accesses).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=${1:-$here/../..}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cd "$out"
sh "$here/build-driver.sh" "$repo" FrameDriver.swift
instructions() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null ./driver "$@" 2>&1 >/dev/null \
        | sed -n 's/.*refs: *//p' | tr -d ,
}
for fingers in 1 2 10; do
    base=$(instructions "$fingers" 0)
    total=$(instructions "$fingers" 12200)
    echo "$fingers finger(s): $(((total - base) / 12200)) instructions per frame; digest $(./driver "$fingers" 24400 digest)"
done
# The same with explanations on (GestureEngine.explains), as while a client subscribes to them.
for fingers in 1 2 10; do
    base=$(instructions "$fingers" 0 explain)
    total=$(instructions "$fingers" 12200 explain)
    echo "$fingers finger(s), explaining: $(((total - base) / 12200)) instructions per frame; events and digest $(./driver "$fingers" 24400 digest explain)"
done
# The same with reportsTouchMoves off (GestureEngine.reportsTouchMoves), as in the daemon while no
# client takes raw touches: the quiet frame.
for fingers in 1 2 10; do
    base=$(instructions "$fingers" 0 quiet)
    total=$(instructions "$fingers" 12200 quiet)
    echo "$fingers finger(s), quiet: $(((total - base) / 12200)) instructions per frame; events and digest $(./driver "$fingers" 24400 digest quiet)"
done
