#!/bin/bash
# run-vm-test.sh - run a test inside a throw-away qemu VM whose kernel has
# evdev + uinput, so that uinput/evdev end-to-end tests work on a host whose
# kernel lacks uinput (scripts/vm/README.md).
#
# usage: run-vm-test.sh [options] TESTDIR -- COMMAND [ARGS...]
#   TESTDIR is copied to /test inside the guest; COMMAND runs there (cwd
#   /test) under busybox sh, as root. Shared libraries of every ELF file in
#   TESTDIR (and in --extra paths) are found with ldd and copied along, at the
#   same paths (so RUNPATHs such as /opt/swift/... keep working).
# options:
#   --arch A          amd64 (default) or arm64: qemu-system-aarch64 -M virt -cpu cortex-a72 (TCG)
#                     booting Debian 13's arm64 kernel with busybox-static:arm64 (and trixie's
#                     udev); libraries of the ELF files are found by a readelf walk over that
#                     tree and the cross sysroot (scripts/cross/make-toolchain.sh), not ldd;
#                     --accel icount and --bzimage are amd64's only
#   --fetch           only download and unpack what a boot needs (the kernel, udev), then exit
#   --udev            also start systemd-udevd (Debian package 'udev', extracted,
#                     not installed) + udevadm trigger/settle before COMMAND,
#                     so libudev sees ID_INPUT_TOUCHSCREEN etc.
#   --extra PATH      copy a host file/dir into the guest at the same path (repeatable)
#   --mem MB          guest memory (default 1024)
#   --smp N           guest CPUs (default 2)
#   --accel A         tcg (default), kvm (kvm hangs the guest on a PVM-only
#                     host such as the one this was written on) or icount: TCG
#                     on one vCPU whose clock advances 1 ns an instruction
#                     (-icount shift=0,sleep=off; idle time is skipped), so CPU
#                     times are instruction counts, the same whatever the host's
#                     load; one vCPU because two hang this kernel's boot there
#   --timeout SECS    wall-clock limit for qemu (default 900)
#   --gzip            gzip -1 the initramfs (default: uncompressed cpio, which
#                     boots faster under TCG: the guest's gunzip is emulated)
#   --bzimage         boot the compressed bzImage through SeaBIOS instead of the
#                     extracted vmlinux via PVH (PVH saves ~4 s of emulated xz)
#   --out DIR         share host DIR read-write into the guest at /out (virtio-9p)
#                     for test artifacts; /out/exit-status gets the exit status
#   --keep            keep the work dir (printed)
#   --quiet           don't echo guest console to stdout (still in the log)
# env:
#   VMTEST_CACHE      where the kernel/udev packages are downloaded and extracted
#                     once (default: scripts/cache/vm in the repository, git-ignored)
# exit status: the guest command's exit status, taken from the console line
#   'VMTEST-EXIT-STATUS-<nonce>=N' that the guest's /init prints after COMMAND
#   (nonce random per run, so test output can't fake it); 124 if qemu hit
#   --timeout, 125 if the marker never appeared (guest crashed / panicked).
# needs: root (mknod, apt-get), Debian 12 apt sources; installs qemu-system-x86,
#   busybox-static, cpio if missing (--no-install-recommends).
set -euo pipefail

ARCH=amd64; FETCH=0; UDEV=0; MEM=1024; SMP=2; ACCEL=tcg; TIMEOUT=900; COMPRESS=0; KEEP=0; QUIET=0; PVH=1; OUTDIR=
EXTRA=()
while [ $# -gt 0 ]; do
  case "$1" in
    --arch) ARCH=$2; shift 2;;
    --udev) UDEV=1; shift;;
    --extra) EXTRA+=("$2"); shift 2;;
    --mem) MEM=$2; shift 2;;
    --smp) SMP=$2; shift 2;;
    --accel) ACCEL=$2; shift 2;;
    --timeout) TIMEOUT=$2; shift 2;;
    --gzip) COMPRESS=1; shift;;
    --no-compress) COMPRESS=0; shift;;
    --bzimage) PVH=0; shift;;
    --out) OUTDIR=$2; shift 2;;
    --keep) KEEP=1; shift;;
    --quiet) QUIET=1; shift;;
    --fetch) FETCH=1; shift;;
    -h|--help) sed -n '2,37p' "$0"; exit 0;;
    --) shift; break;;
    -*) echo "unknown option $1" >&2; exit 2;;
    *) if [ -z "${TESTDIR:-}" ]; then TESTDIR=$1; shift; else break; fi;;
  esac
