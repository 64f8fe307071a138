#!/bin/bash
# Checks the systemd units: `systemd-analyze verify` must print nothing on stderr (it reports
# unknown keys as warnings and still exits 0) and `systemd-analyze security --offline=yes` must
# rate the service at most 1.5. The binary need not be installed: ExecStart is pointed at
# /bin/true in a temporary copy.
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
score=$(systemd-analyze security --offline=yes "$work/gestured.service" 2>&1 | awk '/Overall exposure level/ {print $(NF-2)}')
if [ -z "$score" ] || awk -v s="$score" 'BEGIN { exit !(s > 1.5) }'; then
    echo "check-units: exposure level '$score' (must be at most 1.5)" >&2
    exit 1
fi
echo "check-units: verify clean, exposure level $score"
