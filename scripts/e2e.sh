#!/bin/bash
# e2e.sh - the end-to-end suite (Tests/EndToEndTests): the real gestured daemon, real uinput
# touchscreens made by `gestured simulate`, udev, hotplug and socket clients, on a real kernel.
#
# Where /dev/uinput is writable (a kiosk, a laptop; run as root) the suite runs natively. Where it
# is not (these CI machines), it runs in a qemu VM booting Debian's kernel (scripts/vm/), booted
# twice: with udevd for the whole suite, and without udevd for the discovery and hotplug cases
# (the daemon's fallback: evdev capabilities and raw kernel uevents). Ends with the line
# "N passed, M failed" and the durations; exits non-zero when anything failed.
#
# The daemon under test is the one the Debian package ships: /usr/bin/gestured taken out of the
# .deb with `dpkg-deb -x` (scripts/package-deb.sh builds it, or --deb names one already built);
# the test bundle is the debug build of `swift build --build-tests`.
#
# usage: scripts/e2e.sh [--filter REGEX] [--vm] [--deb FILE | --debug-daemon] [--verbose]
#   --filter REGEX  cases of Tests/EndToEndTests to run in the udev boot (default: the whole
#                   suite), matched within that target only (`Actions` takes the end-to-end
#                   actions cases, not the host suite's ActionsCommandTests); the second boot
#                   runs the fallback cases that also match it
#   --vm            use the VM even where /dev/uinput is writable
#   --deb FILE      test the binary of this package (scripts/test.sh passes the one it built)
#   --debug-daemon  test the debug build of gestured (no package, no release build; for iterating)
#   --verbose       print the whole guest console / test output, not only failures
# env: SWIFT_BUILD_FLAGS (extra flags for the tests' `swift build`), VMTEST_CACHE (see scripts/vm/README.md)
set -euo pipefail
cd "$(dirname "$0")/.."
FILTER=EndToEndTests
FALLBACK='EndToEndTests\.EndToEndTests/Discovery/'
USE_VM=auto
VERBOSE=0
PACKAGED=1
DEB=
while [ $# -gt 0 ]; do
  case "$1" in
    --filter) FILTER="EndToEndTests\\..*($2)"; shift 2;;
    --vm) USE_VM=1; shift;;
    --deb) DEB=$2; shift 2;;
    --debug-daemon) PACKAGED=0; shift;;
    --verbose) VERBOSE=1; shift;;
    -h|--help) sed -n '2,24p' "$0"; exit 0;;
    *) echo "unknown argument $1" >&2; exit 2;;
  esac
done
if [ "$USE_VM" = auto ]; then
  if [ -w /dev/uinput ] && [ "$(id -u)" = 0 ]; then USE_VM=0; else USE_VM=1; fi
fi

start=$(date +%s)
# Packages: libevdev/libudev/mtdev to build; qemu, busybox-static, cpio for the VM.
scripts/setup-debian.sh --test

# shellcheck disable=SC2086 # SWIFT_BUILD_FLAGS is a list of flags
swift build --build-tests ${SWIFT_BUILD_FLAGS:-}
# shellcheck disable=SC2086
BIN=$(swift build --show-bin-path ${SWIFT_BUILD_FLAGS:-})
DAEMON=$BIN/gestured
STAGE=$(mktemp -d /tmp/gestured-e2e.XXXXXX)
trap 'rm -rf "$STAGE"' EXIT
if [ "$PACKAGED" = 1 ]; then
  if [ -z "$DEB" ]; then
    DEB=$(scripts/package-deb.sh | tail -n 1)
  fi
  dpkg-deb -x "$DEB" "$STAGE/package"
  DAEMON=$STAGE/package/usr/bin/gestured
  echo "e2e: the daemon under test is /usr/bin/gestured of $DEB ($("$DAEMON" --version))"
fi
built=$(date +%s)
echo "e2e: build took $((built - start)) s"

# Lines in swift-testing's format, one per test function (parameterised ones count once).
count() { grep -cE "^. Test \".*\" (with [0-9]+ test cases? )?$1 after" "$2" || true; }

