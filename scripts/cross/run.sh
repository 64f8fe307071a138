#!/bin/bash
# run.sh - runs a command in the arm64 cross toolchain's build root (scripts/cross/make-toolchain.sh
# makes it), in a mount namespace of its own: the sysroot at /sysroot, the SDK bundle at /sdk,
# /proc, this repository at its own path (so the paths in a build are the host's), and every local
# directory the host's git reads GitHub from (`url.<dir>.insteadOf`: the Swift packages' mirror),
# with the same git configuration. The mounts go with the namespace, however the command ends.
#
# usage: scripts/cross/run.sh COMMAND [ARG...]      (as root; cwd: the repository)
#   e.g. scripts/cross/run.sh swift build --swift-sdks-path /sdk --swift-sdk gestured-aarch64 …
# env: GESTURED_CROSS_CACHE (see make-toolchain.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
CACHE=${GESTURED_CROSS_CACHE:-$HOME/.cache/gestured/cross}
[ -f "$CACHE/ready" ] || { echo "cross: no toolchain in $CACHE; run scripts/cross/make-toolchain.sh" >&2; exit 1; }
ROOT=$CACHE/root
repo=$PWD
mirrors=()
: > "$ROOT/etc/gitconfig"
while read -r key dir; do
    url=${key#url.}; url=${url%.insteadof}
    git config --file "$ROOT/etc/gitconfig" --add "url.$url.insteadOf" "$dir"
    [ -d "$url" ] && [[ " ${mirrors[*]} " != *" $url "* ]] && mirrors+=("$url")
done < <(git config --get-regexp '^url\..*\.insteadof$' || true)
mounts="mount -t proc proc '$ROOT/proc'"
mount_at() {  # mount_at HOST_DIR PATH_IN_ROOT [ro]
    mkdir -p "$ROOT$2"
    mounts+="; mount --bind '$1' '$ROOT$2'"
    [ "${3:-}" = ro ] && mounts+="; mount -o remount,bind,ro '$ROOT$2'"
    return 0
}
mount_at "$CACHE/sysroot" /sysroot ro
mount_at "$CACHE/sdk" /sdk ro
mount_at "$repo" "$repo"
for dir in "${mirrors[@]}"; do mount_at "$dir" "$dir" ro; done
# SwiftPM reads .pc files itself, from PKG_CONFIG_PATH, and does not point them at the SDK: the
# sysroot's, with their paths under it.
exec unshare --mount --propagation private -- sh -c "$mounts; exec chroot '$ROOT' \"\$@\"" run \
    env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
    PKG_CONFIG_SYSROOT_DIR=/sysroot PKG_CONFIG_PATH=/sysroot/usr/lib/aarch64-linux-gnu/pkgconfig:/sysroot/usr/share/pkgconfig \
    ${GESTURED_STRICT+GESTURED_STRICT="$GESTURED_STRICT"} sh -c 'cd "$1" && shift && exec "$@"' cd "$repo" "$@"
