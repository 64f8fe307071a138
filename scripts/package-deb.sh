#!/bin/bash
# package-deb.sh - builds the Debian package gestured_<version>_<arch>.deb with dpkg's own tools
# (dpkg-shlibdeps, dpkg-gencontrol, dpkg-deb; docs/PACKAGING.md says why not debhelper): the
# static release binary, every unit in systemd/, the udev rules, the sysusers file,
# /etc/gestured/gestured.yaml as a conffile and the drop-in directories beside it
# (gestured.yaml.d/, actions.yaml.d/), a man page per subcommand (swift-argument-parser's
# generate-manual plugin), bash/zsh/fish completions, the copyright file and the changelog.
# The build is reproducible: the same sources and toolchain give the same bytes
# (SOURCE_DATE_EPOCH is the changelog's date unless set; sorted archives, root-owned entries).
#
# usage: scripts/package-deb.sh [--arch ARCH] [--output DIR] [--scratch-path DIR]
#   --arch ARCH         the machine's architecture (default), or arm64 from amd64: cross-compiled
#                       with Debian's Swift 6.2.3 in the toolchain scripts/cross/make-toolchain.sh
#                       makes (as root), run under qemu-aarch64-static where the script runs it
#   --output DIR        where the .deb goes (default: dist/)
#   --scratch-path DIR  SwiftPM's build directory (default: .build; .build-arm64 for arm64), e.g.
#                       for a second clean build when checking that the binary itself is reproducible
# Prints the package's path as its last line. The release build is the one the daemon ships as
# (scripts/shipped-build.sh): run again on a built tree, nothing is compiled.
set -euo pipefail
cd "$(dirname "$0")/.."
OUTPUT=dist
SCRATCH=
ARCH=$(dpkg --print-architecture)
while [ $# -gt 0 ]; do
    case "$1" in
    --output) OUTPUT=$2; shift 2 ;;
    --scratch-path) SCRATCH=$2; shift 2 ;;
    --arch) ARCH=$2; shift 2 ;;
    -h | --help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "package-deb: unknown argument $1" >&2; exit 2 ;;
    esac
done
say() { echo "package-deb: $*" >&2; }
fail() { say "$*"; exit 1; }

scripts/setup-debian.sh --package
DEB=packaging/debian
VERSION=$(cat VERSION)
CHANGELOG_VERSION=$(dpkg-parsechangelog -l "$DEB/changelog" -S Version)
[ "$CHANGELOG_VERSION" = "$VERSION" ] ||
    fail "$DEB/changelog: its latest entry is $CHANGELOG_VERSION but VERSION says $VERSION" \
        "(add an entry: dch -c $DEB/changelog -v $VERSION)"
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(dpkg-parsechangelog -l "$DEB/changelog" -S Timestamp)}
export SOURCE_DATE_EPOCH

# The one release build. RUN runs what it built (under qemu for another architecture), STRIP is
# binutils' strip for its architecture; SHLIBDEPS are dpkg-shlibdeps' options to find the
# libraries the binary links and their packages' symbols files.
RUN=()
STRIP=strip
SHLIBDEPS=()
case "$ARCH" in
"$(dpkg --print-architecture)")
    say "release build (static Swift runtime)"
    SCRATCH=${SCRATCH:-.build}
    source scripts/shipped-build.sh
    swift build --scratch-path "$SCRATCH" "${SHIPPED_BUILD[@]}" --product gestured >&2
    BIN=$(swift build --scratch-path "$SCRATCH" "${SHIPPED_BUILD[@]}" --show-bin-path)/gestured
    ;;
