#!/bin/bash
# agent_cond: breakpoint conditions run inside the program by utraced's
# in-process agent (src/engine/patch.c, docs/agent.md), with the real gdb:
# conditions on a local, a global, a register and memory through a
# pointer, each true exactly once in 200000 calls (that one hit reported,
# no other); a condition whose read faults (the breakpoint stops, gdb
# says why, as with gdbserver); attach to a running program, a condition
# in its hot path, detach: the program's code is the file's again and it
# runs on to its end; a condition true now and then (patched again after
# each stop, nothing stepped in place). Each time, utraced says the
# breakpoint was patched. Also run against the 32-bit build (make check's
# E2E32 set): i386 trampolines, i in memory at the frame pointer there.
. "$(dirname "$0")/../lib/e2e.sh"

PROG=$INFDIR/agent_conds
N=200000
SETUP=('set breakpoint condition-evaluation target')
# a register: i itself (amd64: rsi); i386 has it on the stack, read through
# ebp (after the prologue) or esp (at the function's first instruction)
if [[ $(pc_register "$PROG") == eip ]]; then
	REG_I='*(long *) ($ebp + 12)' ENTRY_I='*(long *) ($esp + 8)'
else
	REG_I='$rsi' ENTRY_I='$rsi'
fi

stats_of() {
	sed -n "s/^$1: \\([0-9]*\\).*/\\1/p" <<<"$GDB_OUT" | tail -1
}

# cond_case WHAT COND I: the one hit of visit with COND is the one with i == I.
cond_case() {
	local what=$1 cond=$2 want=$3
	launch "$PROG" "$N"
	remote_gdb "$PROG" "${SETUP[@]}" "break visit if $cond" continue 'print i' \
		'monitor utraced stats' continue
	is "$(grep -c '^Breakpoint 1, visit' <<<"$GDB_OUT")" 1 "$what: one hit reported"
	like "$GDB_OUT" "^\\\$1 = $want\$" "$what: the one with i = $want"
	exited_with 0 "$what"
	like "$(program_output)" "^total $((N / 8 * 280 + N / 2))\$" "$what: every call made once"
	if ! server_is_gdbserver; then
		is "$(stats_of 'breakpoints patched[^:]*')" 1 "$what: patched" ||
			diag "$(grep -A5 '^step-overs out' <<<"$GDB_OUT")"
	fi
}

cond_case 'a local' "i == $((N - 7))" $((N - 7))
cond_case 'a global' 'g_flag == 1' $((N / 2))
cond_case 'a register' "$REG_I == 123457" 123457
cond_case 'memory through a pointer' "it->next->val + i == 150043" 150003

# --- a condition true now and then: gdb takes its breakpoints out at each
# stop and puts them back at the resume (stepping the thread off the
# breakpoint first); the jmp stays through it all (it used to be undone and
# written again each time: a stop of every thread more per stop), and no
# false hit is stepped over in place (a reinserted breakpoint used to count
# as a removed one: every thread held at each hit, for good)
launch "$PROG" "$N"
remote_gdb "$PROG" "${SETUP[@]}" 'break visit if i % 50000 == 7' continue continue continue \
	continue 'print i' 'x/i $pc' 'monitor utraced stats' continue
is "$(grep -c '^Breakpoint 1, visit' <<<"$GDB_OUT")" 4 'true 4 times: 4 hits reported'
like "$GDB_OUT" '^\$1 = 150007$' '... the 4th at i = 150007'
like "$GDB_OUT" '^=> 0x[0-9a-f]+ <visit\+[0-9]+>:[[:space:]]+mov' '... memory shows the original code' ||
	diag "$(grep '^=>' <<<"$GDB_OUT")"
exited_with 0 '... and the program ends'
if ! server_is_gdbserver; then
	is "$(stats_of 'step-overs in place')" 0 '... no step-over in place'
	is "$(stats_of 'breakpoints patched[^:]*')" 1 '... the jmp written once'
	ok "... kept at each stop ($(stats_of 'patched breakpoints removed[^:]*') times)" \
		test "$(stats_of 'patched breakpoints removed[^:]*')" -ge 4
	ok "... a stop of every thread per hit reported, no more ($(stats_of 'stop-alls'))" \
		test "$(stats_of 'stop-alls')" -le 5
fi

# --- a condition whose read faults (in the agent, once patched: false
# until then): the breakpoint stops there, gdb evaluates and says why
launch "$PROG" "$N"
remote_gdb "$PROG" "${SETUP[@]}" 'break visit if i > 100000 && *(int *) 8 == 1' continue \
	'print i' 'monitor utraced stats' kill
if server_is_gdbserver; then
	# gdbserver 13.1's ref opcodes ignore a failed read (ax.cc): the
	# condition is false and nothing stops; utraced counts the error as
	# true, as gdbserver's own rule for conditions (mem-break.cc) says
	like "$GDB_OUT" 'exited normally' 'a faulting read (gdbserver): no stop'
	skip 3 'gdbserver reads no error there'
else
	like "$GDB_OUT" 'Cannot access memory at address 0x8' 'a faulting read: gdb evaluates it and says why'
	like "$GDB_OUT" '^Breakpoint 1, visit' '... the breakpoint stops'
	like "$GDB_OUT" '^\$1 = 100001$' '... at the first call that reads'
	is "$(stats_of 'breakpoints patched[^:]*')" 1 '... patched, the fault in the agent'
fi
server_exits || true

# --- a stripped program: the function's bounds from its unwind tables,
# the breakpoint at its first instruction (one byte: several replaced).
# gdb reads the symbols from the unstripped file; utraced has only the
# running program's own, stripped.
STRIPPED=$WORK/agent_conds.stripped
objcopy --strip-all "$PROG" "$STRIPPED"
launch "$STRIPPED" "$N"
remote_gdb "$PROG" "${SETUP[@]}" "break *visit if $ENTRY_I == 123457" continue "print $ENTRY_I" \
	'monitor utraced stats' continue
is "$(grep -c '^Breakpoint 1, ' <<<"$GDB_OUT")" 1 'stripped: one hit reported'
like "$GDB_OUT" '^\$1 = 123457$' 'stripped: the one with i = 123457'
exited_with 0 'stripped'
if ! server_is_gdbserver; then
	is "$(stats_of 'breakpoints patched[^:]*')" 1 'stripped: patched, several instructions' ||
		diag "$(grep -A5 '^step-overs out' <<<"$GDB_OUT")"
fi

# --- attach, a condition in the hot path, detach: the code is the file's
# (gdbserver stops per hit: fewer calls before the true one)
AT=5000000
server_is_gdbserver && AT=20000
start_reader "$PROG" 100000000 wait
start_server --attach :0 "$READER_PID" || bail 'the server did not attach'
remote_gdb_bg "$WORK/attached.out" "$PROG" "${SETUP[@]}" "break visit if i == $AT" \
	continue 'print i' 'monitor utraced stats' detach
ok 'attached: gdb continues' wait_until eval 'pid_running $READER_PID'
feed_reader go
ok 'attached: gdb ends' wait_exit "$GDB_PID"
GDB_OUT=$(cat "$WORK/attached.out")
like "$GDB_OUT" "^\\\$1 = $AT\$" 'attached: the true hit'
if ! server_is_gdbserver; then
	is "$(stats_of 'breakpoints patched[^:]*')" 1 'attached: patched'
fi
ok 'attached: the program ends' wait_exit "$READER_PID"
is "$EXIT_STATUS" 0 'attached: with status 0'
like "$(cat "$READER_OUT")" '^text ok$' "attached: its code is the file's"

done_testing
