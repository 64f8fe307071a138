#!/bin/bash
# Installs gestured: the binary, the systemd units, the sysusers file, the udev rules and the
# built-in configuration (kept if one exists). Run it from the repository, as yourself:
#
#   scripts/install.sh            build (release, static Swift stdlib, LTO) and install
#   scripts/install.sh --enable   … and enable + start gestured.socket and gestured.service
#
# The build runs as the checkout's owner (.build/ stays yours; as root too), and only the
# installing asks for root (sudo). DESTDIR=/some/root installs into a staging tree instead
# (nothing is started then); GESTURED_BINARY=FILE installs that binary instead of building.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/build-as-owner.sh
ENABLE=0
[ "${1:-}" = "--enable" ] && ENABLE=1
DESTDIR=${DESTDIR:-}
BIN=${GESTURED_BINARY:-}

if [ -z "$BIN" ]; then
    require_swift
    scripts/setup-debian.sh
    source scripts/shipped-build.sh
    say "building gestured as shipped (release, static Swift runtime, link-time optimization)"
    build_as_owner swift build "${SHIPPED_BUILD[@]}" --product gestured >&2
    BIN=$(build_as_owner swift build "${SHIPPED_BUILD[@]}" --show-bin-path)/gestured
fi
if [ "$(id -u)" != 0 ] && [ -z "$DESTDIR" ]; then
    say "installing as root (sudo): the binary, the units, the udev rules, the configuration"
    exec sudo env GESTURED_BINARY="$BIN" "$0" "$@"
fi

install -D -m 0755 "$BIN" "$DESTDIR/usr/local/bin/gestured"
install -D -m 0644 systemd/gestured.service "$DESTDIR/etc/systemd/system/gestured.service"
install -D -m 0644 systemd/gestured.socket "$DESTDIR/etc/systemd/system/gestured.socket"
# Not enabled: only for a configuration with a `websocket:` section (docs/DEPLOYMENT.md).
install -D -m 0644 systemd/gestured-websocket.socket "$DESTDIR/etc/systemd/system/gestured-websocket.socket"
# Not enabled: the metrics endpoint, for a Prometheus on the kiosk or a proxy to one (docs/FLEET.md).
install -D -m 0644 systemd/gestured-metrics.socket "$DESTDIR/etc/systemd/system/gestured-metrics.socket"
# Not enabled: the actions client, as a system unit for one user or as a user unit (docs/ACTIONS.md).
install -D -m 0644 systemd/gestured-actions@.service "$DESTDIR/etc/systemd/system/gestured-actions@.service"
install -D -m 0644 systemd/user/gestured-actions.service "$DESTDIR/etc/systemd/user/gestured-actions.service"
install -D -m 0644 systemd/gestured.sysusers "$DESTDIR/usr/lib/sysusers.d/gestured.conf"
install -D -m 0644 udev-rules/70-gestured.rules "$DESTDIR/etc/udev/rules.d/70-gestured.rules"
if [ ! -e "$DESTDIR/etc/gestured/gestured.yaml" ]; then
    install -d -m 0755 "$DESTDIR/etc/gestured"
    "$DESTDIR/usr/local/bin/gestured" config --default > "$DESTDIR/etc/gestured/gestured.yaml"
fi
"$DESTDIR/usr/local/bin/gestured" check-config "$DESTDIR/etc/gestured/gestured.yaml"

if [ -n "$DESTDIR" ]; then
    echo "install: staged under $DESTDIR"
    exit 0
fi
systemd-sysusers /usr/lib/sysusers.d/gestured.conf
udevadm control --reload
udevadm trigger --subsystem-match=input --subsystem-match=misc --action=change
systemctl daemon-reload
if [ "$ENABLE" = 1 ]; then
    systemctl enable --now gestured.socket gestured.service
    echo "install: gestured is running; add the kiosk user to the 'gestured' group to connect"
else
    echo "install: done. Start it with: systemctl enable --now gestured.socket gestured.service"
    echo "         clients connect as members of the 'gestured' group: usermod -aG gestured KIOSKUSER"
fi
