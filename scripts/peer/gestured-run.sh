#!/bin/sh
# gestured-run.sh BINARY [LISTEN OPTIONS...] - guest side: runs `BINARY run` (the built-in
# configuration, or `--config $PEER_GESTURED_CONFIG` when that is set; it finds the uinput
# touchscreen through udev) with one client, `BINARY listen
# OPTIONS`, as a kiosk application would. The client starts once the socket exists, detached, so
# the daemon has no child process and the CPU read from /proc/PID is the daemon's alone; it writes
# the protocol's lines (its `hello` first, once subscribed) to this script's stdout, and its PID
# to $PEER_CLIENT_PID (peer-guest.sh waits for the hello before replaying and for the client to
# finish after stopping the daemon). Execs the daemon: the PID the harness started is its own.
bin=$1
shift
sock=/tmp/gestured-peer.sock
rm -f "$sock"
(
  (
    i=0
    while [ ! -S "$sock" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
    exec "$bin" listen --socket "$sock" "$@"
  ) &
  echo $! > "${PEER_CLIENT_PID:-/dev/null}"
)
exec "$bin" run --socket "$sock" ${PEER_GESTURED_CONFIG:+--config "$PEER_GESTURED_CONFIG"}
