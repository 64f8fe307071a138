#!/bin/bash
# The WebSocket conformance run (docs/TESTING.md, "WebSocket conformance"): the Autobahn test
# suite's fuzzing client (PyPI `autobahntestsuite`) against the WebSocket endpoint of
# `gestured run --replay`, every case of its list, then scripts/websocket-conformance-summary.py
# on its report. Exits non-zero when a case fails that the summary does not explain as a
# deliberate difference (the endpoint answers requests instead of echoing them; messages over
# max_line_bytes; no compression offered).
#   scripts/websocket-conformance.sh [--gestured PATH] [--cases 'PATTERN,…'] [--out DIR]
#       --gestured   the daemon (default: .build/debug/gestured, built already)
#       --cases      Autobahn case ids or patterns (default: *)
#       --out        where the report goes (default: .conformance-out)
#
# autobahntestsuite is Python 2 code. It needs a Python 2.7 (`python2.7` on PATH, or one of
# pyenv's), and a virtualenv made by virtualenv 20.21 (the last one that makes Python 2
# environments), itself in a Python 3 venv; both are made once in the user's cache directory,
# with the versions pinned below (those of the run in docs/TESTING.md).
set -euo pipefail
cd "$(dirname "$0")/.."
gestured=.build/debug/gestured
cases='*'
out=.conformance-out
while [ $# -gt 0 ]; do
    case "$1" in
        --gestured) gestured=$2; shift 2 ;;
        --cases) cases=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        *) echo "websocket-conformance: unknown argument $1" >&2; exit 64 ;;
    esac
done
[ -x "$gestured" ] || { echo "websocket-conformance: no daemon at $gestured (swift build first)" >&2; exit 1; }

suite_version=25.10.1
pins=(
    "autobahntestsuite==$suite_version" autobahn==0.10.9 Twisted==19.10.0 txaio==2.1.0 wsaccel==0.6.6
    ujson==2.0.3 zope.interface==4.6.0 klein==17.10.0 Werkzeug==1.0.1 Jinja2==2.11.3 MarkupSafe==1.1.1
    attrs==21.4.0 Automat==22.10.0 constantly==15.1.0 hyperlink==21.0.0 idna==2.10 incremental==16.10.1
    PyHamcrest==1.10.1 six==1.16.0 typing==3.10.0.0 cryptography==3.3.2 cffi==1.15.1 pycparser==2.21
    pyOpenSSL==19.1.0 service-identity==18.1.0 pyasn1==0.5.1 pyasn1-modules==0.3.0 ipaddress==1.0.23
    enum34==1.1.10 unittest2==1.1.0 traceback2==1.4.0 linecache2==1.0.0
)
cache="${XDG_CACHE_HOME:-$HOME/.cache}/gestured"
venv="$cache/autobahn-venv-$suite_version"
if ! "$venv/bin/wstest" --help >/dev/null 2>&1; then
    # The first that runs: pyenv's shim answers to the name even when no 2.7 is selected.
    python27=
    for candidate in "$(command -v python2.7 || true)" \
        "${PYENV_ROOT:-$HOME/.pyenv}"/versions/2.7*/bin/python2.7; do
        if [ -x "$candidate" ] \
            && "$candidate" -c 'import sys; sys.exit(sys.version_info[:2] != (2, 7))' 2>/dev/null; then
            python27=$candidate
            break
        fi
    done
    if [ -z "$python27" ]; then
        echo "websocket-conformance: autobahntestsuite needs Python 2.7" \
            "(python2.7 on PATH, or pyenv install 2.7.18)" >&2
        exit 1
    fi
    tools="$cache/autobahn-tools"
    if ! "$tools/bin/virtualenv" --version >/dev/null 2>&1; then
        echo "websocket-conformance: making $tools (virtualenv 20.21.1 from PyPI)" >&2
        rm -rf "$tools"
        python3 -m venv "$tools"
        "$tools/bin/pip" install -q --disable-pip-version-check virtualenv==20.21.1
    fi
    echo "websocket-conformance: making $venv (autobahntestsuite $suite_version for $python27)" >&2
    rm -rf "$venv"
    "$tools/bin/virtualenv" -q -p "$python27" "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check "${pins[@]}"
fi

rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)
# The endpoint's default limits: Autobahn opens each case's connection as soon as the last one's
# closing handshake is done, which frees its per-peer slot.
cat > "$out/gestured.yaml" <<'YAML'
websocket:
  listen: "127.0.0.1:0"
  allowed-origins: ["http://autobahn.test"]
YAML
"$gestured" run --config "$out/gestured.yaml" --socket "$out/g.sock" \
    --replay Tests/TouchInputTests/Fixtures/wetab.event --loop > "$out/daemon.log" 2>&1 &
daemon=$!
trap 'kill "$daemon" 2>/dev/null || true' EXIT
port=
for _ in $(seq 100); do
    port=$(sed -n 's/.*listening for WebSockets.* port=\([0-9]*\).*/\1/p' "$out/daemon.log")
    [ -n "$port" ] && break
    kill -0 "$daemon" 2>/dev/null || { cat "$out/daemon.log" >&2; exit 1; }
    sleep 0.1
done
[ -n "$port" ] || { echo "websocket-conformance: the daemon did not listen" >&2; cat "$out/daemon.log" >&2; exit 1; }

python3 - "$out" "$port" "$cases" > "$out/spec.json" <<'PY'
import json, sys
out, port, cases = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
print(json.dumps({
    "outdir": out + "/reports",
    "servers": [{"agent": "gestured", "url": "ws://127.0.0.1:" + port, "origin": "http://autobahn.test"}],
    "cases": cases, "exclude-cases": [], "exclude-agent-cases": {},
}))
PY
echo "websocket-conformance: Autobahn $suite_version against ws://127.0.0.1:$port, cases $cases" >&2
(cd "$out" && "$venv/bin/wstest" -m fuzzingclient -s spec.json > wstest.log 2>&1)
kill "$daemon"
wait "$daemon" || true
python3 scripts/websocket-conformance-summary.py "$out/reports"
