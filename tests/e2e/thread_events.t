#!/bin/bash
# Threads coming and going: QThreadEvents (T05create, w stop replies) and
# no-resumed (N), with raw packets and with gdb, all-stop and non-stop.
#
# thread_exit runs a first worker that stops at first_done() and returns
# while main waits in pthread_join; then (without an argument) a second
# worker blocks in read() and main calls leader_done() and pthread_exit().
#
#  1. raw: qSupported answers QThreadEvents+ and no-resumed+; malformed
#     QThreadEvents packets are refused; with QThreadEvents:1 each
#     worker's birth (T05 ... create:;) and the exits of the first worker
#     and of the leader (w0;pPID.TID) are stops, each named by the thread's
#     id; vKill works with the leader gone; a second client's Hg, g and p
#     of the gone worker answer unavailable registers; without
#     QThreadEvents, c runs to the exit (thread_exit x: exit code 3 after
#     the first worker);
#  2. gdb, scheduler-locking on a thread that exits (as GDB's
#     no-unwaited-for-left.exp): "No unwaited-for children left.", only the
#     main thread listed; then the leader exiting alone while the other
#     thread stays locked: the same, only thread 3 left, and its memory and
#     registers still readable; kill ends the process;
#  3. the same with `maint set target-non-stop on`: gdb stops threads one
#     by one (vCont;t) with thread events on (QThreadEvents:1 sent);
#  4. detach after the leader is gone: the process lives on in its second
#     worker, running and not traced;
#  5. thread_exec: a thread execs while gdb, scheduler-locking step, steps
#     it with the leader held: the exec comes (under the leader's tid) and
#     gdb stops at main in the new image.
. "$(dirname "$0")/../lib/e2e.sh"

PROG=$INFDIR/thread_exit

# 1 -------------------------------------------------------------- raw
launch "$PROG"
pid=$(printf '%x' "$INFERIOR_PID")
rsp 'qSupported:multiprocess+;no-resumed+' 'QThreadEvents:2' 'QThreadEvents:' 'QThreadEvents:1x' \
	'QThreadEvents:1' c c c c "Hgp$pid.$pid" g
like "$RSP_OUT" '(^|;)QThreadEvents\+(;|$)' 'qSupported: QThreadEvents+'
like "$RSP_OUT" '(^|;)no-resumed\+(;|$)' 'qSupported: no-resumed+'
is "$(sed -n 2,4p "$RSP_FILE" | grep -c '^E')" 3 'malformed QThreadEvents refused'
is "$(sed -n 5p "$RSP_FILE")" OK 'QThreadEvents:1 OK'
create=$(sed -n 6p "$RSP_FILE")
like "$create" "^T05thread:p$pid\\.[0-9a-f]+;.*create:;\$" 'a new thread is a create stop'
tid=$(sed -n 's/^T05thread:p[0-9a-f]*\.\([0-9a-f]*\);.*/\1/p' <<<"$create")
ok 'the create stop names the new thread' test -n "$tid" -a "$tid" != "$pid"
# what follows races (the first worker's exit, the second's birth, the
# leader's exit): any order, each once
later=$(sed -n 7,9p "$RSP_FILE")
like "$later" "^w0;p$pid\\.$tid\$" "the first worker's exit is a w stop of that thread"
like "$later" "^T05thread:p$pid\\.[0-9a-f]+;.*create:;\$" "the second worker's birth"
like "$later" "^w0;p$pid\\.$pid\$" 'the leader exiting alone is a w stop too'
is "$(sed -n 10p "$RSP_FILE")" OK 'Hg of the leader that exited: selected all the same'
like "$(sed -n 11p "$RSP_FILE")" '^x{200,}$' '  its registers are unavailable'
ok 'the process lives on' pid_alive "$(ls /proc/"$INFERIOR_PID"/task | grep -vx "$INFERIOR_PID")"
# a second client (the process stays stopped for it) selects the first
# worker, gone by now: its registers are unavailable, not an error
rsp 'qSupported:multiprocess+' "Hgp$pid.$tid" g p10
is "$(sed -n 2p "$RSP_FILE")" OK 'Hg of a worker that is gone: selected'
like "$(sed -n 3p "$RSP_FILE")" '^x{200,}$' 'g of a thread that is gone: every register unavailable'
like "$(sed -n 4p "$RSP_FILE")" '^x{8,}$' 'p of it: unavailable'
rsp "vKill;$pid"
is "$RSP_OUT" OK 'vKill with the leader gone'
ok 'the process is gone' wait_gone "$INFERIOR_PID"

