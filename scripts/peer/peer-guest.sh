#!/bin/sh
# peer-guest.sh - guest side of run-peer.sh (busybox sh in the VM of scripts/vm/run-vm-test.sh,
# cwd /test). For every case in /test/cases.tsv and every daemon in /test/daemons.tsv, in order:
#   1. evemu-device cases/ID.desc      -> a fresh uinput device; its /dev/input/eventN is read
#      from evemu-device's stdout; then `udevadm settle` (libinput's path backend refuses a
#      device that udev has not initialised yet: it polls ~10 x 10 ms, then gives up);
#   2. start the daemon: DEV=/dev/input/eventN W=.. H=.. sh -c "exec CMD" >out 2>err &
#      (exec, so $! is the daemon's PID), wait until it has the node open, its client (if it
#      wrote one's PID to $PEER_CLIENT_PID) has printed its first line, and its CPU time stops
#      growing (initialisation done);
#   3. read its CPU (utime+stime, cutime+cstime in clock ticks from /proc/PID/stat; on-CPU ns
#      summed over /proc/PID/task/*/schedstat), replay `evemu-play DEV < cases/ID.play`
#      (evemu-play's own user/sys from the shell's `times`), wait until the daemon is idle
#      again (drained), read its CPU again, stop it (SIGINT if it catches that, then TERM,
#      then KILL) and let its client finish, remove the device;
#   4. one tab-separated line per run to /out/results.tsv, logs to /out/logs/.
# With PEER_PERF=1, `perf record -e cpu-clock -p PID` samples the daemon (all its threads, user
# and kernel) from step 3's first CPU reading to the last, and its report (by shared object, then
# by symbol) goes to /out/logs/ID.DAEMON.perf.txt.
# cases.tsv: ID W H REPLAY_TIME_LIMIT [DAEMONS: comma list, '*' = all]; daemons.tsv: NAME COMMAND
# [pin]; with 'pin' the daemon (and whatever it starts) runs on vCPU 1 and evemu-play on vCPU 0
# (taskset), else the guest's scheduler places both.
# Everything a daemon writes goes to /tmp (tmpfs) during the run, never to /out (9p).
set -u
OUT=/out
[ -d "$OUT" ] || OUT=/tmp/peer-out
mkdir -p "$OUT/logs"
RES=$OUT/results.tsv
HZ=100   # USER_HZ: /proc/PID/stat times are in 1/100 s on x86 Linux

now() { cut -d' ' -f1 /proc/uptime; }
fsub() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a - b}'; }

