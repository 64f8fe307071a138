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
compute+='|ScreenStateTests|PanelReplayTests|RealStrokeTests|RecordPermissionTests|RecordingFormatTests'
compute+='|ReplayDriverTests|ReplayExplainTests|ReplayPictureTests)/'
compute+='|^GestureServerTests\.(AudienceTests|ClientSpellingsTests|LineEncoderTests|LineFrameDecoderTests'
compute+='|LineStorageTests|LogThrottleTests|OutboundQueueTests|ProtocolTests|StrictJSONTests|WireFieldTests)/'

echo "== host tests, part 1: the suites that only compute"
swift test --skip-build --filter "$compute" "$@"
echo "== host tests, part 2: the suites that start processes or open sockets"
swift test --skip-build --skip "$compute" "$@"
