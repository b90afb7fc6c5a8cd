#!/bin/bash
# A non-stop gdb that joins a process with a thread that cannot stop,
# through DIR/<pid>/gdb or a rendezvous socket, gets the partial attach a
# non-stop vAttach has (attach_nonstop_stuck.t; engine_attach_partial):
# after 0.5 s the threads that have stopped are reported, the others
# shown running. vfork_stuck's main thread waits in vfork() for a child
# that pauses until killed; its ticker stops.
#
#   DIR/<pid>/gdb of a process nobody holds: the join's attach is the
#   process's own;
#   the rendezvous socket of a process a raw client holds (it let it
#   run): the joiner stops what it can, the holder goes on.
#
# Then the child is killed, gdb detaches, the program runs on. Before,
# both joins waited for the vfork parent (until the stop timeout: the
# join's connection closed, gdb: "Remote connection closed").
. "$(dirname "$0")/../lib/e2e.sh"
. "$(dirname "$0")/../lib/fuse.sh"

PROG=$INFDIR/vfork_stuck
use_rundir
start_mount || bail "utraced --mount did not start"
ticks() { grep -c '^tick ' "$1"; }
threads_untraced() {
	local t
	for t in /proc/"$1"/task/*; do
		[[ $(sed -n 's/^TracerPid:[[:space:]]*//p' "$t/status" 2>/dev/null) == 0 ]] || return 1
	done
}

# join_nonstop NAME TARGET OUT: a non-stop gdb joins through TARGET; the
# child is killed once it has joined; gdb detaches when told.
join_nonstop() {
	local name=$1 target=$2 out=$3
	rm -f "$WORK/joined" "$WORK/leave"
	ex_args 'set non-stop on' "target remote $target" "$(gdb_mark "$WORK/joined")" 'info threads' \
		"$(gdb_wait_file "$WORK/leave")" detach
	T0=$(date +%s%N)
	"$GDB" "${GDB_SETUP[@]}" "$PROG" "${EX[@]}" </dev/null >"$WORK/$name.gdb" 2>&1 &
	GDB_PID=$!
	track "$GDB_PID"
	wait_until eval "test -e $WORK/joined || ! pid_alive $GDB_PID"
	MS=$((($(date +%s%N) - T0) / 1000000))
	ok "$name: the join succeeds without the vfork parent (${MS} ms with gdb's start)" \
		test -e "$WORK/joined" || diag "$(cat "$WORK/$name.gdb")"
	N=$(ticks "$out")
	sleep 0.5
	is "$(ticks "$out")" "$N" "$name: ... the ticker is stopped"
	like "$(cat "$WORK/$name.gdb")" '^\* *[0-9]+ +Thread .*\(running\)$|^ +[0-9]+ +Thread .*\(running\)$' \
		"$name: ... the vfork parent is shown running"
	kill -KILL "$CHILD"
	sleep 0.5 # (the vfork parent runs on, as gdb was told)
	touch "$WORK/leave"
	ok "$name: gdb ends" wait_exit "$GDB_PID"
	unlike "$(cat "$WORK/$name.gdb")" 'internal-error|failed|closed' "$name: ... without an error" ||
		diag "$(cat "$WORK/$name.gdb")"
	like "$(cat "$WORK/$name.gdb")" '^\[Inferior 1 \(process [0-9]+\) detached\]' "$name: ... detached"
	# (not before: the ticker, stopped, may hold stdout's lock)
	ok "$name: ... the vfork parent goes on" wait_until file_has "$out" '^vfork done'
}

# --- DIR/<pid>/gdb of a process nobody holds
"$PROG" >"$WORK/p1.out" 2>&1 &
P=$!
track "$P"
wait_until file_has "$WORK/p1.out" '^child ' || bail "vfork_stuck did not start"
CHILD=$(sed -n 's/^child //p' "$WORK/p1.out")
track "$CHILD"
join_nonstop tree "$MNT/$P/gdb" "$WORK/p1.out"
ok 'tree: the program is untraced' wait_until threads_untraced "$P"
N=$(ticks "$WORK/p1.out")
ok '... and ticks on' wait_until eval "(( \$(ticks $WORK/p1.out) > $N + 2 ))"

# --- the rendezvous socket of a process a raw client holds and lets run
"$PROG" "$WORK/go" >"$WORK/p2.out" 2>&1 &
P=$!
track "$P"
wait_until file_has "$WORK/p2.out" '^ready' || bail "vfork_stuck did not start"
"$RSPCLIENT" -t $((E2E_WAIT * 3)) "tty:$MNT/$P/gdb" 'QPassSignals:14' '?' --nowait c \
	--wait-file "$WORK/h_go" --raw '\x03' D >"$WORK/holder.out" 2>&1 &
H=$!
track "$H"
wait_until file_has "$WORK/holder.out" '^T' || bail "the holder got no stop reply"
SOCK=$(rendezvous_sock "$P")
wait_until test -S "$SOCK" || bail "no rendezvous socket"
touch "$WORK/go"
wait_until file_has "$WORK/p2.out" '^child ' || bail "no vfork child"
CHILD=$(sed -n 's/^child //p' "$WORK/p2.out")
track "$CHILD"
join_nonstop rendezvous "$SOCK" "$WORK/p2.out"
N=$(ticks "$WORK/p2.out")
ok 'rendezvous: the holder'"'"'s program runs on' wait_until eval "(( \$(ticks $WORK/p2.out) > $N + 2 ))"
touch "$WORK/h_go"
ok 'the holder ends' wait_exit "$H"
like "$(sed -n 3p "$WORK/holder.out")" '^T' "... its ^C stops the program"
is "$(sed -n 4p "$WORK/holder.out")" OK '... its D is OK'
ok '... the program is untraced' wait_until threads_untraced "$P"
ok 'the daemon is still up' pid_alive "$SERVER_PID"

done_testing
