#!/bin/bash
# setup.sh: fetches strace 6.1's sources (Debian 12's source package) and
# builds strace and its test programs under $STRACETS (default
# /var/tmp/stracets), once: about ten minutes on two cores, then cached.
# The machine's Debian entry is reused as a deb-src entry when apt has no
# source entry for strace. Exit 0: ready; else the step that failed is said.
set -u
TS=${STRACETS:-/var/tmp/stracets}
SRC=$TS/strace-6.1
[[ -x $SRC/src/strace && -f $SRC/tests/.built ]] && exit 0
mkdir -p "$TS" && cd "$TS" || exit 2
fail() { echo "setup.sh: $*" >&2; exit 2; }
if [[ ! -d strace-6.1 ]]; then
	if [[ -z $(apt-cache showsrc strace 2>/dev/null) ]]; then
		[[ $(id -u) == 0 ]] || fail "no deb-src entry for strace, and not root to add one"
		awk 'BEGIN{RS=""} /Suites: bookworm( |\n)/ && !/security/ {sub(/Types: deb/, "Types: deb-src"); print; exit}' \
			/etc/apt/sources.list.d/debian.sources >/etc/apt/sources.list.d/strace-src.sources
		apt-get update >/dev/null 2>&1
	fi
	apt-get source --download-only strace=6.1-0.1 >/dev/null 2>&1 || fail "apt-get source strace failed"
	tar xf strace_6.1.orig.tar.xz || fail "unpacking strace_6.1.orig.tar.xz failed"
fi
cd strace-6.1 || exit 2
[[ -f config.status ]] || ./configure --enable-mpers=no >"$TS/configure.log" 2>&1 ||
	fail "configure failed, see $TS/configure.log"
nice make -j2 >"$TS/strace-build.log" 2>&1 || fail "make failed, see $TS/strace-build.log"
nice make -j2 -C tests check TESTS= >"$TS/tests-build.log" 2>&1 ||
	fail "building the tests failed, see $TS/tests-build.log"
touch tests/.built
