#!/bin/bash
# test-arm64.sh - the host suites that only compute (scripts/host-tests.sh's first run: the engine,
# touch input, YAML, protocol, the actions planner, …), cross-compiled for arm64 with Debian's
# Swift (scripts/cross/) and run here under qemu-aarch64-static. No binfmt_misc is needed: the
# test bundle is started through qemu by name, with the sysroot's libraries (-L), Swift's shared
# runtime among them (a debug build links it, at the path Debian's libswiftlang installs it).
# The bundle is a debug build compiled with -O (`-Xswiftc -O`: testable, assertions off): under
# emulation -Onone code was too slow for CI (the engine group did not end in 540 s; with -O every
# group together takes ~8 min), and the arm64 real-kernel input stage boots the same bundle
# (scripts/vm/input-tests.sh --arch arm64), so CI builds it once (docs/TESTING.md, "arm64").
#
# The suites run in groups, one after another (Swift Testing starts every test of a run at once:
# in one run under emulation the property and fuzz suites held both cores while the rest
# waited). Each group prints its test count, its result and its time. Under emulation the
# property and fuzz suites draw fewer random cases (their own knobs, below: the same checks,
# fewer inputs; each prints its seed on a failure, as on amd64); the stroke measurements
# (HumanStrokeTests, StrokeSetTests) run whole. Left out: HookedFlickTests, which
# starts the arm64 `gestured` as a child process — without binfmt_misc this machine cannot run
# an arm64 program that is not started through qemu (docs/TESTING.md, "arm64").
# Exits non-zero when a test failed, a group ran no test, or a group did not end in time.
#
# usage: scripts/cross/test-arm64.sh [--build-only] [--group NAME]...   (as root)
#   --build-only   only build the bundle (.build-arm64/aarch64-unknown-linux-gnu/debug/, with -O)
#   --skip-build   run the bundle built already (as `swift test --skip-build`)
#   --group NAME   run only this group (repeatable; names as printed, e.g. engine, touch-input)
# env: GESTURED_CROSS_CACHE (see make-toolchain.sh), GESTURED_STRICT (warnings are errors);
#      GESTURED_FUZZ_ITERATIONS, GESTURED_VIEW_CASES, GESTURED_CLIENT_ISOLATION_CASES (the random
#      cases under emulation: below)
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_ONLY=0
BUILD=1
ONLY=()
while [ $# -gt 0 ]; do
    case "$1" in
    --build-only) BUILD_ONLY=1; shift ;;
    --skip-build) BUILD=0; shift ;;
    --group) ONLY+=("$2"); shift 2 ;;
    -h | --help) sed -n '2,28p' "$0"; exit 0 ;;
    *) echo "test-arm64: unknown argument $1" >&2; exit 2 ;;
    esac
done
source scripts/cross/build-flags.sh
SYSROOT=${GESTURED_CROSS_CACHE:-$HOME/.cache/gestured/cross}/sysroot
if [ "$BUILD" = 1 ]; then
    scripts/cross/make-toolchain.sh
    scripts/cross/run.sh swift build --scratch-path .build-arm64 "${CROSS_SDK[@]}" --build-tests -Xswiftc -O \
        -Xlinker -rpath -Xlinker /usr/libexec/swift/lib/swift/linux
fi
BUNDLE=.build-arm64/aarch64-unknown-linux-gnu/debug/gesturedPackageTests.xctest
file "$BUNDLE" | grep -q 'ARM aarch64' || { echo "test-arm64: $BUNDLE is not an arm64 program" >&2; exit 1; }
[ "$BUILD_ONLY" = 1 ] && exit 0

# The random cases under emulation (amd64's host run: 10 000 fuzz inputs a test, 3 000 view
# cases, 250 client-isolation cases): the bundle under qemu-aarch64 computes several times slower
# than amd64's debug build natively (docs/TESTING.md, "arm64").
export GESTURED_FUZZ_ITERATIONS=${GESTURED_FUZZ_ITERATIONS:-1000}
export GESTURED_VIEW_CASES=${GESTURED_VIEW_CASES:-300}
export GESTURED_CLIENT_ISOLATION_CASES=${GESTURED_CLIENT_ISOLATION_CASES:-50}

