#!/bin/bash
# thread_churn: short threads born and dying in bursts, created by two
# threads at once, while gdb continues from one breakpoint to the next
# (GDB's gdb.threads/multi-create.exp). A new thread can run and exit
# before its creator's PTRACE_EVENT_CLONE is reaped (the kernel hands the
# newest tracee's statuses out first): that late clone event must not
# bring the dead thread back, or the next stop waits for it for ever.
. "$(dirname "$0")/../lib/e2e.sh"

PROG=$INFDIR/thread_churn
N=30

cmds=('break round_done')
for ((i = 0; i < N; i++)); do
	cmds+=(continue)
done
cmds+=('delete' 'continue')

launch "$PROG"
remote_gdb "$PROG" "${cmds[@]}"
hits=$(grep -Ec '^(Thread [0-9]+ "thread_churn" hit )?Breakpoint 1, round_done \(n=[0-9]+\)' <<<"$GDB_OUT")
is "$hits" "$N" "every continue stops at the next round's breakpoint"
like "$GDB_OUT" "Breakpoint 1, round_done \\(n=$((N - 1))\\)" "the last stop is round $((N - 1))"
exited_with 0 'churn'
like "$(program_output)" '^work=640$' 'every short thread ran'

done_testing