total_passed=0
total_failed=0
# Every run's full output is kept in .e2e-out/ (git-ignored) for a look after a failure.
rm -rf .e2e-out && mkdir -p .e2e-out
report() {  # report NAME LOG STATUS
  local passed failed
  sed -i 's/\x1b\[[0-9;]*m//g' "$2"
  cp "$2" ".e2e-out/$(basename "$2")"
  passed=$(count passed "$2")
  failed=$(count failed "$2")
  if [ "$VERBOSE" = 1 ]; then cat "$2"; fi
  if [ "$3" != 0 ] || [ "$failed" != 0 ]; then
    [ "$VERBOSE" = 1 ] || grep -aE 'recorded an issue|failed after|Fatal|crash|VMTEST|run-vm-test|timed out' "$2" | head -100
    # A crash, a timeout or a dead guest counts as a failure even if no test said so.
    [ "$failed" = 0 ] && failed=1
  fi
  [ "$passed" = 0 ] && [ "$failed" = 0 ] && failed=1   # nothing ran: the filter matched no case
  echo "e2e: $1: $passed passed, $failed failed (exit status $3)"
  total_passed=$((total_passed + passed))
  total_failed=$((total_failed + failed))
}

if [ "$USE_VM" = 0 ]; then
  log=$STAGE/native.log
  set +e
  GESTURED_BIN=$DAEMON "$BIN/gesturedPackageTests.xctest" --testing-library swift-testing --filter "$FILTER" \
    > "$log" 2>&1
  rc=$?
  set -e
  report native "$log" "$rc"
else
  mkdir "$STAGE/test"
  # Debug info is most of the bundle; a smaller initramfs boots faster. The packaged daemon is
  # stripped already and goes in as it ships.
  strip --strip-debug -o "$STAGE/test/gesturedPackageTests.xctest" "$BIN/gesturedPackageTests.xctest"
  if [ "$PACKAGED" = 1 ]; then
    cp "$DAEMON" "$STAGE/test/gestured"
  else
    strip --strip-debug -o "$STAGE/test/gestured" "$DAEMON"
  fi
  cp scripts/vm/guest-e2e-tests.sh "$STAGE/test/"
  # Passthrough cases (Tests/EndToEndTests/PassthroughTests.swift): libinput reads the mirror device
  # as a compositor would; record cases (RecordTests.swift): `libinput record` and evemu-record
  # record a panel. The tools, libinput's helpers and its quirks files go to the same paths in the
  # guest (their libraries follow through ldd); without them those cases are skipped.
  LIBINPUT=()
  for f in /usr/bin/libinput /usr/libexec/libinput /usr/share/libinput /usr/bin/evemu-record; do
    if [ -e "$f" ]; then LIBINPUT+=(--extra "$f"); fi
  done
  for boot in udev capabilities; do
    filter=$FILTER
    options=(--timeout 1500 "${LIBINPUT[@]}")
    if [ "$boot" = udev ]; then
      options+=(--udev)
    else
      # Only the fallback's cases, and only if the udev boot was asked for them.
      if ! printf '%s\n' "EndToEndTests.EndToEndTests/Discovery/" | grep -qE "$FILTER"; then continue; fi
      filter=$FALLBACK
    fi
    boot_start=$(date +%s)
    set +e
    scripts/vm/run-vm-test.sh "${options[@]}" "$STAGE/test" -- \
      env GESTURED_VM_DISCOVERY=$boot sh ./guest-e2e-tests.sh "$filter" > "$STAGE/$boot.log" 2>&1
    rc=$?
    set -e
    report "$boot boot ($(($(date +%s) - boot_start)) s)" "$STAGE/$boot.log" "$rc"
  done
fi
end=$(date +%s)
echo "e2e: took $((end - start)) s (build $((built - start)) s, tests $((end - built)) s)"
echo "$total_passed passed, $total_failed failed"
[ "$total_failed" = 0 ]
