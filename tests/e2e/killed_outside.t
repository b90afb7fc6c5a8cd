#!/bin/bash
# killed_outside: the process gdb holds stopped is killed with SIGKILL
# from outside, then gdb detaches or continues (GDB's
# process-dies-while-detaching.exp, "killed outside"). As with gdbserver,
# the death is gdb's to hear of at its next request: the detach answers
# OK and the server then exits, a continue answers with the death, and
# with a fork child killed, detaching the child still works and the
# parent goes on to see the child's death. Last, gdb.multi/multi-kill.exp:
# three running processes of one extended-remote connection killed at
# once, gdb in its target non-stop mode: each death is heard, one per
# resume; the processes not yet heard of keep their thread in gdb's list,
# and once all are gone the server still answers vCont?, vCont;t and
# qXfer:threads (gdb stops everything after an exit).
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

# --- registers of a worker read before the kill, read again after it (the
# cache flushed): the values gdb saw, as gdbserver answers from its cache
# until gdb hears of the death; the old build answered E03 and gdb could
# not continue to hear it
launch "$PROG"
remote_gdb "$PROG" 'break all_started' continue 'thread 3' 'p $pc' "$KILL" \
	'maint flush register-cache' 'p $pc' continue
pcs=$(grep -o '^\$[12] = .*' <<<"$GDB_OUT" | sed 's/^\$[12] = //' | sort -u)
like "$pcs" '^\(void \(\*\)\(\)\) 0x[0-9a-f]+ <' 'ghost: the worker has a pc'
is "$(grep -c . <<<"$pcs")" 1 'ghost: the same pc before and after the kill'
unlike "$GDB_OUT" 'Could not read registers|not available' 'ghost: no register error'
like "$GDB_OUT" '^Program terminated with signal SIGKILL, Killed\.$' 'ghost: continue hears the death'

# --- non-stop: gdb resumes a process whose death it has been notified of
# but not handled yet (it steps the dead thread over a breakpoint): OK, as
# gdbserver, then gdb handles the death (the old build: E03, "Unexpected
# vCont reply in non-stop mode")
start_server --multi :0 || bail "server did not start"
ex_args 'maint set target-non-stop on' "target extended-remote $TARGET" \
	"set remote exec-file $PROG" 'break all_started' run add-inferior 'inferior 2' \
	"file $PROG" run 'set $p2 = mypid' 'inferior 1' \
	'eval "shell kill -9 %d; sleep 1", $p2' 'inferior 2' continue 'info inferiors'
run_gdb "$PROG" "${EX[@]}"
unlike "$GDB_OUT" 'Unexpected vCont reply|Could not read registers' 'non-stop resume of the dead: OK'
like "$GDB_OUT" '^Program terminated with signal SIGKILL, Killed\.$' '  its death heard'
kill -TERM "$SERVER_PID" 2>/dev/null

# --- three running processes killed at once (gdb.multi/multi-kill.exp)
start_server --multi :0 || bail "server did not start"
cmds=('maint set target-non-stop on' "target extended-remote $TARGET" "set remote exec-file $PROG"
	'break all_started')
for i in 1 2 3; do
	((i > 1)) && cmds+=(add-inferior "inferior $i" "file $PROG")
	cmds+=(run "set \$p$i = mypid")
done
# Each continue of a live inferior hears one death, whichever gdb takes
# first (it picks an inferior at random): two rounds hear all three.
cmds+=('set schedule-multiple on' 'eval "shell (sleep 1; kill -9 %d %d %d) &", $p1, $p2, $p3'
	continue 'info inferiors')
for round in 1 2; do
	cmds+=('inferior 1' continue 'inferior 2' continue 'inferior 3' continue)
done
cmds+=('info inferiors')
ex_args "${cmds[@]}"
run_gdb "$PROG" "${EX[@]}"
n=$(grep -c '^Program terminated with signal SIGKILL, Killed\.$' <<<"$GDB_OUT")
is "$n" 3 'three killed at once: each death heard'
((n == 3)) || diag "$GDB_OUT"
unlike "$GDB_OUT" 'does not support stopping threads|Remote connection closed' '  no error on the way'
unlike "$(tail -3 <<<"$GDB_OUT")" 'process [0-9]' '  no inferior left with a process'

done_testing
