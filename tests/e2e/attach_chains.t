#!/bin/bash
# thread_chain keeps chains of short-lived threads going: each thread
# starts the next and exits. gdb attaches, stops at a breakpoint in a
# chain thread twice, detaches, and again, eight times on one
# extended-remote connection. Every thread must be traced after each
# attach: one missed (a chain's newest link, made while its parent was
# being seized) runs into the int3 untraced and the program dies of
# SIGTRAP. The program must survive every cycle, untraced at the end.
. "$(dirname "$0")/../lib/e2e.sh"

PROG=$INFDIR/thread_chain
CYCLES=8

start_reader "$PROG"
reader_says '^ready$' || bail "thread_chain did not start: $(cat "$READER_OUT")"

start_server --multi :0 || bail "server did not start"
cmds=("target extended-remote $TARGET" 'set breakpoint always-inserted on')
for ((i = 0; i < CYCLES; i++)); do
	cmds+=("attach $READER_PID" 'break hit' continue continue detach 'delete breakpoints')
done
cmds+=('monitor exit')
ex_args "${cmds[@]}"
run_gdb "$PROG" "${EX[@]}"

unlike "$GDB_OUT" 'terminated with signal|exited|Could not|failed' 'no cycle lost the program'
is "$(grep -cE '^Thread [0-9.]+ ".*" hit Breakpoint [0-9]+, hit \(\)|^Breakpoint [0-9]+, hit \(\)' <<<"$GDB_OUT")" \
	$((2 * CYCLES)) "every cycle stopped at the breakpoint twice ($((2 * CYCLES)) stops)"
is "$(grep -c '^\[Inferior 1 (process [0-9]*) detached\]$' <<<"$GDB_OUT")" "$CYCLES" 'every cycle detached'
ok 'server exits' server_exits
ok 'the program runs on' pid_alive "$READER_PID"
is "$(tracer_of "$READER_PID")" 0 'no longer traced'

done_testing
