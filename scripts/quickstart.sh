#!/bin/bash
# The main job in one command: installs the Debian packages gestured needs, builds it (release)
# and runs the daemon on the built-in configuration, in the foreground, logging to the terminal.
# With no touchscreen present it says so and waits for one to be plugged in. Ctrl-C stops it.
#
#   scripts/quickstart.sh [gestured run options...]     e.g. --config my.yaml
#
# As root it listens on /run/gestured/gestured.sock (the default). As another user it listens on
# $XDG_RUNTIME_DIR/gestured.sock (or /tmp/gestured-$USER.sock) and can read touchscreens only if
# the user is in the `input` group. In another terminal: .build/release/gestured listen --socket …
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-debian.sh
echo "quickstart: building gestured (release; the first build takes a few minutes)" >&2
swift build -c release --experimental-lto-mode=full --product gestured >&2
args=("$@")
if [ "$(id -u)" != 0 ] && [[ " $* " != *" --socket "* ]]; then
    socket="${XDG_RUNTIME_DIR:-/tmp}/gestured.sock"
    [ -n "${XDG_RUNTIME_DIR:-}" ] || socket="/tmp/gestured-$(id -un).sock"
    echo "quickstart: not root: socket $socket (reading touchscreens needs the 'input' group)" >&2
    args+=(--socket "$socket")
fi
exec .build/release/gestured run "${args[@]}"
