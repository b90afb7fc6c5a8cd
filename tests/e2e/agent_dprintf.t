#!/bin/bash
# agent_dprintf: gdb's dprintf in the agent style (`set dprintf-style
# agent`), printed from inside the program by utraced's in-process agent
# (src/engine/patch_out.c, docs/agent.md): a line per call, in order, with
# a stop only when a thread's ring is full; a condition on the dprintf
# (only its true calls print, as with gdb's own dprintf; gdbserver prints
# them all); attach, dprintf in the hot path, kill -9 of
# gdb: the lines printed until then are whole and in order, none twice,
# and the program runs on to its end with its code the file's again.
# Where the text goes: with utraced, gdb's console (O packets, while gdb
# waits for a stop in all-stop; nothing on the server's standard output);
# in non-stop, and with gdbserver always, the server's standard output
# (the launched program's, which it shares). 100 000 lines from 8 threads:
# each thread's lines in order. Also run against 32-bit programs (make
# check's E2E32 set: the i386 agent and trampolines).
. "$(dirname "$0")/../lib/e2e.sh"

PROG=$INFDIR/agent_conds
N=100000
# (pending: a 32-bit program's _exit is libc's only, loaded after the start;
# amd64's ld.so has one too, with the debug symbols installed)
SETUP=('set dprintf-style agent' 'set breakpoint pending on')

stats_of() {
	sed -n "s/^$1: \\([0-9]*\\).*/\\1/p" <<<"$GDB_OUT" | tail -1
}

# in_order_n: stdin is 0, 1, 2, ... with no gap and no repeat; prints how many.
in_order_n() {
	awk '{ if ($1 != NR - 1) { print "bad at " NR - 1 ": " $0; exit 1 } } END { print NR }'
}

# in_order PREFIX FIRST STEP: lines "PREFIX k ..." of stdin run FIRST,
# FIRST + STEP, ... with no gap and no repeat; prints how many.
in_order() {
	awk -v p="$1" -v k="$2" -v step="$3" '$1 == p { if ($2 != k) { print "bad at " k ": " $0; exit 1 } k += step; n++ } END { print n + 0 }'
}

# lines: the dprintf text of the last remote_gdb (gdb's output with
# utraced, the program's with gdbserver).
lines() {
	if server_is_gdbserver; then
		program_output
	else
		printf '%s\n' "$GDB_OUT"
	fi
}

# --- 100000 calls, a line each
launch "$PROG" "$N"
remote_gdb "$PROG" "${SETUP[@]}" 'dprintf visit,"v %ld %d\n", i, it->key' 'break _exit' \
	continue 'monitor utraced stats' continue
exited_with 0 'every call'
out=$(lines)
is "$(in_order v 0 1 <<<"$out")" "$N" 'a line per call, in order'
like "$out" "^v 99999 7\$" '... with its values'
if ! server_is_gdbserver; then
	unlike "$(program_output)" '^v ' "none on the server's output: all in gdb's console"
	sent=$(stats_of 'dprintf text sent to gdb[^:]*')
	ok "sent as O packets (${sent:-?} bytes)" eval '((${sent:-0} > N * 8))'
	is "$(stats_of 'breakpoints patched[^:]*')" 1 'the dprintf patched'
	stops=$(stats_of 'step-overs out of line')
	ok "a stop only when a ring is full (${stops:-?} stops for $N lines)" \
		eval '((${stops:-1000000} < N / 100))'
	lines=$(stats_of 'dprintf lines recorded in the process')
	ok "the lines recorded by the agent (${lines:-?})" eval '((${lines:-0} > N * 9 / 10))'
fi

# --- a condition: only its true calls print
launch "$PROG" "$N"
remote_gdb "$PROG" "${SETUP[@]}" 'dprintf visit,"c %ld\n", i' 'condition 1 i % 1000 == 7' \
	continue
exited_with 0 'conditional'
if server_is_gdbserver; then
	# gdbserver 13.1 runs a breakpoint's commands at every hit: its
	# conditions only decide whether the hit is reported
	is "$(in_order c 0 1 <<<"$(program_output)")" "$N" 'a condition (gdbserver): every call prints'
else
	is "$(in_order c 7 1000 <<<"$(lines)")" $((N / 1000)) 'a condition: its true calls only'
fi

