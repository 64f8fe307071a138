#!/bin/bash
# test-package.sh - the Debian package as a kiosk gets it. Installs, upgrades, removes and purges
# the package on this machine, so it runs as root (scripts/test.sh runs it; CI is root):
#   1. reproducible: the two .debs given (two runs of scripts/package-deb.sh) are byte-identical;
#   2. lintian: no error, and no warning but the overrides the package carries with their
#      reasons (docs/PACKAGING.md lists them);
#   3. Depends: the binary's libraries' packages and the sysusers provider, nothing else;
#   4. on this machine, where systemd is not PID 1: `apt install ./…deb`; `gestured --version`,
#      the package, its changelog and the `hello` of the installed daemon say VERSION;
#      `gestured check-config` of the conffile; the drop-in directories (root's, empty, read by
#      check-config and config --effective); `systemd-analyze verify` and `security` of the
#      installed units (scripts/check-units.sh --installed); units enabled, groups created;
#   5. as under systemd and udevd (a mount namespace where /run/systemd/system and udev's control
#      socket exist, systemctl and udevadm record what they are asked, uid 1000's user manager
#      runs, and a stale `gestured` that calls every file broken comes first in PATH, as
#      /usr/local/bin does under dpkg): the first configure starts the socket and the service
#      and triggers udev; an upgrade over a valid edited configuration keeps the file and
#      restarts the service (the package's own binary checked it); over a broken one keeps the
#      file byte for byte and leaves the running daemon alone; remove stops every unit, every gestured-actions@ instance and the
#      users' gestured-actions.service, and disables the enabled instances;
#   6. back on this machine: remove kept only the conffile; purge takes the conffile and its
#      .dpkg-old copy and leaves the administrator's own files in /etc/gestured (an actions.yaml,
#      drop-ins in both drop-in directories), saying so; once those are gone, nothing of what `dpkg -L` listed is
#      left, nor /etc/gestured, nor unit state (the groups stay, as Debian leaves them).
# usage: scripts/test-package.sh DEB [DEB_BUILT_AGAIN]
#        scripts/test-package.sh --no-install DEB   steps 2 and 3 only: a package of another
#                                                   architecture (arm64's is installed in the
#                                                   aarch64 guest: docs/PACKAGING.md, "arm64")
set -euo pipefail
cd "$(dirname "$0")/.."
INSTALL=1
[ "${1:-}" = --no-install ] && { INSTALL=0; shift; }
[ $# -ge 1 ] || { sed -n '2,28p' "$0"; exit 2; }
if [ "$(id -u)" != 0 ]; then exec sudo "$0" "$@"; fi
DEB=$(realpath "$1")
VERSION=$(cat VERSION)
CONFIG=/etc/gestured/gestured.yaml
say() { echo "test-package: $*"; }
fail() { echo "test-package: FAILED: $*" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive
# No answer to a dpkg prompt: an unexpected conffile question fails the step instead of hanging.
APT=(apt-get -y -q -o Dpkg::Use-Pty=0)

if [ "$INSTALL" = 1 ] && dpkg-query -W -f='${Status}' gestured 2>/dev/null | grep -q 'installed\|config-files'; then
    fail "gestured is installed already; purge it first (apt-get purge gestured)"
fi
[ "$INSTALL" = 0 ] || [ ! -e /etc/gestured ] || fail "/etc/gestured exists (a source install?); this test would remove it"
work=$(mktemp -d)
cleanup() {
    if dpkg-query -W gestured > /dev/null 2>&1; then dpkg --purge gestured > /dev/null 2>&1 || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

# 1. Reproducible.
if [ $# -ge 2 ]; then
    cmp "$DEB" "$2" || fail "$DEB and $2 differ: the package build is not reproducible"
    say "reproducible: two builds gave the same $(stat -c %s "$DEB") bytes ($(sha256sum < "$DEB" | cut -c1-16)…)"
fi

# 2. lintian. Overridden tags are shown (O:), each with the reason the override file gives.
lintian --show-overrides "$DEB" 2>&1 | grep -v '^running with root privileges' | tee "$work/lintian" ||
    fail "lintian did not run"
if grep -qE '^[EW]: ' "$work/lintian"; then fail "lintian: errors or warnings not overridden"; fi
say "lintian: no errors; warnings only those overridden ($(grep -c '^O: ' "$work/lintian") overridden tags)"

# 3. Depends.
depends=$(dpkg-deb -f "$DEB" Depends)
names=$(echo "$depends" | tr ',' '\n' | sed -e 's/([^)]*)//g' -e 's/ //g' | LC_ALL=C sort | tr '\n' ' ')
# mtdev's library package is libmtdev1t64 from Debian 13 on (the 64-bit time_t transition), whose
# packages the arm64 build links.
mtdev=libmtdev1
[ "$(dpkg-deb -f "$DEB" Architecture)" = arm64 ] && mtdev=libmtdev1t64
expected="libc6 libevdev2 libgcc-s1 $mtdev libstdc++6 libudev1 libyaml-0-2"
expected+=" systemd|systemd-standalone-sysusers|systemd-sysusers "
[ "$names" = "$expected" ] || fail "Depends: $depends (expected the packages of: $expected)"
say "Depends: $depends"
# `gestured mqtt` loads libmosquitto when it runs (dlopen), so dpkg-shlibdeps cannot see it.
[ "$(dpkg-deb -f "$DEB" Recommends)" = libmosquitto1 ] || fail "Recommends: $(dpkg-deb -f "$DEB" Recommends) (expected libmosquitto1)"
[ "$INSTALL" = 1 ] || exit 0

# Nothing of the package is left: no file or symlink it listed, no directory of its own, no
# configuration, no unit state.
nothing_left() {  # nothing_left LISTING
    local path left=()
    while IFS= read -r path; do
        [ "$path" = /. ] && continue
        if [ -L "$path" ] || [ -f "$path" ]; then
            left+=("$path")
        elif [ -d "$path" ] && ! dpkg -S "$path" > /dev/null 2>&1 && [ -z "$(ls -A "$path")" ]; then
            left+=("$path (empty, no package owns it)")
        fi
    done < "$1"
    [ ! -e /etc/gestured ] || left+=(/etc/gestured)
    while IFS= read -r path; do left+=("$path"); done < <(
        find /etc/systemd/system /var/lib/systemd/deb-systemd-helper-enabled /var/lib/dpkg/info \
            -name '*gestured*' 2> /dev/null)
    [ ${#left[@]} = 0 ] || fail "left after purge: ${left[*]}"
}

# 4. On this machine, without systemd.
say "apt install ./$(basename "$DEB") (systemd is $([ -d /run/systemd/system ] || echo not) running)"
"${APT[@]}" install "$DEB" > "$work/install.log" 2>&1 || { cat "$work/install.log"; fail "apt install"; }
grep -A3 'NEW packages will be installed' "$work/install.log" || true
dpkg -L gestured > "$work/listing"
say "installed $(wc -l < "$work/listing") paths (dpkg -L)"

[ "$(gestured --version)" = "$VERSION" ] || fail "gestured --version says $(gestured --version), VERSION $VERSION"
[ "$(dpkg-query -W -f='${Version}' gestured)" = "$VERSION" ] || fail "the package's version is not $VERSION"
changelog=$(zcat /usr/share/doc/gestured/changelog.gz | dpkg-parsechangelog -l - -S Version)
[ "$changelog" = "$VERSION" ] || fail "the installed changelog's latest entry is $changelog, not $VERSION"
# The installed daemon's hello, on a socket of its own, playing a recording (no touchscreen here).
coproc DAEMON {
    exec /usr/bin/gestured run --socket "$work/g.sock" --replay examples/recordings/demo.evemu --loop 2>&1
}
ready=0
while IFS= read -r -t 30 line <&"${DAEMON[0]}"; do
    case "$line" in *ready*) ready=1; break ;; esac
done
[ "$ready" = 1 ] || fail "the installed daemon did not get ready within 30 s"
hello=$(timeout 10 /usr/bin/gestured listen --socket "$work/g.sock" | head -n 1) || true
kill "$DAEMON_PID"
wait "$DAEMON_PID" || true
daemon=$(echo "$hello" | python3 -c 'import json, sys; print(json.loads(sys.stdin.readline())["daemon"])') ||
    fail "no hello from the installed daemon: '$hello'"
[ "$daemon" = "$VERSION" ] || fail "the installed daemon's hello says $daemon, VERSION $VERSION"
say "version $VERSION everywhere: gestured --version, the package, its changelog, the daemon's hello"

gestured check-config "$CONFIG"
# Every document, example, unit and rule a help text names is installed where it says (a kiosk
# has the package, not the repository), and no help text names a path of the source tree.
commands=$(gestured --help | sed -n '/^SUBCOMMANDS:/,/^$/p' | grep -E '^  [a-z-]+( |$)' | awk '{ print $1 }')
{ gestured --help; for command in $commands; do gestured "$command" --help; done; } > "$work/helps"
if grep -nE "(^|[ (\`'\"])(docs|examples|systemd|udev-rules)/" "$work/helps"; then
    fail "a help text names a path of the source tree (above), not where the package installs it"
fi
named=$(grep -oE '/usr/(share/doc/gestured|lib/systemd|lib/udev)/[A-Za-z0-9_./@+-]*[A-Za-z0-9_]' "$work/helps" | sort -u)
[ -n "$named" ] || fail "no help text names an installed document (the check would check nothing)"
for path in $named; do
    [ -e "$path" ] && grep -qxF "$path" "$work/listing" || fail "a help text names $path, which the package does not install"
done
say "the $(echo "$commands" | wc -w) commands' help texts name $(echo "$named" | wc -l) installed paths, each installed:" \
    $(echo "$named" | sed 's#^/usr/share/doc/gestured/##' | tr '\n' ' ')
# The drop-in directories: the package's, empty, root's; the installed binary reads what is
# dropped there (check-config names it, config --effective merges it).
for dir in /etc/gestured/gestured.yaml.d /etc/gestured/actions.yaml.d /etc/gestured/mqtt.yaml.d; do
    [ -d "$dir" ] && [ "$(stat -c '%a %U:%G' "$dir")" = "755 root:root" ] ||
        fail "$dir is not installed as a directory of root's, mode 0755"
    [ "$(dpkg -S "$dir")" = "gestured: $dir" ] || fail "$dir is not the package's ($(dpkg -S "$dir" 2>&1))"
    [ -z "$(ls -A "$dir")" ] || fail "$dir is not empty"
done
printf 'log-level: debug\n' > /etc/gestured/gestured.yaml.d/50-site.yaml
gestured check-config "$CONFIG" | grep -qx 'drop-ins (/etc/gestured/gestured.yaml.d/): 50-site.yaml' ||
    fail "check-config did not read /etc/gestured/gestured.yaml.d/50-site.yaml"
gestured config --effective | grep -qx 'log-level: debug' || fail "config --effective did not merge the drop-in"
rm /etc/gestured/gestured.yaml.d/50-site.yaml
say "drop-in directories /etc/gestured/gestured.yaml.d and actions.yaml.d installed (root's, 0755, empty)" \
    "and read by check-config and config --effective"
scripts/check-units.sh --installed
[ -L /etc/systemd/system/sockets.target.wants/gestured.socket ] || fail "gestured.socket is not enabled"
[ -L /etc/systemd/system/multi-user.target.wants/gestured.service ] || fail "gestured.service is not enabled"
[ ! -e /etc/systemd/system/sockets.target.wants/gestured-websocket.socket ] ||
    fail "gestured-websocket.socket is enabled (it needs a websocket: section first)"
[ -f /usr/lib/systemd/system/gestured-metrics.socket ] || fail "gestured-metrics.socket is not installed"
[ ! -e /etc/systemd/system/sockets.target.wants/gestured-metrics.socket ] ||
    fail "gestured-metrics.socket is enabled (metrics are off until the administrator enables them)"
getent group gestured gestured-uinput > /dev/null || fail "the groups gestured and gestured-uinput are missing"
getent passwd gestured > /dev/null || fail "the user gestured (gestured.service's) is missing"

# 5. As under systemd and udevd, in a mount namespace of this script's own: /run/systemd/system
# and udev's control socket exist there, systemctl and udevadm are recorders (apt runs dpkg with
# its own PATH: DPkg::Path puts them first), the container's policy-rc.d (if any) lets services
# start as on a kiosk, and man-db's trigger is off (it would only re-index the pages, slowly).
version_as() {  # version_as VERSION OUT: the same package under another version, for upgrades
    rm -rf "$work/repack"
    dpkg-deb -R "$DEB" "$work/repack"
    sed -i "s/^Version: .*/Version: $1/" "$work/repack/DEBIAN/control"
    dpkg-deb --root-owner-group -b "$work/repack" "$2" > /dev/null
}
version_as "$VERSION+upgrade1" "$work/upgrade1.deb"
version_as "$VERSION+upgrade2" "$work/upgrade2.deb"
mkdir "$work/active" "$work/bin" "$work/local-bin" "$work/man-db"
cat > "$work/bin/systemctl" <<STUB
#!/bin/sh
# systemctl as the maintainer scripts see it: every call recorded; is-enabled read from the
# symlinks deb-systemd-helper made, is-active from the units started here.
echo "systemctl \$*" >> "$work/calls"
# deb-systemd-invoke --user asks for the version first (user managers by --machine need 249).
case "\$*" in "--version --quiet") echo "systemd 252 (252.38-1~deb12u1)"; exit 0 ;; esac
verb=
units=
for arg; do
    case "\$arg" in
    --*) ;;
    *) if [ -z "\$verb" ]; then verb=\$arg; else units="\$units \$arg"; fi ;;
    esac
done
for unit in \$units; do
    case "\$verb" in
    is-enabled)
        if ls /etc/systemd/system/*.wants/"\$unit" > /dev/null 2>&1; then echo enabled; else
            echo disabled
            exit 1
        fi
        ;;
    is-active) [ -e "$work/active/\$unit" ] || exit 3 ;;
    list-units) [ "\$unit" != "user@*" ] || echo "user@1000.service loaded active running User Manager for UID 1000" ;;
    start | restart) touch "$work/active/\$unit" ;;
    stop) rm -f "$work/active/\$unit" ;;
    esac
done
exit 0
STUB
printf '#!/bin/sh\necho "udevadm $*" >> "%s/calls"\n' "$work" > "$work/bin/udevadm"
# A gestured a source install left in /usr/local/bin, which dpkg's PATH puts first: it calls every
# configuration broken. The postinst must ask the package's own binary.
printf '#!/bin/sh\necho "a stale gestured: $*" >&2\nexit 1\n' > "$work/local-bin/gestured"
printf '#!/bin/sh\nexit 0\n' > "$work/bin/policy-rc.d"
chmod 0755 "$work/bin/systemctl" "$work/bin/udevadm" "$work/bin/policy-rc.d" "$work/local-bin/gestured"
cat > "$work/lifecycle.sh" <<LIFECYCLE
set -euo pipefail
mount -t tmpfs tmpfs /run
mkdir -p /run/systemd/system /run/udev
python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind("/run/udev/control")'
if [ -e /usr/sbin/policy-rc.d ]; then mount --bind "$work/bin/policy-rc.d" /usr/sbin/policy-rc.d; fi
mount --bind "$work/man-db" /var/lib/man-db
export PATH="$work/bin:\$PATH"
apt=(${APT[*]} -o DPkg::Path="$work/bin:$work/local-bin:/usr/sbin:/usr/bin:/sbin:/bin")
step() { echo "== \$1" >> "$work/calls"; }
# The first install's configure, as dpkg runs it (the package is installed: step 4).
step install; /var/lib/dpkg/info/gestured.postinst configure > "$work/ns-install.log" 2>&1
sed -i 's/^log-level: info$/log-level: debug/' "$CONFIG"
/usr/bin/gestured check-config "$CONFIG" > /dev/null
cp "$CONFIG" "$work/edited-valid.yaml"
step upgrade-valid; "\${apt[@]}" install "$work/upgrade1.deb" > "$work/ns-upgrade1.log" 2>&1
cp "$CONFIG" "$work/after-upgrade-valid.yaml"
printf 'no-such-key: true\n' >> "$CONFIG"
if /usr/bin/gestured check-config "$CONFIG" 2> /dev/null; then exit 1; fi
cp "$CONFIG" "$work/edited-broken.yaml"
step upgrade-broken; "\${apt[@]}" install "$work/upgrade2.deb" > "$work/ns-upgrade2.log" 2>&1
cp "$CONFIG" "$work/after-upgrade-broken.yaml"
# An instance of the actions client, enabled and running, as the administrator made it.
mkdir -p /etc/systemd/system/multi-user.target.wants
ln -s /usr/lib/systemd/system/gestured-actions@.service \
    /etc/systemd/system/multi-user.target.wants/gestured-actions@kiosk.service
touch "$work/active/gestured-actions@kiosk.service"
step remove; "\${apt[@]}" remove gestured > "$work/ns-remove.log" 2>&1
step end
LIFECYCLE
say "first configure, two upgrades and remove, as under systemd and udevd (recorded calls, in a namespace)"
unshare --mount --propagation private bash "$work/lifecycle.sh" ||
    { cat "$work"/ns-*.log "$work/calls" 2> /dev/null; fail "the lifecycle under systemd"; }
calls() {  # calls STEP: what systemctl and udevadm were asked during that step
    sed -n "/^== $1\$/,/^== /p" "$work/calls" | grep -v '^== ' || true
}
expect() {  # expect STEP PATTERN WHAT
    calls "$1" | grep -qE "$2" || { calls "$1" >&2; fail "$1: $3"; }
}
expect install 'systemctl( .*)? start gestured\.socket gestured\.service$' "the socket and the service were not started"
expect install 'udevadm trigger --action=change --subsystem-match=input$' "udev was not triggered for input devices"
expect install 'udevadm trigger .*--sysname-match=uinput$' "udev was not triggered for /dev/uinput"
expect upgrade-valid 'systemctl( .*)? restart gestured\.service$' "the service was not restarted"
cmp "$work/edited-valid.yaml" "$work/after-upgrade-valid.yaml" || fail "upgrade-valid changed the edited configuration"
if calls upgrade-broken | grep -q 'restart'; then
    calls upgrade-broken >&2
    fail "upgrade-broken: the service was restarted onto a configuration it refuses"
fi
grep "^gestured: " "$work/ns-upgrade2.log" | grep -q "not restarting gestured.service: $CONFIG:" ||
    { cat "$work/ns-upgrade2.log"; fail "upgrade-broken: no word on why the service was not restarted"; }
grep "^gestured: " "$work/ns-upgrade2.log" | sed 's/^/  apt: /'   # what the administrator reads
cmp "$work/edited-broken.yaml" "$work/after-upgrade-broken.yaml" ||
    fail "upgrade-broken changed the edited configuration"
for unit in $(dpkg-deb -c "$DEB" | sed -n 's#.*/usr/lib/systemd/system/\([^/@]\{1,\}\)$#\1#p'); do
    expect remove "systemctl( .*)? stop( .*)? $unit( |\$)" "$unit was not stopped"
done
expect remove 'udevadm trigger --action=change --subsystem-match=input$' "udev was not triggered after the rules went"
expect remove "systemctl stop gestured-actions@\\*\\.service$" "the running gestured-actions@ instances were not stopped"
expect remove "systemctl stop gestured-mqtt@\\*\\.service$" "the running gestured-mqtt@ instances were not stopped"
expect remove 'systemctl --quiet --user --machine 1000@ stop gestured-actions\.service$' \
    "the users' gestured-actions.service was not stopped"
[ ! -L /etc/systemd/system/multi-user.target.wants/gestured-actions@kiosk.service ] ||
    fail "remove left gestured-actions@kiosk.service enabled, its unit gone"
grep -q "disabling gestured-actions@kiosk.service" "$work/ns-remove.log" ||
    { cat "$work/ns-remove.log"; fail "remove did not say it disabled gestured-actions@kiosk.service"; }
if grep -q "Configuration file '$CONFIG'" "$work"/ns-*.log; then
    fail "dpkg asked about $CONFIG although the package's copy did not change"
fi
say "under systemd: the first configure started gestured.socket and gestured.service and triggered udev;" \
    "an upgrade over a valid edit restarted the service (checked by /usr/bin/gestured, not the stale one" \
    "first in PATH) and kept the file; over a broken edit kept the file byte for byte and did not restart;" \
    "remove stopped every unit, the gestured-actions@ instances and the users' gestured-actions.service," \
    "and disabled gestured-actions@kiosk"

# 6. Back on this machine: purge.
[ ! -e /usr/bin/gestured ] || fail "/usr/bin/gestured is left after remove"
cmp "$work/edited-broken.yaml" "$CONFIG" || fail "remove changed or took $CONFIG (only purge may take it)"
# The administrator's own files beside the conffile, and dpkg's copy of an old conffile.
printf 'actions:\n  - {on: tap, keys: [KEY_ENTER]}\n' > /etc/gestured/actions.yaml
mkdir -p /etc/gestured/gestured.yaml.d /etc/gestured/actions.yaml.d
printf 'log-level: debug\n' > /etc/gestured/gestured.yaml.d/10-site.yaml
printf 'actions:\n  - {on: swipe, keys: [KEY_A]}\n' > /etc/gestured/actions.yaml.d/10-site.yaml
cp "$CONFIG" "$CONFIG.dpkg-old"
"${APT[@]}" purge gestured > "$work/purge.log" 2>&1 || { cat "$work/purge.log"; fail "apt purge"; }
[ ! -e "$CONFIG" ] && [ ! -e "$CONFIG.dpkg-old" ] || fail "purge left the conffile or its .dpkg-old copy"
[ -f /etc/gestured/actions.yaml ] && [ -f /etc/gestured/gestured.yaml.d/10-site.yaml ] &&
    [ -f /etc/gestured/actions.yaml.d/10-site.yaml ] ||
    fail "purge took the administrator's own files from /etc/gestured"
grep -q "gestured: keeping what the package did not install in /etc/gestured: actions.yaml actions.yaml.d gestured.yaml.d" \
    "$work/purge.log" || { cat "$work/purge.log"; fail "purge did not say what it kept"; }
rm -r /etc/gestured
nothing_left "$work/listing"
getent group gestured > /dev/null || fail "purge removed the group gestured (Debian keeps system groups)"
say "removed: only $CONFIG stayed; purged: the conffile and its copy went, actions.yaml and the" \
    "drop-ins in gestured.yaml.d/ and actions.yaml.d/ (the administrator's) stayed; nothing else left of" \
    "the $(wc -l < "$work/listing") paths"
