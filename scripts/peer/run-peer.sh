#!/bin/bash
# run-peer.sh - gestured next to a peer daemon, Debian's lisgd, on the same uinput streams in ONE
# boot of the VM harness (scripts/vm/run-vm-test.sh: Debian's kernel, evdev + uinput, udevd):
# what each daemon recognized and what it cost in CPU. Only ratios between daemons measured in
# the same boot mean anything: the guest is emulated (TCG), ~10x slower than the host, and moves
# by a few per cent from boot to boot. scripts/peer/README.md says what is measured and how.
#
# usage: scripts/peer/run-peer.sh [options]
#   --gestured-binary NAME=PATH  a gestured binary to measure, called NAME in the report
#                         (repeatable: several builds in one boot, in the order given, make a
#                         like-for-like comparison). Default: this checkout's static release
#                         build, built here as shipped (scripts/shipped-build.sh),
#                         called 'gestured'.
#   --gestured-config NAME=FILE  run the binary called NAME with `--config FILE` instead of the
#                         built-in configuration (e.g. fewer recognizers: what recognition costs
#                         against the rest of the frame path; the same binary can be given twice,
#                         under two names, one of them with a configuration)
#   --rounds N            run the whole list of daemons N times in the boot, in order (default
#                         1); round K's runs are called NAME.rK. The report adds each daemon's
#                         mean over the rounds and its ratio to lisgd's mean: one boot's single
#                         runs of the same binary differ by up to ~15 %
#   --listen 'OPTIONS'    the subscription of each gestured's one client (`gestured listen
#                         OPTIONS`; default '--kind swipe': what lisgd emits, swipes)
#   --bench FRAMES        the synthetic bench stream of gen_evemu.py (default 72000 = 1.14 M
#                         events, 600 s at 120 Hz; 0 = no bench)
#   --bench-speed S[,S..] one bench case per speed: FACTOR (x faster than recorded; default 10,
#                         1200 frames/s, a wake-up per frame as on hardware) | orig | max (every
#                         event at once; lisgd's evdev buffer overflows there: LOST EVENTS)
#   --only-bench | --no-bench
#   --cases FILE          labelled cases (default cases.tsv next to this script; format there)
#   --case ID LABEL EXPECT RECORDING DESC   one labelled case (repeatable; replaces the list;
#                         DESC '-' when the recording has its description)
#   --speed S             speed of the labelled cases (default orig: recorded timing)
#   --screen-long PX      long side of the screen lisgd is told about (default 1920; the short
#                         side follows the touch surface's aspect ratio)
#   --no-evcount          don't LD_PRELOAD evcount.so (counts what each daemon reads through
#                         libevdev: events, frames, SYN_DROPPED)
#   --out DIR             results (default /tmp/peer-<date>)
#   --timeout SECS        VM wall-clock limit (default 3600)
#   --mem MB              guest memory (default 2048)
#   --floor               also run evfloor (evfloor.c, built here with gcc): a C daemon that
#                         only reads every frame through libevdev and recognizes nothing. Its
#                         ratio is what the kernel's wake-up and libevdev's reading cost any
#                         daemon that reads every frame: the floor under every other ratio
#   --perf                profile each daemon during the replay with `perf record -e cpu-clock`
#                         in the guest (the host's perf, which must match the guest's 6.1
#                         kernel; linux-perf): DIR/logs/CASE.DAEMON.perf.txt, the samples by
#                         shared object and by symbol. perf's sampling adds to the CPU it
#                         measures: take ratios from a run without it
#   --pin on|both         CPU placement in the 2-vCPU guest: `on` runs every daemon (and what it
#                         starts: gestured's client, lisgd's bound commands) on vCPU 1 and
#                         evemu-play on vCPU 0, as a panel's interrupt arrives beside a daemon
#                         whose CPU nothing else uses; `both` runs the list twice in each round,
#                         unpinned as NAME and pinned as NAME.pin (default: no placement, the
#                         guest's scheduler decides, and the replayer can share the daemon's
#                         vCPU: the daemon then pays for switching back from the replayer's
#                         address space on every frame)
#   --icount              count instructions instead of emulated time: one vCPU (shared by the
#                         daemons and evemu-play; two hang the guest's boot under icount) whose
#                         clock advances one nanosecond an instruction (qemu -icount
#                         shift=0,sleep=off), so a daemon's CPU seconds are the instructions it
#                         ran, user and kernel — the same from one boot to the next and whatever
#                         the host's load, where TCG's emulated time moves by up to ~15 % a run;
#                         what it leaves out is what the emulator charges beyond instructions
#                         (its TLB and translated-code lookups after each context switch). Not
#                         with --pin
#   --verbose             echo the guest console while it runs
# Recordings: a relative RECORDING or DESC is looked up in this repository first, then in
#   $GESTURED_CORPUS (optional: a folder of evemu recordings, e.g. a checkout of real
#   touchscreens' recordings; nothing here needs it).
# Cache: lisgd's Debian package is downloaded once into scripts/cache/peer (git-ignored;
#   PEER_CACHE overrides); the VM's kernel and udev into scripts/cache/vm (VMTEST_CACHE).
# Output (stdout and DIR/report.txt): what each daemon recognized per case, checked against the
#   case's expected token; the cost per case and daemon (guest CPU, events per CPU second, ratio
#   to lisgd); details per run; DIR/report.tsv has every number.
# Run time: ~1 min for the boot and the labelled cases, then per daemon about the bench's
#   playing time (60 s at x10) to 3x that on a loaded host.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
PEER_CACHE=${PEER_CACHE:-$REPO/scripts/cache/peer}
CASES_FILE=$HERE/cases.tsv
CASES=(); BINARIES=(); CONFIGS=(); LISTEN='--kind swipe'
BENCH=72000; BENCH_SPEED=10; SPEED=orig; SCREEN_LONG=1920; EVCOUNT=1
OUT=; TIMEOUT=3600; MEM=2048; VERBOSE=0; ONLY_BENCH=0; PERF=0; FLOOR=0; ROUNDS=1; PIN=off; ICOUNT=0
while [ $# -gt 0 ]; do
  case "$1" in
    --gestured-binary)
      case "$2" in *=?*) ;; *) echo "--gestured-binary wants NAME=PATH, not '$2'" >&2; exit 2;; esac
      BINARIES+=("$2"); shift 2;;
    --gestured-config)
      case "$2" in *=?*) ;; *) echo "--gestured-config wants NAME=FILE, not '$2'" >&2; exit 2;; esac
      CONFIGS+=("$2"); shift 2;;
    --rounds)
      case "$2" in ''|*[!0-9]*|0) echo "--rounds wants a count of 1 or more, not '$2'" >&2; exit 2;; esac
      ROUNDS=$2; shift 2;;
    --pin)
      case "$2" in on|both) ;; *) echo "--pin wants on or both, not '$2'" >&2; exit 2;; esac
      PIN=$2; shift 2;;
    --listen) LISTEN=$2; shift 2;;
    --bench) BENCH=$2; shift 2;;
    --bench-speed) BENCH_SPEED=$2; shift 2;;
    --only-bench) ONLY_BENCH=1; shift;;
    --no-bench) BENCH=0; shift;;
    --cases) CASES_FILE=$2; shift 2;;
    --case) CASES+=("$2	$3	$4	$5	$6"); shift 6;;
    --speed) SPEED=$2; shift 2;;
    --screen-long) SCREEN_LONG=$2; shift 2;;
    --no-evcount) EVCOUNT=0; shift;;
    --out) OUT=$2; shift 2;;
    --timeout) TIMEOUT=$2; shift 2;;
    --mem) MEM=$2; shift 2;;
    --floor) FLOOR=1; shift;;
    --perf) PERF=1; shift;;
    --icount) ICOUNT=1; shift;;
    --verbose) VERBOSE=1; shift;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2;;
  esac
