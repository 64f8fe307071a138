#!/bin/bash
# Checks the systemd units: `systemd-analyze verify` must print nothing on stderr (it reports
# unknown keys as warnings and still exits 0) and `systemd-analyze security --offline=yes` must
# rate the service at most 1.5 (it is 1.0) — and with the WebSocket drop-in
# (systemd/gestured-websocket.conf) at most 1.3, what AF_INET/AF_INET6 and a loopback allow-list
# cost (docs/DEPLOYMENT.md, "The WebSocket endpoint"). The binary need not be installed: ExecStart is pointed at /bin/true in a
# temporary copy; the drop-in is checked merged into a copy of the service (`--offline` reads no
# drop-in directories).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for unit in systemd/gestured.service systemd/gestured.socket; do
    sed 's#^ExecStart=/usr/local/bin/gestured #ExecStart=/bin/true #' "$unit" > "$work/$(basename "$unit")"
done
if ! systemd-analyze verify "$work/gestured.service" "$work/gestured.socket" 2> "$work/verify.err" || [ -s "$work/verify.err" ]; then
    echo "check-units: systemd-analyze verify complained:" >&2
    cat "$work/verify.err" >&2
    exit 1
fi
exposure() { systemd-analyze security --offline=yes "$1" 2>&1 | awk '/Overall exposure level/ {print $(NF-2)}'; }
score=$(exposure "$work/gestured.service")
if [ -z "$score" ] || awk -v s="$score" 'BEGIN { exit !(s > 1.5) }'; then
    echo "check-units: exposure level '$score' (must be at most 1.5)" >&2
    exit 1
fi
mkdir "$work/websocket"
cat "$work/gestured.service" systemd/gestured-websocket.conf > "$work/websocket/gestured.service"
cp "$work/gestured.socket" "$work/websocket/"
if ! systemd-analyze verify "$work/websocket/gestured.service" 2> "$work/verify.err" || [ -s "$work/verify.err" ]; then
    echo "check-units: systemd-analyze verify complained about the service with the WebSocket drop-in:" >&2
    cat "$work/verify.err" >&2
    exit 1
fi
websocket_score=$(exposure "$work/websocket/gestured.service")
if [ -z "$websocket_score" ] || awk -v s="$websocket_score" 'BEGIN { exit !(s > 1.3) }'; then
    echo "check-units: exposure level with the WebSocket drop-in '$websocket_score' (must be at most 1.3)" >&2
    exit 1
fi
echo "check-units: verify clean, exposure level $score ($websocket_score with the WebSocket drop-in)"
