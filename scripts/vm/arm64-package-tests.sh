#!/bin/bash
# arm64-package-tests.sh - the arm64 package as a Raspberry Pi OS / Debian 13 arm64 kiosk gets it,
# on an arm64 kernel: Debian 13 arm64 booted with systemd in an aarch64 VM (qemu-system-aarch64 -M
# virt -cpu cortex-a72, TCG; the kernel, modules and busybox of run-vm-test.sh --arch arm64), its
# root a directory of this machine shared over virtio-9p. In the guest
# (scripts/vm/guest-package-tests.sh):
#   1. the signed repository (scripts/apt-repository.sh, both architectures, a test key) is added
#      with `Signed-By:` and served on the guest's 127.0.0.1; `apt install gestured` by name;
#   2. the service starts; `gestured devices` sees a `simulate`d panel; `gestured listen` gets a
#      swipe played into it through the kernel (uinput, evdev, udev), from the running service;
#   3. the configuration edited, a newer version published, `apt upgrade` moves to it and keeps
#      the edited file;
#   4. the same packages signed with another key are refused;
#   5. `apt purge gestured` leaves nothing of the package's.
# Run by hand (docs/TESTING.md, "arm64 and the apt repository"): its log is
# docs/logs/arm64-package-tests.log; the guest's console goes to $TMPDIR/arm64-package-tests.console.log.
#
# The Debian 13 arm64 root is made once (~/.cache/gestured/trixie-arm64): debootstrap --foreign
# here (no arm64 code runs on this machine: no binfmt_misc), its second stage in a first boot of
# the guest. The guest has no network: the root holds gestured's dependencies from the start
# (debootstrap --include), so `apt install` takes only gestured from the repository.
#
# usage: scripts/vm/arm64-package-tests.sh ARM64_DEB [AMD64_DEB]   (as root)
# env: GESTURED_ARM64_ROOT_CACHE (default ~/.cache/gestured/trixie-arm64), VMTEST_CACHE
#      (run-vm-test.sh's), GESTURED_CROSS_MIRROR (the Debian mirror)
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 1 ] || { sed -n '2,26p' "$0"; exit 2; }
[ "$(id -u)" = 0 ] || { echo "arm64-package-tests: needs root (debootstrap, 9p passthrough)" >&2; exit 1; }
ARM64_DEB=$(realpath "$1")
DEBS=("$ARM64_DEB")
[ $# -ge 2 ] && DEBS+=("$(realpath "$2")")
CACHE=${GESTURED_ARM64_ROOT_CACHE:-$HOME/.cache/gestured/trixie-arm64}
VMCACHE=${VMTEST_CACHE:-$PWD/scripts/cache/vm}/arm64
MIRROR=${GESTURED_CROSS_MIRROR:-http://deb.debian.org/debian}
# gestured's dependencies (its Depends, as dpkg-shlibdeps wrote them) and what a kiosk's Debian has.
INCLUDE=systemd-sysv,udev,apt,libevdev2,libmtdev1t64,libyaml-0-2,iproute2,kmod
start=$(date +%s)
say() { echo "arm64-package-tests: [$(( $(date +%s) - start )) s] $*"; }
fail() { echo "arm64-package-tests: FAILED: $*" >&2; exit 1; }
command -v debootstrap > /dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap > /dev/null
# The kernel, its modules and busybox-static:arm64, as the input suite's aarch64 boots have them.
[ -f "$VMCACHE/tree.v1.ready" ] || scripts/vm/run-vm-test.sh --arch arm64 --fetch
work=$(mktemp -d /tmp/gestured-arm64-package.XXXXXX)
tailer=
trap '[ -z "$tailer" ] || kill "$tailer" 2> /dev/null; rm -rf "$work"' EXIT

# boot ROOT MODE LOG: the guest with ROOT (a directory here) as its root over virtio-9p. MODE
# second-stage runs debootstrap's second stage in it and powers off; MODE systemd boots it.
boot() {
    local root=$1 mode=$2 log=$3 ir=$work/initramfs
    rm -rf "$ir"
    mkdir -p "$ir"/{bin,dev,proc,sys,newroot,lib/modules}
    cp "$VMCACHE/tree/usr/bin/busybox" "$ir/bin/busybox"
    cp "$VMCACHE"/modules/*.ko "$VMCACHE"/modules9p/*.ko "$ir/lib/modules/"
    cat > "$ir/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sysfs /sys; mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
# evdev and uinput (the panel), then virtio-9p in load order (the root)
for m in evdev uinput /lib/modules/[0-9]*-*.ko; do insmod "${m%.ko}.ko" 2>/dev/null || insmod "/lib/modules/$m.ko"; done
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=loose root /newroot || { echo "GUEST: no root"; poweroff -f; }
case "$(cat /proc/cmdline)" in
*gestured.mode=second-stage*)
    # Over 9p no device node can be opened (qemu refuses): /dev is the guest's own, and debootstrap
    # is told what it would be told in a container, so that it skips making and testing nodes.
    mount -o bind /dev /newroot/dev
    container=lxc chroot /newroot /debootstrap/debootstrap --second-stage
    echo "GUEST-SECOND-STAGE-STATUS=$?"
    umount /newroot/dev; sync; poweroff -f ;;
esac
umount /proc /sys
exec switch_root /newroot /lib/systemd/systemd
EOF
    chmod 755 "$ir/init"
    (cd "$ir" && find . | cpio -o -H newc --quiet -R 0:0) > "$work/initramfs.cpio"
    # Slow under TCG on a loaded machine: the second stage configures ~100 packages.
    timeout --foreground -k 5 3600 qemu-system-aarch64 -M virt -cpu cortex-a72 -accel tcg,thread=multi \
        -m 2048 -smp 2 -nographic -no-reboot -nic none \
        -fsdev "local,id=root,path=$root,security_model=passthrough" -device virtio-9p-pci,fsdev=root,mount_tag=root \
        -kernel "$VMCACHE/vmlinuz" -initrd "$work/initramfs.cpio" \
        -append "console=ttyAMA0 quiet loglevel=3 panic=-1 rdinit=/init gestured.mode=$mode" \
        < /dev/null 2>&1 | tr -d '\r' > "$log" || true
}

# The pristine root, made once.
if [ ! -f "$CACHE/root.v1.ready" ]; then
    say "a Debian 13 arm64 root: debootstrap --foreign here ($INCLUDE)"
    rm -rf "$CACHE/root"
    mkdir -p "$CACHE"
    debootstrap --foreign --arch=arm64 --variant=minbase --include="$INCLUDE" trixie "$CACHE/root" "$MIRROR" > "$work/debootstrap.log" 2>&1 ||
        { cat "$work/debootstrap.log"; fail "debootstrap --foreign"; }
    say "its second stage, in the guest"
    boot "$CACHE/root" second-stage "$work/second-stage.log"
    grep -q '^GUEST-SECOND-STAGE-STATUS=0' "$work/second-stage.log" ||
        { tail -n 40 "$work/second-stage.log"; fail "debootstrap's second stage in the guest"; }
    rm -f "$CACHE"/root/var/cache/apt/archives/*.deb
    # No network in the guest: the repository under test is its only source.
    rm -f "$CACHE/root/etc/apt/sources.list"
    touch "$CACHE/root.v1.ready"
    say "root ready: $(du -sh "$CACHE/root" | cut -f1)"
fi

# The repositories, as scripts/test-apt-repository.sh makes them: the first version, the same
# repository after a newer version was published (the guest swaps one for the other at the same
# URL), and one signed with another key.
VERSION=$(dpkg-deb -f "$ARM64_DEB" Version)
NEWER=$VERSION+repo1
repack() {  # repack DEB VERSION OUT: the package with another version
    rm -rf "$work/repack"
    dpkg-deb -R "$1" "$work/repack"
    sed -i "s/^Version: .*/Version: $2/" "$work/repack/DEBIAN/control"
    dpkg-deb --root-owner-group -Zxz --build "$work/repack" "$3" > /dev/null
}
say "repositories: $VERSION signed with a test key; then $NEWER; and one signed with another key"
root=$work/root
cp -a "$CACHE/root" "$root"
test=$root/test
mkdir -p "$test/www"
scripts/apt-repository.sh --repo "$test/repo" --make-test-key --gnupghome "$work/gnupg" "${DEBS[@]}" > /dev/null
scripts/apt-repository.sh --repo "$test/other" --make-test-key --gnupghome "$work/gnupg-other" "${DEBS[@]}" > /dev/null
cp -a "$test/repo" "$test/repo-newer"
newer=()
for deb in "${DEBS[@]}"; do
    out=$work/$(basename "${deb%.deb}")-newer.deb
    repack "$deb" "$NEWER" "$out"
    newer+=("$out")
done
scripts/apt-repository.sh --repo "$test/repo-newer" --key test@gestured.example --gnupghome "$work/gnupg" "${newer[@]}" > /dev/null
grep -q "^Version: $NEWER" "$test/repo-newer/public/dists/stable/main/binary-arm64/Packages" || fail "the newer repository lists no $NEWER"
grep -q "^Version: $VERSION\$" "$test/repo/public/dists/stable/main/binary-arm64/Packages" || fail "the first repository lost $VERSION"
ln -s ../repo/public "$test/www/gestured"
ln -s ../other/public "$test/www/other"
cp "$VMCACHE/tree/usr/bin/busybox" "$test/busybox"   # its httpd serves the repository in the guest
cp scripts/vm/guest-package-tests.sh "$test/"
cat > "$root/etc/systemd/system/gestured-package-tests.service" <<EOF
[Unit]
Description=gestured's arm64 package tests (scripts/vm/guest-package-tests.sh)
After=systemd-udevd.service systemd-udev-trigger.service
[Service]
Type=oneshot
Environment=VERSION=$VERSION NEWER=$NEWER
ExecStart=/bin/sh /test/guest-package-tests.sh
StandardOutput=append:/test/guest.log
StandardError=inherit
[Install]
WantedBy=multi-user.target
EOF
ln -s ../gestured-package-tests.service "$root/etc/systemd/system/multi-user.target.wants/gestured-package-tests.service"
# A login prompt on the console would only interleave with the log.
ln -s /dev/null "$root/etc/systemd/system/serial-getty@ttyAMA0.service"

say "booting Debian 13 arm64 with systemd in the aarch64 VM"
# The guest's log as it is written (a step that hangs shows where), the console's kept on failure.
: > "$test/guest.log"
tail -n +1 -F "$test/guest.log" 2> /dev/null &
tailer=$!
boot "$root" systemd "$work/console.log"
sleep 1
kill "$tailer"
tailer=
cp "$work/console.log" "${TMPDIR:-/tmp}/arm64-package-tests.console.log"
[ -s "$test/guest.log" ] || { tail -n 60 "$work/console.log"; fail "the guest's tests did not run"; }
status=$(cat "$test/exit-status" 2> /dev/null || echo none)
[ "$status" = 0 ] || { tail -n 60 "$work/console.log"; fail "the guest's tests ended with status $status"; }
say "passed: install from the signed repository, the service, a swipe through the kernel, upgrade, another key refused, purge"
