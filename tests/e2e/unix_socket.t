#!/bin/bash
# COMM unix:PATH: the server listens on a local socket (gdbserver cannot).
. "$(dirname "$0")/../lib/e2e.sh"
skip_all_for_gdbserver 'listen on a unix:PATH socket'

PROG=$INFDIR/breakloop
SOCK=$WORK/utraced.sock

start_server "unix:$SOCK" "$PROG" || bail "server did not listen on unix:$SOCK"
ok 'the socket is there' test -S "$SOCK"
like "$(server_stderr)" "^Process $PROG created; pid = [0-9]+\$" 'stderr: Process PROG created'
rsp '?'
like "$RSP_OUT" '^[ST][0-9a-f]{2}' 'rspclient: a stop reply'
remote_gdb "$PROG" 'break bump' continue 'print step' delete continue
like "$GDB_OUT" '^Breakpoint 1, bump \(step=1\)' 'gdb: breakpoint hit'
like "$GDB_OUT" '^\$1 = 1$' 'gdb: print'
exited_with 7 'over the unix socket'

done_testing
