#!/bin/bash
# The arm64 target description (src/arch/arm64/arm64_tdesc.c) as gdb reads
# it: gdb-multiarch loads it with no complaint (an unknown type or a
# broken tag makes it warn and ignore the file), takes it for aarch64,
# and numbers and places the registers as arm64_regs.c does ('g' offsets).
cd "$(dirname "$0")/../.." || exit 1
B=${B:-build}
TMP=$(mktemp -d /tmp/arm64_tdesc.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
if ! command -v gdb-multiarch >/dev/null; then
	echo "1..0 # SKIP no gdb-multiarch (tests/lib/deps.sh cross installs it)"
	exit 0
fi
if [ ! -x "$B/tests/unit/arm64_tdesc_test" ]; then
	echo "1..0 # SKIP no $B/tests/unit/arm64_tdesc_test (make unit builds it)"
	exit 0
fi
echo "1..8"
ARM64_TDESC_OUT=$TMP/target.xml "$B/tests/unit/arm64_tdesc_test" >/dev/null
[ -s "$TMP/target.xml" ] && echo "ok 1 - the description written" || echo "not ok 1 - the description written"
gdb-multiarch -nx -batch -ex 'set architecture aarch64' -ex "set tdesc filename $TMP/target.xml" \
	-ex 'maint print registers' -ex 'ptype $v0' -ex 'ptype $cpsr' >"$TMP/out" 2>"$TMP/err"
n=1
t() { # description, then a command that succeeds
	local d=$1
	shift
	n=$((n + 1))
	if "$@"; then echo "ok $n - $d"; else echo "not ok $n - $d"; sed 's/^/# /' "$TMP/err" "$TMP/out" | head -20; fi
}
t "gdb takes it without a warning" test ! -s "$TMP/err"
# " Name Nr Rel Offset Size Type": the raw registers, then gdb's pseudo ones
row() { awk -v r="$1" '$1 == r { print $2, $4, $5, $6 }' "$TMP/out"; }
t "x0 is 0, at 0, 8 bytes" test "$(row x0)" = "0 0 8 long"
t "sp 31, pc 32 at 256, cpsr 33 (4 bytes, its flags)" \
	test "$(row sp | cut -d' ' -f1-3) $(row pc | cut -d' ' -f1-3) $(row cpsr)" = "31 248 8 32 256 8 33 264 4 cpsr_flags"
t "v0 34 at 268, fpsr 66, fpcr 67" \
	test "$(row v0 | cut -d' ' -f1-3) $(row fpsr | cut -d' ' -f1-3) $(row fpcr | cut -d' ' -f1-3)" = "34 268 16 66 780 4 67 784 4"
t "tpidr 68 (the tls feature) ending at 796 (the 'g' size)" \
	test "$(row tpidr | cut -d' ' -f1-3)" = "68 788 8"
t "gdb adds its aarch64 pseudo registers (q0, d0, s0)" \
	grep -qE '^ (q0|d0|s0) ' "$TMP/out"
t "v0 has the lane views (d, s, h, b, q)" \
	grep -qE 'union vnd d;' "$TMP/out"
