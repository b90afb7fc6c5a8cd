#!/bin/bash
# The ptys behind DIR/<pid>/gdb (docs/fuse.md, "The gdb link"):
#
#   any program can open the link and speak RSP on it (here bash: a raw
#   qSupported and its reply); the first byte attaches, the close detaches;
#   resolving the link twice from one thread (stat, then open, as gdb does)
#   gives one pty; a second open gives another;
#   a pty closed without a byte goes at once, one never opened after a while;
#   gdb's detach always ends with gdb's "detached" (the replies are not cut
#   off by a hang-up), and a process that exits under gdb is reported.
. "$(dirname "$0")/../lib/e2e.sh"
. "$(dirname "$0")/../lib/fuse.sh"

PROG=$INFDIR/demo_reader

start_mount || bail "utraced --mount did not start"
reader_ready "$PROG"
P=$READER_PID
LINK=$MNT/$P/gdb

# ptys: the ptys the daemon holds (its /dev/ptmx descriptors)
ptys() {
	local n=0 fd
	for fd in /proc/"$SERVER_PID"/fd/*; do
		[[ $(readlink "$fd") == /dev/ptmx ]] && n=$((n + 1))
	done
	echo "$n"
}

is "$(ptys)" 0 'no pty before anyone resolves the link'

# --- a raw client in bash: stat, open (one pty), speak, open again (another)
SERVER_PID=$SERVER_PID bash -c "$(declare -f ptys)"'
	test -e "$1" || exit 1
	exec 3<>"$1" || exit 1
	printf "%s\n" "$(readlink /proc/self/fd/3)" >"$2/fd3"
	printf "\$qSupported#37" >&3
	IFS= read -r -t 10 -d "#" reply <&3
	printf "%s\n" "$reply" >"$2/reply"
	# (the attach is asynchronous: its stop may come after the reply)
	for i in $(seq 100); do
		cat "$3" >"$2/engines.during"
		grep -q " state=stopped " "$2/engines.during" && break
		sleep 0.05
	done
	exec 4<>"$1" || exit 1
	printf "%s\n" "$(readlink /proc/self/fd/4)" >"$2/fd4"
	ptys >"$2/ptys.during"
' _ "$LINK" "$WORK" "$MNT/$P/engines" &
RAW=$!
wait "$RAW"
is "$?" 0 'bash stats and opens the link twice'
like "$(cat "$WORK/reply")" '^\+?\$PacketSize=[0-9a-f]+;' 'a raw qSupported written to the link is answered'
like "$(cat "$WORK/engines.during")" "^[0-9]+ endpoint=fuse client=$RAW uid=0 state=stopped " \
	'... by an engine of its own, the client known'
like "$(cat "$WORK/fd3")" '^/dev/pts/[0-9]+$' 'the first open is a pty'
isnt_same() { [[ $1 != "$2" ]]; }
ok '... the second another' isnt_same "$(cat "$WORK/fd3")" "$(cat "$WORK/fd4")"
is "$(cat "$WORK/ptys.during")" 2 '... two ptys: stat and the first open made one'
ok 'when bash exits its engine leaves, the process runs on' wait_until traced_by_nobody "$P"
ok '... and the ptys go' wait_until eval '[[ $(ptys) == 0 ]]'
feed_reader again
ok 'the program answers' reader_says '^demo> got: again'

# --- ptys without a session
open_error "$LINK" >/dev/null
ok 'a pty closed without a byte goes' wait_until eval '[[ $(ptys) == 0 ]]'
readlink "$LINK" >/dev/null
is "$(ptys)" 1 'readlink makes a pty'
ok '... which goes when nobody opened it for a while' wait_until eval '[[ $(ptys) == 0 ]]'
ok '... and the process was never stopped' traced_by_nobody "$P"

# --- gdb's detach, five times: always "detached", never a cut-off connection
TARGET=$LINK
for i in 1 2 3 4 5; do
	remote_gdb "$PROG" 'print lines_seen' detach
	[[ $GDB_OUT == *"[Inferior 1 (process $P) detached]"* ]] || break
done
is "$i" 5 'five gdb sessions each end with "[Inferior 1 (process N) detached]"'
[[ $i == 5 ]] || diag "$GDB_OUT"
ok '... and the program runs on' wait_until traced_by_nobody "$P"

# --- the process exits under gdb
remote_gdb_bg "$WORK/gdb.out" "$PROG" continue
ok 'gdb continues the program' wait_until eval "engines_of $P | grep -q state=running"
close_reader
ok 'the program exits at end of input' wait_exit "$P"
ok 'gdb is told and quits' wait_exit "$GDB_PID"
like "$(cat "$WORK/gdb.out")" "^\\[Inferior 1 \\(process $P\\) exited normally\\]" \
	'gdb: "exited normally"'
ok 'the pty goes with gdb' wait_until eval '[[ $(ptys) == 0 ]]'

done_testing