done
[ "$FETCH" = 1 ] && { TESTDIR=/; UDEV=1; set -- true; }
[ -n "${TESTDIR:-}" ] && [ -d "$TESTDIR" ] && [ $# -gt 0 ] || { echo "usage: $0 [options] TESTDIR -- COMMAND..." >&2; exit 2; }
TESTDIR=$(cd "$TESTDIR" && pwd)
if [ -n "$OUTDIR" ]; then mkdir -p "$OUTDIR"; OUTDIR=$(cd "$OUTDIR" && pwd); fi

CACHE=${VMTEST_CACHE:-$(cd "$(dirname "$0")/.." && pwd)/cache/vm}
mkdir -p "$CACHE"
log() { echo "[run-vm-test] $*" >&2; }

case "$ARCH" in amd64|arm64) ;; *) echo "--arch: amd64 or arm64" >&2; exit 2;; esac
if [ "$ARCH" = arm64 ]; then
  # ---- arm64: Debian 13's kernel, busybox-static and udev, unpacked (mmdebstrap's extract
  # variant: no arm64 code runs here) into one tree, once ----
  CACHE=$CACHE/arm64; mkdir -p "$CACHE"
  need=()
  command -v qemu-system-aarch64 >/dev/null || need+=(qemu-system-arm)
  command -v mmdebstrap >/dev/null || need+=(mmdebstrap)
  command -v cpio >/dev/null || need+=(cpio)
  if [ ${#need[@]} -gt 0 ]; then
    log "installing ${need[*]}"
    apt-get install -y --no-install-recommends "${need[@]}" >/dev/null || { apt-get update >/dev/null && apt-get install -y --no-install-recommends "${need[@]}" >/dev/null; }
  fi
  if [ ! -f "$CACHE/tree.v1.ready" ]; then
    log "downloading Debian 13's arm64 kernel, busybox-static and udev"
    rm -rf "$CACHE/tree" "$CACHE/modules" "$CACHE/modules9p"
    mmdebstrap --quiet --mode=root --variant=extract --architectures=arm64 --aptopt='Acquire::Retries "3"' \
      --include=linux-image-arm64,busybox-static,udev --dpkgopt='path-exclude=/usr/share/doc/*' \
      --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
      trixie "$CACHE/tree" "${GESTURED_CROSS_MIRROR:-http://deb.debian.org/debian}" >&2
    kver=$(ls "$CACHE/tree/usr/lib/modules" | head -1)
    grep -q '^CONFIG_INPUT=y' "$CACHE/tree/boot/config-$kver" || { log "CONFIG_INPUT is not =y in $kver"; exit 2; }
    cp "$CACHE/tree/boot/vmlinuz-$kver" "$CACHE/vmlinuz"
    mkdir -p "$CACHE/modules" "$CACHE/modules9p"
    for m in drivers/input/evdev drivers/input/misc/uinput; do
      xz -dc "$CACHE/tree/usr/lib/modules/$kver/kernel/$m.ko.xz" > "$CACHE/modules/$(basename $m).ko"
    done
    # virtio-9p for --out, in load order (virtio and its PCI transport are built into this kernel)
    n=0
    for m in fs/netfs/netfs net/9p/9pnet net/9p/9pnet_virtio fs/9p/9p; do
      n=$((n+1)); xz -dc "$CACHE/tree/usr/lib/modules/$kver/kernel/$m.ko.xz" > "$CACHE/modules9p/$(printf %02d $n)-$(basename $m).ko"
    done
    echo "$kver" > "$CACHE/kver"
    rm -rf "$CACHE/tree/usr/lib/modules" "$CACHE/tree/boot" "$CACHE/tree/usr/lib/firmware"
    touch "$CACHE/tree.v1.ready"
  fi
else
# ---- host tools (Debian 12 packages) ----
need=()
command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
# a static busybox with insmod/poweroff (Debian 'busybox-static'; the dynamic 'busybox' would need its libs too)
if ! { [ -x /bin/busybox ] && /bin/busybox --list 2>/dev/null | grep -x insmod >/dev/null && ! ldd /bin/busybox >/dev/null 2>&1; }; then need+=(busybox-static); fi
command -v cpio >/dev/null || need+=(cpio)
if [ ${#need[@]} -gt 0 ]; then
  log "installing ${need[*]}"
  apt-get install -y --no-install-recommends "${need[@]}" >/dev/null || { apt-get update >/dev/null && apt-get install -y --no-install-recommends "${need[@]}" >/dev/null; }
fi

# ---- kernel: Debian's linux-image, downloaded + extracted (never installed) ----
if [ ! -f "$CACHE/kernel.v2.ready" ]; then
  pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/{print $2; exit}')
  if [ -z "$pkg" ]; then apt-get update >/dev/null; pkg=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/{print $2; exit}'); fi
  log "downloading $pkg"
  rm -rf "$CACHE/kx" && mkdir -p "$CACHE/kx"
  (cd "$CACHE" && rm -f linux-image-*.deb && apt-get download "$pkg" 2>/dev/null >/dev/null)
  dpkg -x "$CACHE"/linux-image-*.deb "$CACHE/kx"
  du -h "$CACHE"/linux-image-*.deb | sed "s/^/[run-vm-test] package size: /" >&2; rm -f "$CACHE"/linux-image-*.deb
  kver=$(ls "$CACHE/kx/lib/modules" | head -1)
  cp "$CACHE/kx/boot/vmlinuz-$kver" "$CACHE/vmlinuz"
  rm -rf "$CACHE/modules" "$CACHE/modules9p"; mkdir -p "$CACHE/modules" "$CACHE/modules9p"
  getmod() {  # getmod DEST path/in/kernel/tree-without-.ko ; decompresses .ko.xz/.zst/.gz
    local f; f=$(ls "$CACHE/kx/lib/modules/$kver/kernel/$2".ko* | head -1)
    case "$f" in
      *.ko) cp "$f" "$1/";;
      *.ko.xz) xz -dc "$f" > "$1/$(basename "${f%.xz}")";;
      *.ko.zst) zstd -dcq "$f" > "$1/$(basename "${f%.zst}")";;
      *.ko.gz) gzip -dc "$f" > "$1/$(basename "${f%.gz}")";;
    esac
  }
  # evdev and uinput depend only on the input core (CONFIG_INPUT=y)
  for m in drivers/input/evdev drivers/input/misc/uinput; do getmod "$CACHE/modules" $m; done
  # virtio-9p for --out, in load order (deps from each .ko's modinfo 'depends=')
  n=0
  for m in drivers/virtio/virtio_ring drivers/virtio/virtio drivers/virtio/virtio_pci_modern_dev \
           drivers/virtio/virtio_pci_legacy_dev drivers/virtio/virtio_pci fs/netfs/netfs \
           fs/fscache/fscache net/9p/9pnet net/9p/9pnet_virtio fs/9p/9p; do
    getmod "$CACHE/modules9p" $m; n=$((n+1)); b=$(basename $m); mv "$CACHE/modules9p/$b.ko" "$CACHE/modules9p/$(printf %02d $n)-$b.ko"
  done
  # vmlinux (uncompressed ELF with a PVH entry note) out of the xz bzImage
  off=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$CACHE/vmlinuz" | head -1 | cut -d: -f1 || true)
  rm -f "$CACHE/vmlinux"
  if [ -n "$off" ]; then tail -c +$((off + 1)) "$CACHE/vmlinuz" | xz -dc > "$CACHE/vmlinux" 2>/dev/null || true; fi
  if [ "$(head -c4 "$CACHE/vmlinux" 2>/dev/null | od -An -c | tr -d ' \n')" != '177ELF' ]; then rm -f "$CACHE/vmlinux"; log "no vmlinux extracted; will boot bzImage"; fi
  # input core must be built in (evdev/uinput only depend on it)
  grep -q '^CONFIG_INPUT=y' "$CACHE/kx/boot/config-$kver" || { log "CONFIG_INPUT is not =y in $pkg"; exit 2; }
  echo "$kver" > "$CACHE/kver"
  rm -rf "$CACHE/kx"   # 400 MB of modules we don't need
  touch "$CACHE/kernel.v2.ready"
