#!/bin/bash
# ftrace: gdb's fast tracepoints, collected inside the program by
# utraced's in-process agent (docs/tracepoints.md), nothing preloaded.
# 8 threads call hit() in a loop (tp_threads): `ftrace hit` collecting
# $regs, the locals and 64 bytes of the caller's stack; every hit
# collected once, each frame's values those of its hit (tp_check.py walks
# them with tfind, and again from the file tsave wrote), and the tracepoint
# patched (monitor utraced stats: the frames came from the agent, not
# from traps). Then a pass count, a
# condition, attach to a running program and detach (its code the file's
# again, it runs on), and kill -9 of gdb in the middle of a run.
. "$(dirname "$0")/../lib/e2e.sh"

skip_all_for_gdbserver 'fast tracepoints need libinproctrace.so preloaded (Debian ships none)'

PROG=$INFDIR/tp_threads
CHECK=$TOP/tests/e2e/tp_check.py
NT=8 ITERS=${TP_ITERS:-500}
TOTAL=$((NT * ITERS))

tp_gdb() {
	printf '%s\n' "target remote $TARGET" "$@" >"$WORK/cmds.gdb"
	run_gdb "$PROG" -x "$WORK/cmds.gdb"
}

start_server :0 "$PROG" $NT $ITERS || bail 'the server did not start'
tp_gdb 'break main' continue 'set trace-buffer-size 268435456' 'ftrace hit' actions \
	'collect $regs' 'collect id, i' 'collect *buf@64' end 'break done' tstart continue \
	tstatus tstop 'monitor utraced stats' "source $CHECK" 'tfind 3' 'info registers rip' \
	'tdump' 'tfind none' 'info tracepoints' "tsave $WORK/ft.tf" continue
like "$GDB_OUT" '^Fast tracepoint 2 at 0x[0-9a-f]+: file .*tp_threads\.c' 'fast tracepoint set'
like "$GDB_OUT" '^Breakpoint 3, done \(\)' 'the program ran to its end with the trace running'
like "$GDB_OUT" "^Collected $TOTAL trace frames\\." "tstatus: $TOTAL frames"
like "$GDB_OUT" "^tp_check: frames $TOTAL distinct $TOTAL dup 0 bad 0\$" \
	'every hit once, each frame with its own id, i, buffer, pc and stack'
like "$GDB_OUT" '^rip +0x[0-9a-f]+ +0x[0-9a-f]+ <hit\+[0-9]+>' 'tfind: the pc is hit()'
like "$GDB_OUT" '^\*buf@64 = ' 'tdump shows the range'
like "$GDB_OUT" '^fast tracepoints collected in the process: 1$' 'the tracepoint was patched'
FRAMES=$(sed -n 's/^trace frames recorded in the process: //p' <<<"$GDB_OUT")
ok "most frames came from the agent ($FRAMES of $TOTAL)" test "${FRAMES:-0}" -gt $((TOTAL / 2))
like "$GDB_OUT" "tracepoint already hit $TOTAL times" 'hit count (qTP)'
like "$(program_output)" "^calls $TOTAL\$" 'every call made once'
like "$(program_output)" '^text ok$' "hit()'s code the file's again"
# tsave (qTBuffer): the agent's registers are kept compact, made 'R' blocks
# (the file's tracepoint is at its link-time address: the program's symbols moved to the trace's)
printf '%s\n' 'set confirm off' "target tfile $WORK/ft.tf" 'tfind 0' python 'import re' \
	'info = gdb.execute("info tracepoints", to_string=True)' \
	'at = re.search(r"^\d+\s+fast tracepoint\s+\S+\s+\S+\s+(0x[0-9a-f]+)", info, re.M).group(1)' \
	'bias = int(gdb.parse_and_eval("$pc")) - int(at, 16)' 'gdb.execute("tfind none")' \
	'gdb.execute("symbol-file -o %#x %s" % (bias, gdb.current_progspace().filename))' \
	'gdb.set_convenience_variable("tp_check_pc", int(at, 16) + bias)' end \
	'set $tp_check_step = 100' "source $CHECK" 'tfind 3' 'info registers rip' \
	>"$WORK/tfile.gdb"
run_gdb "$PROG" -x "$WORK/tfile.gdb"
like "$GDB_OUT" "^tp_check: frames $((TOTAL / 100)) distinct $((TOTAL / 100)) dup 0 bad 0\$" \
	'tsave: the saved frames read back (tfile, one in 100), each with its values, pc and stack'
like "$GDB_OUT" '^rip +0x[0-9a-f]+ +0x[0-9a-f]+ <hit\+[0-9]+>' 'tfile: the pc is hit()'

stats_of() {
	sed -n "s/^$1: \([0-9]*\).*/\1/p" <<<"$GDB_OUT" | tail -1
}

# --- a condition and a pass count: exactly that many frames, then the run stops
start_server :0 "$PROG" $NT $ITERS || bail 'the server did not start'
tp_gdb 'break main' continue 'ftrace hit if i % 10 == 3' actions 'collect id, i' end \
	'passcount 100' 'break done' tstart continue tstatus 'monitor utraced stats' \
	'tfind start' 'while $trace_frame != -1' 'output i' 'echo \n' 'tfind' end 'tfind none' continue
