#!/bin/bash
# ustrace_gdb_slow: back-pressure, never loss.  utraced holds a program
# that gdb continues; ustrace -f joins it through the daemon and is then
# stopped (SIGSTOP) while the program's two threads make N x 3 syscalls
# each.  The daemon neither drops lines nor buffers without bound: once
# ustrace is behind, it keeps the threads that make syscalls stopped.
# After SIGCONT every line arrives, the program ends, and gdb sees it end.
# Then the other way round: the program ends while ustrace is stopped and
# less behind than that; gdb, the --once client, is done, but utraced
# stays until ustrace has read every line.
. "$(dirname "$0")/../lib/e2e.sh"
. "$(dirname "$0")/../lib/ustrace.sh"
skip_all_for_gdbserver 'let another tracer join'

PROG=$INFDIR/trace_loop
N=${USTRACE_SLOW_N:-30000}
use_rundir

start_reader "$PROG" "$N" 0 gate thread
start_server --attach :0 "$READER_PID" || bail "utraced did not attach"
remote_gdb_bg "$WORK/gdb.out" "$PROG" continue
"$USTRACE" -f -o "$WORK/u.out" -p "$READER_PID" 2>"$WORK/u.err" &
U=$!
track "$U"
ok 'ustrace -f joins through the daemon' \
	wait_until file_has "$WORK/u.err" "ustrace: Process $READER_PID attached\$"
# gdb's continue reached the program once it is blocked in read() again
wait_until eval '[[ $(pid_state '"$READER_PID"') == S ]]'
kill -STOP "$U"
feed_reader go
sleep 2
# untraced the loop takes well under a second; with ustrace stopped it must not end
unlike "$(cat "$READER_OUT")" 'trace_loop done' 'with ustrace stopped the program does not run ahead'
is "$(pid_state "$READER_PID")" t '... its threads are held in a ptrace stop'
RSS=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$SERVER_PID/status")
ok "... and utraced's memory stays bounded (${RSS:-?} kB)" test "${RSS:-999999}" -lt 32768
kill -CONT "$U"
ok 'ustrace ends with the program' wait_exit "$U"
is "$EXIT_STATUS" 0 '... with status 0'
reader_says "^trace_loop done n=$N\$"
_tap_result $? 'the program ran to its end'
ok 'gdb saw it exit' wait_until file_has "$WORK/gdb.out" '^\[Inferior 1 \(process [0-9]+\) exited normally\]$'

# every line of both threads, the unfinished/resumed pairs joined
J=$(joined "$WORK/u.out")
is "$(grep -c '^PID getppid() = [0-9]*$' <<<"$J")" $((2 * N)) "every getppid: 2 x $N"
is "$(grep -c '^PID write(3, "tick\\n", 5) = 5$' <<<"$J")" $((2 * N)) "every write: 2 x $N"
is "$(grep -c '^PID openat(AT_FDCWD, "/nonexistent/trace_loop", O_RDONLY) = -1 ENOENT' <<<"$J")" \
	$((2 * N)) "every failed openat: 2 x $N"
is "$(grep -c ' +++ exited with 0 +++$' "$WORK/u.out")" 2 'both threads exit, as strace says (-f)'
is "$(awk '{ print $1 }' "$WORK/u.out" | sort -u | wc -l)" 2 'lines of two threads, each with its tid'

# --- the program ends while ustrace is stopped (~600 kB of lines queued)
M=3000
start_reader "$PROG" "$M" 0 gate
start_server --once --attach :0 "$READER_PID" || bail "utraced did not attach"
remote_gdb_bg "$WORK/gdb2.out" "$PROG" continue
"$USTRACE" -o "$WORK/u2.out" -p "$READER_PID" 2>"$WORK/u2.err" &
U2=$!
track "$U2"
wait_until file_has "$WORK/u2.err" "ustrace: Process $READER_PID attached\$" || bail "no join"
wait_until eval '[[ $(pid_state '"$READER_PID"') == S ]]'
kill -STOP "$U2"
feed_reader go
ok 'with ustrace stopped, a short run ends' wait_gone "$READER_PID"
ok '... gdb sees the exit and ends' wait_exit "$GDB_PID"
sleep 0.5
ok 'utraced stays while ustrace has lines to read' pid_alive "$SERVER_PID"
kill -CONT "$U2"
ok 'ustrace ends' wait_exit "$U2"
is "$(grep -c '^getppid() ' "$WORK/u2.out")" "$M" "... with every getppid: $M"
like "$(tail -1 "$WORK/u2.out")" '^\+\+\+ exited with 0 \+\+\+$' '... and the exit'
ok 'then utraced exits' server_exits

done_testing
