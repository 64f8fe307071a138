#!/bin/bash
# The tests in one command (what CI runs): installs the Debian packages the tests need, builds
# with warnings as errors, runs the host tests, compiles the benchmarks (a separate package, run
# by hand: a change that breaks them shows here), runs the browser test, checks the systemd units,
# and runs the real-kernel suites in a qemu VM (or natively where /dev/uinput exists). Prints each
# stage's duration.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
stage() { echo "== $1 ($(( $(date +%s) - start )) s so far)"; }

stage "setup"
scripts/setup-debian.sh --test
export GESTURED_STRICT=1

stage "build (warnings are errors)"
swift build --build-tests

stage "host tests"
if [ -n "${GESTURED_CORPUS:-}" ]; then
    echo "corpus tests: reading GESTURED_CORPUS=$GESTURED_CORPUS"
else
    echo "corpus tests: skipped, GESTURED_CORPUS is unset (optional: docs/INPUT.md)"
fi
swift test --skip-build

stage "benchmarks compile (Benchmarks/, run by hand: docs/PERFORMANCE.md)"
swift build --package-path Benchmarks

stage "browser test (headless Chromium over the WebSocket endpoint)"
scripts/browser-test.sh --gestured .build/debug/gestured

stage "systemd units"
scripts/check-units.sh

stage "real-kernel input suite"
scripts/vm/input-tests.sh

stage "end-to-end suite"
scripts/e2e.sh

echo "== all tests passed in $(( $(date +%s) - start )) s"
