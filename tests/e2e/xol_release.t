#!/bin/bash
# The out-of-line pages leave with the last engine (xol.c xol_release):
# their munmaps are injected one at a time through a stopped thread and
# their stops reaped by the loop (leaving.c let_go_finish), the process
# frozen meanwhile. hot_threads (4 threads calling work() in a loop) runs
# on its own; the daemon attaches, gdb puts a breakpoint on work() whose
# condition is never true (out of line: a scratch page mapped, with the
# agent off; with it on, the agent's regions too) and one true at the
# 2000th call, where it leaves: by a detach, or killed with -9; or the
# daemon exits (SIGTERM) with the program stopped for gdb. Afterwards
# no anonymous executable mapping is left in the program, it runs to its
# end, every call made once and its text the file's.
. "$(dirname "$0")/../lib/e2e.sh"

skip_all_for_gdbserver 'utraced out-of-line pages'
PROG=$INFDIR/hot_threads
agents='off on'
[[ $(pc_register "$PROG") == eip ]] && agents=off # (the agent is 64-bit only)

# anon_exec PID: how many anonymous executable mappings PID has (no file,
# not [vdso]); -1: PID is gone
anon_exec() {
	[[ -r /proc/$1/maps ]] || { echo -1 && return; }
	awk '$2 ~ /x/ && $5 == 0 && $6 !~ /^\[/ { n++ } END { print n + 0 }' "/proc/$1/maps"
}

for agent in $agents; do
	for how in detach kill term; do
		what="agent $agent, $how"
		start_reader "$PROG" 4 100000000 wait # (seconds of calls left after gdb)
		start_server --agent="$agent" --attach :0 "$READER_PID" || bail "$what: no attach"
		rm -f "$WORK/armed" "$WORK/leave"
		remote_gdb_bg "$WORK/gdb.out" "$PROG" 'set breakpoint condition-evaluation target' \
			'break work if i == -1' 'break work if i == 2000' continue \
			"$(gdb_mark "$WORK/armed")" \
			"shell while [ ! -e '$WORK/leave' ]; do sleep 0.05; done" detach
		feed_reader go
		wait_until test -e "$WORK/armed" || bail "$what: gdb did not stop: $(cat "$WORK/gdb.out")"
		ok "$what: a page of ours while gdb is there" eval '(($(anon_exec $READER_PID) >= 1))'
		[[ $how == kill ]] && kill -9 "$GDB_PID"
		[[ $how == term ]] && kill -TERM "$SERVER_PID" # (the daemon's exit: xol.c inject_sync)
		touch "$WORK/leave"
		ok "$what: no page of ours left afterwards" \
			wait_until eval '(($(anon_exec $READER_PID) == 0))' ||
			diag "$(grep -v '\.so\|\[' "/proc/$READER_PID/maps")"
		ok "$what: the program ran to its end" wait_exit "$READER_PID"
		is "$EXIT_STATUS" 0 "$what: exit status 0"
		like "$(cat "$READER_OUT")" '^sums ok$' "$what: every call made once"
		like "$(cat "$READER_OUT")" '^text ok$' "$what: its text the file's"
		kill "$SERVER_PID" 2>/dev/null
		wait "$SERVER_PID" 2>/dev/null
	done
done

done_testing
