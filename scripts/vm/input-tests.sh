#!/bin/bash
# input-tests.sh - the real-kernel input tests (Tests/TouchInputTests/LiveDeviceTests.swift) in a
# qemu VM, booted twice: with udevd (discovery through udev) and without (discovery by
# capabilities and raw kernel uevents), plus checks of `gestured devices` and `gestured simulate`
# (scripts/vm/guest-input-tests.sh). Prints each boot's result and a final "N passed, M failed"
# line; exits non-zero when anything failed.
#
# usage: scripts/vm/input-tests.sh [--arch arm64] [--filter REGEX] [--verbose]
#   --arch arm64    the arm64 build (scripts/cross/test-arm64.sh --build-only, as root) in an
#                   aarch64 guest (run-vm-test.sh --arch arm64: Debian 13's arm64 kernel)
#   --filter REGEX  tests to run (default: LiveDeviceTests)
#   --verbose       print the whole guest console, not only failures
# env: SWIFT_BUILD_FLAGS (extra flags for `swift build`), VMTEST_CACHE (see run-vm-test.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
FILTER=LiveDeviceTests
VERBOSE=0
ARCH=
while [ $# -gt 0 ]; do
  case "$1" in
    --filter) FILTER=$2; shift 2;;
    --verbose) VERBOSE=1; shift;;
    --arch) ARCH=$2; shift 2;;
    -h|--help) sed -n '2,13p' "$0"; exit 0;;
    *) echo "unknown argument $1" >&2; exit 2;;
  esac
done

STRIP=strip
VM_ARCH=()
if [ "$ARCH" = arm64 ]; then
  scripts/cross/test-arm64.sh --build-only
  BIN=.build-arm64/aarch64-unknown-linux-gnu/debug
  STRIP=aarch64-linux-gnu-strip
  VM_ARCH=(--arch arm64)
else
  # shellcheck disable=SC2086 # SWIFT_BUILD_FLAGS is a list of flags
  swift build --build-tests ${SWIFT_BUILD_FLAGS:-}
  # shellcheck disable=SC2086
  BIN=$(swift build --show-bin-path ${SWIFT_BUILD_FLAGS:-})
fi
STAGE=$(mktemp -d /tmp/gestured-input-tests.XXXXXX)
trap 'rm -rf "$STAGE"' EXIT
mkdir "$STAGE/test"
# Debug info is most of the bundle; the guest does not need it and a smaller initramfs boots faster.
"$STRIP" --strip-debug -o "$STAGE/test/gesturedPackageTests.xctest" "$BIN/gesturedPackageTests.xctest"
"$STRIP" --strip-debug -o "$STAGE/test/gestured" "$BIN/gestured"
cp scripts/vm/guest-input-tests.sh Tests/TouchInputTests/Fixtures/{wetab,ntrig-dell-xt2}.event "$STAGE/test/"

total_passed=0
total_failed=0
start=$(date +%s)
for boot in udev capabilities; do
  options=(--timeout 900 "${VM_ARCH[@]}")
  [ "$boot" = udev ] && options+=(--udev)
  log="$STAGE/$boot.log"
  set +e
  scripts/vm/run-vm-test.sh "${options[@]}" "$STAGE/test" -- \
    env GESTURED_VM_DISCOVERY=$boot sh ./guest-input-tests.sh "$FILTER" \
    > "$log" 2>&1
  rc=$?
  set -e
  sed -i 's/\x1b\[[0-9;]*m//g' "$log"
  passed=$(grep -cE '^. Test ".*" (with [0-9]+ test cases? )?passed after' "$log" || true)
  failed=$(grep -cE '^. Test ".*" (with [0-9]+ test cases? )?failed after' "$log" || true)
  if [ "$VERBOSE" = 1 ]; then cat "$log"; fi
  if [ "$rc" != 0 ] || [ "$failed" != 0 ]; then
    [ "$VERBOSE" = 1 ] || grep -E 'recorded an issue|failed after|Fatal|crash|VMTEST|run-vm-test' "$log" | head -80
    # A crash, a timeout or a dead guest counts as a failure even if no test said so.
    [ "$failed" = 0 ] && failed=1
  fi
  [ "$passed" = 0 ] && [ "$failed" = 0 ] && failed=1   # nothing ran: the filter matched no test
  echo "$boot boot: $passed passed, $failed failed (guest exit status $rc)"
  total_passed=$((total_passed + passed))
  total_failed=$((total_failed + failed))
done
echo "VM input tests took $(( $(date +%s) - start )) s"
echo "$total_passed passed, $total_failed failed"
[ "$total_failed" = 0 ]
