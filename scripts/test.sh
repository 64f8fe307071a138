#!/bin/bash
# The tests in one command (what CI runs): installs the Debian packages the tests need, checks that
# every import is declared in Package.swift, builds with warnings as errors, runs the host tests
# (scripts/host-tests.sh: the suites that only compute, then the others), runs a newcomer's first
# fifteen minutes (scripts/newcomer.sh: the README's commands, the commonest mistakes' messages),
# compiles the benchmarks (a
# separate package, run by hand: a change that breaks them shows here), runs the browser test and
# the WebSocket conformance run (Autobahn), checks the systemd units, scrapes a replaying daemon
# with a real Prometheus (scripts/test-metrics.sh), builds the Debian package twice (byte-identical)
# and installs, upgrades, removes and purges it (as root), and runs the real-kernel suites in a qemu
# VM (or natively where /dev/uinput exists), the end-to-end one with the package's binary; then
# arm64 (docs/PACKAGING.md, "arm64"): the package cross-compiled, replay compared with amd64's byte
# for byte, the computing suites under qemu-aarch64-static, the real-kernel input suite in an
# aarch64 VM; and the signed apt repository on Debian 12 roots, with the Ansible role. Prints each
# stage's duration.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
stage() { echo "== $1 ($(( $(date +%s) - start )) s so far)"; }

stage "setup"
scripts/setup-debian.sh --test
# What the arm64 and apt stages download (~1.3 GB: Debian's Swift and arm64 packages, a Debian 12
# root, ansible-core) comes in behind the amd64 stages, each into its cache.
prefetch=$(mktemp -d)
scripts/cross/make-toolchain.sh > "$prefetch/cross.log" 2>&1 &
cross_pid=$!
scripts/test-apt-repository.sh --prepare > "$prefetch/apt.log" 2>&1 &
apt_pid=$!
# (the end: wait for one of them, print its log, fail with it)
fetched() { local status=0; wait "$1" || status=$?; cat "$prefetch/$2.log"; return $status; }
export GESTURED_STRICT=1

stage "declared edges (every import is a dependency in Package.swift)"
scripts/check-imports.sh

stage "build (warnings are errors)"
swift build --build-tests

stage "host tests"
if [ -n "${GESTURED_CORPUS:-}" ]; then
    echo "corpus tests: reading GESTURED_CORPUS=$GESTURED_CORPUS"
else
    echo "corpus tests: skipped, GESTURED_CORPUS is unset (optional: docs/INPUT.md)"
fi
scripts/host-tests.sh

stage "a newcomer's first fifteen minutes (the README's commands, the commonest mistakes' messages)"
scripts/newcomer.sh --gestured .build/debug/gestured

stage "benchmarks compile (Benchmarks/, run by hand: docs/PERFORMANCE.md)"
swift build --package-path Benchmarks

stage "browser test (headless Chromium over the WebSocket endpoint)"
scripts/browser-test.sh --gestured .build/debug/gestured

stage "WebSocket conformance (the Autobahn test suite's fuzzing client)"
scripts/websocket-conformance.sh --gestured .build/debug/gestured

stage "systemd units"
scripts/check-units.sh

stage "metrics (a real Prometheus scraping a replay, promtool)"
scripts/test-metrics.sh --gestured .build/debug/gestured

stage "MQTT (a real mosquitto with TLS, a 30 s outage, brokers that are not; docs/FLEET.md)"
scripts/test-mqtt.sh --gestured .build/debug/gestured

stage "real-kernel input suite"
scripts/vm/input-tests.sh

stage "Debian package: built twice, lintian, installed, upgraded, removed, purged (docs/PACKAGING.md)"
# One release build: the second run packages the same binary again (nothing is compiled), so the
# comparison checks the packaging; docs/PACKAGING.md says how the binary itself compares.
deb=$(scripts/package-deb.sh --output dist | tail -n 1)
again_dir=$(mktemp -d)
trap 'rm -rf "$again_dir"' EXIT
again=$(scripts/package-deb.sh --output "$again_dir" | tail -n 1)
scripts/test-package.sh "$deb" "$again"

stage "end-to-end suite (the package's binary)"
scripts/e2e.sh --deb "$deb"

stage "arm64: the cross toolchain (Debian sid's Swift 6.2.3, an arm64 sysroot of Debian 13's packages)"
fetched "$cross_pid" cross

stage "arm64: the package, cross-compiled; lintian and Depends (docs/PACKAGING.md, \"arm64\")"
deb_arm64=$(scripts/package-deb.sh --arch arm64 --output dist | tail -n 1)
scripts/test-package.sh --no-install "$deb_arm64"

stage "arm64: replay of every recording, byte-identical to amd64's (the packages' binaries)"
binaries=$(mktemp -d)
dpkg-deb -x "$deb" "$binaries/amd64"
dpkg-deb -x "$deb_arm64" "$binaries/arm64"
scripts/cross/compare-replay.sh "$binaries/amd64/usr/bin/gestured" "$binaries/arm64/usr/bin/gestured"
rm -rf "$binaries"

stage "arm64: the computing suites under qemu-aarch64-static (their test bundle, which the next stage boots too)"
scripts/cross/test-arm64.sh

stage "arm64: real-kernel input suite, the arm64 build in an aarch64 VM (Debian 13's arm64 kernel)"
scripts/vm/input-tests.sh --arch arm64

stage "apt repository: signed, installed, upgraded, another key refused; the Ansible role (Debian 12 roots)"
fetched "$apt_pid" apt
scripts/test-apt-repository.sh "$deb" "$deb_arm64"
rm -rf "$prefetch"

echo "== all tests passed in $(( $(date +%s) - start )) s"
