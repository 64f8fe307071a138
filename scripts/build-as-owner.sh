# Sourced, not run, by quickstart.sh and install.sh: the build runs as the checkout's owner, never
# as root on someone else's checkout (a root-owned .build/ breaks the owner's next `swift build`
# or scripts/test.sh), and a missing `swift` is said before anything else happens.
#   say MESSAGE...             prints "SCRIPT: MESSAGE" on stderr
#   require_swift              exits saying what to do when `swift` is not on the PATH
#   build_as_owner COMMAND...  runs COMMAND as the checkout's owner, with this PATH
script_name=$(basename "$0" .sh)
say() { echo "$script_name: $*" >&2; }

require_swift() {
    command -v swift > /dev/null && return 0
    if [ "$(id -u)" = 0 ] && [ -n "${SUDO_USER:-}" ]; then
        say "swift is not on the PATH sudo keeps ($PATH)."
        say "Run it as yourself (it asks sudo only to install): scripts/$script_name.sh"
        say "or keep your PATH: sudo env PATH=\"\$PATH\" scripts/$script_name.sh"
    else
        say "swift is not on the PATH ($PATH)."
        say "Install the Swift toolchain (6.2 or later, www.swift.org/install/linux) and add its usr/bin to PATH."
    fi
    exit 1
}

checkout_owner=$(stat -c %U .)
build_as_owner() {
    if [ "$(id -u)" = 0 ] && [ "$checkout_owner" != root ]; then
        runuser -u "$checkout_owner" -- env PATH="$PATH" HOME="$(getent passwd "$checkout_owner" | cut -d: -f6)" "$@"
    else
        "$@"
    fi
}
