#!/bin/bash
# fair_events: two threads spin through one breakpoint; both hit it at
# once on every continue, and the server reports one hit and keeps the
# other for later. Which one it reports must not always be the same
# thread (gdbserver picks at random among the threads with an event), or
# a client that deletes the breakpoint and goes on never hears of the
# other thread (gdb.threads/continue-pending-status.exp "no thread
# starvation"). A ^C names the main thread when gdb let it run, as
# gdbserver's SIGINT to the process does: naming the last thread to stop
# made gdb step that thread over the new breakpoint at the next continue,
# and then it was always the one to hit it first (1 in 20 for the other).
# Raw packets: Z0, continue to the hit, z0, continue, ^C; twenty times.
. "$(dirname "$0")/../lib/e2e.sh"

PROG=$INFDIR/spin_threads
"$PROG" 2 >"$WORK/prog.out" 2>&1 &
PID=$!
track "$PID"
wait_until eval '(($(ls /proc/$PID/task | wc -l) == 3))' || bail 'spin_threads did not start'

ex_args "info line spin_threads.c:$(line_of spin_threads.c spin)"
run_gdb "$PROG" "${EX[@]}"
S_SPIN=$(sed -n 's/.* starts at address \(0x[0-9a-f]*\).*/\1/p' <<<"$GDB_OUT" | head -1)
BIAS=$(load_bias "$PID" "$PROG")
[[ -n $S_SPIN && -n $BIAS ]] || bail "no address: $GDB_OUT"
SPIN_X=$(printf '%x' $((BIAS + S_SPIN)))

start_server --attach :0 "$PID" || bail 'server did not attach'
ITEMS=('?')
for ((i = 0; i < 20; i++)); do
	ITEMS+=("Z0,$SPIN_X,1" 'vCont;c' "z0,$SPIN_X,1" --nowait 'vCont;c' --sleep 20 --raw '\x03')
done
ITEMS+=(D)
rsp "${ITEMS[@]}"
hits=$(grep -c "^T05.*swbreak" <<<"$RSP_OUT")
is "$hits" 20 'twenty breakpoint hits' || diag "$RSP_OUT"
threads=$(grep '^T05.*swbreak' <<<"$RSP_OUT" | sed -n 's/^T05thread:\([p0-9a-f.]*\);.*/\1/p' |
	sort -u | wc -l)
is "$threads" 2 'both threads report the hit, not always the same one' ||
	diag "$(grep '^T05.*swbreak' <<<"$RSP_OUT")"
ints=$(grep -v swbreak <<<"$RSP_OUT" | grep -c "^T02thread:$(printf '%x' "$PID");")
is "$ints" 20 'every ^C names the main thread' || diag "$(grep -v swbreak <<<"$RSP_OUT" | grep '^T')"
ok 'the program runs on after the detach' wait_until pid_running "$PID"

done_testing
