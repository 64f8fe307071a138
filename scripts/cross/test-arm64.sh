#!/bin/bash
# test-arm64.sh - the host suites that only compute (scripts/host-tests.sh's first run: the engine,
# touch input, YAML, protocol, the actions planner, …), cross-compiled for arm64 with Debian's
# Swift (scripts/cross/) and run here under qemu-aarch64-static. No binfmt_misc is needed: the
# test bundle is started through qemu by name, with the sysroot's libraries (-L), Swift's shared
# runtime among them (a debug build links it, at the path Debian's libswiftlang installs it).
# Prints Swift Testing's counts; exits non-zero when a test failed or none ran.
#
# usage: scripts/cross/test-arm64.sh [--build-only] [--filter REGEX]   (as root)
#   --build-only   only build the bundle (.build-arm64/aarch64-unknown-linux-gnu/debug/)
#   --filter       the tests to run (default: the compute expression of scripts/host-tests.sh)
# env: GESTURED_CROSS_CACHE (see make-toolchain.sh), GESTURED_STRICT (warnings are errors)
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_ONLY=0
FILTER=$(scripts/host-tests.sh --print-compute)
while [ $# -gt 0 ]; do
    case "$1" in
    --build-only) BUILD_ONLY=1; shift ;;
    --filter) FILTER=$2; shift 2 ;;
    -h | --help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "test-arm64: unknown argument $1" >&2; exit 2 ;;
    esac
done
scripts/cross/make-toolchain.sh
source scripts/cross/build-flags.sh
SYSROOT=${GESTURED_CROSS_CACHE:-$HOME/.cache/gestured/cross}/sysroot
scripts/cross/run.sh swift build --scratch-path .build-arm64 "${CROSS_SDK[@]}" --build-tests \
    -Xlinker -rpath -Xlinker /usr/libexec/swift/lib/swift/linux
BUNDLE=.build-arm64/aarch64-unknown-linux-gnu/debug/gesturedPackageTests.xctest
file "$BUNDLE" | grep -q 'ARM aarch64' || { echo "test-arm64: $BUNDLE is not an arm64 program" >&2; exit 1; }
[ "$BUILD_ONLY" = 1 ] && exit 0
log=$(mktemp)
trap 'rm -rf "$log"' EXIT
set +e
qemu-aarch64-static -L "$SYSROOT" "$BUNDLE" --testing-library swift-testing --filter "$FILTER" 2>&1 | tee "$log" |
    grep -aE 'failed after|recorded an issue|Test run with|Fatal|error:'
status=${PIPESTATUS[0]}
set -e
sed -i 's/\x1b\[[0-9;]*m//g' "$log"
# One line a test function (a parameterised one's cases together), as Swift Testing reports them.
passed=$(grep -vaE '^. Test run with' "$log" | grep -caE '^. Test .* passed after' || true)
failed=$(grep -vaE '^. Test run with' "$log" | grep -caE '^. Test .* failed after' || true)
echo "arm64 under qemu-aarch64-static: $passed passed, $failed failed (exit status $status)"
[ "$status" = 0 ] && [ "$failed" = 0 ] && [ "$passed" -gt 0 ]
