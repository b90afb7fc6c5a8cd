#!/bin/bash
# xol_fork_race: a fork made inside the window between the injected mmap of
# the scratch page and its madvise(MADV_DONTFORK) (src/engine/xol.c), or
# reported to us only after the page's syscalls were, leaves no page in
# the child (fork.c, xol_fork_child). The window is made wide on purpose:
# build/utraced-crashtest sleeps 300 ms each time it lets an injected
# syscall run (UTRACED_DELAY=xol-inject:300), while the program watches
# its own maps and forks the moment the page appears (xol_fork_race.c).
# - "main": the main thread forks. Its statuses come after the worker's
#   (the kernel hands out the newest tracee's first), so the page's
#   madvise is seen done before the fork: the page is marked
#   MADV_DONTFORK although the child got it.
# - "thread": a thread newer than the worker forks: the fork is reported
#   before the mmap's result, the page not known yet.
# With --agent=on the agent's region is raced instead (mapped first).
. "$(dirname "$0")/../lib/e2e.sh"

skip_all_for_gdbserver 'utraced test build'
CRASHER=$TOP/build/utraced-crashtest
[[ -x $CRASHER ]] || bail "no $CRASHER (make check builds it)"
PROG=$INFDIR/xol_fork_race
END=$(line_of xol_fork_race.c race-done)
agents='off on'
[[ $(pc_register "$PROG") == eip ]] && agents=off # (the agent is 64-bit only)

for agent in $agents; do
	for who in main thread; do
		what="$who forks, agent $agent"
		UTRACED_DELAY=xol-inject:300 SERVER=$CRASHER start_server --agent="$agent" :0 "$PROG" "$who" ||
			bail "the server did not start"
		remote_gdb "$PROG" 'set breakpoint condition-evaluation target' 'break work if i == -1' \
			"break xol_fork_race.c:$END" continue continue
		like "$(program_output)" '^child clean$' "$what: the child has no page of ours" ||
			diag "$(program_output)"
		like "$GDB_OUT" "Breakpoint 2, main .*xol_fork_race\\.c:$END" "$what: the end reached"
		exited_with 0 "$what"
	done
done

done_testing
