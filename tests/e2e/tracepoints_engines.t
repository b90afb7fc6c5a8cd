#!/bin/bash
# tracepoints_engines: an experiment outlives its gdb (disconnected
# tracing: gdb detaches, the program runs on and is traced, a new gdb
# attaches and finds the experiment and its frames), a gdb killed with
# the trace running (the run ends and its traps go), and two gdbs on one
# process run two experiments, each its own tracepoints and frames.
. "$(dirname "$0")/../lib/e2e.sh"
skip_all_for_gdbserver 'keep an experiment once its gdb detached, or take a second gdb'

PROG=$INFDIR/tp_threads
CHECK=$TOP/tests/e2e/tp_check.py

# tp_cmds FILE CMD...: CMDs into FILE, for gdb -x (actions read their lines from it)
tp_cmds() {
	local f=$1
	shift
	printf '%s\n' "$@" >"$f"
}

# --- disconnected tracing: detach, the program runs on traced, a new gdb finds it
"$PROG" 8 100000000 >"$WORK/prog.out" 2>&1 &
PROG_PID=$!
track "$PROG_PID"
start_server --multi :0 || bail 'the server did not start'
tp_cmds "$WORK/a.gdb" "target extended-remote $TARGET" "attach $PROG_PID" 'trace hit' actions \
	'collect id, i' 'collect *buf@64' end 'set trace-buffer-size 40000' \
	'set disconnected-tracing on' tstart detach
run_gdb "$PROG" -x "$WORK/a.gdb"
like "$GDB_OUT" '^\[Inferior 1 \(process [0-9]+\) detached\]' 'gdb A detached with the trace running'
ok 'the program runs on' pid_running "$PROG_PID"
sleep 1
tp_cmds "$WORK/b.gdb" "target extended-remote $TARGET" "attach $PROG_PID" tstatus \
	"source $CHECK" 'tfind none' detach
run_gdb "$PROG" -x "$WORK/b.gdb"
like "$GDB_OUT" '^Trace stopped because the buffer was full\.' \
	'gdb B finds the experiment: it ran until its buffer was full'
FRAMES=$(sed -n 's/^tp_check: frames \([0-9]*\) .*/\1/p' <<<"$GDB_OUT")
like "$GDB_OUT" "^tp_check: frames [1-9][0-9]* distinct ${FRAMES:-x} dup 0 bad 0\$" \
	"B reads its ${FRAMES:-no} frames, each with its own id, i and buffer"
ok 'the program still runs' pid_running "$PROG_PID"
kill "$PROG_PID"

# --- gdb killed (-9) with the trace running, not disconnected, on an
# attached program: the run ends, its traps go, the program runs to its
# end with its code the file's
start_reader "$PROG" 8 20000 wait
start_server --attach :0 "$READER_PID" || bail 'utraced did not attach'
tp_cmds "$WORK/k.gdb" "target remote $TARGET" 'trace hit' actions 'collect *buf@64' end tstart \
	"$(gdb_mark "$WORK/k_started")" continue
"$GDB" "${GDB_SETUP[@]}" "$PROG" -x "$WORK/k.gdb" </dev/null >"$WORK/k.out" 2>&1 &
K_PID=$!
track "$K_PID"
wait_until test -e "$WORK/k_started" || bail 'gdb did not start its trace'
feed_reader go
sleep 1
kill -9 "$K_PID"
ok 'after gdb -9 the program runs to its end' \
	wait_until eval "grep -q '^calls 160000\$' '$READER_OUT'"
like "$(cat "$READER_OUT")" '^text ok$' "... and hit()'s code is the file's"

# --- two gdbs, two experiments
use_rundir
NT=8 ITERS=300 TOTAL=2400
start_server :0 "$PROG" $NT $ITERS || bail 'the server did not start'
SOCK=$(rendezvous_sock "$INFERIOR_PID")
wait_until test -S "$SOCK" || bail 'no rendezvous socket'
tp_cmds "$WORK/a.gdb" "target remote $TARGET" 'break main' continue 'trace hit' actions \
	'collect id, i' 'collect *buf@64' end 'break done' tstart "$(gdb_mark "$WORK/a_ready")" \
	"$(gdb_wait_file "$WORK/b_ready")" continue tstop tstatus "source $CHECK" 'tfind none' \
	continue
"$GDB" "${GDB_SETUP[@]}" "$PROG" -x "$WORK/a.gdb" </dev/null >"$WORK/a.out" 2>&1 &
A_PID=$!
track "$A_PID"
wait_until test -e "$WORK/a_ready" || bail 'gdb A did not start its trace'
tp_cmds "$WORK/b.gdb" "target remote $SOCK" 'trace hit if i % 3 == 0' actions 'collect i' end \
	'break done' tstart "$(gdb_mark "$WORK/b_ready")" continue tstop tstatus 'tfind start' \
	'tdump' 'tfind none' continue
"$GDB" "${GDB_SETUP[@]}" "$PROG" -x "$WORK/b.gdb" </dev/null >"$WORK/b.out" 2>&1 &
B_PID=$!
track "$B_PID"
ok 'gdb A ends' wait_exit "$A_PID"
ok 'gdb B ends' wait_exit "$B_PID"
A_OUT=$(cat "$WORK/a.out") B_OUT=$(cat "$WORK/b.out")
like "$A_OUT" "^Collected $TOTAL trace frames\\." "A: its $TOTAL frames"
like "$A_OUT" "^tp_check: frames $TOTAL distinct $TOTAL dup 0 bad 0\$" 'A: each with its values'
like "$B_OUT" "^Collected $((TOTAL / 3)) trace frames\\." "B: its $((TOTAL / 3)) frames (its condition)"
like "$B_OUT" '^i = [0-9]+$' 'B: its frame has i'
unlike "$B_OUT" '^\*buf@64 = ' "B: not A's collection"
like "$(program_output)" "^calls $TOTAL\$" 'every call made once'
like "$(program_output)" '^text ok$' "hit()'s code the file's again"
done_testing
