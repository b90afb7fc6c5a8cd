#!/bin/bash
# ftrace_vregs: a fast tracepoint that collects $regs has the x87 and
# vector registers too, saved by the in-process agent (xsave) as they
# were at the tracepoint (docs/tracepoints.md). tp_vregs's 8 threads set
# ymm0, xmm1 and st0 from the argument of each call of hit(), on which
# the tracepoint sits: every frame's values are checked from its rdi
# (tp_vregs.py), and `info registers` shows them. Only when gdb's register
# mask asks for one of them: `collect $rdi` alone costs no xsave.
. "$(dirname "$0")/../lib/e2e.sh"

skip_all_for_gdbserver 'fast tracepoints need libinproctrace.so preloaded (Debian ships none)'
grep -qw avx /proc/cpuinfo || skip_all 'no AVX on this CPU'

PROG=$INFDIR/tp_vregs
CHECK=$TOP/tests/e2e/tp_vregs.py
NT=8 ITERS=${TP_ITERS:-200}
TOTAL=$((NT * ITERS))

printf '%s\n' "target remote \$TARGET" 'break main' continue 'ftrace *hit' actions 'collect $regs' \
	end 'break done' tstart continue tstop tstatus 'monitor utraced stats' "source $CHECK" \
	'tfind 5' 'p $rdi' 'info registers st0' 'p $xmm1.v16_int8[1]' 'tfind none' continue \
	>"$WORK/cmds.gdb"
start_server :0 "$PROG" $NT $ITERS || bail 'the server did not start'
sed -i "s|\\\$TARGET|$TARGET|" "$WORK/cmds.gdb"
run_gdb "$PROG" -x "$WORK/cmds.gdb"
like "$GDB_OUT" "^Collected $TOTAL trace frames\\." "every hit collected ($TOTAL)"
like "$GDB_OUT" '^fast tracepoints collected in the process: 1$' 'the tracepoint patched'
FRAMES=$(sed -n 's/^trace frames recorded in the process: //p' <<<"$GDB_OUT")
ok "most frames came from the agent ($FRAMES of $TOTAL)" test "${FRAMES:-0}" -gt $((TOTAL / 2))
like "$GDB_OUT" "^tp_vregs: frames $TOTAL bad 0\$" \
	'each frame: ymm0, xmm1 and st0 as set before its call'
RDI=$(sed -n 's/^\$[0-9]* = \([0-9]*\)$/\1/p' <<<"$GDB_OUT" | head -1)
like "$GDB_OUT" "^st0 +${RDI:-x}\\.25 +\\(raw 0x[0-9a-f]+\\)\$" "info registers st0: rdi + 0.25 ($RDI)"
like "$(program_output)" "^calls $TOTAL\$" 'every call made once'

# gdb's register mask decides: one vector register asked for, the state is
# saved; general registers only (a local's base register), it is not
vregs_run() {
	printf '%s\n' "target remote $TARGET" 'break main' continue 'ftrace *hit' actions "$1" end \
		'break done' tstart continue tstop tstatus "source $CHECK" continue >"$WORK/cmds.gdb"
	run_gdb "$PROG" -x "$WORK/cmds.gdb"
}
start_server :0 "$PROG" $NT $ITERS || bail 'the server did not start'
vregs_run 'collect $rdi, $st0'
like "$GDB_OUT" "^tp_vregs: frames $TOTAL bad 0\$" 'collect $rdi, $st0: the state saved, every frame right'
start_server :0 "$PROG" $NT $ITERS || bail 'the server did not start'
vregs_run 'collect $rdi'
BAD=$(sed -n 's/^tp_vregs: frames [0-9]* bad \([0-9]*\).*/\1/p' <<<"$GDB_OUT")
ok "collect \$rdi: no xsave, the agent's frames without the vector state ($BAD of $TOTAL)" \
	test "${BAD:-0}" -gt $((TOTAL / 2))

done_testing
