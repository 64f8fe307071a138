#!/bin/sh
# guest-e2e-tests.sh - runs inside the VM (busybox sh, cwd /test, as root): the end-to-end suite
# (Tests/EndToEndTests) against the gestured binary next to the test bundle.
# usage: sh guest-e2e-tests.sh FILTER
# GESTURED_VM_DISCOVERY (udev|capabilities) tells the cases which discovery mode this boot has.

# The non-root case starts the daemon as this user, a member of `input` only (run-vm-test.sh
# writes /etc/passwd and /etc/group with root and the system groups; input is gid 105).
echo 'gestured-e2e:x:1000:1000:gestured e2e:/tmp:/bin/sh' >> /etc/passwd
echo 'gestured-e2e:x:1000:' >> /etc/group
sed -i 's/^input:x:105:$/input:x:105:gestured-e2e/' /etc/group
export GESTURED_E2E_USER=gestured-e2e
# TestSupport's ChildProcess starts programs through /usr/bin/env; busybox installed itself in /bin.
mkdir -p /usr/bin && ln -sf /bin/busybox /usr/bin/env

./gesturedPackageTests.xctest --testing-library swift-testing --filter "$1"
