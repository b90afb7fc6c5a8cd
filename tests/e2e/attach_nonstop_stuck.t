#!/bin/bash
# A non-stop attach to a process with a thread that cannot stop answers
# with the threads that have stopped and shows the other running, rather
# than failing at the stop timeout (issue 16; gdb_attach.c,
# engine_attach_partial). vfork_stuck's main thread waits in vfork() for a
# child that pauses until killed; its ticker stops. gdb (non-stop on)
# attaches through the --multi server: the attach succeeds (after 0.5 s
# of waiting for the vfork parent, plus gdb's own time), the ticker is
# stopped (it ticks no more), the main thread is shown running. gdb asks
# every thread to stop after an attach (vCont;t): when the child is
# killed and the vfork ends, the main thread stops and is reported (a
# stop notification). gdb detaches, and the program runs on untraced
# ("vfork done", ticks). Before, such an attach failed after the stop
# timeout (3 s); the all-stop attach still does (attach_stuck.t).
. "$(dirname "$0")/../lib/e2e.sh"

skip_all_for_gdbserver 'a partial non-stop attach (gdbserver waits for every thread)'
PROG=$INFDIR/vfork_stuck
start_server --multi :0 || bail "server did not start"
ticks() { grep -c '^tick ' "$1"; }
threads_untraced() {
	local t
	for t in /proc/"$1"/task/*; do
		[[ $(sed -n 's/^TracerPid:[[:space:]]*//p' "$t/status" 2>/dev/null) == 0 ]] || return 1
	done
}

"$PROG" >"$WORK/p.out" 2>&1 &
P=$!
track "$P"
wait_until file_has "$WORK/p.out" '^child ' || bail "vfork_stuck did not start"
CHILD=$(sed -n 's/^child //p' "$WORK/p.out")
track "$CHILD"

rm -f "$WORK/attached" "$WORK/leave"
ex_args 'set non-stop on' "target extended-remote $TARGET" "attach $P" "$(gdb_mark "$WORK/attached")" \
	'info threads' "shell while [ ! -e '$WORK/leave' ]; do sleep 0.05; done" 'info threads' detach
T0=$(date +%s%N)
"$GDB" "${GDB_SETUP[@]}" "$PROG" "${EX[@]}" </dev/null >"$WORK/gdb.out" 2>&1 &
GDB_PID=$!
track "$GDB_PID"
wait_until test -e "$WORK/attached" || bail "gdb did not attach: $(cat "$WORK/gdb.out")"
MS=$((($(date +%s%N) - T0) / 1000000))
unlike "$(cat "$WORK/gdb.out")" "Attaching to process $P failed" \
	"the attach succeeds without the vfork parent (${MS} ms with gdb's start)"
N=$(ticks "$WORK/p.out")
sleep 0.5
is "$(ticks "$WORK/p.out")" "$N" '... the ticker is stopped'
kill -KILL "$CHILD"
sleep 0.5 # (the vfork parent stops now, as gdb asked at its attach)
touch "$WORK/leave"
ok 'gdb ends' wait_exit "$GDB_PID"
unlike "$(cat "$WORK/gdb.out")" 'internal-error|failed' '... without an error' ||
	diag "$(cat "$WORK/gdb.out")"
like "$(cat "$WORK/gdb.out")" '^\* *[0-9]+ +Thread .*\(running\)$|^ +[0-9]+ +Thread .*\(running\)$' \
	'... it showed the vfork parent running'
like "$(cat "$WORK/gdb.out")" "^\\[Inferior 1 \\(process $P\\) detached\\]" '... and detached'
ok '... the vfork parent goes on' wait_until file_has "$WORK/p.out" '^vfork done'
ok '... the program is untraced' wait_until threads_untraced "$P"
N=$(ticks "$WORK/p.out")
ok '... and ticks on' wait_until eval "(( \$(ticks $WORK/p.out) > $N + 2 ))"

done_testing
