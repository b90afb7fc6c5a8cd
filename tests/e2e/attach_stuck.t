#!/bin/bash
# A thread that cannot stop must not hold the daemon, and an all-stop
# attach waits for it as long as it takes, as gdbserver's (issue 16;
# docs/ptrace-notes.md, "Threads that cannot stop"; gdb_attach.c).
# vfork_stuck's main thread waits in vfork() for a child that pauses
# until killed; its second thread ticks.
#
#   vAttach (gdb, extended-remote): still waiting after 7 s, past gdb's
#   own 6 s (3 x remotetimeout: the daemon's keep-alive bytes keep it
#   waiting), the ticker stopped meanwhile; a client pinging another
#   process through DIR/<pid>/gdb every 2 ms is served all the time; the
#   child killed, the attach completes (both threads listed), gdb
#   detaches and the program runs on untraced;
#   DIR/<pid>/gdb (the issue's own reproduction): the same for a gdb that
#   joins the stuck process through the file;
#   ^C from a raw client whose vAttach waits: the attach gives up (E04),
#   the ticker runs on at once, the vfork parent is let go when it can
#   stop, and attaching again meanwhile fails at once;
#   ^C from a joiner through DIR/<pid>/gdb whose g waits for the attach
#   stop: its connection closes, the program runs on;
#   kill -9 of a gdb whose attach waits: the same, the program runs on;
#   detach: a thread that gets stuck under gdb, gdb then killed: the
#   ticker is let go at once, the vfork parent when its child is gone;
#   utraced --attach PID at start waits too, and serves once the child
#   is gone.
#
# Before (the old give-up after the stop timeout, 3 s): both attaches
# failed ("Attaching to process N failed", "Remote connection closed"),
# the ^C was not heard (E6e after 3 s), and --attach at start failed
# ("Cannot attach to process N: Connection timed out").
# gdbserver has no --mount: skipped for it.
. "$(dirname "$0")/../lib/e2e.sh"
. "$(dirname "$0")/../lib/fuse.sh"

PROG=$INFDIR/vfork_stuck
start_mount --multi :0 || bail "utraced --mount --multi did not start"
wait_until file_has "$SERVER_ERR" "^Listening on port"
MULTI=$HOST:$(sed -n 's/^Listening on port \([0-9][0-9]*\).*/\1/p' "$SERVER_ERR" | head -1)

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
# stuck OUT: starts vfork_stuck writing OUT; P, CHILD, TICKER are its pids.
stuck() {
	"$PROG" >"$1" 2>&1 &
	P=$!
	track "$P"
	wait_until file_has "$1" '^child ' || bail "vfork_stuck did not start"
	CHILD=$(sed -n 's/^child //p' "$1")
	track "$CHILD"
	TICKER=$(ls "/proc/$P/task" | grep -vx "$P")
}

sleep 1000 &
HELD=$!
track "$HELD"
# pinger OUT: 3500 qC round trips 2 ms apart (7 s at least) through DIR/<held>/gdb, in the background.
pinger() {
	timeout -k 5 "$E2E_WAIT" "$RSPCLIENT" -t "$E2E_WAIT" "tty:$MNT/$HELD/gdb" --ping qC 3500 2 \
		>"$1" 2>&1 &
	PING_PID=$!
	track "$PING_PID"
}
fast() { [[ -n $(ping_worst "$1") ]] && (($(ping_worst "$1") < 1000)); }

# waits OUT GDB_PID: gdb is still waiting for its attach, no error said.
waits() {
	pid_alive "$2" && ! grep -Eq 'failed|closed|Ignoring packet error|^\* 1 ' "$1"
}

# --- an all-stop vAttach waits past gdb's own timeout
stuck "$WORK/p1.out"
rm -f "$WORK/leave1"
ex_args "target extended-remote $MULTI" "attach $P" "$(gdb_mark "$WORK/attached1")" 'info threads' \
	"$(gdb_wait_file "$WORK/leave1")" detach
pinger "$WORK/ping1.out"
"$GDB" "${GDB_SETUP[@]}" "$PROG" "${EX[@]}" </dev/null >"$WORK/gdb1.out" 2>&1 &
GDB1=$!
track "$GDB1"
wait "$PING_PID"
ok "vAttach: the other client through DIR/<pid>/gdb is served meanwhile (worst round trip $(ping_worst "$WORK/ping1.out") ms)" \
	fast "$WORK/ping1.out"
