#!/bin/sh
# Every tap and swipe from gestured, one JSON line each, until the daemon stops.
#
#   GESTURED_SOCKET=/tmp/g.sock sh examples/clients/socat.sh | jq -r 'select(.type=="gesture") | .name'
#
# The one-liner: printf sends the subscription and ends socat's input; -t keeps socat reading the
# daemon's output (the server keeps sending to a client that has closed its sending side).
printf '%s\n' '{"type":"subscribe","kinds":["tap","swipe"]}' | socat -t 2147483647 - "UNIX-CONNECT:${GESTURED_SOCKET:-/run/gestured/gestured.sock}"
