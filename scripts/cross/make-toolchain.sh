#!/bin/bash
# make-toolchain.sh - the arm64 cross toolchain, made from Debian's packages into one cache
# directory a machine may keep between runs (docs/PACKAGING.md, "arm64"):
#   root/     a Debian sid amd64 build root (mmdebstrap) holding Debian's Swift 6.2.3 (`swiftlang`):
#             its compiler needs glibc >= 2.42, so it cannot run on a Debian 12 host directly;
#   sysroot/  an arm64 sysroot from Debian's arm64 packages: trixie's libc6/libc6-dev 2.41 (so the
#             binary needs glibc 2.38, the static Swift runtime's own floor, not sid's 2.42), gcc 14's
#             C++ runtime and the -dev packages gestured links (libevdev, libudev, mtdev, libyaml),
#             sid's Swift runtime for arm64 (static and shared) and modules; its DEBIAN/ holds those
#             packages' symbols and shlibs files, for dpkg-shlibdeps (scripts/package-deb.sh);
#   sdk/      a Swift SDK bundle (`gestured-aarch64`) pointing SwiftPM at the sysroot as the build
#             root sees it (/sysroot; scripts/cross/run.sh mounts it there);
#   apt/      the scratch apt state and the arm64 packages (the machine's own apt is left alone).
# Idempotent: a complete cache whose stamp matches this script is left as it is; anything else is
# made again from nothing. Prints what it downloaded and how long it took.
#
# usage: scripts/cross/make-toolchain.sh        (as root: mmdebstrap --mode=root, chroot)
# env:   GESTURED_CROSS_CACHE  the cache directory (default ~/.cache/gestured/cross)
#        GESTURED_CROSS_MIRROR the Debian mirror (default http://deb.debian.org/debian)
set -euo pipefail
cd "$(dirname "$0")/../.."
CACHE=${GESTURED_CROSS_CACHE:-$HOME/.cache/gestured/cross}
MIRROR=${GESTURED_CROSS_MIRROR:-http://deb.debian.org/debian}
say() { echo "cross: $*" >&2; }
fail() { say "$*"; exit 1; }
[ "$(id -u)" = 0 ] || fail "needs root (mmdebstrap --mode=root, chroot); CI runs as root"
# What the cache holds; change it with anything below that changes what is made.
STAMP="recipe 3: sid swiftlang, libxml2-16; trixie libc6 2.41, gcc 14, zlib1g, libmosquitto-dev; SDK gestured-aarch64"
scripts/setup-debian.sh --cross
# The SDK bundle, written on every run (it is small): paths as the build root sees them (the sysroot
# is mounted at /sysroot there); the linker named by its absolute path; no RUNPATH into a toolchain
# (the shipped binary has the runtime inside; a test build that links it as shared libraries adds
# where Debian's libswiftlang installs it).
write_sdk_bundle() {
    bundle=$CACHE/sdk/gestured-aarch64.artifactbundle
    variant=$bundle/gestured-aarch64/aarch64-unknown-linux-gnu
    mkdir -p "$variant"
    cat > "$bundle/info.json" <<'J'
{ "schemaVersion": "1.0", "artifacts": { "gestured-aarch64": { "type": "swiftSDK", "version": "6.2.3",
    "variants": [ { "path": "gestured-aarch64/aarch64-unknown-linux-gnu" } ] } } }
J
    ln -sfn /sysroot "$variant/sysroot"
    cat > "$variant/swift-sdk.json" <<'J'
{ "schemaVersion": "4.0", "targetTriples": { "aarch64-unknown-linux-gnu": {
    "sdkRootPath": "sysroot", "swiftResourcesPath": "sysroot/usr/lib/swift",
    "swiftStaticResourcesPath": "sysroot/usr/lib/swift_static", "toolsetPaths": ["toolset.json"] } } }
J
    cat > "$variant/toolset.json" <<'J'
{ "schemaVersion": "1.0",
  "swiftCompiler": { "extraCLIOptions": ["-use-ld=lld", "-no-toolchain-stdlib-rpath"] },
  "linker": { "path": "/usr/libexec/swift/bin/ld.lld" } }
J
}
if [ "$(cat "$CACHE/ready" 2>/dev/null)" = "$STAMP" ]; then
    write_sdk_bundle
    say "toolchain ready in $CACHE"
    exit 0
fi
start=$(date +%s)

rm -rf "$CACHE"
mkdir -p "$CACHE/apt/lists/partial" "$CACHE/apt/archives/partial"

# The arm64 packages: trixie's C libraries, sid's Swift runtime. A scratch apt configuration whose
# native architecture is arm64, so that plain names mean arm64 packages. Debian's sid Release files
# can be older than their Valid-Until on a machine whose clock runs ahead: sid's only.
cat > "$CACHE/apt/sources.list" <<L
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR trixie main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg check-valid-until=no] $MIRROR sid main
L
APT=(apt-get -q -o Dir::Etc::sourcelist="$CACHE/apt/sources.list" -o Dir::Etc::sourceparts=-
    -o Dir::State::Lists="$CACHE/apt/lists" -o Dir::State::status=/dev/null -o Dir::Cache="$CACHE/apt"
    -o Dir::Cache::archives="$CACHE/apt/archives" -o APT::Architecture=arm64 -o APT::Architectures=arm64
    -o APT::Sandbox::User=root -o Acquire::Retries=3)
