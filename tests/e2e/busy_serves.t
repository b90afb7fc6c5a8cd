#!/bin/bash
# busy_serves: 20 threads spin through a breakpoint whose condition is
# false (each hit a stop that the server handles and lets go, as fast as
# the threads come back to it) while gdb, in non-stop mode, steps one
# thread off its own breakpoint (displaced) and reads memory: every packet
# must be answered within gdb's 2 s. Before, the event loop reaped statuses
# until none was left and never got to the packets ("Ignoring packet
# error", gdb.threads/interrupt-while-step-over.exp).
. "$(dirname "$0")/../lib/e2e.sh"

PROG=$INFDIR/spin_threads
reads=()
for ((i = 0; i < 10; i++)); do
	reads+=('print spins > 0')
done

# (extended-remote and run, as the testsuite's test: with `target remote`
# to a program the server started, the old loop kept up)
start_server --multi :0 || bail 'server did not start'
ex_args 'set non-stop on' 'set displaced-stepping on' "target extended-remote $TARGET" \
	"set remote exec-file $PROG" 'break all_started' 'run' \
	"break spin_threads.c:$(line_of spin_threads.c spin) if always_zero" 'continue -a &' \
	"${reads[@]}" 'monitor exit'
run_gdb "$PROG" "${EX[@]}"
like "$GDB_OUT" 'hit Breakpoint 1, all_started' 'main at its breakpoint, the threads spinning'
is "$(grep -c '^\$[0-9]* = 1$' <<<"$GDB_OUT")" 10 'every read answered while the threads hit'
unlike "$GDB_OUT" 'packet error|Timed out|Invalid hex' 'no packet timed out'

done_testing
