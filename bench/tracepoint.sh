#!/usr/bin/env bash
# bench/tracepoint.sh: the cost of one hit of a normal tracepoint collecting
# $regs and 64 bytes of the caller's stack (docs/tracepoints.md), utraced
# against gdbserver.
#
#   bench/tracepoint.sh [THREADS:CALLS_EACH ...]   (default 1:20000 8:2500)
#
# For each server: a gdb session on tests/inferiors/tp_threads with
# `trace hit` / `collect $regs` / `collect *buf@64`, tstart, to the end
# of the program, and the same session with one call (the fixed cost),
# wall time. Per hit = (session - fixed) / hits; every hit must be
# collected (tstatus's frame count is checked).
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
B=$TOP/build
PROG=$B/inferiors/tp_threads
GDBSERVER=${GDBSERVER:-/usr/bin/gdbserver}
[[ -x $PROG && -x $B/utraced ]] || make -C "$TOP" -s all "$PROG" >/dev/null
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT

now() { date +%s.%N; }

# session SERVER N CALLS: wall time of a traced gdb session to the program's end.
session() {
	local server=$1 n=$2 calls=$3 t0 t1 want=$(($2 * $3)) port=
	"$server" :0 "$PROG" "$n" "$calls" >/dev/null 2>"$DIR/err" &
	for _ in $(seq 100); do
		port=$(sed -n 's/^Listening on port \([0-9]*\).*/\1/p' "$DIR/err")
		[[ -n $port ]] && break
		sleep 0.05
	done
	printf '%s\n' "target remote 127.0.0.1:$port" 'break main' continue 'set trace-buffer-size 268435456' 'trace hit' \
		actions 'collect $regs' 'collect *buf@64' end 'break done' tstart continue tstatus kill \
		>"$DIR/cmds"
	t0=$(now)
	gdb -batch -nx -x "$DIR/cmds" "$PROG" >"$DIR/gdb.out" 2>&1
	t1=$(now)
	wait
	grep -q "^Collected $want trace frames" "$DIR/gdb.out" ||
		{ echo "session failed ($server, $want frames wanted):" >&2; cat "$DIR/gdb.out" >&2; exit 1; }
	echo "$t1 - $t0" | bc -l
}

printf '%-8s %8s %16s %16s %8s\n' threads hits 'utraced (us/hit)' 'gdbserver (us)' ratio
for spec in ${*:-1:20000 8:2500}; do
	n=${spec%:*} calls=${spec#*:}
	hits=$((n * calls))
	uf=$(session "$B/utraced" "$n" 1)
	u=$(session "$B/utraced" "$n" "$calls")
	gf=$(session "$GDBSERVER" "$n" 1)
	g=$(session "$GDBSERVER" "$n" "$calls")
	up=$(echo "($u - $uf) * 1000000 / $hits" | bc -l)
	gp=$(echo "($g - $gf) * 1000000 / $hits" | bc -l)
	printf '%-8s %8s %16.1f %16.1f %8.2f\n' "$n" "$hits" "$up" "$gp" "$(echo "$up / $gp" | bc -l)"
done
