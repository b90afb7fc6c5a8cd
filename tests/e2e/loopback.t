#!/bin/bash
# COMM 127.0.0.1:PORT: the server listens on the loopback address only
# (gdbserver listens on every address whatever the host).
. "$(dirname "$0")/../lib/e2e.sh"
skip_all_for_gdbserver 'listen on the loopback address only'

PROG=$INFDIR/breakloop

# listen_addrs PORT: the local addresses of the TCP sockets listening on
# PORT, as /proc/net/tcp{,6} write them (hex; 0100007F is 127.0.0.1).
listen_addrs() {
	local hexport
	hexport=$(printf '%04X' "$1")
	awk -v p="$hexport" '$4 == "0A" { split($2, a, ":"); if (a[2] == p) print a[1] }' \
		/proc/net/tcp /proc/net/tcp6 2>/dev/null | sort -u | xargs
}

start_server 127.0.0.1:0 "$PROG" || bail 'server did not start on 127.0.0.1:0'
is "$(listen_addrs "$PORT")" 0100007F 'listens on 127.0.0.1 only'
remote_gdb "$PROG" 'break bump' continue delete continue
like "$GDB_OUT" '^Breakpoint 1, bump \(step=1\)' 'gdb: breakpoint hit'
exited_with 7 'on loopback'

start_server :0 "$PROG" || bail 'server did not start on :0'
unlike "$(listen_addrs "$PORT")" '^0100007F$' 'without a host: not on loopback only'
rsp --nowait k --expect-close

done_testing
