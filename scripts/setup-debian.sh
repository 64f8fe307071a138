#!/bin/bash
# Installs the Debian 12 packages gestured needs to build, test and run (idempotent).
#   scripts/setup-debian.sh            build + run: libevdev, libudev, mtdev, libyaml, libmosquitto, pkg-config
#   scripts/setup-debian.sh --package  also what scripts/package-deb.sh uses: dpkg-dev (dpkg-shlibdeps,
#                                      dpkg-gencontrol), binutils (strip), xz-utils
#   scripts/setup-debian.sh --test     all of the above and what the tests use: qemu, busybox, cpio
#                                      (the VM harness), socat, python3-jsonschema, evemu,
#                                      libinput-tools, chromium + chromium-driver + python3-venv (the
#                                      browser test), lintian (the package test), prometheus +
#                                      prometheus-node-exporter (scripts/test-metrics.sh), mosquitto +
#                                      mosquitto-clients + openssl (scripts/test-mqtt.sh), qemu-system-arm
#                                      (the aarch64 VM), reprepro + gpg (scripts/apt-repository.sh),
#                                      and --cross's
#   scripts/setup-debian.sh --cross    what the arm64 cross build uses on the host (scripts/cross/):
#                                      mmdebstrap (the build root), qemu-user-static (arm64 programs
#                                      here), binutils-aarch64-linux-gnu (strip, dpkg-shlibdeps' objdump)
set -euo pipefail
packages=(libevdev-dev libudev-dev libmtdev-dev libyaml-dev libmosquitto-dev pkg-config)
if [ "${1:-}" = "--package" ] || [ "${1:-}" = "--test" ]; then
    packages+=(dpkg-dev binutils xz-utils)
fi
if [ "${1:-}" = "--cross" ] || [ "${1:-}" = "--test" ]; then
    packages+=(dpkg-dev binutils xz-utils mmdebstrap qemu-user-static binutils-aarch64-linux-gnu)
fi
if [ "${1:-}" = "--test" ]; then
    packages+=(qemu-system-x86 busybox-static cpio socat python3 python3-jsonschema evemu-tools libinput-tools systemd
        chromium chromium-driver python3-venv lintian prometheus prometheus-node-exporter
        qemu-system-arm reprepro gpg mosquitto mosquitto-clients openssl)
fi
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}" >&2
    sudo_cmd=()
    [ "$(id -u)" = 0 ] || sudo_cmd=(sudo)
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
