#!/bin/bash
# host_deb.sh DIR: builds utraced_*.deb from a copy of the tree into DIR,
# for the guest's systemd boot (tests/vm/systemd_unit.t installs it there
# and runs the unit it ships). The same package build as tests/deb/deb.t
# (dpkg-buildpackage -us -uc -b), without its checks; installs dpkg-dev and
# debhelper when they are missing. Its log: DIR/build.log.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$(realpath -m "$1")
need=()
command -v dpkg-buildpackage >/dev/null || need+=(dpkg-dev)
command -v dh >/dev/null || need+=(debhelper)
((${#need[@]} == 0)) || "$(dirname "$0")/host_apt.sh" "${need[@]}"
mkdir -p "$OUT"
tmp=$(mktemp -d /tmp/utraced-vm-deb.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/utraced"
(cd "$TOP" && git ls-files -z --cached --others --exclude-standard |
	xargs -0 cp --parents -t "$tmp/utraced")
if ! (cd "$tmp/utraced" && dpkg-buildpackage -us -uc -b -j"$(nproc)") >"$OUT/build.log" 2>&1; then
	echo "host_deb.sh: dpkg-buildpackage failed: see $OUT/build.log" >&2
	exit 1
fi
cp "$tmp"/utraced_*.deb "$OUT/"