ok '... gdb still waits for its attach, past its own 6 s' waits "$WORK/gdb1.out" "$GDB1" ||
	diag "$(cat "$WORK/gdb1.out")"
N=$(ticks "$WORK/p1.out")
sleep 0.5
is "$(ticks "$WORK/p1.out")" "$N" '... the ticker stopped meanwhile'
kill -KILL "$CHILD"
ok 'the child gone, the attach completes' wait_until test -e "$WORK/attached1"
like "$(cat "$WORK/gdb1.out")" '^\* 1 +Thread [0-9.]+ "vfork_stuck"' '... gdb lists the main thread'
like "$(cat "$WORK/gdb1.out")" '^  2 +Thread [0-9.]+ "vfork_stuck"' '... and the ticker'
touch "$WORK/leave1"
ok '... gdb detaches and ends' wait_exit "$GDB1"
like "$(cat "$WORK/gdb1.out")" "^\\[Inferior 1 \\(process $P\\) detached\\]" '... detached'
ok '... the program runs on, untraced' \
	eval 'wait_until threads_untraced $P && file_has $WORK/p1.out "^vfork done" && ticking $WORK/p1.out'

# --- the same through DIR/<pid>/gdb (issue 16's reproduction)
stuck "$WORK/p2.out"
rm -f "$WORK/leave2"
pinger "$WORK/ping2.out"
"$GDB" "${GDB_SETUP[@]}" "$PROG" -ex "target remote $MNT/$P/gdb" -ex "$(gdb_mark "$WORK/attached2")" \
	-ex 'info threads' -ex "$(gdb_wait_file "$WORK/leave2")" -ex detach </dev/null >"$WORK/gdb2.out" 2>&1 &
GDB2=$!
track "$GDB2"
wait "$PING_PID"
ok "DIR/<pid>/gdb join: the other client is served meanwhile (worst round trip $(ping_worst "$WORK/ping2.out") ms)" \
	fast "$WORK/ping2.out"
ok '... gdb still waits for its attach, past its own 6 s' waits "$WORK/gdb2.out" "$GDB2" ||
	diag "$(cat "$WORK/gdb2.out")"
kill -KILL "$CHILD"
ok 'the child gone, the join completes' wait_until test -e "$WORK/attached2"
like "$(cat "$WORK/gdb2.out")" '^\* 1 +Thread [0-9.]+ "vfork_stuck"' '... gdb lists the main thread'
touch "$WORK/leave2"
ok '... gdb detaches and ends' wait_exit "$GDB2"
ok '... the program runs on, untraced' \
	eval 'wait_until threads_untraced $P && file_has $WORK/p2.out "^vfork done" && ticking $WORK/p2.out'

# --- ^C while a vAttach waits: it gives up
stuck "$WORK/p3.out"
timeout -k 5 "$E2E_WAIT" "$RSPCLIENT" -t 10 "$MULTI" 'qSupported:multiprocess+' \
	--nowait "vAttach;$(printf %x "$P")" --sleep 1500 --raw '\x03' \
	"vAttach;$(printf %x "$P")" >"$WORK/c3.out" 2>&1
like "$(sed -n 2p "$WORK/c3.out")" '^E04$' '^C: the vAttach fails at once (E04)' || diag "$(cat "$WORK/c3.out")"
is "$(thread_tracer "$P" "$TICKER")" 0 '... the ticker is let go'
ok '... and ticks on' ticking "$WORK/p3.out"
is "$(thread_tracer "$P" "$P")" "$SERVER_PID" '... the vfork parent stays ours until it stops'
like "$(sed -n 3p "$WORK/c3.out")" '^E0b$' '... attaching again meanwhile fails at once (EAGAIN)'
kill -KILL "$CHILD"
ok 'the child gone, the vfork parent is let go' wait_until threads_untraced "$P"
ok '... and runs on' wait_until file_has "$WORK/p3.out" '^vfork done'

# --- ^C from a joiner whose packet waits for its attach stop: it gives up
stuck "$WORK/p7.out"
timeout -k 5 "$E2E_WAIT" "$RSPCLIENT" -t 10 "tty:$MNT/$P/gdb" --nowait g --sleep 1500 \
	--send '\x03' --expect-close >"$WORK/c7.out" 2>&1
