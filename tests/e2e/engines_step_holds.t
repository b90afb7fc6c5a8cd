#!/bin/bash
# Two engines each step one thread alone ("vCont;s:T", the other threads
# left stopped), on different threads: both steps must finish.
#
# This is what gdb sends to step over a breakpoint (it removes it, steps
# that thread with the others stopped, puts it back), so two gdbs stepping
# over their breakpoints in two threads at once do exactly this.  A thread
# left out of a vCont is held by that engine, and "held" beats "step": if
# neither hold gives way to the other engine's step, both wait for ever.
. "$(dirname "$0")/../lib/e2e.sh"
server_is_gdbserver && skip_all 'needs utraced engines'

PROG=$INFDIR/engines_threads
use_rundir
STEP_WAIT=${STEP_WAIT:-5}

"$PROG" >"$WORK/prog.out" 2>&1 &
PID=$!
track "$PID"
wait_until file_has "$WORK/prog.out" '^tick 1 ' || bail "engines_threads did not start"
mapfile -t TIDS < <(ls "/proc/$PID/task" | sort -n)
((${#TIDS[@]} == 4)) || bail "engines_threads has ${#TIDS[@]} threads, not 4"
T1=$(printf '%x' "${TIDS[1]}") # worker-1, always running
T2=$(printf '%x' "${TIDS[2]}") # worker-2, mostly asleep

start_server --attach :0 "$PID" || bail "server did not attach"
SOCK=$(rendezvous_sock "$PID")
wait_until test -S "$SOCK" || bail "no rendezvous socket"
"$RSPCLIENT" -t 120 "$TARGET" '?' c >"$WORK/primary.out" 2>&1 &
PRIMARY_PID=$!
track "$PRIMARY_PID"
wait_until file_has "$WORK/primary.out" '^T05' || bail "the COMM client did not continue"

# C1 joins, and steps T1 alone 2 s later; C2 joins in between and steps T2
# alone at once.  Each step is blocked first by the other engine's stop,
# then by its hold.
"$RSPCLIENT" --noack -t "$STEP_WAIT" "unix:$SOCK" '?' --sleep 2000 "vCont;s:$T1" D >"$WORK/c1.out" 2>&1 &
C1=$!
track "$C1"
wait_until file_has "$WORK/c1.out" '^T05' || bail "C1 did not join"
"$RSPCLIENT" --noack -t "$STEP_WAIT" "unix:$SOCK" '?' "vCont;s:$T2" D >"$WORK/c2.out" 2>&1 &
C2=$!
track "$C2"

ok 'C1 ends' wait_exit "$C1"
C1_RC=$EXIT_STATUS
ok 'C2 ends' wait_exit "$C2"
C2_RC=$EXIT_STATUS
is "$C1_RC $C2_RC" '0 0' "both get their replies within ${STEP_WAIT}s (exit statuses)"
like "$(cat "$WORK/c1.out")" "^T05thread:$T1;" "C1: its step of thread $T1 finishes"
like "$(cat "$WORK/c2.out")" "^T05thread:$T2;" "C2: its step of thread $T2 finishes"
if ((C1_RC || C2_RC)); then
	diag "C1 (steps $T1):"
	diag "$(cat "$WORK/c1.out")"
	diag "C2 (steps $T2):"
	diag "$(cat "$WORK/c2.out")"
fi

ok 'the program is alive' pid_alive "$PID"
ok 'it runs again' wait_until pid_running "$PID"
is "$(wc -l <"$WORK/primary.out")" 1 'the COMM client got no stop'

done_testing