# utime stime cutime cstime (clock ticks) of PID
ticks() {
  s=$(cat /proc/$1/stat 2>/dev/null) || return 1
  s=${s##*) }
  # shellcheck disable=SC2086
  set -- $s
  echo "${12} ${13} ${14} ${15}"
}
# on-CPU nanoseconds of all live threads of PID
sched_ns() {
  t=0
  for f in /proc/$1/task/*/schedstat; do
    read -r a _ < "$f" 2>/dev/null || continue
    t=$((t + a))
  done
  echo $t
}
has_children() {
  c=$(cat /proc/$1/task/*/children 2>/dev/null)
  [ -n "$c" ]
}
pstate() { s=$(cat /proc/$1/stat 2>/dev/null) || { echo gone; return; }; s=${s##*) }; echo "${s%% *}"; }
alive() { case $(pstate $1) in gone|Z|X) return 1;; esac; return 0; }
# wait_idle PID MAXSEC: until PID's on-CPU time grew by less than IDLE_NS (default 2 ms, so a
# daemon with a slow periodic timer still counts as idle) in each of 3 samples 0.2 s apart and
# it has no child processes (lisgd runs its bound commands with system()).
# rc 0 idle, 1 timed out, 2 the process is gone
IDLE_NS=${IDLE_NS:-2000000}
wait_idle() {
  _p=$1; _end=$(awk -v a="$(now)" -v b="$2" 'BEGIN{print a + b}'); _prev=-1; _same=0
  while alive $_p; do
    _cur=$(sched_ns $_p)
    if [ $_prev -ge 0 ] && [ $((_cur - _prev)) -lt $IDLE_NS ] && ! has_children $_p; then
      _same=$((_same + 1)); [ $_same -ge 3 ] && return 0
    else
      _same=0
    fi
    _prev=$_cur
    awk -v a="$(now)" -v b="$_end" 'BEGIN{exit !(a > b)}' && return 1
    sleep 0.2
  done
  return 2
}
# has_node PID DEV: PID holds DEV open
has_node() {
  for fd in /proc/$1/fd/*; do
    [ "$(readlink "$fd" 2>/dev/null)" = "$2" ] && return 0
  done
  return 1
}
cnt() { od -An -t u8 -v "$1" 2>/dev/null | tr -s ' \n' '  ' | sed 's/^ //; s/ $//'; }

echo "PEER: guest start $(now)s, $(nproc) CPUs, kernel $(uname -r)"
echo "PEER: daemons: $(grep -v '^#' daemons.tsv | cut -f1 | tr '\n' ' ')evemu-play: $(command -v evemu-play), libinput quirks: $(ls /usr/share/libinput 2>/dev/null | wc -l) files"
printf 'case\tdaemon\tstatus\tdev\tready_s\tinit_ticks\tutime\tstime\tcutime\tcstime\tcpu_ns\tplay_user_s\tplay_sys_s\tplay_wall_s\tdrain_s\tev_calls\tev_events\tev_frames\tev_dropped\tev_sync_events\tev_eagain\tev_errors\terr_lines\tlag_lines\n' > "$RES"
T_ALL=$(now)

exec 4< cases.tsv
while IFS='	' read -r ID W H PLAYSECS ONLY <&4; do
  case "$ID" in ''|'#'*) continue;; esac
  exec 3< daemons.tsv
  while IFS='	' read -r DNAME DCMD DPIN <&3; do
    case "$DNAME" in ''|'#'*) continue;; esac
    case ",${ONLY:-*}," in *",*,"*|*",$DNAME,"*) ;; *) continue;; esac
    RUN=/tmp/run.$ID.$DNAME; L=$OUT/logs/$ID.$DNAME
    T_RUN=$(now)
    # 1. device
    evemu-device cases/$ID.desc < /dev/null > $RUN.dev 2> $RUN.deverr 3<&- 4<&- &
    EVPID=$!
    DEV=; i=0
    while [ $i -lt 200 ]; do
      DEV=$(sed -n 's|.*: \(/dev/input/event[0-9]*\)$|\1|p' $RUN.dev 2>/dev/null)
      [ -n "$DEV" ] && [ -c "$DEV" ] && break
      kill -0 $EVPID 2>/dev/null || break
      sleep 0.05; i=$((i + 1))
    done
    if [ -z "$DEV" ]; then
      echo "PEER: $ID: evemu-device failed: $(cat $RUN.deverr)"
      printf '%s\t%s\tno-device\n' "$ID" "$DNAME" >> "$RES"
      kill $EVPID 2>/dev/null; wait $EVPID 2>/dev/null
      continue
    fi
    udevadm settle --timeout=30 < /dev/null
    udevadm info --query=property --name="$DEV" > $L.udev 2>&1
    DAFF=; PAFF=
    [ "${DPIN:-}" = pin ] && { DAFF="taskset -c 1"; PAFF="taskset -c 0"; }
    # 2. daemon
    rm -f $RUN.cnt
    $DAFF env DEV="$DEV" W="$W" H="$H" EVCOUNT_FILE=$RUN.cnt PEER_CLIENT_PID=$RUN.client \
      ${PEER_PRELOAD:+LD_PRELOAD=$PEER_PRELOAD} \
      sh -c "exec $DCMD" < /dev/null > $RUN.out 2> $RUN.err 3<&- 4<&- &
    DPID=$!
    T0=$(now); status=ok; i=0
    while ! has_node $DPID "$DEV"; do
      alive $DPID || { status=died-at-start; break; }
      i=$((i + 1)); [ $i -gt 600 ] && { status=never-opened-device; break; }
      sleep 0.05
    done
    # a client prints its first line (gestured listen: the hello) once it is subscribed
    i=0
    while [ $status = ok ] && [ -s $RUN.client ] && [ ! -s $RUN.out ]; do
      alive $DPID || { status=died-at-start; break; }
      i=$((i + 1)); [ $i -gt 1200 ] && { status=client-never-ready; break; }
      sleep 0.05
    done
    [ $status = ok ] && { wait_idle $DPID 120 || status=init-not-idle; }
    READY=$(fsub "$(now)" "$T0")
    if [ $status != ok ] && [ $status != init-not-idle ]; then
      echo "PEER: $ID/$DNAME: $status: $(head -c 400 $RUN.err)"
      printf '%s\t%s\t%s\t%s\t%s\n' "$ID" "$DNAME" "$status" "$DEV" "$READY" >> "$RES"
      cp $RUN.out $L.out 2>/dev/null; cp $RUN.err $L.err 2>/dev/null
      kill $DPID 2>/dev/null; wait $DPID 2>/dev/null
      [ -s $RUN.client ] && kill -KILL "$(cat $RUN.client)" 2>/dev/null
      kill $EVPID 2>/dev/null; wait $EVPID 2>/dev/null; udevadm settle --timeout=10
      continue
    fi
    sed -n 's/^Cpus_allowed_list:[[:space:]]*/vCPUs allowed: /p' /proc/$DPID/status > $L.cpus 2>/dev/null
    set -- $(ticks $DPID); INIT=$(($1 + $2)); U0=$1; S0=$2; CU0=$3; CS0=$4
    NS0=$(sched_ns $DPID)
    PERFPID=
    if [ "${PEER_PERF:-0}" = 1 ]; then
      perf record -q -e cpu-clock -p $DPID -o $RUN.perf < /dev/null > $RUN.perfout 2>&1 3<&- 4<&- &
      PERFPID=$!
    fi
    # 3. replay
    TP0=$(now)
    ( timeout "$PLAYSECS" $PAFF evemu-play "$DEV" < cases/$ID.play 2> $RUN.playerr; echo "rc=$?" > $RUN.playrc; times ) > $RUN.times
    TP1=$(now)
    wait_idle $DPID 600; w=$?
    [ $w = 1 ] && status=drain-timeout
    [ $w = 2 ] && status=died
    TD=$(now)
    if [ $w != 2 ]; then
      set -- $(ticks $DPID); U1=$1; S1=$2; CU1=$3; CS1=$4; NS1=$(sched_ns $DPID)
    else
      U1=$U0; S1=$S0; CU1=$CU0; CS1=$CS0; NS1=$NS0
    fi
    if [ -n "$PERFPID" ]; then
      kill -INT $PERFPID 2>/dev/null; wait $PERFPID 2>/dev/null
      { echo "# perf record -e cpu-clock -p (the daemon), samples by shared object"
        perf report -i $RUN.perf --stdio --sort dso 2>&1 | grep -v '^#' | grep -v '^$'
        echo "# by symbol (0.2 % and more)"
        perf report -i $RUN.perf --stdio --sort dso,sym --percent-limit 0.2 2>&1 | grep -v '^#' | grep -v '^$'
        echo "# perf record's output"; cat $RUN.perfout
      } > $L.perf.txt
    fi
    grep -q 'rc=0' $RUN.playrc || { status="$status,play-$(cat $RUN.playrc)"; }
    # busybox ash `times`: line 2 = children (evemu-play) "XmY.YYYs XmY.YYYs"
    PT=$(sed -n 2p $RUN.times | awk '{ for (i = 1; i <= 2; i++) { split($i, a, "m"); sub("s", "", a[2]); printf "%.2f ", a[1] * 60 + a[2] } }')
    set -- $PT; PU=${1:-?}; PS=${2:-?}
    # 4. stop: SIGINT first if the daemon catches it (a background job of a script starts with
    #    SIGINT ignored, so only a daemon with its own handler sees it; that handler is usually
    #    what flushes block-buffered stdout), then TERM, then KILL
    sigs="TERM KILL"; cg=$(sed -n 's/^SigCgt:[[:space:]]*//p' /proc/$DPID/status 2>/dev/null)
    [ -n "$cg" ] && [ $((0x${cg#${cg%?}} & 2)) != 0 ] && sigs="INT TERM KILL"
    for sig in $sigs; do
      alive $DPID || break
      kill -$sig $DPID 2>/dev/null; i=0
      while alive $DPID && [ $i -lt 20 ]; do sleep 0.1; i=$((i + 1)); done
    done
    wait $DPID 2>/dev/null
    # the daemon's client ends when the daemon closes its connection
    if [ -s $RUN.client ]; then
      CPID=$(cat $RUN.client); i=0
      while alive $CPID && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
      kill -KILL $CPID 2>/dev/null
    fi
    kill -TERM $EVPID 2>/dev/null; wait $EVPID 2>/dev/null
    udevadm settle --timeout=10
    C=$(cnt $RUN.cnt); [ -n "$C" ] || C="- - - - - - - -"
    set -- $C
    ERRL=$(grep -c . $RUN.err); LAGL=$(grep -c 'lagging behind' $RUN.err)
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
      "$ID" "$DNAME" "$status" "$DEV" "$READY" "$INIT" $((U1 - U0)) $((S1 - S0)) $((CU1 - CU0)) $((CS1 - CS0)) $((NS1 - NS0)) \
      "$PU" "$PS" "$(fsub "$TP1" "$TP0")" "$(fsub "$TD" "$TP1")" "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$ERRL" "$LAGL" >> "$RES"
    cp $RUN.out $L.out; cp $RUN.err $L.err; cat $RUN.playerr > $L.playerr
    echo "PEER: $ID/$DNAME $status dev=$DEV cpu=$((U1 - U0 + S1 - S0)) ticks, stdout $(wc -l < $RUN.out) lines, run $(fsub "$(now)" "$T_RUN")s"
    rm -f $RUN.*
  done
  exec 3<&-
done
exec 4<&-
echo "PEER: all runs took $(fsub "$(now)" "$T_ALL")s (guest clock)"
dmesg > $OUT/dmesg.txt 2>/dev/null
echo done > $OUT/guest-finished
