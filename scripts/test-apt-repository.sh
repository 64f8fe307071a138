#!/bin/bash
# test-apt-repository.sh - the signed apt repository as a fleet uses it (scripts/apt-repository.sh),
# on fresh Debian 12 amd64 roots (mmdebstrap, chroot: as root), served over HTTP on 127.0.0.1:
#   1. a repository holding both architectures, signed with a key made for the test;
#   2. a root adds it (deb822 `.sources` with `Signed-By:` the published key), `apt install
#      gestured` by name: the version, the binary, the dependencies from Debian's mirror;
#   3. the configuration edited, a newer version published, `apt upgrade` moves to it and keeps
#      the edited file byte for byte (no prompt: stdin is closed);
#   4. the same packages signed with another key are refused: `apt-get update` fails on the
#      signature and the repository gives apt no package;
#   5. docs/FLEET.md's Ansible role (examples/ansible, ansible-core from PyPI in a venv under
#      ~/.cache/gestured) applied to another fresh root with the local connection in the chroot:
#      it adds the repository and installs the package, upgrades it when a newer one is
#      published, and changes nothing when run again.
# The newer version is the same packages repacked under a higher version (VERSION+repo1): apt's and
# dpkg's upgrade path is what is tested, not a second release build.
# usage: scripts/test-apt-repository.sh AMD64_DEB ARM64_DEB
#        scripts/test-apt-repository.sh --prepare   only make the root and the venv (downloads)
# env: GESTURED_APT_TEST_CACHE (default ~/.cache/gestured/apt-test: the pristine Debian 12 root)
set -euo pipefail
cd "$(dirname "$0")/.."
PREPARE=0
[ "${1:-}" = --prepare ] && { PREPARE=1; shift; }
[ $# = 2 ] || [ "$PREPARE" = 1 ] || { sed -n '2,20p' "$0"; exit 2; }
[ "$(id -u)" = 0 ] || { echo "test-apt-repository: needs root (mmdebstrap, chroot)" >&2; exit 1; }
CACHE=${GESTURED_APT_TEST_CACHE:-$HOME/.cache/gestured/apt-test}
ANSIBLE_VERSION=2.19.14
MIRROR=${GESTURED_CROSS_MIRROR:-http://deb.debian.org/debian}
say() { echo "test-apt-repository: [$SECONDS s] $*"; }
fail() { echo "test-apt-repository: FAILED: $*" >&2; exit 1; }
command -v mmdebstrap > /dev/null || scripts/setup-debian.sh --cross
work=$(mktemp -d)
server=
cleanup() {
    [ -z "$server" ] || kill "$server" 2> /dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# The pristine root, made once: a kiosk's (systemd), with python3 and the Python modules Ansible's
# apt modules use.
tarball=$CACHE/bookworm-amd64-v2.tar
if [ ! -f "$tarball" ]; then
    say "making a Debian 12 root (mmdebstrap)"
    mkdir -p "$CACHE"
    mmdebstrap --quiet --mode=root --format=tar --variant=apt --aptopt='Acquire::Retries "3"' \
        --include=systemd,python3,python3-apt,python3-debian \
        --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
        bookworm "$tarball.tmp" "$MIRROR" && mv "$tarball.tmp" "$tarball"
fi
venv=$HOME/.cache/gestured/ansible-$ANSIBLE_VERSION
if ! "$venv/bin/ansible-playbook" --version > /dev/null 2>&1; then
    say "making $venv (ansible-core $ANSIBLE_VERSION from PyPI)"
    rm -rf "$venv"
    # Debian's python3: the venv runs inside the Debian 12 root too (the same interpreter path).
    /usr/bin/python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check "ansible-core==$ANSIBLE_VERSION"
fi
[ "$PREPARE" = 1 ] && exit 0
AMD64_DEB=$(realpath "$1")
ARM64_DEB=$(realpath "$2")
VERSION=$(dpkg-deb -f "$AMD64_DEB" Version)
NEWER=$VERSION+repo1

fresh_root() {  # fresh_root DIR
    mkdir -p "$1"
    tar -C "$1" -xf "$tarball"
    cp /etc/resolv.conf "$1/etc/resolv.conf"
}
in_root() {  # in_root DIR COMMAND...: in a mount namespace of its own with /proc and /dev
    local root=$1; shift
    unshare --mount --propagation private -- sh -c 'mount -t proc proc "$0/proc" && mount --rbind /dev "$0/dev" &&
        exec chroot "$0" "$@"' "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
        DEBIAN_FRONTEND=noninteractive "$@" < /dev/null
}
APT=(apt-get -y -q -o Dpkg::Use-Pty=0 -o Acquire::Retries=3)

# 1. The repositories: the real one and one signed with another key.
say "repository: $VERSION for amd64 and arm64, signed with a test key"
repack() {  # repack DEB VERSION OUT: the package with another version
    local tree=$work/repack
    rm -rf "$tree"
    dpkg-deb -R "$1" "$tree"
    sed -i "s/^Version: .*/Version: $2/" "$tree/DEBIAN/control"
    dpkg-deb --root-owner-group -Zxz --build "$tree" "$3" > /dev/null
}
scripts/apt-repository.sh --repo "$work/repo" --make-test-key --gnupghome "$work/gnupg" \
    "$AMD64_DEB" "$ARM64_DEB" > /dev/null
scripts/apt-repository.sh --repo "$work/other" --make-test-key --gnupghome "$work/gnupg-other" \
    "$AMD64_DEB" "$ARM64_DEB" > /dev/null
for arch in amd64 arm64; do
    grep -q "^Architecture: $arch" "$work/repo/public/dists/stable/main/binary-$arch/Packages" ||
        fail "the repository lists no $arch package"
done
gpgv --keyring "$work/repo/public/gestured-archive-keyring.gpg" "$work/repo/public/dists/stable/InRelease" 2> /dev/null ||
    fail "InRelease does not verify with the published key"
mkdir -p "$work/www"
ln -s "$work/repo/public" "$work/www/gestured"
ln -s "$work/other/public" "$work/www/other"
python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$work/www" > "$work/http.log" 2>&1 &
server=$!
for _ in $(seq 300); do grep -q 'port [0-9]*' "$work/http.log" && break; sleep 0.1; done
port=$(sed -n 's/.* port \([0-9]*\).*/\1/p' "$work/http.log" | head -n 1)
[ -n "$port" ] || fail "the HTTP server did not start: $(cat "$work/http.log")"
URL=http://127.0.0.1:$port/gestured
say "served at $URL"

# 2. A fresh root adds the repository and installs the package by name.
root=$work/root
fresh_root "$root"
install -D -m 0644 "$work/repo/public/gestured-archive-keyring.gpg" "$root/usr/share/keyrings/gestured-archive-keyring.gpg"
cat > "$root/etc/apt/sources.list.d/gestured.sources" <<S
Types: deb
URIs: $URL
Suites: stable
Components: main
Signed-By: /usr/share/keyrings/gestured-archive-keyring.gpg
S
in_root "$root" "${APT[@]}" update > "$work/update.log" 2>&1 || { cat "$work/update.log"; fail "apt-get update"; }
in_root "$root" "${APT[@]}" install gestured > "$work/install.log" 2>&1 || { cat "$work/install.log"; fail "apt-get install gestured"; }
installed=$(in_root "$root" dpkg-query -W -f='${Version}' gestured)
[ "$installed" = "$VERSION" ] || fail "installed $installed, expected $VERSION"
[ "$(in_root "$root" gestured --version)" = "${VERSION%%+*}" ] || fail "gestured --version"
in_root "$root" gestured check-config /etc/gestured/gestured.yaml > /dev/null || fail "check-config of the conffile"
pulled=$(sed -n 's/^Setting up \([^: ]*\).*/\1/p' "$work/install.log" | LC_ALL=C sort | tr '\n' ' ')
say "amd64 root: apt install gestured: $installed from $URL; set up: $pulled"

# 3. An edited configuration, a newer version published, apt upgrade.
echo "# edited on this kiosk" >> "$root/etc/gestured/gestured.yaml"
cp "$root/etc/gestured/gestured.yaml" "$work/edited.yaml"
repack "$AMD64_DEB" "$NEWER" "$work/gestured_${NEWER}_amd64.deb"
repack "$ARM64_DEB" "$NEWER" "$work/gestured_${NEWER}_arm64.deb"
scripts/apt-repository.sh --repo "$work/repo" --key test@gestured.example --gnupghome "$work/gnupg" \
    "$work/gestured_${NEWER}_amd64.deb" "$work/gestured_${NEWER}_arm64.deb" > /dev/null
in_root "$root" "${APT[@]}" update > "$work/update.log" 2>&1 || { cat "$work/update.log"; fail "apt-get update"; }
in_root "$root" "${APT[@]}" upgrade > "$work/upgrade.log" 2>&1 || { cat "$work/upgrade.log"; fail "apt-get upgrade"; }
installed=$(in_root "$root" dpkg-query -W -f='${Version}' gestured)
[ "$installed" = "$NEWER" ] || { cat "$work/upgrade.log"; fail "after apt upgrade: $installed, expected $NEWER"; }
cmp -s "$work/edited.yaml" "$root/etc/gestured/gestured.yaml" || fail "the edited configuration was not kept"
! ls "$root"/etc/gestured/gestured.yaml.dpkg-* > /dev/null 2>&1 || fail "dpkg left $(ls "$root"/etc/gestured/gestured.yaml.dpkg-*)"
say "amd64 root: apt upgrade moved to $installed and kept the edited /etc/gestured/gestured.yaml"

# 4. Signed with another key: refused.
sed -i "s#^URIs: .*#URIs: http://127.0.0.1:$port/other#" "$root/etc/apt/sources.list.d/gestured.sources"
if in_root "$root" "${APT[@]}" update > "$work/refused.log" 2>&1; then
    cat "$work/refused.log"; fail "apt-get update accepted a repository signed with another key"
fi
grep -q "NO_PUBKEY\|not signed\|signatures couldn't be verified" "$work/refused.log" ||
    { cat "$work/refused.log"; fail "apt-get update failed, but not on the signature"; }
if in_root "$root" apt-cache policy gestured | grep -q "127.0.0.1:$port/other"; then
    fail "apt lists packages of the repository it refused"
fi
say "amd64 root: a repository signed with another key is refused: $(grep -o 'NO_PUBKEY [0-9A-F]*\|is not signed' "$work/refused.log" | head -n 1)"

# 5. The Ansible role, for real, on a fresh root. Back to the first version for its first run.
# docs/FLEET.md shows the role as it is.
for file in tasks/main.yml handlers/main.yml defaults/main.yml; do
    python3 -c 'import sys; sys.exit(open(sys.argv[2]).read() not in open(sys.argv[1]).read())' \
        docs/FLEET.md "examples/ansible/roles/gestured/$file" ||
        fail "docs/FLEET.md does not show roles/gestured/$file as it is"
done
ansible_root=$work/ansible-root
fresh_root "$ansible_root"
cp -r examples/ansible "$work/play"
cp "$work/repo/public/gestured-archive-keyring.asc" "$work/play/roles/gestured/files/"
printf '[kiosks]\nlocalhost ansible_connection=local ansible_python_interpreter=/usr/bin/python3\n' > "$work/play/inventory.ini"
printf 'gestured_repository_url: %s\n' "http://127.0.0.1:$port/ansible" > "$work/play/vars.yml"
mkdir -p "$ansible_root$venv" "$ansible_root/play"
run_playbook() {  # run_playbook LOG [ARG...]: the role applied inside the root; prints the recap
    local log=$1; shift
    unshare --mount --propagation private -- sh -c 'mount -t proc proc "$0/proc" && mount --rbind /dev "$0/dev" &&
        mount --bind "$1" "$0$1" && mount --bind "$2" "$0/play" && root=$0 && shift 2 && exec chroot "$root" "$@"' \
        "$ansible_root" "$venv" "$work/play" \
        env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 ANSIBLE_NOCOLOR=1 \
        "$venv/bin/ansible-playbook" -i /play/inventory.ini -e @/play/vars.yml "$@" /play/site.yml < /dev/null > "$log" 2>&1 ||
        { cat "$log"; fail "ansible-playbook"; }
    grep -A1 '^PLAY RECAP' "$log" | tail -n 1 | tr -s ' '
}
# Its own repository, which starts at the first version, as a fleet's would.
scripts/apt-repository.sh --repo "$work/ansible-repo" --key test@gestured.example --gnupghome "$work/gnupg" \
    "$AMD64_DEB" "$ARM64_DEB" > /dev/null
ln -s "$work/ansible-repo/public" "$work/www/ansible"
say "ansible (first run): $(run_playbook "$work/ansible-1.log")"
installed=$(in_root "$ansible_root" dpkg-query -W -f='${Version}' gestured)
[ "$installed" = "$VERSION" ] || fail "ansible installed $installed, expected $VERSION"
grep -q '^Signed-By:' "$ansible_root/etc/apt/sources.list.d/gestured.sources" || fail "no Signed-By in the role's source"
cmp -s examples/ansible/roles/gestured/files/gestured-site.yaml "$ansible_root/etc/gestured/gestured.yaml.d/50-site.yaml" ||
    fail "the site's drop-in is not in place"
in_root "$ansible_root" gestured check-config /etc/gestured/gestured.yaml | grep -q '50-site.yaml' ||
    fail "check-config does not read the site's drop-in"
scripts/apt-repository.sh --repo "$work/ansible-repo" --key test@gestured.example --gnupghome "$work/gnupg" \
    "$work/gestured_${NEWER}_amd64.deb" "$work/gestured_${NEWER}_arm64.deb" > /dev/null
# apt's lists are kept for gestured_apt_cache_valid_time (an hour): a run after that sees the new
# version; 0 stands for the hour.
say "ansible (after $NEWER was published): $(run_playbook "$work/ansible-2.log" -e gestured_apt_cache_valid_time=0)"
installed=$(in_root "$ansible_root" dpkg-query -W -f='${Version}' gestured)
[ "$installed" = "$NEWER" ] || { cat "$work/ansible-2.log"; fail "ansible left $installed, expected $NEWER"; }
recap=$(run_playbook "$work/ansible-3.log")
say "ansible (again): $recap"
echo "$recap" | grep -q 'changed=0' || { cat "$work/ansible-3.log"; fail "a second run changed something"; }
say "the repository: installed, upgraded, a foreign key refused; the Ansible role: installed, upgraded, idempotent"
