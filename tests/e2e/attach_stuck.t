#!/bin/bash
# A thread that cannot stop must not hold the daemon (docs/ptrace-notes.md,
# "Threads that cannot stop"). vfork_stuck's main thread waits in vfork()
# for a child that pauses until killed; its second thread ticks.
#
#   attach: fails after the time limit (3 s) instead of waiting for the
#   child; the ticker is let go at once and ticks on, untraced; the vfork
#   parent stays ours until it can stop, and attaching again fails at once
#   meanwhile; the daemon serves another client; once the child is gone the
#   parent is let go too and runs on; then an attach works;
#   detach: the same when the thread gets stuck under gdb and gdb is
#   killed: the detach lets the ticker go after a short wait (100 ms), the
#   vfork parent when its child is gone.
#
# gdbserver waits for such a thread forever: skipped for it.
. "$(dirname "$0")/../lib/e2e.sh"

skip_all_for_gdbserver 'give up on a thread that cannot stop'
PROG=$INFDIR/vfork_stuck
start_server --multi :0 || bail "server did not start"
MULTI=$TARGET

# threads_untraced PID: no thread of PID is traced.
threads_untraced() {
	local t
	for t in /proc/"$1"/task/*; do
		[[ $(sed -n 's/^TracerPid:[[:space:]]*//p' "$t/status" 2>/dev/null) == 0 ]] || return 1
	done
}
thread_tracer() { sed -n 's/^TracerPid:[[:space:]]*//p' "/proc/$1/task/$2/status"; }
ticks() { grep -c '^tick ' "$1"; }
# ticking OUT: the program writing OUT ticks on.
ticking() {
	local n
	n=$(ticks "$1")
	wait_until eval "(( \$(ticks $1) > $n + 2 ))"
}
attach_gdb() { # attach_gdb PID CMD...: gdb attaches to PID through the --multi server
	local pid=$1
	shift
	ex_args "target extended-remote $MULTI" "attach $pid" "$@"
	run_gdb "$PROG" "${EX[@]}"
}

# --- attach to a process whose thread cannot stop
"$PROG" >"$WORK/p.out" 2>&1 &
P=$!
track "$P"
wait_until file_has "$WORK/p.out" '^child ' || bail "vfork_stuck did not start"
CHILD=$(sed -n 's/^child //p' "$WORK/p.out")
track "$CHILD"
TICKER=$(ls "/proc/$P/task" | grep -vx "$P")

attach_gdb "$P" 'info threads'
isnt_timeout() { [[ $GDB_RC != 124 ]]; }
ok 'attach: gdb gets an answer, the daemon is not held' isnt_timeout
like "$GDB_OUT" "Attaching to process $P failed" '... the attach fails'
is "$(thread_tracer "$P" "$TICKER")" 0 '... the ticker is let go'
ok '... and ticks on' ticking "$WORK/p.out"
is "$(thread_tracer "$P" "$P")" "$SERVER_PID" 'the vfork parent stays ours until it stops'
attach_gdb "$P"
like "$GDB_OUT" "Attaching to process $P failed" '... attaching again meanwhile fails'

sleep 1000 &
OTHER=$!
track "$OTHER"
attach_gdb "$OTHER" 'info threads' detach
like "$GDB_OUT" '^\* 1 +Thread .* "sleep"' 'the daemon serves another process meanwhile'
ok '... and lets it go' wait_until eval '[[ $(tracer_of $OTHER) == 0 ]]'

kill -KILL "$CHILD"
ok 'the child gone, the vfork parent is let go' wait_until threads_untraced "$P"
ok '... and runs on' wait_until file_has "$WORK/p.out" '^vfork done'
attach_gdb "$P" 'info threads' detach
like "$GDB_OUT" '^\* 1 +Thread [0-9.]+ "vfork_stuck" .* in (__libc_pause|pause)' \
	'now it attaches: the main thread in pause()'
like "$GDB_OUT" "^\\[Inferior 1 \\(process $P\\) detached\\]" '... and detaches'
ok '... the program ticks on, untraced' eval 'wait_until threads_untraced $P && ticking $WORK/p.out'

# --- the thread gets stuck under gdb, which is then killed
"$PROG" "$WORK/go" >"$WORK/p2.out" 2>&1 &
P2=$!
track "$P2"
wait_until file_has "$WORK/p2.out" '^ready' || bail "vfork_stuck did not start"
ex_args "target extended-remote $MULTI" "attach $P2" "$(gdb_mark "$WORK/go")" continue
"$GDB" "${GDB_SETUP[@]}" "$PROG" "${EX[@]}" </dev/null >"$WORK/gdb2.out" 2>&1 &
GDB_PID=$!
track "$GDB_PID"
ok 'under gdb, the program vforks a child that pauses' wait_until file_has "$WORK/p2.out" '^child '
CHILD2=$(sed -n 's/^child //p' "$WORK/p2.out")
track "$CHILD2"
TICKER2=$(ls "/proc/$P2/task" | grep -vx "$P2")
T0=$(date +%s%N)
{
	kill -KILL "$GDB_PID"
	wait "$GDB_PID"
} 2>/dev/null # (bash's "Killed")
ok 'gdb killed: the ticker is let go' wait_until eval '[[ $(thread_tracer $P2 $TICKER2) == 0 ]]'
MS=$((($(date +%s%N) - T0) / 1000000))
# a detach waits 100 ms for the threads to stop, an attach 3 s: well below that
ok "... without the daemon waiting for the vfork parent (${MS} ms after gdb's end)" test "$MS" -lt 2000
ok '... and ticks on' ticking "$WORK/p2.out"
attach_gdb "$OTHER" 'info threads' detach
like "$GDB_OUT" '^\* 1 +Thread .* "sleep"' '... the daemon serves another process'
unlike "$GDB_OUT" 'E03|Could not read registers' \
	"... and tells the next client there is no process (not the stop of the one let go)"
kill -KILL "$CHILD2"
ok 'the child gone, the vfork parent is let go' wait_until threads_untraced "$P2"
ok '... and runs on' wait_until file_has "$WORK/p2.out" '^vfork done'
unlike "$(cat "$WORK/p2.out")" 'Trace|trap' 'no stray trap in the program'
ok 'the daemon is still up' pid_alive "$SERVER_PID"

done_testing
