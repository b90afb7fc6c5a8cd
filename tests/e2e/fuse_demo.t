#!/bin/bash
# The RFC's demo through `utraced --mount DIR`: demo_reader waits in
# read(); a stock gdb does `target remote DIR/<pid>/gdb` with no warning,
# bt, info registers, continue, ^C (SIGINT to gdb), break + hit, quit.
# DIR/<pid>/engines shows the session while it lasts and not after; the
# program then runs on, untraced, and answers its input.
. "$(dirname "$0")/../lib/e2e.sh"
. "$(dirname "$0")/../lib/fuse.sh"

PROG=$INFDIR/demo_reader
IN_READ='(__GI___libc_read|__libc_read|read|__read_nocancel)'

start_mount || bail "utraced --mount did not start"
reader_ready "$PROG"
P=$READER_PID
TARGET=$MNT/$P/gdb

ok 'DIR lists the process' test -d "$MNT/$P"
is "$(cd "$MNT/$P" && echo *)" 'engines gdb' 'DIR/<pid> holds engines and gdb'
like "$(readlink "$MNT/$P/gdb")" '^/dev/pts/[0-9]+$' 'gdb: a link to a pty'
is "$(stat -L -c '%a %U' "$MNT/$P/gdb")" '600 root' "... of the caller's alone (mode 0600, root's)"
is "$(engines_of "$P")" '' 'engines: nobody attached yet'

# gdb, in the background: it waits for the ^C, then feeds the program the
# line that makes it hit the breakpoint.
remote_gdb_bg "$WORK/gdb.out" "$PROG" bt 'info registers rip' \
	"shell cat $MNT/$P/engines >$WORK/engines.during" \
	continue bt 'print lines_seen' 'break say' \
	"shell timeout $E2E_WAIT sh -c \"printf 'world\\\\n' >$WORK/reader.in\"" \
	continue bt 'print s' quit
# The program sleeps in read() before gdb comes too: engines tells when gdb continued.
ok 'continue: the program runs for gdb' wait_until eval "engines_of $P | grep -q state=running"
kill -INT "$GDB_PID"
ok 'gdb quits after the ^C, the breakpoint and quit' wait_exit "$GDB_PID"
GDB_OUT=$(cat "$WORK/gdb.out")

# (gdb warns "File transfers from remote targets can be slow" on any remote target)
is "$(grep -E '^warning|tty_state failed' <<<"$GDB_OUT" | grep -v 'File transfers from remote')" '' \
	'no warning from gdb on connect (no "get_tty_state failed": a real tty)'
like "$GDB_OUT" "^#0 .* in $IN_READ " 'bt: innermost frame in read()'
like "$GDB_OUT" '^#[0-9]+ .* in read_line \(fd=0, buf=0x[0-9a-f]+ "hello", cap=256\) at .*demo_reader\.c:[0-9]+' \
	'bt: read_line with its arguments'
like "$GDB_OUT" '^#[0-9]+ .* in main \(\) at .*demo_reader\.c:[0-9]+' 'bt: main'
like "$GDB_OUT" "^rip +0x[0-9a-f]+ +0x[0-9a-f]+ <$IN_READ\\+[0-9]+>\$" 'info registers rip: in read'
like "$(cat "$WORK/engines.during")" "^[0-9]+ endpoint=fuse client=$GDB_PID uid=0 state=stopped " \
	'engines during the session: gdb, its pid and uid, the process stopped for it'
like "$GDB_OUT" '^Program received signal SIGINT, Interrupt\.' '^C: Program received signal SIGINT'
like "$GDB_OUT" '^\$1 = 1$' '^C: print lines_seen = 1'
like "$GDB_OUT" '^Breakpoint 1, say \(s=0x[0-9a-f]+ "got: world\\n"\) at .*demo_reader\.c:[0-9]+' \
	'break say: hit when the program answers'
like "$GDB_OUT" '^\$2 = 0x[0-9a-f]+ "got: world\\n"$' 'print s at the breakpoint'
like "$GDB_OUT" "^\\[Inferior 1 \\(process $P\\) detached\\]" 'quit detaches'

ok 'after quit the program runs on, traced by nobody' wait_until traced_by_nobody "$P"
is "$(engines_of "$P")" '' 'engines: the session is gone'
ok 'the program answers the line it was stopped on' reader_says '^demo> got: world'
feed_reader again
ok 'the SIGINT was not passed on: it answers more input' reader_says '^demo> got: again'
ok 'the daemon stays up for the next client' pid_alive "$SERVER_PID"

# Attach once more after all that, then leave by closing the pty (gdb killed).
remote_gdb_bg "$WORK/gdb2.out" "$PROG" 'break say' continue
ok 'a second session: the program runs under it' wait_until eval \
	"engines_of $P | grep -q 'state=running breakpoints=0x'"
kill -KILL "$GDB_PID"
wait "$GDB_PID" 2>/dev/null
ok 'gdb killed: its engine leaves, its breakpoint with it' wait_until traced_by_nobody "$P"
feed_reader last
ok 'the program answers, no trap left behind' reader_says '^demo> got: last'

kill -TERM "$SERVER_PID"
ok 'SIGTERM: the daemon exits' server_exits
is "$EXIT_STATUS" 0 'exit status 0'
ok 'and unmounts' eval '! mounted "$MNT"'
close_reader
ok 'at end of input the program exits' wait_exit "$P"
is "$EXIT_STATUS" 0 'with status 0'

done_testing