# --- 8 threads, 12500 calls each: every line, each thread's in order
T=8 ITERS=$((N / 8))
launch "$INFDIR/hot_threads" "$T" "$ITERS"
remote_gdb "$INFDIR/hot_threads" "${SETUP[@]}" 'dprintf work,"w %d %ld\n", id, i' continue
exited_with 0 '8 threads'
out=$(lines)
is "$(grep -c '^w ' <<<"$out")" "$N" '8 threads: a line per call'
bad=
for ((id = 0; id < T; id++)); do
	[[ $(awk -v id=$id '$1 == "w" && $2 == id { print $3 }' <<<"$out" | in_order_n) == "$ITERS" ]] ||
		bad+=" $id"
done
is "${bad:-none}" none '8 threads: each thread its lines in order, none twice'
like "$(program_output)" '^sums ok$' '8 threads: every call made once'

# --- 1000000 lines: gdb prints them slower than the program makes them
# (about 10 us a line): the program waits for gdb, utraced does not hold
# them all (20 MB of O packets)
if server_is_gdbserver; then
	skip 4 "utraced: O packets to gdb"
else
	M=1000000
	launch "$PROG" "$M"
	remote_gdb "$PROG" "${SETUP[@]}" 'dprintf visit,"m %ld\n", i' 'break _exit' continue \
		"shell grep VmHWM /proc/$SERVER_PID/status" 'monitor utraced stats' continue
	is "$(in_order m 0 1 <<<"$GDB_OUT")" "$M" 'a million: every line, in order'
	waits=$(sed -n 's/^dprintf text sent to gdb.* \([0-9]*\) waits for gdb$/\1/p' <<<"$GDB_OUT")
	ok "a million: the program waited for gdb (${waits:-?} times)" eval '((${waits:-0} > 0))'
	hwm=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' <<<"$GDB_OUT")
	ok "a million: utraced's memory at most 12 MB (${hwm:-?} kB)" eval '((${hwm:-1000000} < 12288))'
	ok 'a million: the server exits' server_exits
fi

# --- monitor utraced dprintf-to server: gdbserver's way (gdb writes O text
# a byte per write(2): ten times slower)
if server_is_gdbserver; then
	skip 2 'utraced: monitor utraced dprintf-to'
else
	launch "$PROG" 1000
	remote_gdb "$PROG" "${SETUP[@]}" 'monitor utraced dprintf-to server' 'dprintf visit,"s %ld\n", i' \
		continue
	is "$(in_order s 0 1 <<<"$(program_output)")" 1000 "dprintf-to server: every line on the server's output"
	unlike "$GDB_OUT" '^s [0-9]' "dprintf-to server: none in gdb's"
fi

# --- non-stop: gdb takes no O packet while threads run: the server's output
if server_is_gdbserver; then
	skip 2 'utraced: where the lines go in non-stop'
else
	launch "$PROG" 1000
	saved=("${GDB_SETUP[@]}")
	GDB_SETUP+=(-ex 'set non-stop on')
	remote_gdb "$PROG" "${SETUP[@]}" 'dprintf visit,"n %ld\n", i' 'continue -a'
	GDB_SETUP=("${saved[@]}")
	ok 'non-stop: the program ends' server_exits
	is "$(in_order n 0 1 <<<"$(program_output)")" 1000 "non-stop: every line, on the server's output"
fi

# --- attach, dprintf in the hot path, kill -9 of gdb
if server_is_gdbserver; then
	skip 6 'gdbserver: one client, not an attach to keep'
else
	start_reader "$PROG" 100000000 wait
	start_server --attach :0 "$READER_PID" || bail 'the server did not attach'
	remote_gdb_bg "$WORK/attached.out" "$PROG" "${SETUP[@]}" 'dprintf visit,"a %ld\n", i' \
		continue
	ok 'attached: gdb continues' wait_until eval 'pid_running $READER_PID'
	feed_reader go
	ok 'attached: lines come' wait_until eval '(($(grep -c "^a " "$WORK/attached.out") > 200000))'
	kill -9 "$GDB_PID"
	ok 'attached: the program ends' wait_exit "$READER_PID"
	is "$EXIT_STATUS" 0 'attached: with status 0'
	like "$(cat "$READER_OUT")" '^text ok$' "attached: its code is the file's again"
	# (gdb's last line may be cut by the kill; what was in flight to it is lost)
	n=$(grep '^a ' "$WORK/attached.out" | sed '$d' | in_order a 0 1)
	ok "attached: the lines until then whole, in order, none twice ($n)" \
		eval '[[ $n =~ ^[0-9]+$ ]] && ((n > 200000))'
fi

done_testing
