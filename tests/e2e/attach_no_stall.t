#!/bin/bash
# An attach that waits for a thread that cannot stop holds only its own
# client, never the daemon. vfork_stuck's main thread waits in vfork()
# for a child that pauses until killed: its attach cannot complete until
# the child is killed (attach_stuck.t). Meanwhile a raw
# client joined to another process through its rendezvous socket sends
# qC every 2 ms: its worst round trip must stay far below those 3 s,
# first while a gdb joins the stuck process through DIR/<pid>/gdb, then
# while a ustrace joins another one that a gdb holds (its join through the
# rendezvous socket and its Qutraced.trace both wait for the vfork
# parent), then while the COMM client's vAttach waits for another one.
. "$(dirname "$0")/../lib/e2e.sh"
. "$(dirname "$0")/../lib/fuse.sh"
. "$(dirname "$0")/../lib/ustrace.sh"

PROG=$INFDIR/vfork_stuck
use_rundir
sleep 1000 &
HELD=$!
track "$HELD"
start_mount --attach :0 "$HELD" || bail "utraced --mount --attach did not start"
wait_until file_has "$SERVER_ERR" "^Listening on port"
TCP=$HOST:$(sed -n 's/^Listening on port \([0-9][0-9]*\).*/\1/p' "$SERVER_ERR" | head -1)
SOCK=$(rendezvous_sock "$HELD")
wait_until test -S "$SOCK" || bail "no rendezvous socket for $HELD"

"$PROG" >"$WORK/p.out" 2>&1 &
P=$!
track "$P"
wait_until file_has "$WORK/p.out" '^child ' || bail "vfork_stuck did not start"
CHILD1=$(sed -n 's/^child //p' "$WORK/p.out")
track "$CHILD1"

# pinger OUT: 1500 qC round trips (about 3 s) through the rendezvous socket, in the background.
pinger() {
	timeout -k 5 "$E2E_WAIT" "$RSPCLIENT" -t "$E2E_WAIT" "unix:$SOCK" --ping qC 1500 2 >"$1" 2>&1 &
	PING_PID=$!
	track "$PING_PID"
}
fast() { [[ -n $(ping_worst "$1") ]] && (($(ping_worst "$1") < 1000)); }

# --- a gdb joins the stuck process through the file
pinger "$WORK/ping1.out"
"$GDB" "${GDB_SETUP[@]}" "$PROG" -ex "target remote $MNT/$P/gdb" -ex 'info threads' \
	</dev/null >"$WORK/gdb1.out" 2>&1 &
GDB1=$!
track "$GDB1"
wait "$PING_PID"
ok "a join that cannot complete: the other client's worst round trip $(ping_worst "$WORK/ping1.out") ms" \
	fast "$WORK/ping1.out"
kill -KILL "$CHILD1"
wait "$GDB1"
like "$(cat "$WORK/gdb1.out")" '^\* 1 +Thread' '... and the join completes once the child is gone'

# --- a ustrace joins a process held by a gdb whose main thread then
# waits in vfork (the trace's own engine must stop it: it cannot)
"$PROG" "$WORK/go3" >"$WORK/p3.out" 2>&1 &
P3=$!
track "$P3"
wait_until file_has "$WORK/p3.out" '^ready' || bail "vfork_stuck did not start"
"$GDB" "${GDB_SETUP[@]}" "$PROG" -ex "target remote $MNT/$P3/gdb" -ex continue \
	</dev/null >"$WORK/gdb3.out" 2>&1 &
GDB3=$!
track "$GDB3"
wait_until test -S "$(rendezvous_sock "$P3")" || bail "no rendezvous socket for $P3"
wait_until eval "[[ \$(pid_state $P3) == S ]]"
touch "$WORK/go3"
wait_until file_has "$WORK/p3.out" '^child ' || bail "vfork_stuck did not vfork"
track "$(sed -n 's/^child //p' "$WORK/p3.out")"
pinger "$WORK/ping3.out"
"$USTRACE" -o "$WORK/u3.out" -p "$P3" 2>"$WORK/u3.err" &
U3=$!
track "$U3"
wait "$PING_PID"
ok "a ustrace join that cannot complete: the other client's worst round trip $(ping_worst "$WORK/ping3.out") ms" \
	fast "$WORK/ping3.out"
ok '... and ustrace gives up, saying why' wait_exit "$U3"
like "$(cat "$WORK/u3.err")" 'no answer|timed out' '... ("no answer" at the join, or "timed out" at the trace)'
ok '... gdb still holds the program' pid_alive "$GDB3"
kill "$GDB3"


# --- the COMM client's vAttach waits for another one
"$PROG" >"$WORK/p2.out" 2>&1 &
P=$!
track "$P"
wait_until file_has "$WORK/p2.out" '^child ' || bail "vfork_stuck did not start"
CHILD2=$(sed -n 's/^child //p' "$WORK/p2.out")
track "$CHILD2"
pinger "$WORK/ping2.out"
timeout -k 5 "$E2E_WAIT" "$RSPCLIENT" -t "$E2E_WAIT" "$TCP" 'qSupported:multiprocess+' \
	"vAttach;$(printf %x "$P")" D >"$WORK/attach.out" 2>&1 &
ATTACH=$!
track "$ATTACH"
wait "$PING_PID"
ok "a vAttach that cannot complete: the other client's worst round trip $(ping_worst "$WORK/ping2.out") ms" \
	fast "$WORK/ping2.out"
kill -KILL "$CHILD2"
wait "$ATTACH"
like "$(sed -n 2p "$WORK/attach.out")" '^T' '... and the vAttach is answered once the child is gone'

ok 'the daemon is up' pid_alive "$SERVER_PID"
ticks() { grep -c '^tick ' "$1"; }
ticking() { # ticking OUT: the program writing OUT ticks on
	local n
	n=$(ticks "$1")
	wait_until eval "(( \$(ticks $1) > $n + 2 ))"
}
ok 'the stuck programs, let go, tick on' eval 'ticking "$WORK/p.out" && ticking "$WORK/p2.out"'

done_testing
