#!/bin/bash
# xol_fork: breakpoints stepped over out of line (src/engine/xol.c) while
# the program forks and execs. Fork: 20 children made while 4 threads run
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

# --- fork
launch "$PROG" 4 10000 fork
remote_gdb "$PROG" "${SETUP[@]}" 'break work if i == -1' "break xol_forks.c:$END" \
	continue 'monitor utraced stats' continue
like "$GDB_OUT" '^\[Detaching after fork from child process [0-9]+\]' 'fork: gdb sees the forks'
like "$GDB_OUT" "hit Breakpoint 2, main .*xol_forks\\.c:$END" 'fork: the end reached, no other stop'
exited_with 0 fork
like "$(program_output)" '^children ok$' 'fork: every child ran the function, no page of ours in it' ||
	diag "$(program_output)"
like "$(program_output)" '^sums ok$' 'fork: every call made once'
if ! server_is_gdbserver; then
	runs=$(stats_of 'step-overs out of line') inplace=$(stats_of 'step-overs in place')
	ok "fork: out of line (${runs:-?})" eval '((${runs:-0} >= 40000))'
	is "${inplace:-?}" 0 'fork: none in place'
fi

# --- exec with threads in the loop
launch "$PROG" 4 40000 exec
remote_gdb "$PROG" "${SETUP[@]}" 'break work if i == -1' "break xol_forks.c:$END" \
	continue 'monitor utraced stats' continue
like "$GDB_OUT" 'is executing new program' 'exec: gdb sees the exec'
like "$GDB_OUT" "Breakpoint 2, main .*xol_forks\\.c:$END" 'exec: the end of the new image reached'
exited_with 0 exec
like "$(program_output)" '^after exec$' 'exec: the new image ran' || diag "$(program_output)"
like "$(program_output)" '^sums ok$' 'exec: its calls made once'
if ! server_is_gdbserver; then
	runs=$(stats_of 'step-overs out of line') inplace=$(stats_of 'step-overs in place')
	# (the numbers start again at the exec: the new image's 100 calls)
	is "${runs:-?}" 100 "exec: the new image's calls out of line"
	is "${inplace:-?}" 0 'exec: none in place'
fi

done_testing