launch "$PROG" x
rsp 'qSupported:multiprocess+' c
is "$(sed -n 2p "$RSP_FILE")" "W03;process:$(printf '%x' "$INFERIOR_PID")" \
	'no thread events unless asked'
ok 'server exits' server_exits

# 2, 3 ------------------------------------------------------------ gdb
gdb_threads_exit() { # gdb_threads_exit LABEL [GDB-SETUP...]
	local label=$1
	shift
	launch "$PROG"
	remote_gdb "$PROG" "$@" 'break first_done' 'continue' \
		'set scheduler-locking on' 'continue' 'info threads' \
		'thread 1' 'set scheduler-locking off' 'break leader_done' 'continue' \
		'set scheduler-locking on' 'continue' 'info threads' \
		'thread apply all print 999' 'thread 3' 'print $pc != 0' 'print pipefd[0] > 2' \
		'kill'
	is "$(grep -c '^No unwaited-for children left\.$' <<<"$GDB_OUT")" 2 \
		"$label: both continues end with no-resumed"
	like "$GDB_OUT" '^[ *] +1 +Thread ' "$label: after the worker's exit, main alone"
	like "$GDB_OUT" 'The current thread <Thread ID 2> has terminated' "$label: thread 2 gone"
	like "$GDB_OUT" '^[ *] +3 +Thread .*read' "$label: after the leader's exit, thread 3 alone"
	like "$GDB_OUT" 'The current thread <Thread ID 1> has terminated' "$label: thread 1 gone"
	like "$GDB_OUT" '^\$1 = 999$' "$label: thread apply all with an exited thread"
	like "$GDB_OUT" '^\$2 = 1$' "$label: registers of the remaining thread"
	like "$GDB_OUT" '^\$3 = 1$' "$label: memory, with the leader a zombie"
	like "$GDB_OUT" "^\\[Inferior 1 \\(process $INFERIOR_PID\\) killed\\]\$" "$label: kill"
	ok "$label: the process is gone" wait_gone "$INFERIOR_PID"
}
gdb_threads_exit all-stop
ORIG_GDB_SETUP=("${GDB_SETUP[@]}")
GDB_SETUP+=(-iex 'maint set target-non-stop on')
gdb_threads_exit non-stop
launch "$PROG"
remote_gdb "$PROG" 'set debug remote 1' 'break first_done' 'continue' 'kill'
ok 'non-stop: gdb turns thread events on (QThreadEvents:1 sent, OK)' \
	grep -q 'Sending packet: \$QThreadEvents:1' <<<"$GDB_OUT"
GDB_SETUP=("${ORIG_GDB_SETUP[@]}")

# 4 ------------------------------------------- detach with the leader gone
launch "$PROG"
remote_gdb "$PROG" 'break leader_done' 'continue' 'set scheduler-locking on' 'continue' \
	'detach'
like "$GDB_OUT" '^No unwaited-for children left\.$' 'detach: the leader exited alone'
ok 'detach: the process lives on' pid_alive "$(ls /proc/"$INFERIOR_PID"/task | grep -vx "$INFERIOR_PID")"
is "$(awk '/^TracerPid/ {print $2}' /proc/"$INFERIOR_PID"/task/*/status 2>/dev/null | sort -u |
	tr '\n' ' ')" '0 ' 'detach: no thread traced any more'
is "$(ls /proc/"$INFERIOR_PID"/task 2>/dev/null | wc -l)" 2 'detach: leader (zombie) and worker'
kill -9 "$INFERIOR_PID" 2>/dev/null

# 5 ---------------------------- exec from a thread, the leader held
EXEC=$INFDIR/thread_exec
AGAIN=$(line_of thread_exec.c again)
launch "$EXEC"
remote_gdb "$EXEC" 'break execer' 'continue' "break $AGAIN" 'set scheduler-locking step' \
	'next' 'info threads' 'continue'
like "$GDB_OUT" 'is executing new program' 'exec from a thread: gdb follows the new image'
like "$GDB_OUT" "^Thread 1 .*hit Breakpoint [0-9]+, main .*|^Breakpoint [0-9]+, main " \
	'  and stops at main in it (the step of the execing thread is not lost)'
like "$GDB_OUT" "exited with code 05" '  which then exits 5'

done_testing