arm64)
    [ "$(dpkg --print-architecture)" = amd64 ] || fail "--arch arm64 cross-compiles from amd64 only"
    say "arm64 release build (cross-compiled with Debian's Swift; static Swift runtime)"
    SCRATCH=${SCRATCH:-.build-arm64}
    scripts/cross/make-toolchain.sh
    SYSROOT=${GESTURED_CROSS_CACHE:-$HOME/.cache/gestured/cross}/sysroot
    source scripts/cross/build-flags.sh
    scripts/cross/run.sh swift build --scratch-path "$SCRATCH" "${CROSS_SHIPPED_BUILD[@]}" --product gestured >&2
    BIN=$(scripts/cross/run.sh swift build --scratch-path "$SCRATCH" "${CROSS_SHIPPED_BUILD[@]}" --show-bin-path)/gestured
    RUN=(qemu-aarch64-static -L "$SYSROOT")
    STRIP=aarch64-linux-gnu-strip
    SHLIBDEPS=(-S"$SYSROOT")
    export DEB_HOST_ARCH=arm64
    ;;
*) fail "--arch $ARCH: this machine builds $(dpkg --print-architecture), and arm64 from amd64" ;;
esac
# A binary that needs the Swift runtime as shared libraries would not run where no toolchain is.
if readelf -d "$BIN" | grep -q 'NEEDED.*libswift'; then
    fail "$BIN links the Swift runtime dynamically; the package needs the static build"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/gestured
umask 022
mkdir -p "$root/DEBIAN"

# The binary, stripped as dh_strip strips (the symbols go; backtraces show addresses).
install -d "$root/usr/bin"
"$STRIP" --remove-section=.comment --remove-section=.note --strip-unneeded -o "$root/usr/bin/gestured" "$BIN"
chmod 0755 "$root/usr/bin/gestured"
gestured=$root/usr/bin/gestured
built_version=$("${RUN[@]}" "$gestured" --version)
[ "$built_version" = "$VERSION" ] || fail "$BIN --version says $built_version, VERSION says $VERSION"

