#!/bin/bash
# A joiner's '?' that waits for its attach stop, when the process ends first.
#
# vfork_stuck runs, held by a COMM client that lets it run; its main thread
# then waits in vfork() for a child that pauses, so it cannot stop.  A raw
# client joins through the rendezvous socket and asks '?': that waits for
# its attach stop.  The process is killed (SIGKILL) before that stop can
# come: the '?' is answered by the end, X09, as the COMM client's 'c' is.
# A second joiner's 'g', held for its attach stop the same way, then gets
# no registers (E03, or all of them unavailable, as a dead thread's).
# gdbserver has no rendezvous socket: skipped for it.
. "$(dirname "$0")/../lib/e2e.sh"
server_is_gdbserver && skip_all 'needs utraced engines'

PROG=$INFDIR/vfork_stuck
use_rundir

"$PROG" "$WORK/go" >"$WORK/prog.out" 2>&1 &
PID=$!
track "$PID"
disown "$PID" # (its SIGKILL below is no news to report)
wait_until file_has "$WORK/prog.out" '^ready$' || bail "vfork_stuck did not start"
start_server --attach :0 "$PID" || bail "server did not attach"
SOCK=$(rendezvous_sock "$PID")
wait_until test -S "$SOCK" || bail "no rendezvous socket"
"$RSPCLIENT" -t $((E2E_WAIT * 3)) "$TARGET" '?' c >"$WORK/primary.out" 2>&1 &
P=$!
track "$P"
wait_until file_has "$WORK/primary.out" '^T' || bail "the COMM client got no stop reply"
touch "$WORK/go"
wait_until file_has "$WORK/prog.out" '^child ' || bail "no vfork child"
CHILD=$(sed -n 's/^child //p' "$WORK/prog.out")
track "$CHILD"
ok 'the main thread waits in vfork' wait_until eval '[[ $(pid_state "$PID") == [SD] ]]'

"$RSPCLIENT" -t $((E2E_WAIT * 3)) "unix:$SOCK" '?' >"$WORK/b.out" 2>&1 &
B=$!
track "$B"
"$RSPCLIENT" -t $((E2E_WAIT * 3)) "unix:$SOCK" g >"$WORK/c.out" 2>&1 &
C=$!
track "$C"
sleep 1
is "$(cat "$WORK/b.out")" '' "B: its '?' waits for the attach stop"
is "$(cat "$WORK/c.out")" '' "C: its 'g' waits for the attach stop"
kill -KILL "$PID"
ok 'B ends' wait_exit "$B"
is "$EXIT_STATUS" 0 'B exit status 0'
is "$(cat "$WORK/b.out")" X09 "B: its '?' is answered by the end: killed by SIGKILL"
ok 'C ends' wait_exit "$C"
like "$(cat "$WORK/c.out")" '^(E03|x+)$' "C: its 'g' gets no registers: E03, or all unavailable"
ok 'the COMM client ends' wait_exit "$P"
is "$(sed -n 2p "$WORK/primary.out")" X09 "the COMM client's c: the same end"
kill -KILL "$CHILD" 2>/dev/null
done_testing
