#!/bin/bash
# signals raises SIGUSR1 with a handler installed; it exits 5 when the
# handler ran, 3 when it did not.  gdb must see the signal (or not, as
# told by "handle") and the server must deliver it (or not, as told by
# continue / signal 0).
. "$(dirname "$0")/../lib/e2e.sh"

PROG=$INFDIR/signals
GOT_USR1='^Program received signal SIGUSR1, User defined signal 1\.$'

# --- stop on the signal, then deliver it to the handler
launch "$PROG"
remote_gdb "$PROG" continue bt 'print $_siginfo.si_signo' 'print $_siginfo.si_code' \
	'print $_siginfo._sifields._kill.si_pid == (int)getpid()' 'break on_usr1' continue \
	'print usr1_seen' continue
like "$GDB_OUT" "$GOT_USR1" 'gdb reports SIGUSR1'
like "$GDB_OUT" "^#[0-9]+ .* in main \\(\\) at .*signals\\.c:$(line_of signals.c raise)\$" 'stopped at the kill() in main'
like "$GDB_OUT" "^Breakpoint 1, on_usr1 \\(sig=10\\) at .*signals\\.c:$(line_of signals.c handler)\$" \
	'continue delivers it: the handler runs'
like "$GDB_OUT" '^\$1 = 10$' '$_siginfo: si_signo is SIGUSR1 (in this ABI'"'"'s layout)'
like "$GDB_OUT" '^\$2 = 0$' '$_siginfo: si_code is SI_USER'
like "$GDB_OUT" '^\$3 = 1$' '$_siginfo: si_pid is the program itself'
like "$GDB_OUT" '^\$4 = 0$' 'in the handler, before it sets the flag'
exited_with 5 'delivered'
like "$(program_output)" '^handler ran$' 'delivered: the program saw its handler run'

# --- handle SIGUSR1 nostop noprint pass: no stop, the handler runs
launch "$PROG"
remote_gdb "$PROG" 'handle SIGUSR1 nostop noprint pass' continue
unlike "$GDB_OUT" 'received signal' 'nostop noprint: no stop reported'
exited_with 5 'nostop noprint pass'
like "$(program_output)" '^handler ran$' 'nostop noprint pass: the handler ran'

# --- stop on it, then continue with "signal 0": not delivered
launch "$PROG"
remote_gdb "$PROG" continue 'signal 0'
like "$GDB_OUT" "$GOT_USR1" 'gdb reports SIGUSR1 again'
exited_with 3 'signal 0'
like "$(program_output)" '^handler did not run$' 'signal 0: the signal was not delivered'

# --- detach at the signal's stop: the program gets it if gdb passes it
# (QProgramSignals, as gdbserver and native gdb do), not after `nopass`
launch "$PROG"
remote_gdb "$PROG" continue detach
like "$GDB_OUT" "$GOT_USR1" 'detach at the stop: reported first'
ok 'detach: the server exits' server_exits
ok 'detach: the program ends' wait_gone "$INFERIOR_PID"
like "$(program_output)" '^handler ran$' 'detach with SIGUSR1 passed: delivered'
launch "$PROG"
remote_gdb "$PROG" 'handle SIGUSR1 stop print nopass' continue detach
like "$GDB_OUT" "$GOT_USR1" 'nopass: reported'
ok 'nopass detach: the server exits' server_exits
ok 'nopass detach: the program ends' wait_gone "$INFERIOR_PID"
like "$(program_output)" '^handler did not run$' 'detach with SIGUSR1 nopass: not delivered'

# --- "signal SIGTRAP": delivered although gdb's QProgramSignals leaves it
# out (that list is for signals gdb does not name): the program dies of it
launch "$PROG"
remote_gdb "$PROG" 'break main' continue 'signal SIGTRAP'
like "$GDB_OUT" 'Program terminated with signal SIGTRAP' 'signal SIGTRAP: delivered, the program dies of it'
ok 'signal SIGTRAP: the program is gone' wait_gone "$INFERIOR_PID"

done_testing
