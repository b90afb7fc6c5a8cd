#!/bin/bash
# The cross-built binaries (make ARCH=aarch64) start under qemu-aarch64 in
# user mode and do what needs no ptrace there: utraced serves RSP on stdio
# (qSupported, the empty process list of --multi, a vRun that cannot
# trace: an error, not a crash), ustrace prints its version and refuses a
# bad option. make check-cross runs it.
cd "$(dirname "$0")/../.." || exit 1
B=${B:-build-aarch64}
QEMU=${QEMU:-qemu-aarch64}
export QEMU_LD_PREFIX=${QEMU_LD_PREFIX:-/usr/aarch64-linux-gnu}
if ! command -v "$QEMU" >/dev/null || [ ! -x "$B/utraced" ]; then
	echo "1..0 # SKIP no $QEMU or no $B/utraced (make check-cross)"
	exit 0
fi
echo "1..6"
n=0
t() { # description, then a command that succeeds
	local d=$1
	shift
	n=$((n + 1))
	if "$@"; then echo "ok $n - $d"; else echo "not ok $n - $d"; fi
}
pkt() { # an RSP packet: $payload#checksum
	local sum=0 i c
	for ((i = 0; i < ${#1}; i++)); do
		printf -v c '%d' "'${1:i:1}"
		sum=$(((sum + c) % 256))
	done
	printf '$%s#%02x' "$1" "$sum"
}
TMP=$(mktemp -d /tmp/cross_smoke.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
{
	pkt 'qSupported:multiprocess+;swbreak+'
	sleep 1
	printf +
	pkt 'qfThreadInfo'
	sleep 1
	printf +
	pkt "vRun;$(printf /bin/true | od -An -tx1 | tr -d ' \n')"
	sleep 2
	printf +
} | timeout 20 "$QEMU" "$B/utraced" --multi stdio >"$TMP/out" 2>"$TMP/err"
t "utraced answers qSupported" grep -q 'PacketSize=[0-9a-f]*;multiprocess+' "$TMP/out"
t "  no process: qfThreadInfo is l" grep -q '\$l#' "$TMP/out"
t "  vRun without ptrace: an error reply" grep -qE '\$E[0-9a-f]{2}#' "$TMP/out"
t "  and no crash (stderr: no signal)" test "$(grep -ciE 'segmentation|core dumped|abort' "$TMP/err")" = 0
t "ustrace -V" grep -q 'ustrace.*version' <("$QEMU" "$B/ustrace" -V 2>&1)
t "ustrace refuses a bad option" test "$("$QEMU" "$B/ustrace" --no-such-option true >/dev/null 2>&1; echo $?)" != 0
