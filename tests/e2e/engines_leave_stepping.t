#!/bin/bash
# A step that is given up must leave no SIGTRAP behind.
#
# worker-3 of engines_threads spends its time in nanosleep().  A client
# steps it (the others running) and goes away before the step is reported;
# the next client to join stops every thread (worker-3 with a
# PTRACE_EVENT_STOP), and lets them go.  The kernel still has the step's
# report for worker-3 (the single-step trap at the system call's exit, a
# queued SIGTRAP): it is nobody's stop now, and must not reach the
# program, nor any client as a signal.  The same when the stepping client
# itself interrupts the step with ^C and then detaches.
#
# The COMM client just continues; a stray stop reply reaches it first.
. "$(dirname "$0")/../lib/e2e.sh"
server_is_gdbserver && skip_all 'needs utraced engines'

PROG=$INFDIR/engines_threads
use_rundir
ROUNDS=${ROUNDS:-40}

# start_target: engines_threads, utraced attached to it, and the COMM
# client continuing.  Sets PID, T3 (worker-3, in hex), SOCK, PRIMARY_PID.
start_target() {
	"$PROG" >"$WORK/prog.out" 2>&1 &
	PID=$!
	track "$PID"
	wait_until file_has "$WORK/prog.out" '^tick 1 ' || bail "engines_threads did not start"
	mapfile -t TIDS < <(ls "/proc/$PID/task" | sort -n)
	((${#TIDS[@]} == 4)) || bail "engines_threads has ${#TIDS[@]} threads, not 4"
	T3=$(printf '%x' "${TIDS[3]}") # worker-3: in nanosleep() most of the time
	start_server --attach :0 "$PID" || bail "server did not attach"
	SOCK=$(rendezvous_sock "$PID")
	wait_until test -S "$SOCK" || bail "no rendezvous socket"
	"$RSPCLIENT" -t 120 "$TARGET" '?' c >"$WORK/primary.out" 2>&1 &
	PRIMARY_PID=$!
	track "$PRIMARY_PID"
	wait_until file_has "$WORK/primary.out" '^T05' || bail "the COMM client did not continue"
}

# end_target WHAT: the program must be alive, and untraced and running
# once the COMM client left.  Four tests.
end_target() {
	ok "$1: the program is alive" pid_alive "$PID"
	is "$(sed -n 2p "$WORK/primary.out")" '' "$1: the COMM client got no stop"
	kill -TERM "$PRIMARY_PID" 2>/dev/null
	ok "$1: the server exits when the COMM client leaves" server_exits
	if pid_alive "$PID"; then
		ok "$1: the program runs on, untraced" wait_until eval '[[ $(tracer_of $PID) == 0 ]] && pid_running $PID'
	else
		wait "$PID" 2>/dev/null
		_tap_result 1 "$1: the program survives (it ended with status $?)"
	fi
}

client() { # client ITEM...: one rendezvous client, bounded
	timeout -k 2 20 "$RSPCLIENT" --noack -t 10 "unix:$SOCK" "$@"
}

# round_ok N: after round N the program lives and the COMM client got
# nothing; else sets BAD.
round_ok() {
	client '?' D >"$WORK/join.out" 2>&1 || { BAD="round $1: a joining client failed: $(xargs <"$WORK/join.out")" && return 1; }
	pid_alive "$PID" || { BAD="round $1: the program died" && return 1; }
	[[ $(wc -l <"$WORK/primary.out") == 1 ]] || { BAD="round $1: the COMM client got a stop" && return 1; }
}

# --- a client steps worker-3 and leaves; another joins and detaches
start_target
BAD=
for ((i = 1; i <= ROUNDS; i++)); do
	client '?' --nowait "vCont;s:$T3;c" >"$WORK/step.out" 2>&1
	round_ok "$i" || break
done
is "${BAD:-none}" none "$ROUNDS rounds of step, leave, join, detach: nothing goes wrong"
[[ -n $BAD ]] && diag "the COMM client got: $(xargs <"$WORK/primary.out")"
end_target 'leaving'

# --- a client steps worker-3, interrupts its own step with ^C, detaches
start_target
BAD=
for ((i = 1; i <= ROUNDS; i++)); do
	client '?' --nowait "vCont;s:$T3;c" --raw '\x03' D >"$WORK/step.out" 2>&1
	mapfile -t got <"$WORK/step.out"
	[[ ${got[1]:-} =~ ^T0[25]thread:[0-9a-f]+\; && ${got[2]:-} == OK ]] ||
		{ BAD="round $i: $(xargs <"$WORK/step.out")" && break; }
	round_ok "$i" || break
done
is "${BAD:-none}" none "$ROUNDS rounds of step, ^C, detach, join, detach: nothing goes wrong"
[[ -n $BAD ]] && diag "the COMM client got: $(xargs <"$WORK/primary.out")"
end_target '^C'
unlike "$(cat "$WORK/prog.out")" 'EINTR|BACKWARDS' 'nothing odd in the program output'

done_testing
