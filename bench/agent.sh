#!/usr/bin/env bash
# bench/agent.sh: the cost of a false hit of a patched breakpoint (its
# condition run by the in-process agent, docs/agent.md), which bench/run.sh
# x1/x8/x64 cannot show: 5000 hits are lost in a session's fixed cost, and
# gdbserver would take minutes for the millions needed here.
#
#   bench/agent.sh [THREADS:CALLS_EACH ...]   (default 1:20000000 8:2500000 64:312500)
#   BITS=32 bench/agent.sh ...                the same with a 32-bit (-m32) program
#
# For each: the program alone, then a gdb session through utraced with
# `break hit if i == -1` (condition-evaluation target) from start to exit,
# and the same session with one call (the fixed cost), all wall time. Per
# false hit = (session - fixed) / hits. Also `--agent=off` for 1% of the
# calls, to compare with the out-of-line step-over.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
B=$TOP/build
PROG=$B/bench/cond_threads
if [[ ${BITS:-64} == 32 ]]; then # (the i386 agent and trampolines)
	PROG=$B/bench32/cond_threads
	mkdir -p "$B/bench32"
	[[ -x $PROG && $PROG -nt $TOP/bench/cond_threads.c ]] ||
		gcc -m32 -std=gnu11 -g -O0 -pthread -o "$PROG" "$TOP/bench/cond_threads.c"
fi
[[ -x $PROG && -x $B/utraced ]] || make -C "$TOP" -s all "$PROG" >/dev/null
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT

now() { date +%s.%N; }

# session N CALLS [OPTS...]: wall time of a gdb session to the program's exit.
session() {
	local n=$1 calls=$2 t0 t1
	shift 2
	rm -f "$DIR/s"
	"$B/utraced" "$@" "unix:$DIR/s" "$PROG" "$n" "$calls" >/dev/null 2>&1 &
	for _ in $(seq 100); do [[ -S $DIR/s ]] && break; sleep 0.05; done
	t0=$(now)
	gdb -batch -nx -ex 'set breakpoint condition-evaluation target' -ex "target remote $DIR/s" \
		-ex 'break hit if i == -1' -ex continue "$PROG" >"$DIR/gdb.out" 2>&1
	t1=$(now)
	wait
	grep -q 'exited normally' "$DIR/gdb.out" || { echo "session failed:" >&2; cat "$DIR/gdb.out" >&2; exit 1; }
	echo "$t1 - $t0" | bc -l
}

printf '%-8s %12s %10s %10s %14s %14s\n' threads hits alone session 'per hit (us)' 'agent off (us)'
for spec in ${*:-1:20000000 8:2500000 64:312500}; do
	n=${spec%:*} calls=${spec#*:}
	t0=$(now)
	"$PROG" "$n" "$calls" >/dev/null
	alone=$(echo "$(now) - $t0" | bc -l)
	fixed=$(session "$n" 1)
	full=$(session "$n" "$calls")
	off=$(session "$n" $((calls / 100 + 1)) --agent=off)
	printf '%-8s %12s %10.3f %10.3f %14.3f %14.1f\n' "$n" $((n * calls)) "$alone" "$full" \
		"$(echo "($full - $fixed) * 1000000 / ($n * $calls)" | bc -l)" \
		"$(echo "($off - $fixed) * 1000000 / ($n * ($calls / 100 + 1))" | bc -l)"
done
