#!/bin/bash
# Forks in several threads at once while gdb steps another one (as GDB's
# next-fork-other-thread.exp): every fork is reported with its own child,
# which waits, stopped, until gdb has heard of it and let it go.
#
# fork_threads: four threads fork (vfork with an argument) children that
# exit with 11 at once, in a loop; main naps on two lines gdb `next`s over.
# gdb follows the parent and detaches each child (detach-on-fork, the
# default): a "D;pid" for a child that was handed to nobody, or that ran
# off before gdb heard of its fork, fails ("Can't detach process"). The
# program aborts if a child ever exits otherwise.
#
# For fork and vfork, all-stop and `maint set target-non-stop on` (where
# a wildcard vCont;c must not resume a fork child whose fork is still in
# the vStopped queue): 12 `next`s each, then kill.
. "$(dirname "$0")/../lib/e2e.sh"

PROG=$INFDIR/fork_threads
LINE=$(line_of fork_threads.c step)
NEXTS=12

for func in fork vfork; do
	args=()
	[[ $func == vfork ]] && args=(v)
	for mode in all-stop target-non-stop; do
		label="$func, $mode"
		setup=()
		[[ $mode == target-non-stop ]] && setup=(-iex 'maint set target-non-stop on')
		launch "$PROG" "${args[@]}"
		cmds=('set print inferior-events off' "break $LINE" 'continue')
		for ((i = 0; i < NEXTS; i++)); do
			cmds+=(next next)
		done
		cmds+=(kill)
		ex_args "target remote $TARGET" "${cmds[@]}"
		run_gdb "${setup[@]}" "$PROG" "${EX[@]}"
		# each next prints the line it stops at, as does the breakpoint hit
		is "$(grep -cP '^\d+\t' <<<"$GDB_OUT")" $((2 * NEXTS + 1)) "$label: every next arrives"
		like "$GDB_OUT" 'LINE:next' "$label: on the lines of main's loop"
		unlike "$GDB_OUT" "Can't detach|Can't kill|signal SIG|internal-error" \
			"$label: every fork child detached, no signal"
		ok "$label: the process is gone after kill" wait_gone "$INFERIOR_PID"
	done
done

done_testing
