#!/bin/bash
# A fork child whose first stop comes late holds nobody but its parent
# (fork.c, fork_child.c: nothing waits for it in the loop). fork_late
# forks while a SCHED_FIFO thread hogs the one CPU the process may use,
# so the child (SCHED_OTHER) stops for the first time about 1.5 s after
# the fork. A gdb with a breakpoint in child_work() (which only the child
# calls: a trap left in it kills it) joins it through DIR/<pid>/gdb, while
# a raw client joined to another process through its rendezvous socket
# sends qC every 2 ms: its worst round trip stays far below the child's
# delay (the daemon used to wait for that first stop). Then the same with
# gdb killed (-9) while the child is still to stop: the child is let go
# clean all the same. Needs root (SCHED_FIFO).
. "$(dirname "$0")/../lib/e2e.sh"
. "$(dirname "$0")/../lib/fuse.sh"

PROG=$INFDIR/fork_late
((EUID == 0)) || skip_all 'SCHED_FIFO needs root'
use_rundir
sleep 1000 &
HELD=$!
track "$HELD"
start_mount --attach :0 "$HELD" || bail "utraced --mount --attach did not start"
# the daemon and the other client off the hogged CPU (0): what is measured is the daemon's waiting
taskset -apc 1 "$SERVER_PID" >/dev/null || bail "taskset failed"
SOCK=$(rendezvous_sock "$HELD")
wait_until test -S "$SOCK" || bail "no rendezvous socket for $HELD"

# pinger OUT: 1000 qC round trips (2 s at least) through the rendezvous socket, in the background.
pinger() {
	taskset -c 1 timeout -k 5 "$E2E_WAIT" "$RSPCLIENT" -t "$E2E_WAIT" "unix:$SOCK" --ping qC 1000 2 >"$1" 2>&1 &
	PING_PID=$!
	track "$PING_PID"
}

# trial N KILL: a fork_late (P) joined by a gdb (killed with -9 after the fork if KILL)
trial() {
	local t=$WORK/t$1
	rm -f "$t.go"
	"$PROG" "$t.go" >"$t.out" 2>&1 &
	P=$!
	track "$P"
	wait_until file_has "$t.out" '^ready' || bail "fork_late did not start"
	file_has "$t.out" '^no rt' && skip_all 'no SCHED_FIFO here'
	"$GDB" "${GDB_SETUP[@]}" "$PROG" -ex "target remote $MNT/$P/gdb" -ex 'break child_work' \
		-ex "$(gdb_mark "$t.armed")" -ex continue </dev/null >"$t.gdb" 2>&1 &
	GDBP=$!
	track "$GDBP"
	wait_until test -e "$t.armed" || bail "gdb did not join"
	sleep 0.3
	pinger "$t.ping"
	touch "$t.go"
	if [[ $2 == kill ]]; then
		sleep 0.5 # (the fork is made 50 ms after the go; its child waits 1.5 s)
		kill -9 "$GDBP"
	fi
	ok "trial $1: the program ran to its end" wait_exit "$P"
	is "$EXIT_STATUS" 0 "trial $1: ... exit status 0" || diag "$(cat "$t.out")"
	like "$(cat "$t.out")" '^child ran after [0-9]+ ms$' "trial $1: the child ran, no trap of ours in it"
	LATE=$(sed -n 's/^child ran after \([0-9]*\) ms$/\1/p' "$t.out")
	wait "$PING_PID"
	WORST=$(ping_worst "$t.ping")
	[[ $2 == kill ]] || wait "$GDBP"
}

trial 1 follow
ok "the child's first stop came late (${LATE:-?} ms)" eval '((${LATE:-0} >= 800))'
ok "... another client's worst round trip meanwhile: ${WORST:-?} ms" eval '[[ -n $WORST ]] && ((WORST < 300))'
like "$(cat "$WORK/t1.gdb")" 'Detaching after fork from child process' '... and gdb heard of the fork'

trial 2 kill
ok "gdb killed while the child was to stop: its worst round trip ${WORST:-?} ms" \
	eval '[[ -n $WORST ]] && ((WORST < 300))'

# --- the daemon crashes (build/utraced-crashtest) while the child is
# still to stop: the child is let go without the trap it kept for gdb
CRASHER=$TOP/build/utraced-crashtest
if [[ -x $CRASHER ]]; then
	t=$WORK/t3
	"$PROG" "$t.go" >"$t.out" 2>&1 &
	P=$!
	track "$P"
	wait_until file_has "$t.out" '^ready' || bail "fork_late did not start"
	UTRACED_CRASH=fork:1:segv SERVER=$CRASHER start_server --attach :0 "$P" ||
		bail "the crashing server did not attach"
	remote_gdb_bg "$t.gdb" "$PROG" 'break child_work' "$(gdb_mark "$t.armed")" continue
	wait_until test -e "$t.armed" || bail "gdb did not attach"
	sleep 0.3
	touch "$t.go"
	ok "crash while the child was to stop: the program ran to its end" wait_exit "$P"
	is "$EXIT_STATUS" 0 '... exit status 0' || diag "$(cat "$t.out")"
	like "$(cat "$t.out")" '^child ran after [0-9]+ ms$' '... the child ran, no trap of ours in it'
	like "$(cat "$SERVER_ERR")" 'restoring and detaching' '... the daemon crashed there'
else
	skip 4 "no $CRASHER"
fi

done_testing
