#!/bin/bash
# Checks the systemd units: `systemd-analyze verify` of gestured.service, gestured.socket and
# gestured-websocket.socket together must print nothing on stderr (it reports unknown keys as
# warnings and still exits 0), and `systemd-analyze security --offline=yes` must rate the service
# at most 1.0 — with the WebSocket endpoint on as well: gestured-websocket.socket hands the daemon
# its TCP socket, so the service itself may open no IP socket (RestrictAddressFamilies= without
# AF_INET/AF_INET6, IPAddressDeny=any), which the analysis must confirm (docs/DEPLOYMENT.md, "The
# WebSocket endpoint"). The binary need not be installed: ExecStart is pointed at /bin/true in a
# temporary copy.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
units=(gestured.service gestured.socket gestured-websocket.socket)
for unit in "${units[@]}"; do
    sed 's#^ExecStart=/usr/local/bin/gestured #ExecStart=/bin/true #' "systemd/$unit" > "$work/$unit"
done
if ! systemd-analyze verify "${units[@]/#/$work/}" 2> "$work/verify.err" || [ -s "$work/verify.err" ]; then
    echo "check-units: systemd-analyze verify complained:" >&2
    cat "$work/verify.err" >&2
    exit 1
fi
systemd-analyze security --offline=yes "$work/gestured.service" > "$work/security" 2>&1 || true
score=$(awk '/Overall exposure level/ {print $(NF-2)}' "$work/security")
if [ -z "$score" ] || awk -v s="$score" 'BEGIN { exit !(s > 1.0) }'; then
    echo "check-units: exposure level '$score' (must be at most 1.0)" >&2
    exit 1
fi
for denied in 'RestrictAddressFamilies=~AF_(INET|INET6)' 'IPAddressDeny='; do
    if ! grep -qF "✓ $denied " "$work/security"; then
        echo "check-units: the service may use IP itself ($denied is not ✓):" >&2
        grep -F "$denied" "$work/security" >&2 || true
        exit 1
    fi
done
# The endpoint's socket: loopback only, by its own IP filter (the service's does not apply to
# sockets passed in), and the name the daemon looks for.
for setting in FileDescriptorName=websocket Service=gestured.service IPAddressDeny=any IPAddressAllow=localhost; do
    if ! grep -qx "$setting" systemd/gestured-websocket.socket; then
        echo "check-units: systemd/gestured-websocket.socket lacks $setting" >&2
        exit 1
    fi
done
echo "check-units: verify clean, exposure level $score (the WebSocket endpoint's socket comes from gestured-websocket.socket)"

# The actions client (docs/ACTIONS.md): the system template for one user (an instance of it, with
# the units it names) and the user unit (in a user manager's terms, which needs a runtime
# directory). Its commands are the integrator's, so it cannot be sandboxed like the daemon
# (docs/DEPLOYMENT.md says what it leaves open and why); its exposure is printed, and the system
# unit's may not rise above what its settings give today.
sed 's#^ExecStart=/usr/local/bin/gestured #ExecStart=/bin/true #' systemd/gestured-actions@.service \
    > "$work/gestured-actions@kiosk.service"
if ! systemd-analyze verify "$work/gestured-actions@kiosk.service" "$work/gestured.socket" "$work/gestured.service" \
    2> "$work/verify.err" || [ -s "$work/verify.err" ]; then
    echo "check-units: systemd-analyze verify complained about gestured-actions@.service:" >&2
    cat "$work/verify.err" >&2
    exit 1
fi
mkdir -p "$work/user" "$work/runtime"
sed 's#^ExecStart=/usr/local/bin/gestured #ExecStart=/bin/true #' systemd/user/gestured-actions.service \
    > "$work/user/gestured-actions.service"
if ! XDG_RUNTIME_DIR="$work/runtime" systemd-analyze --user verify "$work/user/gestured-actions.service" \
    2> "$work/verify.err" || [ -s "$work/verify.err" ]; then
    echo "check-units: systemd-analyze --user verify complained about user/gestured-actions.service:" >&2
    cat "$work/verify.err" >&2
    exit 1
fi
systemd-analyze security --offline=yes "$work/gestured-actions@kiosk.service" > "$work/security" 2>&1 || true
actions=$(awk '/Overall exposure level/ {print $(NF-2)}' "$work/security")
if [ -z "$actions" ] || awk -v s="$actions" 'BEGIN { exit !(s > 2.0) }'; then
    echo "check-units: gestured-actions@.service exposure level '$actions' (it was 2.0)" >&2
    exit 1
fi
XDG_RUNTIME_DIR="$work/runtime" systemd-analyze --user security --offline=yes "$work/user/gestured-actions.service" \
    > "$work/security" 2>&1 || true
user=$(awk '/Overall exposure level/ {print $(NF-2)}' "$work/security")
echo "check-units: actions units verify clean, exposure gestured-actions@.service $actions, user gestured-actions.service $user"
