#!/bin/bash
# killed_outside: the process gdb holds stopped is killed with SIGKILL
# from outside, then gdb detaches or continues (GDB's
# process-dies-while-detaching.exp, "killed outside"). As with gdbserver,
# the death is gdb's to hear of at its next request: the detach answers
# OK and the server then exits, a continue answers with the death, and
# with a fork child killed, detaching the child still works and the
# parent goes on to see the child's death.
. "$(dirname "$0")/../lib/e2e.sh"

PROG=$INFDIR/killed_outside
KILL='eval "shell kill -9 %d; sleep 1", mypid'

# --- detach after the kill
launch "$PROG"
remote_gdb "$PROG" 'break all_started' continue "$KILL" detach
like "$GDB_OUT" "^\\[Inferior 1 \\(process $INFERIOR_PID\\) detached\\]\$" 'detach: the dead process is detached'
ok 'detach: the server exits' server_exits
is "$EXIT_STATUS" 0 'detach: server exit status 0'

# --- continue after the kill
launch "$PROG"
remote_gdb "$PROG" 'break all_started' continue "$KILL" continue
like "$GDB_OUT" '^Program terminated with signal SIGKILL, Killed\.$' 'continue: the death is reported'
unlike "$GDB_OUT" 'Remote connection closed|Remote communication error' 'continue: the connection stays up for it'
ok 'continue: the server exits' server_exits

# --- a fork child killed: detach it, then the parent sees its death
launch "$PROG" fork
remote_gdb "$PROG" 'set detach-on-fork off' 'set follow-fork-mode child' \
	'break all_started' continue "$KILL" detach 'inferior 1' continue
like "$GDB_OUT" '^\[Inferior 2 \(process [0-9]+\) detached\]$' 'fork: the dead child is detached'
unlike "$GDB_OUT" "Can't detach" 'fork: no error'
exited_with 2 'fork: the parent saw its child killed'

done_testing
