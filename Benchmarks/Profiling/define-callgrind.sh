#!/bin/sh
# Instructions of a client's `define` (callgrind) against the client recognizers already running,
# split into its two parts: making the new definition set (validate and compile; the daemon does
# this on its compiler thread) and installing it (carrying the device's state over; on the input
# thread, between two frames). Also the instructions per 1-touch frame with no client recognizers
# and with the most clients may define (256). Usage: Benchmarks/Profiling/define-callgrind.sh
# [REPO] (default: this repository). Builds the engine as engine-callgrind.sh does (build-driver.sh).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=${1:-$here/../..}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cd "$out"
sh "$here/build-driver.sh" "$repo" DefineDriver.swift
# Instructions inside functions whose mangled name contains $1 (all of them for "all").
instructions() {
    part=$1
    shift
    if [ "$part" = all ]; then set -- "$@"; else set -- --toggle-collect="*$part*" "$@"; fi
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null | sed -n 's/.*refs: *//p' | tr -d ,
}
defines=4
echo "client recognizers running | make the set (compiler thread) | install it (input thread) | per define"
for others in 0 64 128 192; do
    make=$(instructions makeSet ./driver define "$others" "$defines")
    install=$(instructions installSet ./driver define "$others" "$defines")
    echo "$others | $((make / defines)) | $((install / defines)) | $(((make + install) / defines))"
done
for others in 0 256; do
    base=$(instructions all ./driver frames "$others" 0)
    total=$(instructions all ./driver frames "$others" 12200)
    echo "1-touch frame with $others client recognizers: $(((total - base) / 12200)) instructions"
done
