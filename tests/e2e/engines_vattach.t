#!/bin/bash
# utraced --multi: "attach PID" (vAttach) on a process the daemon already
# holds joins it as one more engine instead of failing.
#
# gdb A holds engines_loop at its breakpoint through DIR/<pid>/gdb; a raw
# client on the COMM port then sends vAttach for the same pid: it gets a
# stop reply, sees the threads and registers, and detaches; A is not
# disturbed (its next continue hits its breakpoint again) and, both gone,
# the program runs on untraced.
. "$(dirname "$0")/../lib/e2e.sh"
. "$(dirname "$0")/../lib/fuse.sh"

PROG=$INFDIR/engines_loop
use_rundir
start_mount "$MNT" --multi :0 || bail "utraced --mount --multi did not start"
wait_until file_has "$SERVER_ERR" '^Listening on port' || bail "no COMM port"
PORT=$(sed -n 's/^Listening on port \([0-9][0-9]*\).*/\1/p' "$SERVER_ERR" | head -1)
"$PROG" 1000000 >"$WORK/loop.out" 2>&1 &
P=$!
track "$P"
wait_until file_has "$WORK/loop.out" '^iter 100 ' || bail "engines_loop does not run"

ex_args "target remote $MNT/$P/gdb" 'break f1' continue 'printf "A-STOP %d\n", g1' \
	"$(gdb_mark "$WORK/a_holds")" "$(gdb_wait_file "$WORK/b_done")" \
	continue 'printf "A-STOP %d\n", g1' detach
"$GDB" "${GDB_SETUP[@]}" "$PROG" "${EX[@]}" </dev/null >"$WORK/a.out" 2>&1 &
A=$!
track "$A"
wait_until test -e "$WORK/a_holds" || bail "gdb A did not stop: $(cat "$WORK/a.out")"

mapfile -t R < <(timeout -k 2 20 "$RSPCLIENT" "127.0.0.1:$PORT" '!' "vAttach;$(printf '%x' "$P")" \
	qfThreadInfo g "D;$(printf '%x' "$P")" 2>&1)
is "${R[0]}" 'OK' 'extended mode'
like "${R[1]}" '^T[0-9a-f]{2}' 'vAttach of the held process: a stop reply, not an error'
like "${R[2]}" "^m(p$(printf '%x' "$P")\\.)?$(printf '%x' "$P")" 'its threads'
like "${R[3]}" '^[0-9a-f]{100,}$' 'its registers'
is "${R[4]}" 'OK' 'and it detaches'
touch "$WORK/b_done"
ok 'gdb A ends' wait_exit "$A"
is "$(grep -c '^A-STOP ' "$WORK/a.out")" 2 'A stopped at its breakpoint again after B left'
like "$(cat "$WORK/a.out")" "^\\[Inferior 1 \\(process $P\\) detached\\]" 'A detaches'
ok 'the program runs on, untraced' wait_until eval '[[ $(tracer_of $P) == 0 ]] && pid_running $P'
done_testing
