#!/bin/bash
# xol_engines: two gdbs on one process, each with breakpoints whose
# conditions are false, on the same address and on the next instruction,
# in a hot loop of 4 threads: each engine evaluates its own conditions at
# every hit, nobody reports anything, every hit is stepped over out of
# line (none in place), the program does every call once and both gdbs see
# it exit. Then a true condition of B only: B is told, A is not. (With
# --agent=off: the in-process agent takes over a breakpoint one engine
# owns, and gives it back to the int3 when a second one inserts there.)
. "$(dirname "$0")/../lib/e2e.sh"
server_is_gdbserver && skip_all 'needs utraced engines'

PROG=$INFDIR/hot_threads
use_rundir
SETUP='set breakpoint condition-evaluation target'
# A condition never true: the stack pointer is 0. (A 32-bit program has no
# $rsp: gdb took it for an empty convenience variable, which it cannot
# compile into bytecode nor compare, and every hit stopped with an error.)
SP='$rsp'
[[ $(pc_register "$PROG") == eip ]] && SP='$esp'
SUMS=$(line_of hot_threads.c sums-ok)

# two_gdbs WHAT N B-BREAKS...: A (COMM) and B (rendezvous) on hot_threads
# 4 3000; A: `break work if $SP == 0` and a stop once every call is made
# (for the stats); B joins while A holds the process, sets B-BREAKS, tells
# A, continues N + 1 times (its stops, then the end); A continues, twice.
two_gdbs() {
	local what=$1 n=$2 conts=(continue)

	shift 2
	for ((; n > 0; n--)); do
		conts+=(continue)
	done
	# (out of line: with the agent, A's breakpoint would run patched until
	# B inserts at its address, and the counts would depend on when)
	start_server --agent="${AGENT:-off}" :0 "$PROG" 4 3000 || bail 'the server did not start'
	SOCK=$(rendezvous_sock "$INFERIOR_PID")
	wait_until test -S "$SOCK" || bail 'no rendezvous socket'
	rm -f "$WORK/b_joined"
	ex_args "target remote $TARGET" "$SETUP" "break work if $SP == 0" "break hot_threads.c:$SUMS" \
		"$(gdb_wait_file "$WORK/b_joined")" continue 'monitor utraced stats' continue
	timeout -k 5 $((E2E_WAIT * 2)) "$GDB" "${GDB_SETUP[@]}" "$PROG" "${EX[@]}" \
		</dev/null >"$WORK/a.out" 2>&1 &
	A_PID=$!
	track "$A_PID"
	ex_args "target remote $SOCK" "$SETUP" "$@" "$(gdb_mark "$WORK/b_joined")" "${conts[@]}"
	timeout -k 5 $((E2E_WAIT * 2)) "$GDB" "${GDB_SETUP[@]}" "$PROG" "${EX[@]}" \
		</dev/null >"$WORK/b.out" 2>&1 &
	B_PID=$!
	track "$B_PID"
	ok "$what: gdb A ends" wait_exit "$A_PID" || diag "$(cat "$WORK/a.out")"
	ok "$what: gdb B ends" wait_exit "$B_PID" || diag "$(cat "$WORK/b.out")"
	A_OUT=$(cat "$WORK/a.out") B_OUT=$(cat "$WORK/b.out")
}

# --- same address and the next instruction, all false
two_gdbs false 0 "break work if $SP == 0" "break *((char *)work + 1) if $SP == 0"
like "$B_OUT" '^Breakpoint 2 at 0x[0-9a-f]+: file .*hot_threads\.c' 'B: a breakpoint on the next instruction'
unlike "$A_OUT" 'hit Breakpoint 1|SIGTRAP|SIGSEGV|SIGILL' 'A: no stop but the exit'
unlike "$B_OUT" 'hit Breakpoint|SIGTRAP|SIGSEGV|SIGILL' 'B: no stop but the exit'
like "$A_OUT" "^\\[Inferior 1 \\(process $INFERIOR_PID\\) exited normally\\]" 'A sees the exit'
like "$B_OUT" "exited normally" 'B sees the exit'
like "$(program_output)" '^sums ok$' 'every call made once'
like "$A_OUT" '^step-overs in place: 0$' 'every step-over out of line' || diag "$(grep -A5 "^step-overs out" <<<"$A_OUT")"
like "$A_OUT" '^step-overs out of line: [1-9][0-9]{4}$' 'at least 10000 of them'
ok 'the server exits' server_exits

# --- B's condition true once per thread: B stops, A is never told
two_gdbs true 4 'break work if i == 2999'
is "$(grep -c 'hit Breakpoint 1, work (id=[0-3], i=2999)' <<<"$B_OUT")" 4 'B: its 4 true hits'
unlike "$A_OUT" 'hit Breakpoint 1|SIGTRAP' 'A: none of them'
like "$(program_output)" '^sums ok$' 'every call made once'
ok 'the server exits' server_exits

# --- the same with the agent: A's breakpoint patched until B inserts at
# its address (then an int3 again), B's next-instruction one patched
AGENT=on two_gdbs 'agent, false' 0 "break work if $SP == 0" "break *((char *)work + 1) if $SP == 0"
unlike "$A_OUT" 'hit Breakpoint 1|SIGTRAP|SIGSEGV|SIGILL' 'agent: A: no stop but the exit'
unlike "$B_OUT" 'hit Breakpoint|SIGTRAP|SIGSEGV|SIGILL' 'agent: B: no stop but the exit'
like "$(program_output)" '^sums ok$' 'agent: every call made once'
ok 'agent: the server exits' server_exits
# (both engines' conditions at one address: the agent runs them both and
# traps when one holds, each engine evaluates its own; it used to stay an
# int3, every call a stop)
AGENT=on two_gdbs 'agent, true' 4 'break work if i == 2999'
is "$(grep -c 'hit Breakpoint 1, work (id=[0-3], i=2999)' <<<"$B_OUT")" 4 'agent: B: its 4 true hits'
unlike "$A_OUT" 'hit Breakpoint 1|SIGTRAP' 'agent: A: none of them'
like "$(program_output)" '^sums ok$' 'agent: every call made once'
like "$A_OUT" '^breakpoints patched[^:]*: [1-9]' 'agent: the shared address patched' ||
	diag "$(grep -A8 '^step-overs out' <<<"$A_OUT")"
runs=$(sed -n 's/^step-overs out of line: \([0-9]*\)$/\1/p' <<<"$A_OUT")
ok "agent: its false hits cost no stop (${runs:-?} out of line for 12000 calls)" \
	eval '((${runs:-100000} < 1200))'
ok 'agent: the server exits' server_exits

done_testing
