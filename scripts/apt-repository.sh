#!/bin/bash
# apt-repository.sh - publishes gestured's packages (both architectures) in a signed apt repository
# made with Debian's reprepro: DIR/public is what a web server serves (dists/, pool/, and the
# public key: gestured-archive-keyring.gpg for clients' `Signed-By:`, .asc armored for an Ansible
# role's files); DIR/conf and DIR/db are reprepro's configuration and state, kept for the next
# publish. A newer version of a package
# replaces the older one in the suite (the pool keeps only what a suite lists). InRelease and
# Release.gpg are signed with the key given, or with a key this script makes (for tests).
#
# usage: scripts/apt-repository.sh --repo DIR (--key ID | --make-test-key) [--gnupghome DIR]
#                                  [--suite NAME] DEB...
#   --repo DIR        the repository (made on first use)
#   --key ID          sign with this secret key (fingerprint or user id) of GNUPGHOME
#   --make-test-key   make a new signing key without a passphrase in --gnupghome (tests only: a
#                     real repository's key is the publisher's, kept off the build machine's disk)
#   --gnupghome DIR   the GnuPG home holding the key (default: $GNUPGHOME, else ~/.gnupg)
#   --suite NAME      the suite (codename) to publish to (default: stable)
# Prints the client's deb822 source stanza. Needs reprepro and gpg (installed if missing, as root).
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=
KEY=
MAKE_KEY=0
HOME_DIR=${GNUPGHOME:-$HOME/.gnupg}
SUITE=stable
while [ $# -gt 0 ]; do
    case "$1" in
    --repo) REPO=$2; shift 2 ;;
    --key) KEY=$2; shift 2 ;;
    --make-test-key) MAKE_KEY=1; shift ;;
    --gnupghome) HOME_DIR=$2; shift 2 ;;
    --suite) SUITE=$2; shift 2 ;;
    -h | --help) sed -n '2,18p' "$0"; exit 0 ;;
    -*) echo "apt-repository: unknown option $1" >&2; exit 2 ;;
    *) break ;;
    esac
done
say() { echo "apt-repository: $*" >&2; }
fail() { say "$*"; exit 1; }
[ -n "$REPO" ] || fail "--repo DIR is required"
[ -n "$KEY" ] || [ "$MAKE_KEY" = 1 ] || fail "--key ID or --make-test-key is required"
for tool in reprepro gpg; do
    command -v "$tool" > /dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$tool" > /dev/null
done
export GNUPGHOME=$HOME_DIR
mkdir -p "$GNUPGHOME"
chmod 0700 "$GNUPGHOME"
if [ "$MAKE_KEY" = 1 ]; then
    gpg --batch --quiet --passphrase '' --quick-gen-key "gestured test repository <test@gestured.example>" ed25519 sign never
    KEY=$(gpg --batch --quiet --with-colons --list-secret-keys | awk -F: '/^fpr:/ {print $10}' | tail -n 1)
    say "made the test signing key $KEY in $GNUPGHOME"
fi
fingerprint=$(gpg --batch --quiet --with-colons --list-secret-keys "$KEY" 2> /dev/null | awk -F: '/^fpr:/ {print $10; exit}')
[ -n "$fingerprint" ] || fail "no secret key $KEY in $GNUPGHOME"

mkdir -p "$REPO/conf" "$REPO/public"
REPO=$(realpath "$REPO")
# A suite signed with another key than before would strand every client: refuse to switch silently.
if [ -f "$REPO/conf/distributions" ] && ! grep -qx "SignWith: $fingerprint" "$REPO/conf/distributions"; then
    fail "$REPO is signed with $(sed -n 's/^SignWith: //p' "$REPO/conf/distributions"), not $fingerprint;" \
        "a key change is a new repository (clients need the new key first)"
fi
cat > "$REPO/conf/distributions" <<D
Origin: gestured
Label: gestured
Codename: $SUITE
Architectures: amd64 arm64
Components: main
Description: gestured, the touchscreen gesture daemon
SignWith: $fingerprint
D
cat > "$REPO/conf/options" <<O
outdir $REPO/public
O
for deb in "$@"; do
    reprepro --silent --basedir "$REPO" includedeb "$SUITE" "$deb" >&2
done
reprepro --silent --basedir "$REPO" export "$SUITE" >&2
# The public key, for apt's Signed-By (binary) and for a configuration manager's role (armored).
gpg --batch --export "$fingerprint" > "$REPO/public/gestured-archive-keyring.gpg"
gpg --batch --armor --export "$fingerprint" > "$REPO/public/gestured-archive-keyring.asc"
[ -s "$REPO/public/dists/$SUITE/InRelease" ] || fail "no InRelease was written"
say "$SUITE now holds:"
reprepro --basedir "$REPO" list "$SUITE" >&2
cat <<S
# /etc/apt/sources.list.d/gestured.sources (the key: $REPO/public/gestured-archive-keyring.gpg,
# installed as /usr/share/keyrings/gestured-archive-keyring.gpg)
Types: deb
URIs: https://REPOSITORY-URL
Suites: $SUITE
Components: main
Signed-By: /usr/share/keyrings/gestured-archive-keyring.gpg
S
