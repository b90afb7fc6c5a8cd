#!/bin/bash
# ftrace_exec: what the in-process agent recorded just before an exec is
# not lost with the old address space (docs/tracepoints.md, docs/agent.md):
# the output region is a memfd's shared memory that utraced maps too, and
# it drains it from there at the exec event. tp_exec calls hit() 2000
# times, then at once execs itself (which calls done()): with a fast
# tracepoint on hit(), every call is a frame; with an agent-style dprintf,
# every call is a line.
. "$(dirname "$0")/../lib/e2e.sh"

skip_all_for_gdbserver 'fast tracepoints need libinproctrace.so preloaded (Debian ships none)'

PROG=$INFDIR/tp_exec
N=2000

tp_gdb() {
	printf '%s\n' "target remote $TARGET" "$@" >"$WORK/cmds.gdb"
	run_gdb "$PROG" -x "$WORK/cmds.gdb"
}

start_server :0 "$PROG" $N || bail 'the server did not start'
tp_gdb 'break main' continue 'delete 1' 'ftrace hit' actions 'collect i' end 'break done' \
	tstart continue tstop tstatus "tfind $((N - 1))" 'p i' 'tfind none' continue
like "$GDB_OUT" 'is executing new program' 'the program exec'"'"'d, traced on'
like "$GDB_OUT" '^Breakpoint 3, done \(\)' 'the new image ran to done()'
like "$GDB_OUT" "^Collected $N trace frames\\." "every hit before the exec collected ($N)"
like "$GDB_OUT" "^\\\$1 = $((N - 1))\$" 'the last one, the call just before the exec'
like "$(program_output)" "^calls $N\$" 'every call made once'
like "$(program_output)" '^after exec$' 'the new image ran'

start_server :0 "$PROG" $N || bail 'the server did not start'
tp_gdb 'set dprintf-style agent' 'break main' continue 'delete 1' 'dprintf hit,"hit %ld\n",i' \
	'break done' continue 'kill'
is "$(grep -c '^hit [0-9]*$' <<<"$GDB_OUT")" $N "dprintf: every line before the exec printed ($N)"
like "$GDB_OUT" "^hit $((N - 1))\$" 'dprintf: the last one'

done_testing