done
log() { echo "[run-peer] $*" >&2; }
if [ "$ICOUNT" = 1 ] && [ "$PIN" != off ]; then
  echo "--pin places daemons on two vCPUs; --icount runs one" >&2
  exit 2
fi

# ---- host packages: the build's, and evemu-tools and libinput-bin, whose programs and data go
# into the guest (libinput's quirks and udev rules, libwacom's database) ----
"$REPO/scripts/setup-debian.sh"
need=()
for p in evemu-tools libinput-bin gcc python3; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  log "installing ${need[*]}"
  apt-get install -y --no-install-recommends "${need[@]}" >/dev/null \
    || { apt-get update >/dev/null && apt-get install -y --no-install-recommends "${need[@]}" >/dev/null; }
fi

# ---- lisgd: Debian's package, downloaded and unpacked (not installed on the host) ----
if [ ! -f "$PEER_CACHE/lisgd.ready" ]; then
  log "downloading lisgd"
  rm -rf "$PEER_CACHE/lisgd" && mkdir -p "$PEER_CACHE/lisgd"
  (cd "$PEER_CACHE" && rm -f lisgd_*.deb && { apt-get download lisgd >/dev/null 2>&1 \
    || { apt-get update >/dev/null && apt-get download lisgd >/dev/null; }; })
  dpkg -x "$PEER_CACHE"/lisgd_*.deb "$PEER_CACHE/lisgd"
  touch "$PEER_CACHE/lisgd.ready"