is "$?" 0 '^C from a joiner whose g waits: its connection closes' || diag "$(cat "$WORK/c7.out")"
ok '... the ticker is let go' wait_until eval '[[ $(thread_tracer $P $TICKER) == 0 ]]'
ok '... and ticks on' ticking "$WORK/p7.out"
kill -KILL "$CHILD"
ok 'the child gone, the vfork parent is let go' wait_until threads_untraced "$P"
ok '... and runs on' wait_until file_has "$WORK/p7.out" '^vfork done'

# --- kill -9 of a gdb whose attach waits
stuck "$WORK/p4.out"
ex_args "target extended-remote $MULTI" "attach $P" 'info threads'
"$GDB" "${GDB_SETUP[@]}" "$PROG" "${EX[@]}" </dev/null >"$WORK/gdb4.out" 2>&1 &
GDB4=$!
track "$GDB4"
wait_until eval '[[ $(thread_tracer $P $TICKER) == $SERVER_PID ]]'
sleep 1
{
	kill -KILL "$GDB4"
	wait "$GDB4"
} 2>/dev/null # (bash's "Killed")
ok 'gdb killed while its attach waits: the ticker is let go' \
	wait_until eval '[[ $(thread_tracer $P $TICKER) == 0 ]]'
ok '... and ticks on' ticking "$WORK/p4.out"
kill -KILL "$CHILD"
ok 'the child gone, the vfork parent is let go' wait_until threads_untraced "$P"
ok '... and runs on' wait_until file_has "$WORK/p4.out" '^vfork done'

# --- the thread gets stuck under gdb, which is then killed
"$PROG" "$WORK/go" >"$WORK/p5.out" 2>&1 &
P5=$!
track "$P5"
wait_until file_has "$WORK/p5.out" '^ready' || bail "vfork_stuck did not start"
ex_args "target extended-remote $MULTI" "attach $P5" "$(gdb_mark "$WORK/go")" continue
"$GDB" "${GDB_SETUP[@]}" "$PROG" "${EX[@]}" </dev/null >"$WORK/gdb5.out" 2>&1 &
GDB_PID=$!
track "$GDB_PID"
ok 'under gdb, the program vforks a child that pauses' wait_until file_has "$WORK/p5.out" '^child '
CHILD5=$(sed -n 's/^child //p' "$WORK/p5.out")
track "$CHILD5"
TICKER5=$(ls "/proc/$P5/task" | grep -vx "$P5")
T0=$(date +%s%N)
{
	kill -KILL "$GDB_PID"
	wait "$GDB_PID"
} 2>/dev/null # (bash's "Killed")
ok 'gdb killed: the ticker is let go' wait_until eval '[[ $(thread_tracer $P5 $TICKER5) == 0 ]]'
MS=$((($(date +%s%N) - T0) / 1000000))
ok "... without the daemon waiting for the vfork parent (${MS} ms after gdb's end)" test "$MS" -lt 2000
ok '... and ticks on' ticking "$WORK/p5.out"
ex_args "target extended-remote $MULTI" "attach $HELD" 'info threads' detach
run_gdb "$PROG" "${EX[@]}"
like "$GDB_OUT" '^\* 1 +Thread .* "sleep"' '... the daemon serves another process'
unlike "$GDB_OUT" 'E03|Could not read registers' \
	"... and tells the next client there is no process (not the stop of the one let go)"
kill -KILL "$CHILD5"
ok 'the child gone, the vfork parent is let go' wait_until threads_untraced "$P5"
ok '... and runs on' wait_until file_has "$WORK/p5.out" '^vfork done'
unlike "$(cat "$WORK/p5.out")" 'Trace|trap' 'no stray trap in the program'
ok 'the daemon is still up' pid_alive "$SERVER_PID"

# --- utraced --attach PID at start (nobody served yet) waits too, as gdbserver --attach
stuck "$WORK/p6.out"
"$SERVER" --attach :0 "$P" </dev/null >"$WORK/s6.out" 2>"$WORK/s6.err" &
S6=$!
track "$S6"
sleep 4
ok '--attach at start: still waiting after 4 s' \
	eval 'pid_alive $S6 && ! file_has $WORK/s6.err "Cannot attach"' || diag "$(cat "$WORK/s6.err")"
kill -KILL "$CHILD"
ok '... the child gone, it attaches and listens' wait_until file_has "$WORK/s6.err" '^Listening on port'
kill -TERM "$S6"
ok '... its end lets the program go' wait_until threads_untraced "$P"
ok '... which runs on' wait_until file_has "$WORK/p6.out" '^vfork done'

done_testing
