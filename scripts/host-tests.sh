#!/bin/bash
# The host tests (`swift test` of the package, built already) in two runs: first the suites that
# only compute (the engine, the parsers, the property and fuzz suites: no process, no socket),
# then the suites that start processes or open sockets and wait for what they do. Every test runs
# exactly once: the second run skips what the first one took (the same expression).
#
# Why: `swift test` runs every suite of a run at once on Swift's cooperative thread pool, one
# thread a core. On a 2-core host two CPU-bound tests hold both threads for minutes, and every
# other test of that run waits for a thread meanwhile, while the daemons, servers and timers it
# talks to run on: a server's close timeout or a child's own timeout then ran out before the test
# could act (docs/TESTING.md, "How the host suite runs").
#
# Usage: scripts/host-tests.sh [more arguments for both runs of swift test]
#        scripts/host-tests.sh --print-compute   prints the first run's expression (the arm64 suites
#                                                under qemu run the same: scripts/cross/test-arm64.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

# The suites that only compute: whole targets, and by name the suites of the other targets that
# neither start a process nor open a socket nor wait for another thread. A new suite of
# GestureActionsTests, GestureDaemonTests or GestureServerTests runs with the waiting ones unless
# it is named here: name it here when it only computes.
compute='^(GestureEngineTests|TouchInputTests|YAMLCodingTests|GestureMQTTTests)\.'
compute+='|^GestureActionsTests\.(ActionPlannerTests|ActionsLoaderTests|InputEncodingTests|PanelActionsTests)/'
compute+='|^GestureDaemonTests\.(ConfigurationFuzzTests|ConfigurationLoaderTests|ConfigurationReferenceTests'
compute+='|FingerMinimumTests|OneRuleTests|HookedFlickTests|MetricsExpositionTests|PanelConfigurationTests'
compute+='|ScreenStateTests|PanelReplayTests|RealStrokeTests|PositionAccessTests|RecordingFormatTests'
compute+='|ReplayDriverTests|ReplayExplainTests|ReplayPictureTests)/'
compute+='|^GestureServerTests\.(AudienceTests|ClientSpellingsTests|LineEncoderTests|LineFrameDecoderTests'
compute+='|LineStorageTests|LogThrottleTests|OutboundQueueTests|ProtocolTests|StrictJSONTests|WireFieldTests)/'
[ "${1:-}" = --print-compute ] && { echo "$compute"; exit 0; }

# Every program a test starts carries this run's mark in its environment (TestSupport's Spawn
# passes it on whatever environment a test gives): what is left running after the run is found by
# it, whoever its parent is by then. Not exported: this script and what it runs itself lack it.
mark=host-tests-$$-$(date +%s%N)

# The processes carrying the mark, one a line: PID and command line.
marked() {
    local environ pid
    for environ in /proc/[0-9]*/environ; do
        pid=${environ#/proc/}
        pid=${pid%/environ}
        if tr '\0' '\n' 2>/dev/null < "$environ" | grep -qxF "GESTURED_TEST_RUN=$mark"; then
            echo "$pid $(tr '\0' ' ' 2>/dev/null < "/proc/$pid/cmdline")"
        fi
    done
}

status=0
echo "== host tests, part 1: the suites that only compute"
GESTURED_TEST_RUN=$mark swift test --skip-build --filter "$compute" "$@" || status=$?
if [ "$status" -eq 0 ]; then
    echo "== host tests, part 2: the suites that start processes or open sockets"
    GESTURED_TEST_RUN=$mark swift test --skip-build --skip "$compute" "$@" || status=$?
fi

# Nothing a test started is left: the tests' fixture kills what is still running when its test
# lets go of it, and what is left when the test process exits. A program killed in the run's last
# moments may still be on its way out: wait for that, generously, before calling it left behind.
echo "== host tests: processes the tests started, still running"
for _ in $(seq 120); do
    [ -z "$(marked)" ] && break
    sleep 0.5
done
left=$(marked)
if [ -n "$left" ]; then
    echo "left running after the tests (killed now):"
    echo "$left"
    echo "$left" | while read -r pid _; do kill -KILL "$pid" 2>/dev/null || true; done
    exit 1
fi
echo "none"
exit "$status"
