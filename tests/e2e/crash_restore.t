#!/bin/bash
# A crash inside utraced leaves its targets whole (src/engine/crash.c).
# build/utraced-crashtest crashes on demand (UTRACED_CRASH=POINT:N:SIG) at
# points where a target is most exposed: mid-attach (threads seized and
# stopping), at gdb's N-th packet, at the N-th ptrace stop and the N-th
# out-of-line step (threads on their way through slots, traps in the
# text), mid-detach. hot_threads (8 threads calling work() in a loop) runs
# on its own; the daemon attaches, gdb puts a breakpoint on work() whose
# condition is never true (hit in every call), and the daemon dies of
# the signal. The program must run to its end, exit 0, with every call
# made once ("sums ok") and the text of work() the file's ("text ok").
. "$(dirname "$0")/../lib/e2e.sh"

skip_all_for_gdbserver 'utraced test build'
CRASHER=$TOP/build/utraced-crashtest
[[ -x $CRASHER ]] || bail "no $CRASHER (make check builds it)"
PROG=$INFDIR/hot_threads

# program_whole WHAT: the program, fed its go line, runs to its end whole.
program_whole() {
	feed_reader go
	ok "$1: the program ran to its end" wait_exit "$READER_PID"
	is "$EXIT_STATUS" 0 "$1: ... exit status 0"
	like "$(cat "$READER_OUT")" '^sums ok$' "$1: ... every call made once"
	like "$(cat "$READER_OUT")" '^text ok$' "$1: ... its text the file's"
}

# died_of SIG WHAT: the daemon (SRV) died of SIG, after restoring the targets.
died_of() {
	local name=${1^^}
	[[ $name == ABORT ]] && name=ABRT
	is "$STATUS" "$((128 + $(kill -l "$name")))" "$2: the daemon died of SIG$name"
	like "$(cat "$SERVER_ERR")" 'restoring and detaching' "$2: ... after restoring the targets"
}

# crash_case POINT:N:SIG WHAT [CMD...]: the daemon attached to a fresh
# hot_threads crashes at POINT's N-th pass with SIG while gdb runs CMD...
# (default: the false condition, then continue); the program's threads
# start once gdb is in its last command.
crash_case() {
	local spec=$1 what=$2 srv_pid last
	shift 2
	(($#)) || set -- 'set breakpoint condition-evaluation target' 'break work if i == -1' continue
	last=${*: -1}
	start_reader "$PROG" 8 20000 wait
	UTRACED_CRASH=$spec SERVER=$CRASHER start_server ${CRASH_OPTS:-} --attach :0 "$READER_PID" ||
		bail "$what: the server did not attach"
	srv_pid=$SERVER_PID
	rm -f "$WORK/armed"
	remote_gdb_bg "$WORK/gdb.out" "$PROG" "${@:1:$#-1}" "$(gdb_mark "$WORK/armed")" "$last"
	wait_until eval '[[ -e $WORK/armed ]] || ! pid_alive $GDB_PID' && sleep 0.3
	program_whole "$what"
	{
		wait "$srv_pid"
		STATUS=$?
	} 2>/dev/null # (bash's "Segmentation fault" and the like)
	if [[ -n ${CRASH_MAY_MISS:-} && $STATUS == 0 ]] && ! file_has "$SERVER_ERR" 'restoring'; then
		skip 2 "$what: the program ended before the crash point (not a loss: nothing crashed)"
	else
		died_of "${spec##*:}" "$what" || diag "gdb: $(cat "$WORK/gdb.out")"
	fi
	wait_exit "$GDB_PID"
	close_reader
}

# mid-attach: the daemon dies before it listens
start_reader "$PROG" 8 20000 wait
SERVER_ERR=$WORK/attach.err
{
	UTRACED_CRASH=attach:1:fpe timeout -k 5 "$E2E_WAIT" "$CRASHER" --attach :0 "$READER_PID" \
		</dev/null >/dev/null 2>"$SERVER_ERR"
	STATUS=$?
} 2>/dev/null
died_of fpe 'mid-attach'
program_whole 'mid-attach'
close_reader

crash_case packet:25:bus "at gdb's 25th packet"
# (out of line: with the agent, a false condition makes no stop at all)
CRASH_OPTS=--agent=off crash_case stop:3000:segv 'at the 3000th stop, hits in flight'
CRASH_OPTS=--agent=off crash_case xol:2000:abort 'at the 2000th out-of-line step'
crash_case detach:1:ill 'mid-detach' 'break work' continue detach
# the conditions in the program (patch.c): gdb prints and goes on at each
# true one (every 200th call) while the other threads run through their
# trampolines; the 300th stop is the daemon's last. (It used to kill the
# program 1 run in 2: the stop being handled when the daemon crashed was
# reaped already, and so was never waited for; a thread made just before
# the crash was not known yet; a stopped thread's single-step trap was
# still queued. The kernel's own detach then delivered their SIGTRAPs.
# Under load it still lost it 3 times in 28: a true condition's int3 in
# a trampoline, its SIGTRAP queued behind our interrupt, was detached
# with it; 0 in 20 since that trap is taken first.) The number of stops
# in a run varies: in about 1 run in 8 the program ends before the 300th
# (also before a 150th), and then nothing crashed: those two checks skip.
CRASH_MAY_MISS=1 crash_case stop:300:segv 'agent: patched, threads in trampolines' \
	'set breakpoint condition-evaluation target' 'dprintf work,"hit %ld\n", i' \
	'condition 1 i % 200 == 0' continue

done_testing
