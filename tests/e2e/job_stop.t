#!/bin/bash
# job_stop: a process stopped by job control (SIGSTOP) stays stopped when
# only an observer traces it, as under strace: attached to a stopped
# two-thread program, ustrace prints "--- stopped by SIGSTOP ---" for each
# thread and the program does not run until a SIGCONT; a SIGSTOP while
# traced stops it again; after ustrace leaves it is still stopped. With
# gdb: attached to a stopped process and detached at once, it stays
# stopped, and each continue reports the SIGSTOP (the program stays
# stopped), as with gdbserver (sched.c, group_stop_report).
. "$(dirname "$0")/../lib/e2e.sh"
. "$(dirname "$0")/../lib/ustrace.sh"

PROG=$INFDIR/job_stop
ticks() { grep -c '^tick' "$READER_OUT"; }
# still SECS: no tick in SECS seconds
still() {
	local a
	a=$(ticks)
	sleep "$1"
	[[ $(ticks) == "$a" ]]
}
ticking() { # a tick within E2E_WAIT seconds
	local a
	a=$(ticks)
	wait_until eval '[[ $(ticks) -gt $a ]]'
}
stopped_state() { [[ $(pid_state "$1") == T ]]; }

start_reader "$PROG"
reader_says '^ready$' || bail "job_stop did not start: $(cat "$READER_OUT")"
PID=$READER_PID
TID2=$(ls /proc/$PID/task | grep -vx "$PID")
kill -STOP "$PID"
wait_until stopped_state "$PID" || bail 'SIGSTOP did not stop it'

# --- ustrace -f -p on the stopped program
OUT=$WORK/us.out
"$USTRACE" -f -o "$OUT" -p "$PID" 2>"$WORK/us.err" &
UPID=$!
track "$UPID"
ok 'ustrace attached' wait_until file_has "$WORK/us.err" "ustrace: Process $PID attached"
ok 'the group-stop of both threads is printed' \
	wait_until eval '[[ $(grep -c "^[0-9]* *--- stopped by SIGSTOP ---\$" "$OUT") == 2 ]]'
like "$(grep -- '--- stopped by' "$OUT" | cut -d' ' -f1 | sort -n | tr '\n' ' ')" \
	"^$(printf '%s\n' "$PID" "$TID2" | sort -n | tr '\n' ' ')\$" '... one line for each thread'
ok 'the program stays stopped while traced' still 0.5
is "$(tracer_of "$PID")" "$UPID" 'ustrace traces it'
kill -CONT "$PID"
ok 'SIGCONT: it runs' ticking
ok 'ustrace shows the SIGCONT' wait_until file_has "$OUT" '--- SIGCONT \{si_signo=SIGCONT, si_code=SI_USER,'
kill -STOP "$PID"
ok 'a SIGSTOP while traced: printed as delivered' \
	wait_until file_has "$OUT" '--- SIGSTOP \{si_signo=SIGSTOP, si_code=SI_USER,'
ok '... then the group-stop of each thread' \
	wait_until eval '[[ $(grep -c -- "--- stopped by SIGSTOP ---\$" "$OUT") == 4 ]]'
ok '... and it stops' wait_until eval 'still 0.3'
ok '... and stays stopped' still 0.5
kill -INT "$UPID"
ok 'ustrace ends on SIGINT' wait_exit "$UPID"
like "$(cat "$WORK/us.err")" "ustrace: Process $PID detached" 'ustrace says it detached'
is "$(tracer_of "$PID")" 0 'no longer traced'
ok 'still stopped after ustrace left' stopped_state "$PID"
ok '... and not running' still 0.3
kill -CONT "$PID"
ok 'SIGCONT after ustrace left: it runs' ticking

# --- launched under ustrace, stopped from outside: stays stopped
"$USTRACE" -f -o "$WORK/launch.out" "$PROG" >"$WORK/launch.prog" 2>"$WORK/launch.err" &
UPID=$!
track "$UPID"
wait_until file_has "$WORK/launch.prog" '^tick 1$' || bail 'job_stop under ustrace did not tick'
LPID=$(sed -n 's/^\([0-9]*\) *execve(.*/\1/p' "$WORK/launch.out" | head -1)
ok 'launched: its pid' test -n "$LPID"
kill -STOP "$LPID"
ok 'launched: stopped' wait_until eval '[[ $(grep -c -- "--- stopped by SIGSTOP ---\$" "$WORK/launch.out") == 2 ]]'
a=$(grep -c '^tick' "$WORK/launch.prog")
sleep 0.5
is "$(grep -c '^tick' "$WORK/launch.prog")" "$a" 'launched: no tick while stopped'
kill -CONT "$LPID"
ok 'launched: SIGCONT, it ticks again' \
	wait_until eval '[[ $(grep -c "^tick" "$WORK/launch.prog") -gt $a ]]'
kill -INT "$UPID"
wait_exit "$UPID"
kill -9 "$LPID" 2>/dev/null

# --- gdb, through the server, on the stopped program
kill -STOP "$PID"
wait_until stopped_state "$PID" || bail 'SIGSTOP did not stop it'
start_server --attach :0 "$PID" || bail 'server did not attach'
remote_gdb "$PROG" 'info threads' detach
like "$GDB_OUT" "\\[Inferior 1 \\(process $PID\\) detached\\]" "gdb: attach and detach"
ok 'gdb: server exits' server_exits
ok 'gdb: still stopped after the detach' wait_until stopped_state "$PID"
ok '... and not running' still 0.3

start_server --attach :0 "$PID" || bail 'server did not attach'
A=$(ticks)
remote_gdb "$PROG" 'break tick' continue continue 'info threads' detach
is "$(grep -c 'received signal SIGSTOP, Stopped (signal)' <<<"$GDB_OUT")" 2 \
	'gdb: each continue reports the SIGSTOP, as gdbserver does'
unlike "$GDB_OUT" 'Breakpoint 1, ' 'gdb: the program did not run'
is "$(ticks)" "$A" '... no tick'
ok 'gdb: server exits' server_exits
ok 'gdb: still stopped after the detach' wait_until stopped_state "$PID"
# --- through the daemon: a client in gdb's place passes every signal and
# continues; ustrace joins: the group-stop is printed, the program stays
# stopped until a SIGCONT (tests/strace/via-daemon.sh does the same)
if server_is_gdbserver; then
	skip 4 'gdbserver: no ustrace join'
else
	use_rundir
	start_server --attach :0 "$PID" || bail 'server did not attach'
	"$RSPCLIENT" -t 60 "$TARGET" "QPassSignals:$(printf '%x;' $(seq 1 149))96" '?' --loop c \
		>"$WORK/client.out" 2>&1 &
	track $!
	wait_until eval '[[ $(wc -l <"$WORK/client.out") -ge 2 ]]' || bail 'the client did not continue'
	"$USTRACE" -o "$WORK/join.out" -p "$PID" 2>"$WORK/join.err" &
	UPID=$!
	track "$UPID"
	ok 'daemon: the group-stop is printed' wait_until file_has "$WORK/join.out" '^--- stopped by SIGSTOP ---$'
	ok 'daemon: it stays stopped' still 0.5
	kill -CONT "$PID"
	ok 'daemon: SIGCONT, it runs' ticking
	kill -TERM "$UPID"
	wait_exit "$UPID"
	is "$(tracer_of "$PID")" "$SERVER_PID" 'daemon: ustrace joined through utraced'
fi
kill -CONT "$PID"
ok 'at the end it runs' ticking
kill -9 "$PID"

done_testing
