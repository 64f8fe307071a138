#!/bin/sh
# lisgd-run.sh [EXTRA LISGD ARGS...] - guest side: exec lisgd (Debian's 0.3.7, unpacked by
# run-peer.sh to /test/bin/lisgd) on $DEV with a screen of $W x $H and every finger count
# (1..$LISGD_MAX_FINGERS, default 10) and all 8 directions bound to 'echo GESTURE <n>f-<DIR>'
# (edge *, distance *, act on release), so each recognized gesture is one stdout line.
#   DIR: LR = swipe right, RL = left, DU = up, UD = down, DLUR = up-right, DRUL = up-left,
#        URDL = down-left, ULDR = down-right.
# lisgd 0.3.7 notes: -w/-h are mandatory without $DISPLAY/$WAYLAND_DISPLAY (it dies:
# "Cannot detect display environment"); coordinates are scaled to that screen and the
# default threshold (-t 125) is in those pixels; a gesture counts only if every finger is
# lifted within -m ms (default 800) of the first touch-down (wall clock); only the first
# matching binding runs, via system(); commas cannot appear in a bound command.
# Execs all the way down, so the PID the harness started is lisgd's own.
n=${LISGD_MAX_FINGERS:-10}
f=1
while [ "$f" -le "$n" ]; do
  for d in LR RL DU UD DLUR DRUL URDL ULDR; do
    set -- "$@" -g "$f,$d,*,*,R,echo GESTURE ${f}f-$d"
  done
  f=$((f + 1))
done
exec ${LISGD:-/test/bin/lisgd} -d "$DEV" -w "$W" -h "$H" "$@"
