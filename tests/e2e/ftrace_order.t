#!/bin/bash
# ftrace_order: trace frames are numbered in the order of the hits, across
# the threads' rings of the in-process agent and across fast and normal
# tracepoints (docs/tracepoints.md). tp_order's 8 threads call hit() and
# other() under one lock with a counter n that grows by one at each call:
# walking the frames with tfind (tp_order.py), n must increase with the
# frame number, across all threads and within each. Fast tracepoints
# alone, then a fast one and a normal one (its hits collected at a trap).
. "$(dirname "$0")/../lib/e2e.sh"

skip_all_for_gdbserver 'fast tracepoints need libinproctrace.so preloaded (Debian ships none)'

PROG=$INFDIR/tp_order
CHECK=$TOP/tests/e2e/tp_order.py
NT=8 ITERS=${TP_ITERS:-500}
TOTAL=$((NT * ITERS))

tp_gdb() {
	printf '%s\n' "target remote $TARGET" "$@" >"$WORK/cmds.gdb"
	run_gdb "$PROG" -x "$WORK/cmds.gdb"
}

# --- fast tracepoints only: each thread's ring drained in turn, the frames merged
start_server :0 "$PROG" $NT $ITERS || bail 'the server did not start'
tp_gdb 'break main' continue 'set trace-buffer-size 67108864' 'ftrace hit' actions \
	'collect id, n' end 'ftrace other' actions 'collect id, n' end 'break done' tstart \
	continue tstop tstatus 'monitor utraced stats' "source $CHECK" continue
like "$GDB_OUT" "^Collected $TOTAL trace frames\\." "fast: every hit collected ($TOTAL)"
like "$GDB_OUT" '^fast tracepoints collected in the process: 2$' 'fast: both patched'
like "$GDB_OUT" "^tp_order: frames $TOTAL threads $NT inversions 0 thread_inversions 0\$" \
	'fast: n increases with the frame number, across threads and in each'
like "$(program_output)" "^calls $TOTAL\$" 'fast: every call made once'

# --- a fast tracepoint and a normal one: the normal frames among the fast ones
start_server :0 "$PROG" $NT $ITERS || bail 'the server did not start'
tp_gdb 'break main' continue 'set trace-buffer-size 67108864' 'ftrace hit' actions \
	'collect id, n' end 'trace other' actions 'collect id, n' end 'break done' tstart \
	continue tstop tstatus 'monitor utraced stats' "source $CHECK" continue
like "$GDB_OUT" "^Collected $TOTAL trace frames\\." "mixed: every hit collected ($TOTAL)"
like "$GDB_OUT" '^fast tracepoints collected in the process: 1$' 'mixed: the fast one patched'
like "$GDB_OUT" "^tp_order: frames $TOTAL threads $NT inversions 0 thread_inversions 0\$" \
	'mixed: n increases with the frame number, across threads and in each'
like "$(program_output)" "^calls $TOTAL\$" 'mixed: every call made once'

done_testing
