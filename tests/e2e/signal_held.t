#!/bin/bash
# signal_held: `signal SIG` to a thread that the server holds at an
# interrupt stop (the main thread of signal_held, in pthread_join, while
# another is at a breakpoint). The kernel drops a signal given to
# PTRACE_CONT from such a stop; the thread must still get it, run its
# handler and nothing else (gdb.threads/signal-sigtrap.exp,
# signal-command-handle-nopass.exp, queue-signal.exp).
. "$(dirname "$0")/../lib/e2e.sh"

PROG=$INFDIR/signal_held
HANDLER=$(line_of signal_held.c handler)

for sig in SIGUSR1 SIGTRAP; do
	launch "$PROG"
	remote_gdb "$PROG" 'break stop_here' continue 'break on_signal' 'thread 1' "signal $sig" \
		'info threads' continue
	like "$GDB_OUT" 'hit Breakpoint 1, stop_here' "$sig: the other thread at its breakpoint"
	like "$GDB_OUT" "^Thread 1 \"signal_held\" hit Breakpoint 2, on_signal \\(sig=[0-9]+\\) at .*signal_held\\.c:$HANDLER\$" \
		"$sig: the handler runs, in thread 1"
	exited_with 0 "$sig"
	like "$(program_output)" "^$sig in main\$" "$sig: the program saw it in its main thread" ||
		diag "$(program_output)"
done

done_testing
