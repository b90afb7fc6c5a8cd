#!/bin/bash
# The command line and the progress lines on stderr, as gdbserver has them.
. "$(dirname "$0")/../lib/e2e.sh"

PROG=$INFDIR/breakloop

# --- options that end at once
run_server --help
is "$RUN_RC" 0 '--help: exit status 0'
like "$RUN_OUT" '^Usage:' '--help: usage on stdout'
for opt in --attach --multi --once; do
	like "$RUN_OUT" "^ +$opt " "--help: describes $opt"
done
run_server --version
is "$RUN_RC" 0 '--version: exit status 0'
like "$RUN_OUT" '[0-9]+\.[0-9]+' '--version: a version number on stdout'
run_server
ok 'no arguments: exit status not 0' test "$RUN_RC" != 0
like "$RUN_ERR" '^Usage:' 'no arguments: usage on stderr'
run_server --attach :0 999999999
ok 'attach to no such process: exit status not 0' test "$RUN_RC" != 0 -a "$RUN_RC" != 124
like "$RUN_ERR" '999999999' 'attach to no such process: says which'
run_server :0 "$WORK/no-such-program"
ok 'no such program: exit status not 0' test "$RUN_RC" != 0 -a "$RUN_RC" != 124

# --- the progress lines, and detach from a launched program
launch "$PROG" 3
like "$(server_stderr)" "^Process $PROG created; pid = [0-9]+\$" 'stderr: Process PROG created; pid = N'
like "$(server_stderr)" "^Listening on port $PORT\$" 'stderr: Listening on port N'
remote_gdb "$PROG" 'break bump' continue detach
like "$(server_stderr)" '^Remote debugging from host 127\.0\.0\.1, port [0-9]+$' \
	'stderr: Remote debugging from host 127.0.0.1, port N'
like "$GDB_OUT" "^\\[Inferior 1 \\(process $INFERIOR_PID\\) detached\\]\$" 'gdb: detached'
like "$(server_stderr)" "^Detaching from process $INFERIOR_PID\$" 'stderr: Detaching from process N'
ok 'after the detach the server exits' server_exits
is "$EXIT_STATUS" 0 'with status 0'
ok 'the detached program runs to its end' wait_gone "$INFERIOR_PID"
ok 'and prints its result' wait_until file_has "$SERVER_OUT" '^counter=6 total=100$'

# --- the port is taken
launch "$PROG"
taken=$PORT
run_server ":$taken" "$PROG"
is "$RUN_RC" 1 'port taken: exit status 1'
like "$RUN_ERR" "^Can't bind address: Address already in use\\.\$" "port taken: Can't bind address"
unlike "$RUN_ERR" 'created' 'port taken: no program started'
rsp '?'
like "$RSP_OUT" '^[ST][0-9a-f]{2}' 'the server that has the port still answers'

# --- without --once the server outlives the connection...
listened=$(listens)
remote_gdb "$PROG" 'break bump' continue disconnect
like "$GDB_OUT" '^Breakpoint 1, bump \(step=1\)' 'first connection: breakpoint hit'
ok 'after a disconnect the server listens again' wait_until eval '(($(listens) > listened))'
remote_gdb "$PROG" bt continue
like "$GDB_OUT" '^#0  bump \(step=1\) at ' 'second connection: the program is where it was'
exited_with 7 'second connection'

# --- ... and with --once it does not
start_server --once :0 "$PROG" || bail 'server did not start with --once'
remote_gdb "$PROG" 'break bump' continue disconnect
like "$GDB_OUT" '^Breakpoint 1, bump \(step=1\)' '--once: breakpoint hit'
ok '--once: the server exits when the client leaves' server_exits
is "$EXIT_STATUS" 0 '--once: with status 0'
ok '--once: the program is killed' wait_gone "$INFERIOR_PID"

# --- stdio: gdb starts the server on a pipe
run_gdb "$PROG" -ex "target remote | exec $SERVER - $PROG 2" \
	-ex 'break bump' -ex continue -ex 'print counter' -ex delete -ex continue
like "$GDB_OUT" '^Remote debugging using stdio$' 'stdio: Remote debugging using stdio'
like "$GDB_OUT" '^Breakpoint 1, bump \(step=1\)' 'stdio: breakpoint hit'
like "$GDB_OUT" '^\$1 = 0$' 'stdio: print'
like "$GDB_OUT" '^counter=3 total=40$' "stdio: the program's output"
like "$GDB_OUT" '^\[Inferior 1 \(process [0-9]+\) exited with code 07\]$' 'stdio: exit code 07'

done_testing