fi
if [ "$UDEV" = 1 ] && [ ! -f "$CACHE/udev.ready" ]; then
  log "downloading udev"
  rm -rf "$CACHE/udev" && mkdir -p "$CACHE/udev"
  (cd "$CACHE" && rm -f udev_*.deb && apt-get download udev 2>/dev/null >/dev/null)
  dpkg -x "$CACHE"/udev_*.deb "$CACHE/udev"
  touch "$CACHE/udev.ready"
fi
fi

[ "$FETCH" = 1 ] && exit 0

# ---- stage the initramfs ----
WORK=$(mktemp -d /tmp/vmtest.XXXXXX)
cleanup() { [ "$KEEP" = 1 ] && log "work dir kept: $WORK" || rm -rf "$WORK"; }
trap cleanup EXIT
R=$WORK/root
mkdir -p "$R"/{bin,sbin,dev,proc,sys,tmp,run,etc,lib/modules,lib64,test}
if [ "$ARCH" = arm64 ]; then cp "$CACHE/tree/usr/bin/busybox" "$R/bin/busybox"; else cp /bin/busybox "$R/bin/busybox"; fi
mknod -m 600 "$R/dev/console" c 5 1 2>/dev/null || true
mknod -m 666 "$R/dev/null" c 1 3 2>/dev/null || true
cp "$CACHE"/modules/*.ko "$R/lib/modules/"
if [ -n "$OUTDIR" ]; then mkdir -p "$R/lib/modules9p" "$R/out"; cp "$CACHE"/modules9p/*.ko "$R/lib/modules9p/"; fi
cp -a "$TESTDIR/." "$R/test/"
printf 'root:x:0:0:root:/root:/bin/sh\n' > "$R/etc/passwd"
cat > "$R/etc/group" <<'EOF'
root:x:0:
tty:x:5:
disk:x:6:
lp:x:7:
kmem:x:15:
dialout:x:20:
cdrom:x:24:
floppy:x:25:
tape:x:26:
audio:x:29:
video:x:44:
input:x:105:
sgx:x:991:
render:x:992:
kvm:x:993:
EOF

elfs=()
while IFS= read -r -d '' f; do
  [ "$(head -c4 "$f" 2>/dev/null | od -An -c | tr -d ' \n')" = '177ELF' ] && elfs+=("$f")
done < <(find "$TESTDIR" "${EXTRA[@]}" -type f -print0 2>/dev/null)
for p in "${EXTRA[@]}"; do mkdir -p "$R$(dirname "$p")"; cp -a "$p" "$R$(dirname "$p")/"; done

if [ "$UDEV" = 1 ] && [ "$ARCH" = arm64 ]; then
  cp "$CACHE/tree/usr/bin/udevadm" "$R/bin/udevadm"
  mkdir -p "$R/lib/systemd" "$R/etc/udev"
  ln -s /bin/udevadm "$R/lib/systemd/systemd-udevd"
  # udevd 257 reads its rules from /usr/lib/udev/rules.d only (no split /usr any more)
  mkdir -p "$R/usr/lib/udev"
  cp -a "$CACHE/tree/usr/lib/udev/rules.d" "$R/usr/lib/udev/"
  cp -a "$CACHE"/tree/usr/lib/udev/*_id "$R/usr/lib/udev/" 2>/dev/null || true
  elfs+=("$CACHE/tree/usr/bin/udevadm")
elif [ "$UDEV" = 1 ]; then
  cp "$CACHE/udev/bin/udevadm" "$R/bin/udevadm"
  mkdir -p "$R/lib/systemd" "$R/lib/udev" "$R/etc/udev"
  ln -s /bin/udevadm "$R/lib/systemd/systemd-udevd"
  cp -a "$CACHE/udev/lib/udev/rules.d" "$R/lib/udev/"
  cp -a "$CACHE"/udev/lib/udev/*_id "$R/lib/udev/" 2>/dev/null || true
  [ -f "$CACHE/udev/etc/udev/udev.conf" ] && cp "$CACHE/udev/etc/udev/udev.conf" "$R/etc/udev/"
  elfs+=("$CACHE/udev/bin/udevadm")
fi

if [ "$ARCH" = arm64 ]; then
# shared libraries of every ELF we ship, by a walk over NEEDED and RUNPATH (ldd cannot run arm64
# programs here): found in the tree above or the cross sysroot, copied to the same path in the guest.
# $ORIGIN in a RUNPATH is the guest directory of the file that names it (the Swift runtime's
# libraries find each other so).
LIBROOTS=("$CACHE/tree" "${GESTURED_CROSS_CACHE:-$HOME/.cache/gestured/cross}/sysroot")
queue=("${elfs[@]}")
declare -A origin
for f in "${elfs[@]}"; do
  case "$f" in "$TESTDIR"/*) origin[$f]=/test$(dirname "${f#"$TESTDIR"}");; *) origin[$f]=$(dirname "$f");; esac
done
seen=" "
while [ ${#queue[@]} -gt 0 ]; do
  f=${queue[0]}; queue=("${queue[@]:1}")
  dirs=$(readelf -d "$f" 2>/dev/null | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p' | tr ':' ' ')
  dirs=${dirs//\$ORIGIN/${origin[$f]}}
  for so in $(readelf -d "$f" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    case "$seen" in *" $so "*) continue;; esac
    seen+="$so "
    found=
    for root in "${LIBROOTS[@]}"; do
      for d in $dirs /usr/lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu/systemd /usr/lib; do
        if [ -e "$root$d/$so" ]; then found=$root$d/$so; origin[$found]=$d; mkdir -p "$R$d"; cp -L "$found" "$R$d/$so"; break 2; fi
      done
    done
    if [ -n "$found" ]; then queue+=("$found"); else log "$f needs $so, found in no arm64 tree"; fi
  done
done
cp -L "$CACHE/tree/usr/lib/ld-linux-aarch64.so.1" "$R/lib/"
else
# shared libraries (+ the dynamic loader) of every ELF we ship, at their ldd paths
for f in "${elfs[@]}"; do
  ldd "$f" 2>/dev/null | awk '/=> \//{print $3} /^\s*\/[^ ]*ld-linux/{print $1}' || true
done | sort -u | while read -r lib; do
  [ -e "$lib" ] || continue
  mkdir -p "$R$(dirname "$lib")"
  cp -L "$lib" "$R$lib"
done
[ -e /lib64/ld-linux-x86-64.so.2 ] && cp -L /lib64/ld-linux-x86-64.so.2 "$R/lib64/"
fi

# the command, quoted for sh
{ printf 'cd /test\n'; printf '%q ' "$@" | sed 's/ $//'; printf '\n'; } > "$R/test-cmd"
# bash's %q can emit $'..' quoting that busybox ash also understands

NONCE=$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')
cat > "$R/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin:/usr/sbin LD_LIBRARY_PATH=/lib/@TRIPLET@:/usr/lib/@TRIPLET@ HOME=/root TMPDIR=/tmp
export SYSTEMD_PAGER=cat SYSTEMD_COLORS=0 TERM=dumb
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm /root; mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /tmp; mount -t tmpfs tmpfs /run; mount -t tmpfs tmpfs /dev/shm
exec </dev/console >/dev/console 2>&1
echo "VMTEST: init started at $(cut -d' ' -f1 /proc/uptime)s uptime, kernel $(uname -r)"
insmod /lib/modules/evdev.ko || echo "VMTEST: insmod evdev failed"
insmod /lib/modules/uinput.ko || echo "VMTEST: insmod uinput failed"
if [ -d /lib/modules9p ]; then
  for m in /lib/modules9p/*.ko; do insmod $m || echo "VMTEST: insmod $m failed"; done
  mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out /out || echo "VMTEST: mounting /out failed"
fi
if [ -x /bin/udevadm ]; then
  mkdir -p /run/udev
  /lib/systemd/systemd-udevd --daemon 2>/tmp/udevd.log || echo "VMTEST: udevd failed"
  udevadm trigger --type=subsystems --action=add @TRIGGER@
  udevadm trigger --type=devices --action=add @TRIGGER@
  udevadm settle --timeout=60 || echo "VMTEST: settle timed out"
  echo "VMTEST: udevd up at $(cut -d' ' -f1 /proc/uptime)s"
fi
echo "VMTEST: test starting at $(cut -d' ' -f1 /proc/uptime)s"
sh /test-cmd
rc=$?
echo "VMTEST: test finished at $(cut -d' ' -f1 /proc/uptime)s"
echo "VMTEST-EXIT-STATUS-@NONCE@=$rc"
grep -q " /out 9p " /proc/mounts && { echo $rc > /out/exit-status; umount /out; }
sync
poweroff -f
EOF
TRIPLET=x86_64-linux-gnu; TRIGGER=
# Under arm64's TCG a trigger of every device takes ~12 s; the tests need input and misc (uinput).
[ "$ARCH" = arm64 ] && { TRIPLET=aarch64-linux-gnu; TRIGGER="--subsystem-match=input --subsystem-match=misc"; }
sed -i -e "s/@NONCE@/$NONCE/" -e "s/@TRIPLET@/$TRIPLET/g" -e "s/@TRIGGER@/$TRIGGER/" "$R/init"
chmod 755 "$R/init"

INITRD=$WORK/initramfs.cpio
t0=$(date +%s.%N)
if [ "$COMPRESS" = 1 ]; then
  INITRD=$INITRD.gz
  (cd "$R" && find . | cpio -o -H newc --quiet -R 0:0 | gzip -1) > "$INITRD"
else
  (cd "$R" && find . | cpio -o -H newc --quiet -R 0:0) > "$INITRD"
fi
t1=$(date +%s.%N)
log "initramfs $(du -h "$INITRD" | cut -f1) (packed in $(awk "BEGIN{printf \"%.1f\", $t1 - $t0}")s)"

case "$ACCEL" in
  tcg) ACC=(-accel tcg,thread=multi);;
  kvm) ACC=(-accel kvm);;
  icount) ACC=(-accel tcg,thread=single -icount shift=0,sleep=off); SMP=1;;
  *) ACC=(-accel "$ACCEL");;
esac
LOG=$WORK/console.log
set +e
KERNEL=$CACHE/vmlinuz
[ "$PVH" = 1 ] && [ -f "$CACHE/vmlinux" ] && KERNEL=$CACHE/vmlinux
log "kernel $(cat "$CACHE/kver"): $KERNEL ($(stat -c %s "$KERNEL") bytes), accel $ACCEL, ${MEM} MiB, $SMP vCPUs"
SHARE=()
[ -n "$OUTDIR" ] && SHARE=(-fsdev "local,id=out,path=$OUTDIR,security_model=none" -device "virtio-9p-pci,fsdev=out,mount_tag=out")
# no_timer_check: under TCG on a loaded host the kernel's IO-APIC timer check can miss its ticks and
# panic ("IO-APIC + timer doesn't work"; seen at host load ~15-19); the check is for broken hardware.
if [ "$ARCH" = arm64 ]; then
  QEMU=(qemu-system-aarch64 -M virt -cpu cortex-a72)
  APPEND="console=ttyAMA0 quiet loglevel=3 panic=-1 rdinit=/init"
else
  QEMU=(qemu-system-x86_64 -fw_cfg name=etc/sercon-port,string=0)
  APPEND="console=ttyS0 quiet loglevel=3 panic=-1 no_timer_check rdinit=/init"
fi
timeout --foreground -k 5 "$TIMEOUT" "${QEMU[@]}" "${ACC[@]}" -m "$MEM" -smp "$SMP" \
  -nographic -no-reboot -nic none "${SHARE[@]}" -kernel "$KERNEL" -initrd "$INITRD" \
  -append "$APPEND" </dev/null 2>&1 | tr -d '\r' | grep -av --line-buffered 'fw_cfg item names should be prefixed' | \
  if [ "$QUIET" = 1 ]; then cat > "$LOG"; else tee "$LOG"; fi
qrc=${PIPESTATUS[0]}
set -e
t2=$(date +%s.%N)
log "qemu exited rc=$qrc after $(awk "BEGIN{printf \"%.1f\", $t2 - $t1}")s"
rc=$(grep -a -o "VMTEST-EXIT-STATUS-$NONCE=[0-9]*" "$LOG" | tail -1 | cut -d= -f2 || true)
if [ -n "$rc" ]; then exit "$rc"; fi
[ "$qrc" = 124 ] && { log "timeout"; exit 124; }
log "no exit marker in guest output"
exit 125
