#!/bin/bash
# record-fixtures.sh - makes the committed real recordings of Tests/TouchInputTests/Fixtures/field.*
# in the VM, through the kernel: `gestured simulate` plays field.script into a uinput panel
# (kiosk-10) that nothing grabs, while `libinput record` (libinput-tools) and `evemu-record`
# (evemu-tools) both record it. Both files hold the same kernel events, each in its own format.
# usage: scripts/vm/record-fixtures.sh [--out DIR]   (default: the fixtures folder)
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
out=$here/Tests/TouchInputTests/Fixtures
[ "${1:-}" = --out ] && out=$2
cd "$here"
swift build --product gestured
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp .build/debug/gestured "$out/field.script" "$work/"
cat > "$work/guest.sh" <<'GUEST'
#!/bin/sh
# Waits (up to 30 s) for a line matching $2 in file $1.
await() {
  i=0
  while ! grep -q "$2" "$1" 2>/dev/null; do
    i=$((i + 1)); [ $i -gt 300 ] && { cat "$1"; exit 1; }
    sleep 0.1
  done
}
./gestured simulate --profile kiosk-10 --seed 39 --start-on-signal --hold --script field.script > /tmp/sim.txt 2>&1 &
sim=$!
await /tmp/sim.txt '^waiting for SIGUSR1'
node=$(sed -n 's/^device \([^ ]*\) .*/\1/p' /tmp/sim.txt)
/usr/libexec/libinput/libinput-record -o /out/field.yml "$node" > /tmp/libinput.txt 2>&1 &
libinput=$!
evemu-record "$node" > /out/field.evemu 2> /tmp/evemu.txt &
evemu=$!
sleep 2
kill -USR1 $sim
await /tmp/sim.txt '^holding'
sleep 1
kill -INT $libinput $evemu
wait $libinput $evemu
kill -TERM $sim; wait $sim
cat /tmp/sim.txt /tmp/libinput.txt /tmp/evemu.txt
ls -l /out
GUEST
scripts/vm/run-vm-test.sh --extra /usr/libexec/libinput --extra /usr/bin/evemu-record --out "$work/out" \
  "$work" -- sh guest.sh
# The guest writes as root into a 9p share; keep the files, with the host's ownership.
cp "$work/out/field.yml" "$work/out/field.evemu" "$out/"
echo "wrote $out/field.yml and $out/field.evemu"
