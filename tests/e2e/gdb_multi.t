#!/bin/bash
# What GDB's gdb.multi tests found (docs/conformance.md):
#
#  1. attach-no-multi-process.exp: gdb in its target non-stop mode, the
#     multiprocess feature off, attaches with no program loaded. The
#     attach's OK must come before the thread's stop (heard first, a bare
#     tid made gdb a second inferior), and that stop must not carry
#     registers: gdb would read them in the sizes of an architecture it
#     has not learnt yet ("Remote register badly formatted").
#  2. multi-arch-exec.exp: a 64-bit program execs a 32-bit one. gdb
#     skips the registers that follow "exec:" in the stop reply and reads
#     those before it in the old program's sizes: exec: goes first.
. "$(dirname "$0")/../lib/e2e.sh"

INFDIR32=${INFDIR32:-$TOP/build/inferiors32}

# 1 ------------------------------------ non-stop attach, no multiprocess
start_reader "$INFDIR/demo_reader"
start_server --multi :0 || bail "server did not start"
ex_args 'set remote multiprocess-feature-packet off' 'maint set target-non-stop on' \
	"target extended-remote $TARGET" "attach $READER_PID" 'info threads' 'info inferiors' detach
run_gdb "${EX[@]}"
unlike "$GDB_OUT" 'badly formatted|too long|Invalid hex' 'non-stop attach: the stop read right'
like "$GDB_OUT" "^\\* 1 +Thread $READER_PID .* in " '  one thread, stopped, with its frame'
unlike "$GDB_OUT" '^ +2 +' '  one inferior'
feed_reader hello
reader_says hello
ok '  the program runs on after the detach' pid_running "$READER_PID"
close_reader
kill -TERM "$SERVER_PID" 2>/dev/null
server_exits

# 2 ----------------------------------------- exec into a 32-bit program
PROG32=$INFDIR32/breakloop
if [[ ! -x $PROG32 ]]; then
	skip 3 "no $PROG32 (make inferiors32)"
elif ! "$TOP/tests/lib/kernel_runs.sh" "$INFDIR32"; then
	skip 3 'this kernel runs no 32-bit programs'
else
	start_server --multi :0 || bail "server did not start"
	ex_args "target extended-remote $TARGET" 'set remote exec-file /usr/bin/env' \
		"set args $PROG32" 'catch exec' run 'print $pc' continue
	run_gdb /usr/bin/env "${EX[@]}"
	unlike "$GDB_OUT" 'Invalid hex|badly formatted|too long' 'exec 64 -> 32: the stop read right'
	like "$GDB_OUT" 'Catchpoint 1 \(exec.d .*breakloop\)' '  the exec caught'
	like "$GDB_OUT" 'exited with code 07' '  the 32-bit program runs to its end'
	kill -TERM "$SERVER_PID" 2>/dev/null
	server_exits
fi

done_testing
