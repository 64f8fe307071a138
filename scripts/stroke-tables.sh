#!/bin/bash
# stroke-tables.sh - measures the shape and circle tables of docs/RECOGNIZERS.md again and writes
# them there: people's circles per person and speed, what each circle limit trades, people's
# strokes against one template per gesture beside a plain $1 (HumanStrokeTests), and the circle
# on the generated stroke set (StrokeSetTests). Review the diff: the tables are what the code does
# now. `swift test` checks every table but the trades (which take minutes) against the code.
#
# usage: scripts/stroke-tables.sh
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests
GESTURED_UPDATE_DOCS=1 swift test --skip-build --filter 'HumanStrokeTests|StrokeSetTests'
git --no-pager diff --stat -- docs/RECOGNIZERS.md
