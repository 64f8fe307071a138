#!/bin/bash
# compare-replay.sh - `gestured replay --touches --explain` of every recording in the repository
# (examples/ and Tests/**/Fixtures: evemu and `libinput record` files, xz-compressed or not, found
# by their first line) with an amd64 binary here and an arm64 one under qemu-aarch64-static, and
# the two outputs compared byte for byte, exit status and standard error included. Prints each
# difference and "N files, M differences"; exits non-zero on any difference or when it found no
# recording. The comparison is exact on purpose: the engine's arithmetic must agree across
# architectures (docs/PACKAGING.md, "arm64").
#
# usage: scripts/cross/compare-replay.sh AMD64_GESTURED ARM64_GESTURED
# env: GESTURED_CROSS_CACHE (the arm64 sysroot's libraries: see make-toolchain.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# = 2 ] || { sed -n '2,11p' "$0"; exit 2; }
amd64=$(realpath "$1")
arm64=$(realpath "$2")
SYSROOT=${GESTURED_CROSS_CACHE:-$HOME/.cache/gestured/cross}/sysroot
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
replay() {  # replay OUT COMMAND... : stdout, stderr and the exit status, in one file
    local out=$1; shift
    set +e
    "$@" replay --touches --explain "$work/in" > "$out" 2>&1
    echo "exit status $?" >> "$out"
    set -e
}
files=0
differences=0
while IFS= read -r file; do
    case "$file" in
    *.xz) xz -dc "$file" > "$work/in" ;;
    *) cp "$file" "$work/in" ;;
    esac
    head -n 1 "$work/in" | grep -qE '^# (EVEMU|libinput record)' || continue
    files=$((files + 1))
    replay "$work/amd64" "$amd64"
    replay "$work/arm64" qemu-aarch64-static -L "$SYSROOT" "$arm64"
    if cmp -s "$work/amd64" "$work/arm64"; then
        echo "same: $file ($(wc -l < "$work/amd64") lines)"
    else
        differences=$((differences + 1))
        echo "DIFFERENT: $file"
        diff "$work/amd64" "$work/arm64" | head -n 20 || true
    fi
done < <(find examples Tests -type f -path 'Tests/*/Fixtures/*' -o -type f -path 'examples/*' | LC_ALL=C sort)
echo "replay on arm64 against amd64: $files files, $differences differences"
[ "$files" -gt 0 ] && [ "$differences" = 0 ]
