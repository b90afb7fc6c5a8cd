#!/bin/bash
# ftrace: gdb's fast tracepoints, collected inside the program by
# utraced's in-process agent (docs/tracepoints.md), nothing preloaded.
# 8 threads call hit() in a loop (tp_threads): `ftrace hit` collecting
# $regs, the locals and 64 bytes of the caller's stack; every hit
# collected once, each frame's values those of its hit (tp_check.py walks
# them with tfind), and the tracepoint patched (monitor utraced stats: the
# frames came from the agent, not from traps). Then a pass count, a
# condition, attach to a running program and detach (its code the file's
# again, it runs on), and kill -9 of gdb in the middle of a run.
. "$(dirname "$0")/../lib/e2e.sh"

skip_all_for_gdbserver 'fast tracepoints need libinproctrace.so preloaded (Debian ships none)'

PROG=$INFDIR/tp_threads
CHECK=$TOP/tests/e2e/tp_check.py
NT=8 ITERS=${TP_ITERS:-2000}
TOTAL=$((NT * ITERS))

tp_gdb() {
	printf '%s\n' "target remote $TARGET" "$@" >"$WORK/cmds.gdb"
	run_gdb "$PROG" -x "$WORK/cmds.gdb"
}

start_server :0 "$PROG" $NT $ITERS || bail 'the server did not start'
tp_gdb 'break main' continue 'set trace-buffer-size 268435456' 'ftrace hit' actions \
	'collect $regs' 'collect id, i' 'collect *buf@64' end 'break done' tstart continue \
	tstatus tstop 'monitor utraced stats' "source $CHECK" 'tfind 3' 'info registers rip' \
	'tdump' 'tfind none' 'info tracepoints' continue
like "$GDB_OUT" '^Fast tracepoint 2 at 0x[0-9a-f]+: file .*tp_threads\.c' 'fast tracepoint set'
like "$GDB_OUT" '^Breakpoint 3, done \(\)' 'the program ran to its end with the trace running'
like "$GDB_OUT" "^Collected $TOTAL trace frames\\." "tstatus: $TOTAL frames"
like "$GDB_OUT" "^tp_check: frames $TOTAL distinct $TOTAL dup 0 bad 0\$" \
	'every hit once, each frame with its own id, i, buffer, pc and stack'
like "$GDB_OUT" '^rip +0x[0-9a-f]+ +0x[0-9a-f]+ <hit\+[0-9]+>' 'tfind: the pc is hit()'
like "$GDB_OUT" '^\*buf@64 = ' 'tdump shows the range'
like "$GDB_OUT" '^fast tracepoints collected in the process: 1$' 'the tracepoint was patched'
FRAMES=$(sed -n 's/^trace frames recorded in the process: //p' <<<"$GDB_OUT")
ok "most frames came from the agent ($FRAMES of $TOTAL)" test "${FRAMES:-0}" -ge $((TOTAL * 9 / 10))
like "$GDB_OUT" "tracepoint already hit $TOTAL times" 'hit count (qTP)'
like "$(program_output)" "^calls $TOTAL\$" 'every call made once'
like "$(program_output)" '^text ok$' "hit()'s code the file's again"

done_testing
