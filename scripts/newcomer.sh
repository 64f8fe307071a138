#!/bin/bash
# newcomer.sh - a kiosk integrator's first fifteen minutes, without a panel, as a test: the
# README's first-minute commands (each found verbatim in README.md, then run), the README's
# command table against every command's --help, and the commonest mistakes, each of whose
# messages must say what is wrong, where (FILE:LINE:COLUMN, or the path), and what to do.
# No uinput, no input devices, no root needed; about a second of gestured's own time, the rest
# is waiting for a replaying daemon's gestures.
#
# usage: scripts/newcomer.sh [--gestured BINARY]     (default: .build/debug/gestured)
# Prints one line per check and "N passed, N failed" last; exits 1 when one failed.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
binary=.build/debug/gestured
[ "${1:-}" = "--gestured" ] && binary=$2
binary=$(realpath "$binary")
[ -x "$binary" ] || { echo "newcomer: no gestured at $binary (swift build first)" >&2; exit 2; }
work=$(mktemp -d)
daemon=
cleanup() {
    [ -z "$daemon" ] || kill "$daemon" 2> /dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
mkdir "$work/bin"
ln -s "$binary" "$work/bin/gestured"
export PATH="$work/bin:$PATH"
ln -s "$repo/examples" "$work/examples"
cd "$work"

passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok      $1"; }
bad() { failed=$((failed + 1)); echo "FAILED  $1"; shift; for line in "$@"; do echo "        $line"; done; }

# run STATUS COMMAND...: runs it (stdin from /dev/null), its stdout and stderr in $out, its exit
# status in $status; "bad" when the status is not STATUS.
run() {
    local want=$1
    shift
    set +e
    out=$("$@" < /dev/null 2>&1)
    status=$?
    set -e
    [ "$status" = "$want" ]
}

# expect NAME STATUS "NEEDLE"... -- COMMAND...: the command exits STATUS and its output holds
# every needle (fixed strings).
expect() {
    local name=$1 want=$2
    shift 2
    local needles=()
    while [ "$1" != "--" ]; do needles+=("$1"); shift; done
    shift
    if ! run "$want" "$@"; then
        bad "$name" "\$ $*" "exit $status, expected $want" "$out"
        return
    fi
    for needle in "${needles[@]}"; do
        if [[ "$out" != *"$needle"* ]]; then
            bad "$name" "\$ $*" "missing: $needle" "$out"
            return
        fi
    done
    ok "$name"
}

# in_readme LINE: the README says LINE verbatim (so what runs here is what a newcomer reads).
in_readme() {
    if grep -qxF -- "$1" "$repo/README.md"; then return 0; fi
    bad "README.md still says: $1"
    return 1
}

# wait_for FILE TEXT [SECONDS]: waits until FILE holds TEXT (the event itself, with a deadline).
wait_for() {
    local deadline=$((SECONDS + ${3:-60}))
    until grep -qF -- "$2" "$1" 2> /dev/null; do
        [ $SECONDS -lt $deadline ] || return 1
        sleep 0.2
    done
}

echo "== the README, as a newcomer reads it"
first=$(grep -n '^```sh' "$repo/README.md" | head -n 1 | cut -d: -f1)
if [ -n "$first" ] && [ "$first" -lt 40 ]; then
    ok "the README's first runnable command is at line $((first + 1)) (within its first 40 lines)"
else
    bad "the README's first runnable command is at line $((first + 1)), not within its first 40 lines"
fi
# The build line is what CI's build stage already did: found, not run.
in_readme 'scripts/setup-debian.sh && swift build --product gestured && PATH=$PWD/.build/debug:$PATH' &&
    ok "the README builds with the line CI's build stage stands for"

line='gestured replay --pretty examples/recordings/demo.evemu                  # the gestures in a recording'
in_readme "$line" && expect "first minute: replay prints the gestures, a held tap marked" 0 \
    "double-tap [tap] recognized" "swipe [swipe] recognized" "(held " -- \
    gestured replay --pretty examples/recordings/demo.evemu
line='gestured replay --explain --pretty examples/recordings/demo.evemu        # ...and why the others did not fire'
in_readme "$line" && expect "first minute: replay --explain says why the others did not fire" 0 "failed" -- \
    gestured replay --explain --pretty examples/recordings/demo.evemu
line='gestured replay --svg demo.svg examples/recordings/demo.evemu > /dev/null # ...drawn to scale: open demo.svg'
if in_readme "$line" && run 0 gestured replay --svg demo.svg examples/recordings/demo.evemu &&
    head -c 200 demo.svg | grep -q '<svg'; then
    ok "first minute: replay --svg draws the recording"
else
    bad "first minute: replay --svg draws the recording" "$out"
fi

# The daemon on a recording, as the README starts it (its socket moved into this test's directory).
line='gestured run --socket /tmp/g.sock --replay examples/recordings/demo.evemu --loop &   # a daemon playing it'
socket=$work/g.sock
if in_readme "$line"; then
    gestured run --socket "$socket" --replay examples/recordings/demo.evemu --loop > daemon.log 2>&1 &
    daemon=$!
    if wait_for daemon.log "ready"; then ok "first minute: a daemon plays the recording"; else bad "the daemon did not get ready" "$(cat daemon.log)"; fi
fi
line='gestured listen --socket /tmp/g.sock --pretty --kind swipe --kind tap    # a client (Ctrl-C ends it)'
if in_readme "$line"; then
    gestured listen --socket "$socket" --pretty --kind swipe --kind tap > listen.log 2>&1 &
    client=$!
    if wait_for listen.log "swipe [swipe] recognized"; then ok "first minute: listen prints the daemon's swipes"; else bad "listen printed no swipe" "$(cat listen.log)"; fi
    kill "$client"
fi
line='gestured actions --dry-run --socket /tmp/g.sock --config examples/actions.yaml   # what actions would do'
if in_readme "$line"; then
    gestured actions --dry-run --socket "$socket" --config examples/actions.yaml > dry.log 2>&1 &
    client=$!
    if wait_for dry.log "click right at"; then ok "first minute: actions --dry-run shows the rule and what it would send"; else bad "actions --dry-run showed no click" "$(cat dry.log)"; fi
    kill "$client"
fi
line='python3 examples/clients/python/gestured_client.py --socket /tmp/g.sock         # another client, in Python'
if in_readme "$line"; then
    set +e
    python3 examples/clients/python/gestured_client.py --socket "$socket" 2> python.err | head -n 2 > python.out
    python=${PIPESTATUS[0]}
    set -e
    if [ "$python" = 0 ] && [ "$(wc -l < python.out)" = 2 ] && ! grep -q Traceback python.err; then
        ok "the Python client ends quietly under | head"
    else
        bad "the Python client under | head: exit $python" "$(cat python.err)"
    fi
fi

# The command table against --help: the same commands, and every option a row names exists.
commands=$(gestured --help | sed -n '/^SUBCOMMANDS:/,/^$/p' | grep -E '^  [a-z-]+( |$)' | awk '{ print $1 }' | grep -vx help | sort)
table=$(grep -oE '^\| `gestured [a-z-]+' "$repo/README.md" | awk '{ print $3 }' | sort -u)
if [ "$commands" = "$table" ]; then
    ok "the README's command table has a row for each of the $(echo "$commands" | wc -l) commands"
else
    bad "the README's command table and gestured --help list different commands" "help: $(echo $commands)" "table: $(echo $table)"
fi
missing=()
while IFS= read -r row; do
    command=$(awk '{ print $3 }' <<< "$row")
    help=$(gestured "$command" --help)
    for option in $(grep -oE '(^|[ [])--?[a-z][a-z-]*' <<< "${row%%\` |*}" | tr -d ' ['); do
        grep -qE -- "(^| |,)$option([ ,=<]|$)" <<< "$help" || missing+=("gestured $command $option")
    done
done < <(grep -E '^\| `gestured [a-z-]+' "$repo/README.md")
if [ ${#missing[@]} = 0 ]; then ok "every option the README's command table names is in its command's --help"; else bad "options in the README's table that --help does not have" "${missing[@]}"; fi

# --help examples are pasted into shells: none may be wrapped mid-command (ArgumentParser wraps
# discussion text at 80 columns; a wrapped line starts at column 0).
wrapped=()
for command in $commands; do
    while IFS= read -r text; do wrapped+=("gestured $command --help: $text"); done < <(
        COLUMNS=80 gestured "$command" --help | awk '/^Examples?:/ { on = 1; next } on && /^$/ { on = 0 } on && !/^ / { print }')
done
if [ ${#wrapped[@]} = 0 ]; then ok "no --help example is wrapped mid-command"; else bad "--help examples wrapped at 80 columns" "${wrapped[@]}"; fi

echo "== mistakes a newcomer makes, and what the messages say"
printf 'recognizers:\n  - name: tap\n    kind: tap\n   taps: 2\n' > indent.yaml
expect "a mis-indented key: where, against which lines, and to indent it" 1 \
    "indent.yaml:4:4: line 4 starts at column 4" "column 5 (line 3)" "indent it with spaces" -- gestured check-config indent.yaml
printf 'recognizers:\n  - name: tap\n\tkind: tap\n' > tab.yaml
expect "a tab: where, and to use spaces" 1 "tab.yaml:3:1: a tab character" "replace the tab with spaces" -- gestured check-config tab.yaml
printf 'socket:\n  path: /tmp/a.sock\n   mode: "0660"\n' > deeper.yaml
expect "a key indented deeper than its sibling" 1 "deeper.yaml:3:" "to the right of line 2" "indent it with 2 spaces" -- gestured check-config deeper.yaml
printf 'actions:\n  - on: swipe\n    run: "xdotool key ctrl+r"\n' > run.yaml
expect "run: given a command line: an argument list, no shell, [sh, -c, ...]" 1 \
    "run.yaml:3:10:" "no shell" "run: [xdotool, key, ctrl+r]" 'run: [sh, -c, "xdotool key ctrl+r"]' -- gestured check-config run.yaml
printf 'actions:\n  - on: swipee\n    keys: [KEY_A]\n' > on.yaml
expect "on: a recognizer the built-in set lacks, with the nearest name" 0 \
    "on.yaml:2:9: no recognizer 'swipee' is in the built-in set" "did you mean 'swipe'?" -- gestured check-config on.yaml
gestured config --default > daemon.yaml
printf 'recognizers:\n  - {name: next-page, kind: swipe}\n' > kiosk.yaml
printf 'actions:\n  - on: next-pag\n    keys: [KEY_A]\n' > kiosk-actions.yaml
expect "on: checked against the daemon's configuration when given" 0 \
    "no recognizer 'next-pag' is in kiosk.yaml" "did you mean 'next-page'?" -- gestured check-config kiosk-actions.yaml --daemon-config kiosk.yaml
printf 'recognizers:\n  - name: t\n    kind: tap\n    requires-failure-of: [double-tapp]\n  - {name: double-tap, kind: tap, taps: 2}\n' > rname.yaml
expect "an unknown recognizer name, with the nearest" 1 "rname.yaml:4:27: unknown recognizer 'double-tapp'; did you mean 'double-tap'?" -- gestured check-config rname.yaml
printf 'recognizers:\n  - name: t\n    kind: tapp\n' > kind.yaml
expect "an unknown kind, with the nearest" 1 "kind.yaml:3:11: unknown kind 'tapp'; did you mean 'tap'?" -- gestured check-config kind.yaml
printf 'recognizers:\n  - name: t\n    kind: tap\n    tapps: 2\n' > key.yaml
expect "an unknown key, with the nearest" 1 "key.yaml:4:5: unknown key 'tapps' in a tap recognizer; did you mean 'taps'?" -- gestured check-config key.yaml
printf 'recognizers:\n  - {name: e, kind: edge-swipe, edgs: [top]}\n' > article.yaml
expect "an edge-swipe recognizer, not a edge-swipe" 1 "in an edge-swipe recognizer; did you mean 'edges'?" -- gestured check-config article.yaml
printf 'socket:\n  path: /tmp/x.sock\n' > site.yaml
mkdir site.yaml.d
printf 'log-level: debug\n' > site.yaml.d/10-site.yml
expect "a drop-in named .yml is named, and how to fix it" 0 "site.yaml.d/10-site.yml is ignored" "rename it to 10-site.yaml" -- gestured check-config site.yaml
expect "config --effective names it too" 0 "10-site.yml is ignored" -- gestured config --effective site.yaml
printf 'regions:\n  - {name: keypad, rect: {x: 0, y: 0, width: 0.5, height: 0.5}}\n' > one.yaml
expect "one region, not 1 regions" 0 "1 region," -- gestured check-config one.yaml
expect "actions --config given the daemon's file says so" 1 "kiosk.yaml:1:1: this is the daemon's configuration (it has 'recognizers'), not an actions file" -- \
    gestured actions --config kiosk.yaml --dry-run --gestures /dev/null
if [ -n "$daemon" ]; then
    gestured listen --socket "$socket" --gesture swipee --region keypadd > unknown.log 2>&1 &
    client=$!
    if wait_for unknown.log "no recognizer of the daemon is in region 'keypadd'" 30 &&
        grep -qF "the daemon runs no recognizer 'swipee'; did you mean 'swipe'?" unknown.log; then
        ok "listen warns about a gesture and a region the daemon's hello lacks"
    else
        bad "listen did not warn about --gesture swipee --region keypadd" "$(cat unknown.log)"
    fi
    kill "$client"
fi

echo "== previews, sockets, guides and smaller things"
gestured replay examples/recordings/demo.evemu > demo.jsonl
expect "actions --dry-run from replay's lines: the rule, its place and what it would send" 0 \
    "→ rule 2 (examples/actions.yaml:" "click right at (" "keys KEY_LEFTCTRL + KEY_EQUAL" "wheel vertical" -- \
    gestured actions --dry-run --config examples/actions.yaml --gestures demo.jsonl
expect "run --socket in a directory that does not exist: an error naming it" 1 \
    "the socket's directory $work/typo/dir does not exist" -- gestured run --socket "$work/typo/dir/g.sock" --replay examples/recordings/demo.evemu
if [ ! -e "$work/typo" ]; then ok "...and the directory was not made"; else bad "run --socket made $work/typo"; fi
if grep -q 'gestured record' "$repo/docs/TUNING.md" && ! grep -q 'evemu-record /dev' "$repo/docs/TUNING.md" &&
    grep -q 'gestured record' "$repo/README.md"; then
    ok "TUNING.md and the README record with gestured record"
else
    bad "TUNING.md or the README does not record with gestured record"
fi
expect "config --default --effective: which one" 64 "give --default or --effective, not both" -- gestured config --default --effective
expect "check-config of a missing file: no :1:1, what to give" 1 "nosuch.yaml: no such file; give a configuration or actions file" -- gestured check-config nosuch.yaml
expect "config --effective of a missing file: and the built-in one" 1 "gestured config --default" -- gestured config --effective nosuch.yaml
expect "an unknown command: the nearest, and the list" 64 "gestured: 'replya' is not a command; did you mean 'replay'?" -- gestured replya
expect "simulate --record with no steps" 1 "gestured simulate: --record x.evemu: no gestures to record" -- gestured simulate --record x.evemu
if [ ! -e /dev/uinput ]; then
    expect "simulate without uinput: modprobe, and --record instead" 1 "modprobe uinput" "--record FILE" -- gestured simulate tap
    expect "actions without uinput: and --dry-run instead" 1 "modprobe uinput" "--dry-run" -- gestured actions --config examples/actions.yaml
fi
expect "simulate --record with a trailing wait records the tap" 0 "recorded" -- gestured simulate --record tap.evemu tap "wait 400ms"
expect "...which replays to the tap the wait let through" 0 '"name":"tap"' -- gestured replay tap.evemu
if [ ! -d /dev/input ]; then
    expect "devices with nothing found says why" 0 "Why: /dev/input does not exist" -- gestured devices
fi
expect "replay - reads standard input (gestured record … | gestured replay -)" 0 "double-tap" -- \
    sh -c 'gestured replay - < examples/recordings/demo.evemu'
if ! grep -q 'examples/README.md' "$repo/examples/demo.gesture" && ! grep -q 'quote it' "$repo/examples/gestured.yaml"; then
    ok "the examples' comments name no missing file and no needless quoting"
else
    bad "examples/demo.gesture names examples/README.md, or gestured.yaml says to quote mode"
fi

echo "newcomer: $passed passed, $failed failed"
[ "$failed" = 0 ]