fi
LISGD=$PEER_CACHE/lisgd/usr/bin/lisgd
# Its libraries (libinput, libwayland-client, libx11) come from the host, found with ldd, as for
# every program the VM harness stages.
if missing=$(ldd "$LISGD" | grep 'not found'); then
  log "lisgd's libraries missing on this host (scripts/setup-debian.sh --test installs them):"
  echo "$missing" >&2
  exit 2
fi

# ---- gestured ----
if [ ${#BINARIES[@]} -eq 0 ]; then
  log "building gestured (static release)"
  source "$REPO/scripts/shipped-build.sh"
  (cd "$REPO" && swift build "${SHIPPED_BUILD[@]}" --product gestured >&2)
  BINARIES=("gestured=$(cd "$REPO" && swift build "${SHIPPED_BUILD[@]}" --show-bin-path)/gestured")
fi

OUT=${OUT:-/tmp/peer-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd); rm -rf "$OUT/logs" "$OUT/results.tsv" "$OUT/guest-finished" "$OUT/placement"
T=$(mktemp -d /tmp/peer-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/cases" "$T/bin"
cp "$HERE/peer-guest.sh" "$HERE/lisgd-run.sh" "$HERE/gestured-run.sh" "$T/"
cp "$LISGD" "$T/bin/lisgd"

# ---- daemons: lisgd first (the ratios' reference), evfloor with --floor, then each gestured ----
printf 'lisgd\tsh /test/lisgd-run.sh\n' > "$T/daemons.tsv"
printf 'lisgd\tsed -n "s/^GESTURE //p"\n' > "$OUT/daemons.meta.tsv"
if [ "$FLOOR" = 1 ]; then
  gcc -O2 -o "$T/bin/evfloor" "$HERE/evfloor.c" $(pkg-config --cflags --libs libevdev)
  printf 'floor\t/test/bin/evfloor\n' >> "$T/daemons.tsv"
  printf 'floor\ttrue\n' >> "$OUT/daemons.meta.tsv"
  log "floor: evfloor.c (reads every frame through libevdev, recognizes nothing)"
fi
for b in "${BINARIES[@]}"; do
  name=${b%%=*}; path=${b#*=}
  [ -x "$path" ] || { log "$name: no executable at $path"; exit 2; }
  case "$name" in lisgd|floor|*[!A-Za-z0-9._-]*) log "'$name': a name of letters, digits, '.', '_', '-' other than lisgd and floor"; exit 2;; esac
  mkdir -p "$T/bin/$name"
  # Without debug information: a smaller initramfs boots faster; the code is the same.
  strip --strip-debug -o "$T/bin/$name/gestured" "$path"
  config=; runner="sh /test/gestured-run.sh"
  for c in "${CONFIGS[@]}"; do [ "${c%%=*}" = "$name" ] && config=${c#*=}; done
  if [ -n "$config" ]; then
    [ -f "$config" ] || { log "$name: no configuration file at $config"; exit 2; }
    "$path" check-config "$config" >&2 || { log "$name: $config does not load"; exit 2; }
    cp "$config" "$T/bin/$name/gestured.yaml"
    runner="env PEER_GESTURED_CONFIG=/test/bin/$name/gestured.yaml sh /test/gestured-run.sh"
  fi
  printf '%s\t%s /test/bin/%s/gestured %s\n' "$name" "$runner" "$name" "$LISTEN" >> "$T/daemons.tsv"
  printf '%s\tpython3 "%s/gestured-parse.py"\n' "$name" "$HERE" >> "$OUT/daemons.meta.tsv"
  log "$name: $path${config:+ --config $config}, client: gestured listen $LISTEN"
done
# placement: a third column, 'pin', for the guest (peer-guest.sh)
if [ "$PIN" = on ]; then
  awk -F '\t' -v OFS='\t' '{ print $1, $2, "pin" }' "$T/daemons.tsv" > "$T/daemons.pinned"
  mv "$T/daemons.pinned" "$T/daemons.tsv"
  echo "Placement: every daemon on vCPU 1, evemu-play on vCPU 0 (--pin on)." > "$OUT/placement"
  log "every daemon on vCPU 1, evemu-play on vCPU 0"
elif [ "$PIN" = both ]; then
  awk -F '\t' -v OFS='\t' '{ print; print $1 ".pin", $2, "pin" }' "$T/daemons.tsv" > "$T/daemons.pinned"
  awk -F '\t' -v OFS='\t' '{ print; print $1 ".pin", $2 }' "$OUT/daemons.meta.tsv" > "$T/meta.pinned"
  mv "$T/daemons.pinned" "$T/daemons.tsv"; mv "$T/meta.pinned" "$OUT/daemons.meta.tsv"
  echo "Placement: NAME as the guest's scheduler places it; NAME.pin on vCPU 1 with evemu-play on vCPU 0, its ratios against lisgd.pin of its round (--pin both)." > "$OUT/placement"
  log "each daemon twice: NAME as the guest places it, NAME.pin on vCPU 1 with evemu-play on vCPU 0"
fi
ACCEL=()
if [ "$ICOUNT" = 1 ]; then
  ACCEL=(--accel icount)
  echo "Clock: instructions (--icount): one vCPU, shared by every daemon and evemu-play, whose clock advances 1 ns an instruction; CPU seconds are the instructions a daemon ran, user and kernel." > "$OUT/placement"
  log "one vCPU counting instructions (icount)"
fi
# rounds 2..N: the same list again, each run called NAME.rK
if [ "$ROUNDS" -gt 1 ]; then
  cp "$T/daemons.tsv" "$T/daemons.once"; cp "$OUT/daemons.meta.tsv" "$T/meta.once"
  for k in $(seq 2 "$ROUNDS"); do
    awk -F '\t' -v OFS='\t' -v k="$k" '{ $1 = $1 ".r" k; print }' "$T/daemons.once" >> "$T/daemons.tsv"
    awk -F '\t' -v OFS='\t' -v k="$k" '{ $1 = $1 ".r" k; print }' "$T/meta.once" >> "$OUT/daemons.meta.tsv"
  done
  log "$ROUNDS rounds of $(grep -c . "$T/daemons.once") daemons"
  rm -f "$T/daemons.once" "$T/meta.once"
fi
for c in "${CONFIGS[@]}"; do
  n=${c%%=*}; found=0
  for b in "${BINARIES[@]}"; do [ "${b%%=*}" = "$n" ] && found=1; done
  [ "$found" = 1 ] || { log "--gestured-config $c: no --gestured-binary called $n"; exit 2; }
done

# ---- cases ----
if [ ${#CASES[@]} -eq 0 ] && [ "$ONLY_BENCH" = 0 ]; then
  while IFS= read -r line; do
    case "$line" in ''|'#'*) continue;; esac
    CASES+=("$line")
  done < "$CASES_FILE"
fi
recording() {  # a case's file: absolute, in this repository, or in $GESTURED_CORPUS
  case "$1" in /*) echo "$1"; return;; esac
  if [ -e "$REPO/$1" ]; then echo "$REPO/$1"; return; fi
  if [ -n "${GESTURED_CORPUS:-}" ] && [ -e "$GESTURED_CORPUS/$1" ]; then echo "$GESTURED_CORPUS/$1"; return; fi
  log "recording $1 is neither in the repository nor in \$GESTURED_CORPUS (${GESTURED_CORPUS:-unset})"
  exit 2
}
printf 'id\tlabel\texpect\trecording\tevents\tframes\tduration_s\tW\tH\tslots\tbacksteps\tunsupported\tkernel_events\tkernel_frames\tdevice\n' > "$OUT/cases.meta.tsv"
: > "$T/cases.tsv"
prep() {  # prep ID LABEL EXPECT RECORDING DESC SPEED
  local args=() file meta lim
  if [ "$5" != - ]; then file=$(recording "$5"); args+=(--desc "$file"); fi
  file=$(recording "$4")
  meta=$(python3 "$HERE/prep_case.py" "${args[@]}" --speed "$6" --screen-long "$SCREEN_LONG" "$T/cases" "$1" "$file")
  IFS=$'\t' read -r _ ev fr dur W H slots back unsup kev kfr name <<< "$meta"
  [ "$back" = 0 ] || log "$1: $back backward timestamp steps clamped"
  [ "$unsup" = 0 ] || log "WARNING $1: $unsup events use codes the device description does not enable: the kernel drops them"
  [ "$slots" -le 20 ] || log "$1: $slots slots: lisgd 0.3.7 keeps per-slot state in arrays of 20 (MAXSLOTS)"
  # the replay's time limit in the guest: the (scaled) duration x 10 + 60 s
  lim=$(awk -v d="$dur" -v s="$6" 'BEGIN{f = (s == "orig" || s == "max") ? 1 : s; if (s == "max") d = 60; printf "%d", d / f * 10 + 60}')
  printf '%s\t%s\t%s\t%s\t*\n' "$1" "$W" "$H" "$lim" >> "$T/cases.tsv"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$ev" "$fr" "$dur" "$W" "$H" "$slots" "$back" "$unsup" "$kev" "$kfr" "$name" >> "$OUT/cases.meta.tsv"
  log "case $1: $ev events, $fr frames ($kev events in $kfr frames reach a reader), ${dur}s, screen ${W}x$H, '$name'"
}
for c in "${CASES[@]}"; do
  IFS=$'\t' read -r id label expect rec desc <<< "$c"
  prep "$id" "$label" "$expect" "$rec" "${desc:--}" "$SPEED"
done
if [ "$BENCH" -gt 0 ]; then
  python3 "$HERE/gen_evemu.py" "$BENCH" > "$T/bench.evemu"
  for bs in ${BENCH_SPEED//,/ }; do
    prep "bench-$BENCH-$bs" "synthetic ${BENCH} frames @120Hz, speed $bs" - "$T/bench.evemu" - "$bs"
  done
  rm -f "$T/bench.evemu"
fi

# ---- event counter shim ----
PRELOAD=()
if [ "$EVCOUNT" = 1 ]; then
  gcc -O2 -shared -fPIC -o "$T/evcount.so" "$HERE/evcount.c"
  PRELOAD=(PEER_PRELOAD=/test/evcount.so)
fi

# ---- what the guest needs beside /test, at the same paths: evemu's tools, and libinput's
# runtime files that ldd cannot see ----
X=(/usr/bin/evemu-device /usr/bin/evemu-play
   /usr/share/libinput                      # libinput's quirks (else: "Failed to load the device quirks")
   /usr/share/libwacom                      # libinput opens libwacom's database
   /lib/udev/rules.d/80-libinput-device-groups.rules /lib/udev/libinput-device-group
   /lib/udev/rules.d/90-libinput-fuzz-override.rules /lib/udev/libinput-fuzz-extract /lib/udev/libinput-fuzz-to-zero)
PERFENV=()
if [ "$PERF" = 1 ]; then
  command -v perf >/dev/null || { log "--perf needs perf on this host (apt-get install linux-perf)"; exit 2; }
  X+=("$(command -v perf)")
  PERFENV=(PEER_PERF=1)
fi
XA=()
for p in "${X[@]}"; do
  [ -e "$p" ] || { log "missing on this host: $p"; exit 2; }
  XA+=(--extra "$p")
done

log "VM: ${#CASES[@]} cases$([ "$BENCH" -gt 0 ] && echo " + bench") x $(wc -l < "$T/daemons.tsv") daemons; results in $OUT"
t0=$(date +%s.%N)
set +e
if [ "$VERBOSE" = 1 ]; then
  "$REPO/scripts/vm/run-vm-test.sh" "${ACCEL[@]}" --udev --mem "$MEM" --timeout "$TIMEOUT" --out "$OUT" "${XA[@]}" "$T" -- \
    env "${PRELOAD[@]}" "${PERFENV[@]}" sh /test/peer-guest.sh 2>&1 | tee "$OUT/console.log"
  rc=${PIPESTATUS[0]}
else
  "$REPO/scripts/vm/run-vm-test.sh" "${ACCEL[@]}" --udev --mem "$MEM" --timeout "$TIMEOUT" --out "$OUT" "${XA[@]}" "$T" -- \
    env "${PRELOAD[@]}" "${PERFENV[@]}" sh /test/peer-guest.sh > "$OUT/console.log" 2>&1
  rc=$?
fi
set -e
VMSECS=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b - a}')
log "VM finished rc=$rc after ${VMSECS}s (host wall clock, initramfs packing included)"
grep -a '^PEER:' "$OUT/console.log" >&2 || true
[ -f "$OUT/results.tsv" ] || { log "no results.tsv; see $OUT/console.log"; tail -30 "$OUT/console.log" >&2; exit 1; }
python3 "$HERE/peer_report.py" "$OUT" "$VMSECS" | tee "$OUT/report.txt"
[ "$rc" = 0 ] || exit "$rc"
