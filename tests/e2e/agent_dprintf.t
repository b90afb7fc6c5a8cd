#!/bin/bash
# agent_dprintf: gdb's dprintf in the agent style (`set dprintf-style
# agent`), printed from inside the program by utraced's in-process agent
# (src/engine/patch_out.c, docs/agent.md): a line per call, in order, with
# a stop only when a thread's ring is full; a condition on the dprintf
# (only its true calls print, as with gdb's own dprintf; gdbserver prints
# them all); attach, dprintf in the hot path, kill -9 of
# gdb: the lines printed until then are whole and in order, none twice,
# and the program runs on to its end with its code the file's again.
# Where the text goes is gdbserver's choice: the server's standard output
# (the launched program's, which it shares).
. "$(dirname "$0")/../lib/e2e.sh"

PROG=$INFDIR/agent_conds
N=100000
SETUP=('set dprintf-style agent')

stats_of() {
	sed -n "s/^$1: \\([0-9]*\\).*/\\1/p" <<<"$GDB_OUT" | tail -1
}

# in_order PREFIX FIRST STEP: lines "PREFIX k ..." of stdin run FIRST,
# FIRST + STEP, ... with no gap and no repeat; prints how many.
in_order() {
	awk -v p="$1" -v k="$2" -v step="$3" '$1 == p { if ($2 != k) { print "bad at " k ": " $0; exit 1 } k += step; n++ } END { print n + 0 }'
}

# --- 100000 calls, a line each
launch "$PROG" "$N"
remote_gdb "$PROG" "${SETUP[@]}" 'dprintf visit,"v %ld %d\n", i, it->key' 'break _exit' \
	continue 'monitor utraced stats' continue
exited_with 0 'every call'
out=$(program_output)
is "$(in_order v 0 1 <<<"$out")" "$N" 'a line per call, in order'
like "$out" "^v 99999 7\$" '... with its values'
if ! server_is_gdbserver; then
	is "$(stats_of 'breakpoints patched[^:]*')" 1 'the dprintf patched'
	stops=$(stats_of 'step-overs out of line')
	ok "a stop only when a ring is full (${stops:-?} stops for $N lines)" \
		eval '((${stops:-1000000} < N / 100))'
	lines=$(stats_of 'dprintf lines recorded in the process')
	ok "the lines recorded by the agent (${lines:-?})" eval '((${lines:-0} > N * 9 / 10))'
fi

# --- a condition: only its true calls print
launch "$PROG" "$N"
remote_gdb "$PROG" "${SETUP[@]}" 'dprintf visit,"c %ld\n", i' 'condition 1 i % 1000 == 7' \
	continue
exited_with 0 'conditional'
if server_is_gdbserver; then
	# gdbserver 13.1 runs a breakpoint's commands at every hit: its
	# conditions only decide whether the hit is reported
	is "$(in_order c 0 1 <<<"$(program_output)")" "$N" 'a condition (gdbserver): every call prints'
else
	is "$(in_order c 7 1000 <<<"$(program_output)")" $((N / 1000)) 'a condition: its true calls only'
fi

# --- attach, dprintf in the hot path, kill -9 of gdb
if server_is_gdbserver; then
	skip 6 'gdbserver: one client, not an attach to keep'
else
	start_reader "$PROG" 100000000 wait
	start_server --attach :0 "$READER_PID" || bail 'the server did not attach'
	remote_gdb_bg "$WORK/attached.out" "$PROG" "${SETUP[@]}" 'dprintf visit,"a %ld\n", i' \
		continue
	ok 'attached: gdb continues' wait_until eval 'pid_running $READER_PID'
	feed_reader go
	ok 'attached: lines come' wait_until eval '(($(grep -c "^a " "$SERVER_OUT") > 200000))'
	kill -9 "$GDB_PID"
	ok 'attached: the program ends' wait_exit "$READER_PID"
	is "$EXIT_STATUS" 0 'attached: with status 0'
	like "$(cat "$READER_OUT")" '^text ok$' "attached: its code is the file's again"
	n=$(in_order a 0 1 <"$SERVER_OUT")
	ok "attached: the lines until then whole, in order, none twice ($n)" \
		eval '[[ $n =~ ^[0-9]+$ ]] && ((n > 200000))'
fi

done_testing
