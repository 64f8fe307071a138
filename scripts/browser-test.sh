#!/bin/bash
# The browser test (Tests/Browser/browser_test.py): Debian's headless Chromium, driven by
# Selenium, against the daemon's WebSocket endpoint on a replayed recording. Selenium comes from
# PyPI into a venv kept in the user's cache directory (made once, re-made when the pinned version
# changes); chromium and chromium-driver come from scripts/setup-debian.sh --test.
#   scripts/browser-test.sh [--gestured PATH]     (default: .build/debug/gestured, built already)
set -euo pipefail
cd "$(dirname "$0")/.."
selenium_version=4.51.0
venv="${XDG_CACHE_HOME:-$HOME/.cache}/gestured/browser-venv-$selenium_version"
if ! "$venv/bin/python" -c "import selenium" 2>/dev/null; then
    echo "browser-test: making $venv (selenium $selenium_version from PyPI)" >&2
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check "selenium==$selenium_version"
fi
exec "$venv/bin/python" Tests/Browser/browser_test.py "$@"
