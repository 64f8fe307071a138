#!/bin/sh
# guest-package-tests.sh - runs inside the aarch64 guest, Debian 13 arm64 booted with systemd, as a
# oneshot unit (scripts/vm/arm64-package-tests.sh sets it up): the signed repository added and
# gestured installed from it, the service, a simulated panel and a swipe through the kernel, an
# upgrade that keeps an edited configuration, another key refused, a purge that leaves nothing.
# Writes 0 (or 1) to /test/exit-status and powers the guest off.
# env: VERSION (the packages' version), NEWER (the version published second)
set -u
export DEBIAN_FRONTEND=noninteractive PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8
APT="apt-get -y -q -o Dpkg::Use-Pty=0"
say() { echo "guest: [$(cut -d' ' -f1 /proc/uptime) s] $*"; }
finish() { echo "$1" > /test/exit-status; sync; systemctl --no-block poweroff; exit "$1"; }
fail() { say "FAILED: $*"; finish 1; }
# within SECONDS COMMAND...: until COMMAND succeeds, at most SECONDS of the clock. Deadlines are
# wall time, not counts of tries: under TCG on a loaded host one `systemctl` or `grep` takes a
# second or more, and 1200 tries of a "0.1 s" loop were over half an hour.
within() {
    end=$(($(date +%s) + $1))
    shift
    until "$@"; do
        [ "$(date +%s)" -lt "$end" ] || return 1
        sleep 0.5
    done
}
# await FILE PATTERN [SECONDS]: until a line of FILE matches (default 300 s: a loaded host's TCG)
seen() { grep -q "$2" "$1" 2> /dev/null; }
await() { within "${3:-300}" seen "$1" "$2"; }
# active UNIT: true once UNIT is active; says each state it passes through on the way.
active() {
    state=$(systemctl is-active "$1" 2> /dev/null)
    [ "$state" = "${last_state:-}" ] || say "$1: $state"
    last_state=$state
    [ "$state" = active ]
}
# The user the service's main process runs as (the root has no procps: /proc).
daemon_user() {
    pid=$(systemctl show -p MainPID --value gestured.service)
    [ "${pid:-0}" != 0 ] && stat -c %U "/proc/$pid" || echo "(no main process)"
}
# The processes whose program is gestured, one pid a line.
gestured_processes() {
    for comm in /proc/[0-9]*/comm; do
        [ "$(cat "$comm" 2> /dev/null)" = gestured ] && echo "${comm%/comm}"
    done
    return 0
}
# The unit's status and journal, when it failed a check (bounded: journalctl reads over 9p).
unit_report() {
    timeout 120 systemctl status --no-pager -l "$1" 2>&1 | tail -n 30
    timeout 300 journalctl -b --no-pager -u "$1" 2>&1 | tail -n 60
}
say "Debian $(cat /etc/debian_version) $(dpkg --print-architecture), kernel $(uname -r) $(uname -m)," \
    "$(systemctl --version | head -n 1), glibc $(dpkg-query -W -f='${Version}' libc6)"

# 1. The repository, served on this guest's loopback, added with Signed-By; install by name.
/test/busybox httpd -p 127.0.0.1:8080 -h /test/www || fail "busybox httpd"
install -D -m 0644 /test/repo/public/gestured-archive-keyring.gpg /usr/share/keyrings/gestured-archive-keyring.gpg
cat > /etc/apt/sources.list.d/gestured.sources << S
Types: deb
URIs: http://127.0.0.1:8080/gestured
Suites: stable
Components: main
Signed-By: /usr/share/keyrings/gestured-archive-keyring.gpg
S
$APT update > /tmp/update.log 2>&1 || { cat /tmp/update.log; fail "apt-get update"; }
$APT install gestured > /tmp/install.log 2>&1 || { cat /tmp/install.log; fail "apt-get install gestured"; }
grep -A2 'NEW packages will be installed' /tmp/install.log
installed=$(dpkg-query -W -f='${Version} ${Architecture}' gestured)
[ "$installed" = "$VERSION arm64" ] || fail "installed $installed, expected $VERSION arm64"
[ "$(gestured --version)" = "${VERSION%%+*}" ] || fail "gestured --version says $(gestured --version)"
gestured check-config /etc/gestured/gestured.yaml > /dev/null || fail "check-config of the conffile"
dpkg -L gestured > /tmp/listing
say "apt install gestured: $installed from http://127.0.0.1:8080/gestured ($(wc -l < /tmp/listing) paths)"

# 2. The service: enabled and started by the package.
within 600 active gestured.service || { unit_report gestured.service; fail "gestured.service is not active after 600 s"; }
say "gestured.service: $(systemctl is-active gestured.service), $(systemctl is-enabled gestured.service);" \
    "gestured.socket: $(systemctl is-active gestured.socket); the daemon runs as $(daemon_user)"
[ "$(daemon_user)" = gestured ] || { unit_report gestured.service; fail "the daemon runs as $(daemon_user), not gestured"; }
gestured devices > /tmp/devices.txt 2>&1
grep -q "No touchscreen found" /tmp/devices.txt || { cat /tmp/devices.txt; fail "devices without a panel"; }