"${APT[@]}" update -qq
TRIXIE=(libc6 libc6-dev linux-libc-dev libgcc-14-dev libstdc++-14-dev libgcc-s1 libstdc++6 libatomic1
    libevdev2 libevdev-dev libudev1 libudev-dev libmtdev1t64 libmtdev-dev libyaml-0-2 libyaml-dev libcap2
    zlib1g libmosquitto-dev)
# (libxml2-16 and zlib1g: FoundationXML's, which a test bundle links and runs under qemu;
# libmosquitto-dev: mosquitto.h only, for CMosquitto, the library being loaded with dlopen.)
SID=(libswiftlang swiftlang libxml2-16)
download() {
    cd "$CACHE/apt/archives"
    "${APT[@]}" download "${TRIXIE[@]/%//trixie}" "${SID[@]/%//sid}" > /dev/null
}
# Both downloads at once: the build root's is mmdebstrap's, the sysroot's plain apt's.
download > "$CACHE/download.log" 2>&1 &
download_pid=$!

# The build root. Docs, man pages and locales are left out (a third of its files).
say "build root: Debian sid with swiftlang (mmdebstrap)"
mmdebstrap --quiet --mode=root --variant=apt --skip=cleanup/apt/cache \
    --aptopt='Acquire::Check-Valid-Until "false"' --aptopt='Acquire::Retries "3"' \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' \
    --include=swiftlang,libc6-dev,pkg-config,git \
    sid "$CACHE/root" "$MIRROR" >&2
root_bytes=$(du -cb "$CACHE"/root/var/cache/apt/archives/*.deb | tail -n 1 | cut -f1)
rm -f "$CACHE"/root/var/cache/apt/archives/*.deb
wait "$download_pid" || { cat "$CACHE/download.log" >&2; fail "downloading the arm64 packages failed"; }
sysroot_bytes=$(du -cb "$CACHE"/apt/archives/*.deb | tail -n 1 | cut -f1)

# The sysroot: every package unpacked into one tree (nothing configured: no arm64 code runs here).
# Of swiftlang only the target's libraries: its compiler is the build root's.
say "sysroot: arm64 packages"
SR=$CACHE/sysroot
mkdir -p "$SR/DEBIAN"
for deb in "$CACHE"/apt/archives/*.deb; do
    case "$(basename "$deb")" in
    swiftlang_*)
        dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$SR" --wildcards \
            --exclude='./usr/libexec/swift/lib/swift/host/*' './usr/libexec/swift/lib/swift/*' \
            './usr/libexec/swift/lib/swift_static/*' './usr/libexec/swift/lib/clang/*'
        ;;
    *) dpkg-deb -x "$deb" "$SR" ;;
    esac
    # dpkg-shlibdeps finds a library in a package build tree (its -S) and reads that tree's
    # DEBIAN/symbols and DEBIAN/shlibs: the packages' own files, concatenated (one stanza a library).
    dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./symbols 2> /dev/null >> "$SR/DEBIAN/symbols" || true
    dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./shlibs 2> /dev/null >> "$SR/DEBIAN/shlibs" || true
done
[ -s "$SR/DEBIAN/symbols" ] || fail "no symbols file in the arm64 packages"
ln -sfn usr/lib "$SR/lib"                                      # the loader's path, for qemu -L
# The driver takes the runtime from SDK/usr/lib/swift{,_static}; Debian installs it under libexec.
ln -sfn ../libexec/swift/lib/swift "$SR/usr/lib/swift"
ln -sfn ../libexec/swift/lib/swift_static "$SR/usr/lib/swift_static"
# Debian ships _Testing_Foundation's module but no library, and test runners link it: an empty one.
[ -e "$SR/usr/lib/swift/linux/lib_Testing_Foundation.so" ] ||
    printf '!<arch>\n' > "$SR/usr/lib/swift/linux/lib_Testing_Foundation.a"

write_sdk_bundle
echo "$STAMP" > "$CACHE/ready"
swift_version=$(dpkg-deb -f "$(ls "$CACHE"/apt/archives/swiftlang_*.deb)" Version)
libc_version=$(dpkg-deb -f "$(ls "$CACHE"/apt/archives/libc6_*.deb)" Version)
say "ready in $(( $(date +%s) - start )) s: swiftlang $swift_version, arm64 libc6 $libc_version;" \
    "downloaded $(( root_bytes / 1000000 )) MB (build root) + $(( sysroot_bytes / 1000000 )) MB (arm64);" \
    "on disk $(du -sh --exclude=archives "$CACHE" | cut -f1)"
rm -f "$CACHE"/apt/archives/*.deb
