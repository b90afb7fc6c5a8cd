#!/usr/bin/env bash
# bench/dprintf.sh: the cost of one line of an agent-style dprintf
# (`set dprintf-style agent`): recorded inside the program by utraced's
# in-process agent and sent to gdb as O packets (docs/agent.md; gdb prints
# them), or printed by utraced itself (`monitor utraced dprintf-to
# server`, gdbserver's way), against the
# same dprintf through utraced --agent=off (a stop per line, out of line)
# and through gdbserver (a stop per line). Output goes to /dev/null.
#
#   bench/dprintf.sh [THREADS:CALLS_EACH ...]   (default 1:1000000 8:125000)
#
# Per line = (session - fixed) / lines, the fixed cost being the same
# session with one call; the stopping servers run 1% of the calls.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
B=$TOP/build
PROG=$B/bench/cond_threads
[[ -x $PROG && -x $B/utraced ]] || make -C "$TOP" -s all "$PROG" >/dev/null
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT

now() { date +%s.%N; }

# session SERVER N CALLS [OPTS...]: wall time of a gdb session to the program's exit
# (MON: a monitor command first).
session() {
	local server=$1 n=$2 calls=$3 t0 t1 target mon=()
	shift 3
	[[ -n ${MON:-} ]] && mon=(-ex "monitor $MON")
	rm -f "$DIR/s"
	if [[ $server == gdbserver ]]; then
		gdbserver "$@" :0 "$PROG" "$n" "$calls" >/dev/null 2>"$DIR/gs.err" &
		for _ in $(seq 100); do grep -q 'Listening on port' "$DIR/gs.err" && break; sleep 0.05; done
		target=:$(sed -n 's/^Listening on port \([0-9]*\).*/\1/p' "$DIR/gs.err")
	else
		"$B/utraced" "$@" "unix:$DIR/s" "$PROG" "$n" "$calls" >/dev/null 2>&1 &
		for _ in $(seq 100); do [[ -S $DIR/s ]] && break; sleep 0.05; done
		target=$DIR/s
	fi
	t0=$(now)
	gdb -batch -nx -ex 'set dprintf-style agent' -ex "target remote $target" "${mon[@]}" \
		-ex 'dprintf hit,"t%d %ld\n", id, i' -ex continue "$PROG" >"$DIR/gdb.out" 2>&1
	t1=$(now)
	wait
	grep -q 'exited normally' "$DIR/gdb.out" || { echo "session failed:" >&2; cat "$DIR/gdb.out" >&2; exit 1; }
	echo "$t1 - $t0" | bc -l
}

per_line() { # per_line FULL FIXED LINES
	echo "($1 - $2) * 1000000 / $3" | bc -l
}

printf '%-8s %10s %16s %18s %18s %16s\n' threads lines 'agent, O (us/line)' 'agent, stdout' 'agent off (us/line)' 'gdbserver (us/line)'
for spec in ${*:-1:1000000 8:125000}; do
	n=${spec%:*} calls=${spec#*:} few=$((calls / 100 + 1))
	fixed=$(session utraced "$n" 1)
	full=$(session utraced "$n" "$calls")
	sfixed=$(MON='utraced dprintf-to server' session utraced "$n" 1)
	sfull=$(MON='utraced dprintf-to server' session utraced "$n" "$calls")
	off=$(session utraced "$n" "$few" --agent=off)
	gfixed=$(session gdbserver "$n" 1)
	gs=$(session gdbserver "$n" "$few")
	printf '%-8s %10s %16.2f %18.2f %18.1f %16.1f\n' "$n" $((n * calls)) \
		"$(per_line "$full" "$fixed" $((n * calls)))" \
		"$(per_line "$sfull" "$sfixed" $((n * calls)))" \
		"$(per_line "$off" "$fixed" $((n * few)))" \
		"$(per_line "$gs" "$gfixed" $((n * few)))"
done