compute=$(scripts/host-tests.sh --print-compute)
left_out='^GestureDaemonTests\.HookedFlickTests/'
# NAME and the prefix of the test IDs it runs, of those in `compute`; what no prefix takes runs
# last, as `others` (a suite added to `compute` later is run, not lost).
groups=(
    engine '^GestureEngineTests\.(?!ViewStreamPropertyTests/)'
    engine-views '^GestureEngineTests\.ViewStreamPropertyTests/'
    touch-input '^TouchInputTests\.(?!(EvemuFuzzTests|LibinputFuzzTests)/)'
    touch-input-fuzz '^TouchInputTests\.(EvemuFuzzTests|LibinputFuzzTests)/'
    yaml-mqtt '^(YAMLCodingTests|GestureMQTTTests)\.'
    actions '^GestureActionsTests\.'
    daemon '^GestureDaemonTests\.(?!ConfigurationFuzzTests/)'
    daemon-config-fuzz '^GestureDaemonTests\.ConfigurationFuzzTests/'
    server '^GestureServerTests\.'
)
all_prefixes=
for ((i = 1; i < ${#groups[@]}; i += 2)); do all_prefixes+="${all_prefixes:+|}${groups[i]}"; done
groups+=(others "^(?!$all_prefixes)")

wanted() { [ ${#ONLY[@]} = 0 ] || [[ " ${ONLY[*]} " == *" $1 "* ]]; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "arm64 under qemu-aarch64-static: GESTURED_FUZZ_ITERATIONS=$GESTURED_FUZZ_ITERATIONS GESTURED_VIEW_CASES=$GESTURED_VIEW_CASES GESTURED_CLIENT_ISOLATION_CASES=$GESTURED_CLIENT_ISOLATION_CASES; left out: HookedFlickTests (starts an arm64 gestured)"
total=0
bad=0
start=$(date +%s)
for ((i = 0; i < ${#groups[@]}; i += 2)); do
    name=${groups[i]}
    wanted "$name" || continue
    began=$(date +%s)
    set +e
    # A generous deadline (the longest group took 204 s at load 4, 453 s at load 8–17): a group that
    # hangs fails here instead of holding CI to its limit.
    timeout -k 10 1200 qemu-aarch64-static -L "$SYSROOT" "$BUNDLE" --testing-library swift-testing \
        --filter "^(?=${groups[i + 1]})(?:$compute)" --skip "$left_out" > "$log" 2>&1
    status=$?
    set -e
    sed -i 's/\x1b\[[0-9;]*m//g' "$log"
    grep -aE 'failed after|recorded an issue|Fatal|error:' "$log" | head -n 60 || true
    summary=$(grep -aE '^. Test run with [0-9]+ tests?' "$log" | tail -n 1)
    count=$(echo "$summary" | sed -nE 's/^. Test run with ([0-9]+) tests?.*/\1/p')
    count=${count:-0}
    if [ "$name" = others ] && [ "$status" = 69 ]; then
        result="passed (none: every test is in a group)"   # 69: Swift Testing found no test
    elif [ "$status" = 0 ] && [[ "$summary" == *" passed after "* ]]; then
        result=passed
        if [ "$count" = 0 ] && [ "$name" != others ]; then result="FAILED (no test ran)"; fi
    elif [ "$status" = 124 ] || [ "$status" = 137 ]; then
        result="FAILED (no end after 1200 s)"
    else
        result="FAILED (exit status $status)"
    fi
    [[ "$result" == passed* ]] || bad=$((bad + 1))
    total=$((total + count))
    echo "arm64 group $name: $count tests $result in $(($(date +%s) - began)) s"
done
echo "arm64 under qemu-aarch64-static: $total tests in $(($(date +%s) - start)) s, $bad groups failed"
[ "$bad" = 0 ] && { [ "$total" -gt 0 ] || [ ${#ONLY[@]} -gt 0 ]; }
