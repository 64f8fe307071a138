#!/bin/bash
# Checks the systemd units: `systemd-analyze verify` of every unit together must print nothing on
# stderr (it reports unknown keys as warnings and still exits 0), and `systemd-analyze security
# --offline=yes` must rate gestured.service at most 1.0 — with the WebSocket and metrics endpoints
# on as well: gestured-websocket.socket and gestured-metrics.socket hand the daemon their TCP
# sockets, so the service itself may open no IP socket (RestrictAddressFamilies= without AF_INET/AF_INET6, IPAddressDeny=any), which the
# analysis must confirm (docs/DEPLOYMENT.md, "The WebSocket endpoint").
#
# usage: scripts/check-units.sh              the units in systemd/; the binary need not be
#                                            installed: ExecStart is pointed at /bin/true in a
#                                            temporary copy
#        scripts/check-units.sh --installed  the units the Debian package installed, where systemd
#                                            loads them, with the packaged binary
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
units=()
if [ "${1:-}" = --installed ]; then
    while IFS= read -r path; do
        case "$path" in *@.*) continue ;; esac   # a template has no instance to verify here
        [ -f "$path" ] && units+=("$path")
    done < <(dpkg -L gestured | grep '^/usr/lib/systemd/system/.')
    # A copy in /etc or /run would be the one systemd loads, not the package's.
    for dir in /etc/systemd/system /run/systemd/system; do
        for unit in "${units[@]}"; do
            if [ -e "$dir/$(basename "$unit")" ]; then
                echo "check-units: $dir/$(basename "$unit") overrides the packaged unit" >&2
                exit 1
            fi
        done
    done
    # By name: the unit systemd's search path finds (/usr/lib/systemd/system).
    service=gestured.service
    websocket_socket=/usr/lib/systemd/system/gestured-websocket.socket
    metrics_socket=/usr/lib/systemd/system/gestured-metrics.socket
