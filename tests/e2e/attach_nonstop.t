#!/bin/bash
# gdb connecting with `target remote` in non-stop mode (user non-stop, or
# all-stop on a non-stop target) to a process of several threads that the
# server attached (COMM --attach PID, as gdb.server/attach-flag.exp).
#
# gdb 13 asks for the stopped threads with '?' and cannot take more than
# one stop there (a second trips an internal assertion and kills it).
# So, as gdbserver, the server reports the thread the attach stopped and
# lets the others run: in non-stop gdb shows them running (and they
# are); in all-stop gdb stops them itself. Either way gdb lives,
# detaches, and the program runs on.
. "$(dirname "$0")/../lib/e2e.sh"

PROG=$INFDIR/engines_threads
"$PROG" >"$WORK/p.out" 2>&1 &
P=$!
track "$P"
wait_until file_has "$WORK/p.out" '^started' || bail "engines_threads did not start"
ticks() { grep -c '^tick ' "$WORK/p.out"; }
ticking() {
	local n
	n=$(ticks)
	wait_until eval "(( \$(ticks) > $n + 2 ))"
}
running_lines() { # running_lines TEXT: threads gdb shows running
	grep -c '^[ *] *[0-9]\+ \+Thread .*(running)$' <<<"$1"
}

# --- user non-stop
start_server :0 --attach "$P" || bail "server did not attach"
run_gdb "$PROG" -ex 'set non-stop on' -ex "target remote $TARGET" -ex 'info threads' \
	-ex 'print counts[1]' -ex 'shell sleep 0.5' -ex 'print counts[1]' -ex detach
unlike "$GDB_OUT" 'internal-error' 'non-stop: gdb takes the connection'
like "$GDB_OUT" '^\* 1 +Thread [0-9.]+ "engines_threads" ' '... thread 1, the attach stop, stopped'
is "$(running_lines "$GDB_OUT")" 3 '... the three workers running'
C1=$(sed -n 's/^\$1 = //p' <<<"$GDB_OUT")
C2=$(sed -n 's/^\$2 = //p' <<<"$GDB_OUT")
ok "... and they really run: worker 1 counts on (${C1:-?}, then ${C2:-?})" test "${C2:-0}" -gt "${C1:-0}"
like "$GDB_OUT" "^\\[Inferior 1 \\(process $P\\) detached\\]" '... detach'
ok '... the program runs on' ticking
ok '... the server exits' server_exits

# --- all-stop on a non-stop target
start_server :0 --attach "$P" || bail "server did not attach"
run_gdb "$PROG" -ex 'maint set target-non-stop on' -ex "target remote $TARGET" \
	-ex 'info threads' -ex 'print counts[1] == counts[1]' -ex detach
unlike "$GDB_OUT" 'internal-error' 'all-stop on non-stop: gdb takes the connection'
is "$(grep -c '^[ *] *[0-9]\+ \+Thread ' <<<"$GDB_OUT")" 4 '... four threads'
is "$(running_lines "$GDB_OUT")" 0 '... gdb stopped them all'
like "$GDB_OUT" '^\$1 = 1$' '... memory reads'
like "$GDB_OUT" "^\\[Inferior 1 \\(process $P\\) detached\\]" '... detach'
ok '... the program runs on' ticking
unlike "$(cat "$WORK/p.out")" 'EINTR|BACKWARDS' 'no stop or resume leaked to the program'

done_testing
