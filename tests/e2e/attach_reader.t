#!/bin/bash
# Attach to demo_reader while it waits in read(): backtrace, registers
# (general and vector), globals and locals, detach; the program goes on
# working.  Then attach again, continue, interrupt with ^C (SIGINT to gdb),
# detach; the program still works and exits normally at end of input. The
# old spelling COMM --attach PID works too.
. "$(dirname "$0")/../lib/e2e.sh"

PROG=$INFDIR/demo_reader
# The innermost frame: read(), or on i386 the vDSO's system call entry.
IN_READ='(__GI___libc_read|__libc_read|read|__read_nocancel|__kernel_vsyscall)'
PC_REG=$(pc_register "$PROG")

reader_ready "$PROG"

# --- attach, look around, detach
start_server --attach :0 "$READER_PID" || bail "server did not attach"
like "$(server_stderr)" "^Attached; pid = $READER_PID\$" 'server: Attached; pid = N'
remote_gdb "$PROG" bt "info registers $PC_REG" 'info registers xmm0' \
	'print lines_seen' 'print prompt' \
	'frame function read_line' 'info args' 'frame function main' 'info locals' detach
like "$GDB_OUT" "^#0 .* in $IN_READ " 'bt: innermost frame in read()'
like "$GDB_OUT" '^#[0-9]+ .* in read_line \(fd=0, buf=0x[0-9a-f]+ "hello", cap=256\) at .*demo_reader\.c:[0-9]+' \
	'bt: read_line with its arguments'
like "$GDB_OUT" '^#[0-9]+ .* in main \(\) at .*demo_reader\.c:[0-9]+' 'bt: main'
like "$GDB_OUT" "^$PC_REG +0x[0-9a-f]+ +0x[0-9a-f]+ <$IN_READ\\+[0-9]+>\$" "info registers $PC_REG: in read"
like "$GDB_OUT" '^xmm0 +\{.*v4_int32 = \{0x[0-9a-f]+, 0x[0-9a-f]+, 0x[0-9a-f]+, 0x[0-9a-f]+\}.*uint128 = 0x[0-9a-f]+\}' \
	'info registers xmm0: a vector'
like "$GDB_OUT" '^\$1 = 1$' 'print a global: lines_seen = 1'
like "$GDB_OUT" '^\$2 = 0x[0-9a-f]+ "demo> "$' 'print a global string'
like "$GDB_OUT" '^cap = 256$' 'info args in read_line'
like "$GDB_OUT" '^len = 5$' 'info locals in main: len'
like "$GDB_OUT" '^line = "hello", .\\000. <repeats 250 times>$' 'info locals in main: line'
like "$GDB_OUT" "^\\[Inferior 1 \\(process $READER_PID\\) detached\\]" 'gdb: detached'
ok 'server exits after the detach' server_exits
is "$EXIT_STATUS" 0 'server exit status 0'
like "$(server_stderr)" "^Detaching from process $READER_PID\$" 'server: Detaching from process N'

feed_reader world
ok 'after the detach the program answers' reader_says '^demo> got: world'

# --- gdbserver's old spelling, COMM --attach PID (GDB's testsuite uses it)
start_server :0 --attach "$READER_PID" || bail "server did not attach (COMM --attach PID)"
like "$(server_stderr)" "^Attached; pid = $READER_PID\$" 'COMM --attach PID: attached'
remote_gdb "$PROG" bt detach
like "$GDB_OUT" "^#0 .* in $IN_READ " '... bt in read()'
ok '... the server exits after the detach' server_exits

# --- attach, continue, ^C, detach
start_server --attach :0 "$READER_PID" || bail "server did not attach again"
remote_gdb_bg "$WORK/gdb.out" "$PROG" continue bt 'print lines_seen' 'print $_siginfo.si_signo' detach
# In batch mode gdb prints no "Continuing.": the program leaving its
# tracing stop tells that the continue went through.
ok 'continue: the program runs' wait_until pid_running "$READER_PID"
kill -INT "$GDB_PID"
ok 'gdb ends after the interrupt' wait_exit "$GDB_PID"
GDB_OUT=$(cat "$WORK/gdb.out")
like "$GDB_OUT" '^Program received signal SIGINT, Interrupt\.' '^C: Program received signal SIGINT'
like "$GDB_OUT" "^#0 .* in $IN_READ " '^C: stopped in read()'
like "$GDB_OUT" '^#[0-9]+ .* in read_line \(fd=0, buf=0x[0-9a-f]+ "world", cap=256\)' '^C: bt after the interrupt'
like "$GDB_OUT" '^\$1 = 2$' '^C: lines_seen = 2'
like "$GDB_OUT" '^\$2 = 2$' '^C: $_siginfo says SIGINT, as the stop does'
like "$GDB_OUT" "^\\[Inferior 1 \\(process $READER_PID\\) detached\\]" '^C: detached'
ok 'server exits after the second detach' server_exits

feed_reader again
ok 'the SIGINT was not passed to the program: it answers' reader_says '^demo> got: again'
close_reader
ok 'at end of input the program exits' wait_exit "$READER_PID"
is "$EXIT_STATUS" 0 'with status 0'
ok 'having seen 3 lines' reader_says '^bye after 3 lines'

done_testing