# A simulated panel (uinput): `gestured devices` sees it, the running service opens it (udev tags
# it), and a swipe played into it reaches `gestured listen` from the service.
gestured listen > /tmp/listen.json 2> /tmp/listen.err &
listen=$!
await /tmp/listen.json '"type":"hello"' || { cat /tmp/listen.err; fail "no hello from the service"; }
gestured simulate --profile kiosk-10 --name "arm64 kiosk panel" --start-on-signal "swipe right" > /tmp/simulate.txt 2>&1 &
simulate=$!
await /tmp/simulate.txt '^waiting for SIGUSR1' || { cat /tmp/simulate.txt; fail "simulate made no panel"; }
gestured devices --json > /tmp/devices.json || { cat /tmp/devices.json; fail "gestured devices --json"; }
grep -q '"name" : "arm64 kiosk panel"' /tmp/devices.json || { cat /tmp/devices.json; fail "devices does not list the panel"; }
say "gestured devices lists the panel: $(grep -o '"devnode" : "[^"]*"' /tmp/devices.json | head -n 1)"
await /tmp/listen.json '"event":"added"' || { cat /tmp/listen.json; unit_report gestured.service; fail "the service did not report the panel"; }
say "the service opened it: $(grep '"event":"added"' /tmp/listen.json | head -n 1)"
kill -USR1 $simulate
wait $simulate || { cat /tmp/simulate.txt; fail "simulate"; }
# A gesture event (its keys in order: direction … kind … type), not the hello's list of recognizers.
swipe='"direction":"right".*"kind":"swipe".*"type":"gesture"'
await /tmp/listen.json "$swipe" || { cat /tmp/listen.json; fail "no swipe right reached listen"; }
say "listen got: $(grep "$swipe" /tmp/listen.json | head -n 1 | cut -c 1-240)"
kill $listen 2> /dev/null; wait $listen 2> /dev/null

# 3. An edited configuration, a newer version published at the same URL, apt upgrade.
echo "# edited on this kiosk" >> /etc/gestured/gestured.yaml
cp /etc/gestured/gestured.yaml /tmp/edited.yaml
ln -sfn ../repo-newer/public /test/www/gestured
$APT update > /tmp/update.log 2>&1 || { cat /tmp/update.log; fail "apt-get update (newer)"; }
$APT upgrade > /tmp/upgrade.log 2>&1 || { cat /tmp/upgrade.log; fail "apt-get upgrade"; }
installed=$(dpkg-query -W -f='${Version}' gestured)
[ "$installed" = "$NEWER" ] || { cat /tmp/upgrade.log; fail "after apt upgrade: $installed, expected $NEWER"; }
cmp -s /tmp/edited.yaml /etc/gestured/gestured.yaml || fail "the edited configuration was not kept"
! ls /etc/gestured/gestured.yaml.dpkg-* > /dev/null 2>&1 || fail "dpkg left $(ls /etc/gestured/gestured.yaml.dpkg-*)"
last_state=
within 600 active gestured.service || { unit_report gestured.service; fail "gestured.service is not active after the upgrade"; }
say "apt upgrade moved to $installed, kept the edited /etc/gestured/gestured.yaml; gestured.service active"

# 4. Signed with another key: refused.
sed -i 's#^URIs: .*#URIs: http://127.0.0.1:8080/other#' /etc/apt/sources.list.d/gestured.sources
if $APT update > /tmp/refused.log 2>&1; then
    cat /tmp/refused.log; fail "apt-get update accepted a repository signed with another key"
fi
grep -q "NO_PUBKEY\|not signed\|signatures couldn't be verified\|Missing key" /tmp/refused.log ||
    { cat /tmp/refused.log; fail "apt-get update failed, but not on the signature"; }
apt-cache policy gestured | grep -q "127.0.0.1:8080/other" && fail "apt lists packages of the repository it refused"
say "another key refused: $(grep -m 1 'NO_PUBKEY\|not signed\|Missing key\|signatures' /tmp/refused.log)"
sed -i 's#^URIs: .*#URIs: http://127.0.0.1:8080/gestured#' /etc/apt/sources.list.d/gestured.sources

# 5. Purge: nothing of the package's is left (scripts/test-package.sh's rule).
$APT purge gestured > /tmp/purge.log 2>&1 || { cat /tmp/purge.log; fail "apt-get purge gestured"; }
left=
while IFS= read -r path; do
    [ "$path" = /. ] && continue
    if [ -L "$path" ] || [ -f "$path" ]; then
        left="$left $path"
    elif [ -d "$path" ] && ! dpkg -S "$path" > /dev/null 2>&1 && [ -z "$(ls -A "$path")" ]; then
        left="$left $path(empty, no package owns it)"
    fi
done < /tmp/listing
[ ! -e /etc/gestured ] || left="$left /etc/gestured"
for path in $(find /etc/systemd/system /var/lib/systemd/deb-systemd-helper-enabled /var/lib/dpkg/info -name '*gestured*' 2> /dev/null); do
    case "$path" in */gestured-package-tests.service) ;; *) left="$left $path" ;; esac
done
[ -z "$(gestured_processes)" ] || left="$left (gestured processes: $(gestured_processes | tr '\n' ' '))"
systemctl list-units --all --no-legend 'gestured*' | grep -v gestured-package-tests | grep -q . &&
    left="$left (units: $(systemctl list-units --all --no-legend 'gestured*' | grep -v gestured-package-tests | tr -s ' '))"
[ -z "$left" ] || fail "left after purge:$left"
say "apt purge gestured: nothing of its $(wc -l < /tmp/listing) paths left, no unit, no process"
say "passed"
finish 0