else
    shopt -s nullglob
    for unit in systemd/*.service systemd/*.socket systemd/*.timer systemd/*.path systemd/*.target; do
        # Templates are checked through an instance, below.
        case "$unit" in *@.*) continue ;; esac
        sed 's#^ExecStart=/usr/local/bin/gestured #ExecStart=/bin/true #' "$unit" > "$work/$(basename "$unit")"
        units+=("$work/$(basename "$unit")")
    done
    service=$work/gestured.service
    websocket_socket=systemd/gestured-websocket.socket
    metrics_socket=systemd/gestured-metrics.socket
fi
[ ${#units[@]} -gt 0 ] || { echo "check-units: no units found" >&2; exit 1; }
if ! systemd-analyze verify "${units[@]}" 2> "$work/verify.err" || [ -s "$work/verify.err" ]; then
    echo "check-units: systemd-analyze verify complained:" >&2
    cat "$work/verify.err" >&2
    exit 1
fi
# The exposure level `systemd-analyze [OPTIONS] security` gives FILE, printed; the report stays in
# $work/security. Above MAX (or none read) fails the check with the report shown; MAX "-" only
# prints it.  usage: exposure NAME FILE MAX [OPTIONS...]
exposure() {
    local name=$1 file=$2 max=$3 score
    shift 3
    systemd-analyze "$@" security --offline=yes "$file" > "$work/security" 2>&1 || true
    score=$(awk '/Overall exposure level/ {print $(NF-2)}' "$work/security")
    if [ "$max" != - ] && { [ -z "$score" ] || awk -v s="$score" -v m="$max" 'BEGIN { exit !(s > m) }'; }; then
        echo "check-units: $name exposure level '$score' (must be at most $max)" >&2
        cat "$work/security" >&2
        exit 1
    fi
    echo "$score"
}
score=$(exposure gestured.service "$service" 1.0)
for denied in 'RestrictAddressFamilies=~AF_(INET|INET6)' 'IPAddressDeny='; do
    if ! grep -qF "✓ $denied " "$work/security"; then
        echo "check-units: the service may use IP itself ($denied is not ✓):" >&2
        grep -F "$denied" "$work/security" >&2 || true
        exit 1
    fi
done
# The endpoint's socket: loopback only, by its own IP filter (the service's does not apply to
# sockets passed in), and the name the daemon looks for.
# The metrics endpoint's socket likewise (docs/DEPLOYMENT.md, "The metrics endpoint").
for pair in "$websocket_socket websocket" "$metrics_socket metrics"; do
    read -r socket name <<< "$pair"
    for setting in "FileDescriptorName=$name" Service=gestured.service IPAddressDeny=any IPAddressAllow=localhost; do
        if ! grep -qx "$setting" "$socket"; then
            echo "check-units: $socket lacks $setting" >&2
            exit 1
        fi
    done
done
echo "check-units: verify clean (${#units[@]} units), $service exposure level $score" \
    "(the WebSocket and metrics endpoints' sockets come from their socket units)"

[ "${1:-}" = --installed ] && exit 0
# A client's system template (gestured-NAME@.service), as an instance with the units it names:
# it verifies clean, and its exposure may not rise above 2.0, what its settings give today. Prints
# the exposure.
client_template() {
    local unit="gestured-$1@.service" instance="$work/gestured-$1@kiosk.service"
    sed 's#^ExecStart=/usr/local/bin/gestured #ExecStart=/bin/true #' "systemd/$unit" > "$instance"
    if ! systemd-analyze verify "$instance" "$work/gestured.socket" "$work/gestured.service" \
        2> "$work/verify.err" || [ -s "$work/verify.err" ]; then
        echo "check-units: systemd-analyze verify complained about $unit:" >&2
        cat "$work/verify.err" >&2
        exit 1
    fi
    exposure "$unit" "$instance" 2.0
}

# The actions client (docs/ACTIONS.md): the system template for one user (an instance of it, with
# the units it names) and the user unit (in a user manager's terms, which needs a runtime
# directory). Its commands are the integrator's, so it cannot be sandboxed like the daemon
# (docs/DEPLOYMENT.md says what it leaves open and why); its exposure is printed, and the system
# unit's may not rise above what its settings give today.
actions=$(client_template actions)
mkdir -p "$work/user" "$work/runtime"
sed 's#^ExecStart=/usr/local/bin/gestured #ExecStart=/bin/true #' systemd/user/gestured-actions.service \
    > "$work/user/gestured-actions.service"
if ! XDG_RUNTIME_DIR="$work/runtime" systemd-analyze --user verify "$work/user/gestured-actions.service" \
    2> "$work/verify.err" || [ -s "$work/verify.err" ]; then
    echo "check-units: systemd-analyze --user verify complained about user/gestured-actions.service:" >&2
    cat "$work/verify.err" >&2
    exit 1
fi
user=$(XDG_RUNTIME_DIR="$work/runtime" exposure gestured-actions.service "$work/user/gestured-actions.service" - --user)
echo "check-units: actions units verify clean, exposure gestured-actions@.service $actions, user gestured-actions.service $user"

# The MQTT client (docs/FLEET.md, "Home Assistant and MQTT"): the actions unit's sandbox, with IP
# for the broker; its exposure may not rise above what its settings give today.
mqtt=$(client_template mqtt)
echo "check-units: gestured-mqtt@.service verifies clean, exposure $mqtt"

# The textfile example (docs/FLEET.md, "node_exporter's textfile collector"): verified with the
# daemon's socket unit it runs after; it writes one directory and opens no IP socket, so its
# exposure may not rise above 1.0.
mkdir -p "$work/textfile"
sed 's#^ExecStart=/usr/bin/gestured #ExecStart=/bin/true #' examples/systemd/gestured-textfile.service \
    > "$work/textfile/gestured-textfile.service"
cp examples/systemd/gestured-textfile.timer "$work/textfile/"
if ! systemd-analyze verify "$work/textfile/gestured-textfile.service" "$work/textfile/gestured-textfile.timer" \
    "$work/gestured.socket" 2> "$work/verify.err" || [ -s "$work/verify.err" ]; then
    echo "check-units: systemd-analyze verify complained about examples/systemd/gestured-textfile.*:" >&2
    cat "$work/verify.err" >&2
    exit 1
fi
textfile=$(exposure gestured-textfile.service "$work/textfile/gestured-textfile.service" 1.0)
echo "check-units: textfile example verifies clean, exposure gestured-textfile.service $textfile"
