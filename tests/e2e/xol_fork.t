#!/bin/bash
# xol_fork: breakpoints stepped over out of line (src/engine/xol.c), or
# patched (src/engine/patch.c, the conditions in the program), while the
# program forks and execs; each case with --agent=off and on. Fork: 20 children made while 4 threads run
# through a false condition; every child calls the function too (a trap
# left in it would kill it) and checks it was not given the scratch page
# (the page is MADV_DONTFORK). Exec: the program execs while its threads
# are in the loop; the new image's calls step over out of line again.
. "$(dirname "$0")/../lib/e2e.sh"

PROG=$INFDIR/xol_forks
SETUP=('set breakpoint condition-evaluation target')
END=$(line_of xol_forks.c sums-ok)

stats_of() {
	sed -n "s/^$1: \\([0-9]*\\).*/\\1/p" <<<"$GDB_OUT" | tail -1
}

# ITERS: calls a thread before the forks end (the exec comes after a
# quarter of 4 * ITERS); fewer under emulation (tests/vm/guest.sh).
ITERS=${ITERS:-10000}
# (a 32-bit program: out of line only, the agent is 64-bit only)
agents='off on'
[[ $(pc_register "$PROG") == eip ]] && agents=off
for agent in $agents; do
	opts=(--agent="$agent")
	server_is_gdbserver && opts=()
	[[ $agent == on ]] && server_is_gdbserver && continue

	# --- fork
	start_server "${opts[@]}" :0 "$PROG" 4 "$ITERS" fork || bail "the server did not start"
	remote_gdb "$PROG" "${SETUP[@]}" 'break work if i == -1' "break xol_forks.c:$END" \
		continue 'monitor utraced stats' continue
	like "$GDB_OUT" '^\[Detaching after fork from child process [0-9]+\]' "fork, agent $agent: gdb sees the forks"
	# (no "hit": gdb may never have stopped while the threads lived)
	like "$GDB_OUT" "Breakpoint 2, main .*xol_forks\\.c:$END" "fork, agent $agent: the end reached, no other stop"
	exited_with 0 "fork, agent $agent"
	like "$(program_output)" '^children ok$' "fork, agent $agent: every child ran the function, no page of ours in it" ||
		diag "$(program_output)"
	like "$(program_output)" '^sums ok$' "fork, agent $agent: every call made once"
	if ! server_is_gdbserver; then
		runs=$(stats_of 'step-overs out of line') inplace=$(stats_of 'step-overs in place')
		patched=$(stats_of 'breakpoints patched[^:]*')
		if [[ $agent == off ]]; then
			ok "fork: out of line (${runs:-?})" eval '((${runs:-0} >= 4 * ITERS))'
		else
			is "${patched:-?}" 1 'fork, agent on: patched'
		fi
		is "${inplace:-?}" 0 "fork, agent $agent: none in place"
	fi

	# --- exec with threads in the loop
	start_server "${opts[@]}" :0 "$PROG" 4 $((4 * ITERS)) exec || bail "the server did not start"
	remote_gdb "$PROG" "${SETUP[@]}" 'break work if i == -1' "break xol_forks.c:$END" \
		continue 'monitor utraced stats' continue
	like "$GDB_OUT" 'is executing new program' "exec, agent $agent: gdb sees the exec"
	like "$GDB_OUT" "Breakpoint 2, main .*xol_forks\\.c:$END" "exec, agent $agent: the end of the new image reached"
	exited_with 0 "exec, agent $agent"
	like "$(program_output)" '^after exec$' "exec, agent $agent: the new image ran" || diag "$(program_output)"
	like "$(program_output)" '^sums ok$' "exec, agent $agent: its calls made once"
	if ! server_is_gdbserver; then
		runs=$(stats_of 'step-overs out of line') inplace=$(stats_of 'step-overs in place')
		patched=$(stats_of 'breakpoints patched[^:]*')
		# (the numbers start again at the exec: the new image's 100 calls)
		if [[ $agent == off ]]; then
			is "${runs:-?}" 100 "exec: the new image's calls out of line"
		else
			is "${patched:-?}" 1 "exec, agent on: the new image's breakpoint patched"
		fi
		is "${inplace:-?}" 0 "exec, agent $agent: none in place"
	fi
done

done_testing
