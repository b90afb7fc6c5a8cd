#!/usr/bin/env bash
# bench/tracepoint.sh: the cost of one hit of a tracepoint collecting
# $regs and 64 bytes of the caller's stack (docs/tracepoints.md): a normal
# one, utraced against gdbserver, and a fast one (ftrace) of utraced's,
# collected by its in-process agent. gdbserver's fast tracepoints need its
# agent library libinproctrace.so preloaded into the program; Debian ships
# none (no package has it), so there is no gdbserver column for them.
#
#   bench/tracepoint.sh [THREADS:CALLS_EACH ...]   (default 1:20000 8:2500)
#
# For each server: a gdb session on tests/inferiors/tp_threads with
# `trace hit` / `collect $regs` / `collect *buf@64`, tstart, to the end
# of the program, and the same session with one call (the fixed cost),
# wall time. Per hit = (session - fixed) / hits; every hit must be
# collected (tstatus's frame count is checked). The fast tracepoint runs
# FAST_TIMES (default 20) times as many calls, and its column also gives
# the program's own cost per call without any tracepoint (`alone`), and
# utraced's own cpu per fast frame (`srv cpu`: the daemon's utime + stime
# at the program's end, the program not counted; steadier than the wall
# times on a loaded machine).
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
B=$TOP/build
PROG=$B/inferiors/tp_threads
GDBSERVER=${GDBSERVER:-/usr/bin/gdbserver}
[[ -x $PROG && -x $B/utraced ]] || make -C "$TOP" -s all "$PROG" >/dev/null
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT

now() { date +%s.%N; }

# session SERVER N CALLS [TRACE]: wall time of a traced gdb session to the
# program's end (TRACE: trace, the default, ftrace, or none); the server's
# own cpu then (seconds) in $DIR/cpu.
session() {
	local server=$1 n=$2 calls=$3 kind=${4:-trace} t0 t1 want=$(($2 * $3)) port= spid
	rm -f "$DIR/err" "$DIR/stat" # (else the last session's port may be read before the new server writes)
	"$server" :0 "$PROG" "$n" "$calls" >/dev/null 2>"$DIR/err" &
	spid=$!
	for _ in $(seq 100); do
		port=$(sed -n 's/^Listening on port \([0-9]*\).*/\1/p' "$DIR/err" 2>/dev/null)
		[[ -n $port ]] && break
		sleep 0.05
	done
	if [[ $kind == none ]]; then
		printf '%s\n' "target remote 127.0.0.1:$port" 'break done' continue kill >"$DIR/cmds"
	else
		printf '%s\n' "target remote 127.0.0.1:$port" 'break main' continue \
			'set trace-buffer-size 1073741824' "$kind hit" actions 'collect $regs' \
			'collect *buf@64' end 'break done' tstart continue tstatus \
			"shell cat /proc/$spid/stat >$DIR/stat" kill >"$DIR/cmds"
	fi
	t0=$(now)
	gdb -batch -nx -x "$DIR/cmds" "$PROG" >"$DIR/gdb.out" 2>&1
	t1=$(now)
	wait
	[[ $kind == none ]] || grep -q "^Collected $want trace frames" "$DIR/gdb.out" ||
		{ echo "session failed ($server, $want frames wanted):" >&2; cat "$DIR/gdb.out" >&2; exit 1; }
	[[ -s $DIR/stat ]] && awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) / hz }' "$DIR/stat" >"$DIR/cpu"
	echo "$t1 - $t0" | bc -l
}

FAST_TIMES=${FAST_TIMES:-20}
printf '%-8s %8s %16s %16s %8s %9s %15s %10s %14s\n' threads hits 'utraced (us/hit)' \
	'gdbserver (us)' ratio 'fast hits' 'ftrace (us/hit)' 'alone (us)' 'srv cpu (us/f)'
for spec in ${*:-1:20000 8:2500}; do
	n=${spec%:*} calls=${spec#*:}
	hits=$((n * calls)) fcalls=$((calls * FAST_TIMES))
	fhits=$((n * fcalls))
	uf=$(session "$B/utraced" "$n" 1)
	u=$(session "$B/utraced" "$n" "$calls")
	gf=$(session "$GDBSERVER" "$n" 1)
	g=$(session "$GDBSERVER" "$n" "$calls")
	ff=$(session "$B/utraced" "$n" 1 ftrace)
	ffc=$(cat "$DIR/cpu")
	f=$(session "$B/utraced" "$n" "$fcalls" ftrace)
	fc=$(cat "$DIR/cpu")
	af=$(session "$B/utraced" "$n" 1 none)
	a=$(session "$B/utraced" "$n" "$fcalls" none)
	up=$(echo "($u - $uf) * 1000000 / $hits" | bc -l)
	gp=$(echo "($g - $gf) * 1000000 / $hits" | bc -l)
	fp=$(echo "($f - $ff) * 1000000 / $fhits" | bc -l)
	ap=$(echo "($a - $af) * 1000000 / $fhits" | bc -l)
	printf '%-8s %8s %16.1f %16.1f %8.2f %9s %15.2f %10.2f %14.2f\n' "$n" "$hits" "$up" "$gp" \
		"$(echo "$up / $gp" | bc -l)" "$fhits" "$fp" "$ap" \
		"$(echo "($fc - $ffc) * 1000000 / $fhits" | bc -l)"
done
