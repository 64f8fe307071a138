#!/bin/sh
# guest-input-tests.sh - runs inside the VM (busybox sh, cwd /test): the live uinput test suite,
# then checks of `gestured devices` and `gestured simulate` on the real kernel. Results are
# printed in swift-testing's format so input-tests.sh counts them all the same way.
# usage: sh guest-input-tests.sh FILTER
FILTER=$1
status=0
./gesturedPackageTests.xctest --testing-library swift-testing --filter "$FILTER" || status=1

pass() { echo "✔ Test \"cli: $1\" passed after 0 seconds."; }
fail() { echo "✘ Test \"cli: $1\" failed after 0 seconds."; status=1; }
# Waits (up to 30 s) for a line matching $2 in file $1.
await() {
  i=0
  while ! grep -q "$2" "$1" 2>/dev/null; do
    i=$((i + 1)); [ $i -gt 300 ] && return 1
    sleep 0.1
  done
}

if ./gestured devices > /tmp/devices.txt && grep -q "No touchscreen found" /tmp/devices.txt; then
  pass "devices exits 0 with a sentence when there is no touchscreen"
else
  cat /tmp/devices.txt; fail "devices exits 0 with a sentence when there is no touchscreen"
fi

./gestured simulate --profile optical-2 --name "cli panel" --hold > /tmp/hold.txt 2>&1 &
pid=$!
if await /tmp/hold.txt '^holding' && ./gestured devices --json > /tmp/devices.json \
   && grep -q '"name" : "cli panel"' /tmp/devices.json && grep -q '"slots" : 2' /tmp/devices.json; then
  pass "devices --json lists a panel made by simulate --hold"
else
  cat /tmp/hold.txt /tmp/devices.json; fail "devices --json lists a panel made by simulate --hold"
fi
kill -TERM $pid; wait $pid
if [ $? = 0 ] && grep -q '^unplugged' /tmp/hold.txt; then
  pass "simulate --hold unplugs on SIGTERM and exits 0"
else
  cat /tmp/hold.txt; fail "simulate --hold unplugs on SIGTERM and exits 0"
fi

if ./gestured simulate --start-delay 0ms --unplug-after 150ms "pan duration=1s" > /tmp/unplug.txt 2>&1 \
   && grep -q '^unplugged mid-script at 150 ms' /tmp/unplug.txt; then
  pass "simulate --unplug-after removes the device mid-gesture"
else
  cat /tmp/unplug.txt; fail "simulate --unplug-after removes the device mid-gesture"
fi

./gestured simulate --start-on-signal --profile resistive "tap" > /tmp/signal.txt 2>&1 &
pid=$!
if await /tmp/signal.txt '^waiting for SIGUSR1' && kill -USR1 $pid && wait $pid && grep -q '^playing' /tmp/signal.txt; then
  pass "simulate --start-on-signal plays on SIGUSR1"
else
  cat /tmp/signal.txt; fail "simulate --start-on-signal plays on SIGUSR1"
fi
if ./gestured simulate --start-delay 0ms --recording wetab.event --speed 20 > /tmp/recording.txt 2>&1 \
   && grep -q '^device .* eGalax-Inc.-USB-TouchController Virtual Device' /tmp/recording.txt \
   && grep -q '^unplugged' /tmp/recording.txt; then
  pass "simulate --recording replays an evemu recording on its own device"
else
  cat /tmp/recording.txt; fail "simulate --recording replays an evemu recording on its own device"
fi

if ./gestured simulate --start-delay 0ms --device ntrig-dell-xt2.event "pinch out" > /tmp/device.txt 2>&1 \
   && grep -q '^device .* N-Trig-MultiTouch-Virtual-Device' /tmp/device.txt; then
  pass "simulate --device copies an evemu description (protocol A)"
else
  cat /tmp/device.txt; fail "simulate --device copies an evemu description (protocol A)"
fi
exit $status
