#!/bin/bash
# A trial run in one command: installs the Debian packages gestured needs (asking sudo for that
# alone), builds it (the debug build: a trial needs neither the optimizer nor link-time
# optimization, and it builds in half the time; the package and install.sh keep both) and runs
# the daemon on the built-in configuration, in the foreground, logging to the terminal. With no
# touchscreen present it says so and waits for one to be plugged in. Ctrl-C stops it.
#
#   scripts/quickstart.sh [gestured run options...]     e.g. --config my.yaml
#
# Run it as yourself: the build (.build/) stays yours. As root (sudo scripts/quickstart.sh) it
# still builds as the checkout's owner and only the daemon runs as root, on
# /run/gestured/gestured.sock (the default). As another user the daemon listens on
# $XDG_RUNTIME_DIR/gestured.sock (or /tmp/gestured-$USER.sock) and can read touchscreens only if
# the user is in the `input` group. In another terminal: .build/debug/gestured listen --socket …
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/build-as-owner.sh
require_swift
scripts/setup-debian.sh
say "building gestured (the debug build; a fresh clone takes about 2 minutes)"
build_as_owner swift build --product gestured >&2
args=("$@")
if [ "$(id -u)" != 0 ] && [[ " $* " != *" --socket "* ]]; then
    socket="${XDG_RUNTIME_DIR:-/tmp}/gestured.sock"
    [ -n "${XDG_RUNTIME_DIR:-}" ] || socket="/tmp/gestured-$(id -un).sock"
    say "not root: socket $socket (reading touchscreens needs the 'input' group)"
    args+=(--socket "$socket")
fi
exec .build/debug/gestured run "${args[@]}"
