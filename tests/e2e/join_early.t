#!/bin/bash
# A joiner's packets that come before its attach stop wait for it.
#
# vfork_stuck runs held by a COMM client that lets it run; then its main
# thread waits in vfork() for a child that pauses, so it cannot stop.  A
# raw client joins through the rendezvous socket and at once asks for the
# registers and continues.  Its attach stop comes only when the child is
# killed: the 'g' is answered then (registers, not E10 "busy" at once, as
# before), its 'c' lets the program run on, a ^C stops it, D detaches.
# Both clients pass SIGCHLD (gdb's number 0x14): the child dies.
#
# Then the same with a process killed (SIGKILL) before the attach stop can
# come: a joiner's '?' held for it is answered by the end, X09, as the
# COMM client's 'c' is; another joiner's 'g' then gets no registers (E03,
# or all of them unavailable, as a dead thread's).
# gdbserver has no rendezvous socket: skipped for it.
. "$(dirname "$0")/../lib/e2e.sh"
server_is_gdbserver && skip_all 'needs utraced engines'

PROG=$INFDIR/vfork_stuck
use_rundir
ticks() { grep -c '^tick ' "$WORK/prog.out"; }

# in_vfork ITEM...: vfork_stuck attached, a COMM client (rspclient ITEM...,
# $WORK/primary.out) has it run, and its main thread waits in vfork(); sets
# PID, CHILD, SOCK (the rendezvous socket) and P (the COMM client).
in_vfork() {
	rm -f "$WORK/go" "$WORK/prog.out" "$WORK/primary.out"
	"$PROG" "$WORK/go" >"$WORK/prog.out" 2>&1 &
	PID=$!
	track "$PID"
	disown "$PID" # (a SIGKILL of it is no news to report)
	wait_until file_has "$WORK/prog.out" '^ready$' || bail "vfork_stuck did not start"
	start_server --attach :0 "$PID" || bail "server did not attach"
	SOCK=$(rendezvous_sock "$PID")
	wait_until test -S "$SOCK" || bail "no rendezvous socket"
	"$RSPCLIENT" -t $((E2E_WAIT * 3)) "$TARGET" "$@" >"$WORK/primary.out" 2>&1 &
	P=$!
	track "$P"
	wait_until file_has "$WORK/primary.out" '^T' || bail "the COMM client got no stop reply"
	touch "$WORK/go"
	wait_until file_has "$WORK/prog.out" '^child ' || bail "no vfork child"
	CHILD=$(sed -n 's/^child //p' "$WORK/prog.out")
	track "$CHILD"
	ok 'the main thread waits in vfork' wait_until eval '[[ $(pid_state "$PID") == [SD] ]]'
}

in_vfork 'QPassSignals:14' '?' --nowait c --wait-file "$WORK/p_go" --raw '\x03' D

"$RSPCLIENT" -t $((E2E_WAIT * 3)) "unix:$SOCK" 'QPassSignals:14' g --nowait c --wait-file "$WORK/b_go" \
	--raw '\x03' D >"$WORK/b.out" 2>&1 &
B=$!
track "$B"
sleep 1
is "$(cat "$WORK/b.out")" OK 'B: only its QPassSignals answered while its attach waits'
kill -KILL "$CHILD"
ok 'B: the g is answered when the attach stop comes' wait_until eval '(($(wc -l <"$WORK/b.out") >= 2))'
like "$(sed -n 2p "$WORK/b.out")" '^[0-9a-fx]{64,}$' "B: ... with the registers (not an error)"
ok 'the vfork ends' wait_until file_has "$WORK/prog.out" '^vfork done$'
N=$(ticks)
ok "B's c lets the program run" wait_until eval '(($(ticks) >= N + 3))'
touch "$WORK/b_go"
ok 'B ends' wait_exit "$B"
is "$EXIT_STATUS" 0 'B exit status 0'
like "$(sed -n 3p "$WORK/b.out")" '^T02' "B: its ^C gets a stop (SIGINT: the SIGCHLD of the child's death passed)"
is "$(sed -n 4p "$WORK/b.out")" OK 'B: its D is OK'
is "$(wc -l <"$WORK/primary.out")" 2 'the COMM client got no stop meanwhile'
touch "$WORK/p_go"
ok 'the COMM client ends' wait_exit "$P"
is "$(sed -n 4p "$WORK/primary.out")" OK 'its D is OK'
ok 'the server exits after the detach' server_exits
ok 'the program is untraced' wait_until eval '[[ $(tracer_of $PID) == 0 ]]'
N=$(ticks)
ok 'and runs on' wait_until eval '(($(ticks) >= N + 3))'
kill -KILL "$PID" "$CHILD" 2>/dev/null

# killed before the attach stop
in_vfork '?' c
"$RSPCLIENT" -t $((E2E_WAIT * 3)) "unix:$SOCK" '?' >"$WORK/b.out" 2>&1 &
B=$!
track "$B"
"$RSPCLIENT" -t $((E2E_WAIT * 3)) "unix:$SOCK" g >"$WORK/c.out" 2>&1 &
C=$!
track "$C"
sleep 1
is "$(cat "$WORK/b.out")" '' "killed: B's '?' waits for the attach stop"
is "$(cat "$WORK/c.out")" '' "killed: C's 'g' waits for the attach stop"
kill -KILL "$PID"
ok 'killed: B ends' wait_exit "$B"
is "$EXIT_STATUS" 0 'killed: B exit status 0'
is "$(cat "$WORK/b.out")" X09 "killed: B's '?' is answered by the end (SIGKILL)"
ok 'killed: C ends' wait_exit "$C"
like "$(cat "$WORK/c.out")" '^(E03|x+)$' "killed: C's 'g' gets no registers: E03, or all unavailable"
ok 'killed: the COMM client ends' wait_exit "$P"
is "$(sed -n 2p "$WORK/primary.out")" X09 "killed: the COMM client's c gets the same end"
kill -KILL "$CHILD" 2>/dev/null
done_testing