# Every unit in systemd/, pointed at the packaged binary; a file of a kind this script does not
# know stops the build rather than being left out.
UNITS=()
for file in systemd/*; do
    name=$(basename "$file")
    case "$name" in
    *.service | *.socket | *.timer | *.path | *.target)
        install -D -m 0644 "$file" "$root/usr/lib/systemd/system/$name"
        sed -i 's#/usr/local/bin/gestured#/usr/bin/gestured#g' "$root/usr/lib/systemd/system/$name"
        if grep -n '/usr/local' "$root/usr/lib/systemd/system/$name" >&2; then
            fail "$file: a path under /usr/local left in the packaged unit"
        fi
        # Template units (name@.service) are installed; their instances are the administrator's
        # to enable, start and stop, as dh_installsystemd leaves them.
        case "$name" in *@*) ;; *) UNITS+=("$name") ;; esac
        ;;
    *.sysusers) install -D -m 0644 "$file" "$root/usr/lib/sysusers.d/${name%.sysusers}.conf" ;;
    user)
        # User units: installed for `systemctl --user enable` by the kiosk's user, never enabled
        # by the package (no maintainer-script state to keep).
        for unit in "$file"/*.service; do
            install -D -m 0644 "$unit" "$root/usr/lib/systemd/user/$(basename "$unit")"
            sed -i 's#/usr/local/bin/gestured#/usr/bin/gestured#g' "$root/usr/lib/systemd/user/$(basename "$unit")"
        done
        ;;
    *) fail "$file: not a unit or sysusers file; say in scripts/package-deb.sh where it goes" ;;
    esac
done
# Enabled and started on a first install; the rest (the WebSocket endpoint's socket, which needs
# a `websocket:` section) are installed and left for the administrator to enable.
ENABLED_UNITS=(gestured.socket gestured.service)
[ -f "$root/usr/lib/sysusers.d/gestured.conf" ] || fail "systemd/gestured.sysusers is missing"

for file in udev-rules/*.rules; do
    install -D -m 0644 "$file" "$root/usr/lib/udev/rules.d/$(basename "$file")"
done

# The configuration: the built-in one, as `gestured config --default` prints it, under a header
# that says how it is kept. A conffile: dpkg keeps an edited file across upgrades.
install -d "$root/etc/gestured"
{
    cat <<'EOF'
# /etc/gestured/gestured.yaml, read by gestured.service (gestured run --config …).
# The package installed the built-in configuration; edit it freely: an upgrade keeps your file
# (dpkg asks when the package's version of it changed too). After editing:
#   gestured check-config /etc/gestured/gestured.yaml && systemctl reload gestured
# Every key: /usr/share/doc/gestured/CONFIGURATION.md.gz; the built-in file again:
# `gestured config --default`.
#
EOF
    "${RUN[@]}" "$gestured" config --default
} > "$root/etc/gestured/gestured.yaml"
"${RUN[@]}" "$gestured" check-config "$root/etc/gestured/gestured.yaml" >&2
echo /etc/gestured/gestured.yaml > "$root/DEBIAN/conffiles"
# The drop-in directories (docs/CONFIGURATION.md and docs/ACTIONS.md, "Drop-in files"), empty: what
# an administrator or a fleet role drops into them is theirs, and purge leaves it
# (docs/PACKAGING.md).
install -d -m 0755 "$root/etc/gestured/gestured.yaml.d" "$root/etc/gestured/actions.yaml.d" "$root/etc/gestured/mqtt.yaml.d"

# Man pages: swift-argument-parser's generate-manual, one page per command and subcommand, dated
# by SOURCE_DATE_EPOCH, run on the binary being packaged. Its plugin (`swift package
# generate-manual`) would first build the package again in release mode, without the static
# runtime (`swift package` has no --static-swift-stdlib), which compiles everything a second time
# (14 minutes here); asked for --help, the plugin builds its tool and stops, and the tool is then
# run as the plugin runs it.
say "man pages (swift-argument-parser's generate-manual)"
# (A tool of this machine's: for another architecture, built where this machine's build is.)
tool_scratch=$SCRATCH
[ ${#RUN[@]} = 0 ] || tool_scratch=.build
swift package --scratch-path "$tool_scratch" generate-manual --help > /dev/null
tool=$(swift build --scratch-path "$tool_scratch" --show-bin-path)/generate-manual-tool
[ -x "$tool" ] || fail "the generate-manual plugin built no $tool (did SwiftPM rename its tools?)"
mkdir "$work/man"
# The tool runs the binary for its help: another architecture's through a wrapper of that name.
helper=$root/usr/bin/gestured
if [ ${#RUN[@]} -gt 0 ]; then
    mkdir "$work/run"
    helper=$work/run/gestured
    printf '#!/bin/sh\nexec %s "%s" "$@"\n' "${RUN[*]}" "$root/usr/bin/gestured" > "$helper"
    chmod 0755 "$helper"
fi
"$tool" "$helper" --multi-page --date "$(date -u -d "@$SOURCE_DATE_EPOCH" +%F)" \
    --output-directory "$work/man"
[ -f "$work/man/gestured.1" ] || fail "generate-manual wrote no gestured.1"
# Gzipped as dh_compress does (-9, no name or time stamp in the header). generate-manual copies
# the blank lines between a command's paragraphs into the page; mdoc's paragraph break is `.Pp`
# (groff warns about each blank line, and lintian with it).
install -d "$root/usr/share/man/man1"
for page in "$work/man"/*.1; do
    sed 's/^$/.Pp/' "$page" | gzip -9n > "$root/usr/share/man/man1/$(basename "$page").gz"
done

# Completions, where bash-completion, zsh and fish look for packaged ones.
install -d "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
    "$root/usr/share/fish/vendor_completions.d"
# (bash-completion sources the file: the generated `#!/bin/bash` line means nothing there.)
"${RUN[@]}" "$gestured" --generate-completion-script bash | sed '1{/^#!/d}' > "$root/usr/share/bash-completion/completions/gestured"
"${RUN[@]}" "$gestured" --generate-completion-script zsh > "$root/usr/share/zsh/vendor-completions/_gestured"
"${RUN[@]}" "$gestured" --generate-completion-script fish > "$root/usr/share/fish/vendor_completions.d/gestured.fish"

# Documentation: copyright and changelog (Debian's names), every guide the configuration header,
# the help texts and the man pages point to, and examples/ as it is (recordings to replay, files
# to copy; not compressed, so they are used where they are): scripts/test-package.sh finds every
# path a help text names installed.
doc=$root/usr/share/doc/gestured
install -d "$doc"
install -m 0644 "$DEB/copyright" "$doc/copyright"
gzip -9n < "$DEB/changelog" > "$doc/changelog.gz"
for guide in README.md docs/CONFIGURATION.md docs/DEPLOYMENT.md docs/PROTOCOL.md docs/RECOGNIZERS.md \
    docs/ARBITRATION.md docs/PASSTHROUGH.md docs/TUNING.md docs/INPUT.md docs/ACTIONS.md docs/RECORDING.md \
    docs/FLEET.md docs/PACKAGING.md; do
    gzip -9n < "$guide" > "$doc/$(basename "$guide").gz"
done
install -m 0644 docs/protocol.schema.json "$doc/protocol.schema.json"
cp -r examples "$doc/examples"
find "$doc/examples" -name __pycache__ -prune -exec rm -rf {} +   # left by running the Python client

install -D -m 0644 "$DEB/lintian-overrides" "$root/usr/share/lintian/overrides/gestured"

# Maintainer scripts, with the units this package installs filled in.
for script in postinst prerm postrm; do
    sed -e "s/#UNITS#/${UNITS[*]}/" -e "s/#ENABLED_UNITS#/${ENABLED_UNITS[*]}/" "$DEB/$script" > "$root/DEBIAN/$script"
    chmod 0755 "$root/DEBIAN/$script"
done

# Depends: from the binary's shared libraries (dpkg-shlibdeps, as dh_shlibdeps runs it), and
# what the maintainer scripts call beyond the essential set (dh_installsysusers' line).
mkdir -p "$work/source/debian"
cp "$DEB/control" "$DEB/changelog" "$work/source/debian/"
(
    cd "$work/source"
    dpkg-shlibdeps -T"$work/substvars" "${SHLIBDEPS[@]}" -e"$root/usr/bin/gestured"
    misc="systemd | systemd-standalone-sysusers | systemd-sysusers"
    # RELR relocations (Package.swift's link) need a loader that knows them, glibc 2.36, which the
    # binary asks for by version (GLIBC_ABI_DT_RELR), not by a symbol: dpkg-shlibdeps reads only
    # symbols, and says 2.35. dpkg-gencontrol keeps the stronger of the two.
    if readelf -V "$root/usr/bin/gestured" | grep -q 'Name: GLIBC_ABI_DT_RELR'; then
        misc="libc6 (>= 2.36), $misc"
    fi
    echo "misc:Depends=$misc" >> "$work/substvars"
    dpkg-gencontrol -pgestured -P"$root" -T"$work/substvars" -f"$work/files"
)

# Every file root-owned with Debian's modes, md5sums sorted, timestamps no later than the
# changelog's (dpkg-deb clamps them and sorts the archive; one compressor thread, so the xz
# stream does not depend on the machine's cores).
find "$root" -type d -exec chmod 0755 {} +
find "$root" -type f ! -path "$root/DEBIAN/*" ! -path "$root/usr/bin/*" -exec chmod 0644 {} +
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\n' | LC_ALL=C sort | xargs -d '\n' md5sum) \
    > "$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/md5sums" "$root/DEBIAN/control" "$root/DEBIAN/conffiles"
mkdir -p "$OUTPUT"
deb="$OUTPUT/gestured_${VERSION}_${ARCH}.deb"
dpkg-deb --root-owner-group -Zxz -z6 --threads-max=1 --build "$root" "$deb" >&2
say "built $deb ($(du -h "$deb" | cut -f1))"
echo "$deb"
