#!/bin/bash
# guest_systemd.sh OUT: the second boot of `make check-vm` (tests/vm/run.sh).
# systemd is PID 1 and runs this as utraced-vm.service (tests/vm/image.sh);
# it runs tests/vm/systemd_unit.t, which installs the .deb the host built
# (OUT/deb) and tries the unit it ships, live. Its TAP goes to
# OUT/tap/systemd.unit.tap like guest.sh's tests, for the host's prove.
set -u
OUT=$1
TAPS=$OUT/tap
name=systemd.unit
mkdir -p "$TAPS"
say() { echo "guest: $(date -u +%T) $*"; }

# run.sh's settings (VM_TESTS: the trials of systemd_unit.t too)
[[ -f $OUT/guest.env ]] && . "$OUT/guest.env"
export VM_TESTS
say "systemd $(systemctl --version | head -1 | cut -d' ' -f2) is PID 1: $name"
deb=$(ls "$OUT"/deb/utraced_*.deb 2>/dev/null | head -1)
DEB=$deb E2E_WAIT=120 bash /mnt/tree/tests/vm/systemd_unit.t >"$TAPS/$name.tap" 2>"$TAPS/$name.err"
rc=$?
echo "$rc" >"$TAPS/$name.rc"
say "$name: exit $rc, $(grep -c '^not ok' "$TAPS/$name.tap") failed of $(grep -c '^ok\|^not ok' "$TAPS/$name.tap")"
journalctl -b --no-pager >"$OUT/journal.systemd.log" 2>&1
touch "$OUT/done.systemd"
