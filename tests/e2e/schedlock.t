#!/bin/bash
# schedlock: gdb's scheduler-locking. With `set scheduler-locking on` a
# continue resumes one thread (vCont;c:TID); the other must not run, and a
# ^C must report the thread that ran (gdb.threads/schedlock.exp: utraced
# reported the held main thread, gdb then resumed that one alone and the
# next breakpoint never came). With `step` and `on`, next/step move the
# current thread only.
. "$(dirname "$0")/../lib/e2e.sh"

PROG=$INFDIR/schedlock
LOOP=$(line_of schedlock.c spin-loop)

# counts_of N: the two counters of the Nth `print counts` ($N = {A, B}).
counts_of() {
	sed -n "s/^\\\$$1 = {\\([0-9]*\\), \\([0-9]*\\)}\$/\\1 \\2/p" <<<"$GDB_OUT"
}

# locked_out PID: main is stopped (t) and the worker runs (R): the locked continue.
locked_out() {
	local main other tid
	main=$(sed 's/.*) //' "/proc/$1/task/$1/stat" 2>/dev/null | cut -c1)
	for tid in $(ls "/proc/$1/task" 2>/dev/null); do
		((tid == $1)) || other=$(sed 's/.*) //' "/proc/$1/task/$tid/stat" 2>/dev/null | cut -c1)
	done
	[[ $main == t && ${other:-} == R ]]
}

# to_worker: commands that stop in the worker's loop with both threads spinning.
TO_WORKER=('break both_running' continue "break schedlock.c:$LOOP if id != 0" continue delete)

# --- continue with the lock on, interrupted
launch "$PROG"
# (a stepi of main first: the last thread to stop is not the one resumed)
remote_gdb_bg "$WORK/gdb.out" "$PROG" "${TO_WORKER[@]}" 'set scheduler-locking on' \
	'thread 1' stepi 'thread 2' 'print counts' continue 'print counts' thread \
	"break schedlock.c:$LOOP if id != 0" continue 'print counts'
ok 'the locked continue is under way: the worker runs, main does not' \
	wait_until locked_out "$INFERIOR_PID"
sleep 0.5
kill -INT "$GDB_PID"
ok 'gdb ends' wait_exit "$GDB_PID"
GDB_OUT=$(cat "$WORK/gdb.out")
like "$GDB_OUT" '^Thread 2 "spinner" hit Breakpoint 2, spin \(id=1\)' 'stopped in the worker, its own loop'
like "$GDB_OUT" '^Thread 2 "spinner" received signal SIGINT, Interrupt\.' '^C reports the thread that was resumed'
like "$GDB_OUT" '^\[Current thread is 2 ' 'the current thread is still the worker'
read -r a0 a1 <<<"$(counts_of 1)"
read -r b0 b1 <<<"$(counts_of 2)"
read -r c0 c1 <<<"$(counts_of 3)"
ok "the locked worker ran (${a1:-?} -> ${b1:-?})" eval '((${b1:-0} > ${a1:-0}))'
is "${b0:-?}" "${a0:-!}" 'main did not run while locked out'
like "$GDB_OUT" '^Thread 2 "spinner" hit Breakpoint 3, spin \(id=1\)' 'a locked continue of the worker meets its breakpoint'
is "${c0:-?}" "${a0:-!}" 'main still did not run'

# --- next and step with the lock on (step, then on): only the worker moves
for lock in step on; do
	launch "$PROG"
	remote_gdb "$PROG" "${TO_WORKER[@]}" "set scheduler-locking $lock" 'print counts' \
		next next next step step 'print counts' 'set scheduler-locking off' 'print counts'
	read -r a0 a1 <<<"$(counts_of 1)"
	read -r b0 b1 <<<"$(counts_of 2)"
	like "$GDB_OUT" '^bump \(id=1\) at ' "lock $lock: step enters bump in the worker"
	ok "lock $lock: the worker moved (${a1:-?} -> ${b1:-?})" eval '((${b1:-0} > ${a1:-0}))'
	is "${b0:-?}" "${a0:-!}" "lock $lock: main did not move during next and step"
	unlike "$(sed -n '/^\$1 = /,$p' <<<"$GDB_OUT")" 'Switching to' "lock $lock: no other thread was reported"
done

done_testing