like "$GDB_OUT" '^Collected 100 trace frames\.' 'pass count: exactly 100 frames'
like "$GDB_OUT" '^Trace stopped by tracepoint 2\.' 'pass count: the run stopped by the tracepoint'
is "$(grep -Ex '[0-9]+' <<<"$GDB_OUT" | awk '$1 % 10 != 3' | wc -l)" 0 'condition: only i % 10 == 3'
is "$(stats_of 'fast tracepoints collected in the process')" 1 'condition: patched'
like "$(program_output)" "^calls $TOTAL\$" 'pass count: every call made once'

# --- a full buffer: the run stops with every frame that fits, none lost before
start_server :0 "$PROG" $NT $ITERS || bail 'the server did not start'
tp_gdb 'break main' continue 'set trace-buffer-size 100000' 'ftrace hit' actions 'collect $regs' \
	'collect id, i' 'collect *buf@64' end 'break done' tstart continue tstatus "source $CHECK"
like "$GDB_OUT" '^Trace stopped because the buffer was full\.' 'full buffer: the run stopped'
N=$(sed -n 's/^Buffer contains \([0-9]*\) trace frames (of [0-9]* created total)\./\1/p' <<<"$GDB_OUT")
FREE=$(sed -n 's/^Trace buffer has \([0-9]*\) bytes of 100000 bytes free.*/\1/p' <<<"$GDB_OUT")
ok "full buffer: $N frames, $FREE bytes left, less than one frame" \
	eval '((N > 0 && FREE >= 0 && FREE < 100000 / N))'
like "$GDB_OUT" "^tp_check: frames $N distinct $N dup 0 bad 0\$" 'full buffer: each frame right'

# --- a circular buffer: the run goes on, the newest frames kept
start_server :0 "$PROG" $NT $ITERS || bail 'the server did not start'
tp_gdb 'break main' continue 'set trace-buffer-size 20000' 'set circular-trace-buffer on' \
	'ftrace hit' actions 'collect i' end 'break done' tstart continue tstatus tstop
like "$GDB_OUT" "^Buffer contains [0-9]+ trace frames \\(of $TOTAL created total\\)\\." \
	'circular: some frames kept, every one created'
like "$GDB_OUT" '^Trace is running on the target\.' 'circular: the run goes on'

# --- a range the agent cannot read: it faults inside the agent, the
# program never sees it, utraced collects those hits at the trap
start_server :0 "$PROG" 2 100 || bail 'the server did not start'
tp_gdb 'break main' continue 'ftrace hit' actions 'collect i' 'collect *(char *)8@16' end \
	'break done' tstart continue tstatus tstop 'tfind 150' 'p i' 'p *(char *)8@16' 'tfind none' \
	continue
like "$GDB_OUT" '^Collected 200 trace frames\.' 'a faulting range: every hit collected'
like "$GDB_OUT" '^\$[0-9]+ = [0-9]+$' 'a faulting range: the frame has the rest'
unlike "$GDB_OUT" 'SIGSEGV|SIGBUS' 'a faulting range: the program never sees the fault'
like "$(program_output)" "^calls 200\$" 'a faulting range: every call made once'

# --- attach to a running program, ftrace, detach
attached() {
	local what=$1 iters=$2
	shift 2
	start_reader "$PROG" $NT "$iters" wait
	start_server --attach :0 "$READER_PID" || bail "$what: server did not attach"
	# (from a file: an `actions` list reads its lines from there)
	printf '%s\n' "$@" >"$WORK/$what.gdb"
	remote_gdb_bg "$WORK/$what.out" "$PROG" "source $WORK/$what.gdb"
	ok "$what: gdb continues" wait_until eval 'pid_running $READER_PID'
	feed_reader go
}

program_ends() {
	ok "$1: the program ends" wait_exit "$READER_PID"
	is "$EXIT_STATUS" 0 "$1: with status 0" || diag "$(cat "$READER_OUT")"
	like "$(cat "$READER_OUT")" "^calls $2\$" "$1: every call made once"
	like "$(cat "$READER_OUT")" '^text ok$' "$1: its code is the file's again"
}

A_ITERS=20000
attached attach $A_ITERS 'set trace-buffer-size 268435456' 'ftrace hit' actions 'collect id, i' end \
	'break done' tstart continue tstatus 'monitor utraced stats' tstop 'tfind 1000' 'p i' 'tfind none' detach
ok 'attach: gdb ends' wait_exit "$GDB_PID"
GDB_OUT=$(cat "$WORK/attach.out")
like "$GDB_OUT" "^Collected $((NT * A_ITERS)) trace frames\\." 'attach: every hit collected'
is "$(stats_of 'fast tracepoints collected in the process')" 1 'attach: patched'
like "$GDB_OUT" '^\$[0-9]+ = [0-9]+$' 'attach: tfind shows a frame'
program_ends attach $((NT * A_ITERS))

# --- kill -9 of gdb in the middle of a run: the program runs on, its code the file's again
attached kill9 500000 'set circular-trace-buffer on' 'ftrace hit' actions 'collect $regs' \
	'collect *buf@64' end tstart continue
sleep 1
ok 'kill -9: the program still running, traced' eval '[[ $(tracer_of $READER_PID) != 0 ]]'
kill -9 "$GDB_PID"
program_ends 'kill -9' $((NT * 500000))

done_testing
