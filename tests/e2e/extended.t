#!/bin/bash
# extended-remote with several inferiors on one connection, as gdb's
# kill-detach-inferiors-cmd.exp and set-cwd.exp use it.
#
#  1. `set cwd ~/`: the launched program runs in the server's home
#     directory (QSetWorkingDir "~/" expanded, as gdbserver does);
#  2. inferior 1 runs breakloop; inferior 2, with no remote exec-file,
#     `start`s the last program run (an empty vRun); inferior 3 attaches
#     demo_reader: three processes on one connection, the first two stay
#     when the others come; `kill inferiors 1 2` kills those two only,
#     `detach inferiors 3` lets the reader go on; a second vAttach of a
#     process the session has is refused;
#  3. with a terminal (script(1)): a program run, detached, then the
#     server told to exit lives on (the terminal's foreground group is
#     given back before the server exits, as gdbserver does);
#  4. extended-remote to a server without --multi: the program exits and
#     the connection stays, `run` starts it again;
#  5. a followed fork child killed, gdb reconnects: '?' names the parent.
. "$(dirname "$0")/../lib/e2e.sh"

# 1 ---------------------------------------------------------------- cwd
start_server --multi :0 || bail "server did not start"
ex_args "target extended-remote $TARGET" 'set remote exec-file /bin/pwd' 'set cwd ~/' 'run'
run_gdb "${EX[@]}"
like "$GDB_OUT" 'exited normally' 'set cwd ~/: the program ran'
E2E_WAIT=5 wait_until file_has "$SERVER_OUT" "^$HOME\$"
like "$(cat "$SERVER_OUT")" "^$HOME\$" '  in the home directory'
kill -TERM "$SERVER_PID" 2>/dev/null
server_exits

# 2 ----------------------------------------------------------- inferiors
PROG=$INFDIR/breakloop
start_reader "$INFDIR/demo_reader"
start_server --multi :0 || bail "server did not start"
ex_args "target extended-remote $TARGET" "set remote exec-file $PROG" 'break main' 'run' \
	'add-inferior' 'inferior 2' "file $PROG" 'start' \
	'add-inferior' 'inferior 3' "attach $READER_PID" 'info inferiors' \
	'kill inferiors 1 2' 'info inferiors' 'detach inferiors 3' 'info inferiors'
run_gdb "$PROG" "${EX[@]}"
pids=($(created_pid <"$SERVER_ERR"; sed -n 's/^Process .* created; pid = \([0-9]*\)$/\1/p' "$SERVER_ERR" | sed -n 2p))
is "${#pids[@]}" 2 'two programs launched (inferiors 1 and 2)'
like "$GDB_OUT" '^Thread 2\.1 .*hit .*main' 'inferior 2: start without exec-file runs the last program'
unlike "$GDB_OUT" 'Attaching to process [0-9]+ failed|Can.t kill' '  no failure'
like "$GDB_OUT" "^\\* 3 +process $READER_PID" '  three processes on one connection'
like "$GDB_OUT" "^ +1 +process ${pids[0]} " '  inferior 1 still there'
like "$GDB_OUT" "^ +2 +process ${pids[1]} " '  inferior 2 still there'
ok 'kill inferiors 1 2: the first is gone' wait_gone "${pids[0]}"
ok '  the second is gone' wait_gone "${pids[1]}"
like "$GDB_OUT" "^\\[Inferior 3 \\(process $READER_PID\\) detached\\]" 'detach inferiors 3'
feed_reader hello
reader_says hello
ok '  the reader runs on' pid_running "$READER_PID"

rsp 'qSupported:multiprocess+' "vAttach;$(printf '%x' "$READER_PID")" \
	"vAttach;$(printf '%x' "$READER_PID")"
like "$(sed -n 2p "$RSP_FILE")" '^T' 'raw: vAttach of the reader'
like "$(sed -n 3p "$RSP_FILE")" '^E' '  a second vAttach of the same process is refused'
kill -TERM "$SERVER_PID" 2>/dev/null
server_exits
ok 'the reader survives the server' pid_alive "$READER_PID"

# 3 ------------------- a detached program outlives a server with a terminal
# The launched program gets the server's terminal (its foreground group);
# when the server exits the terminal must go back to the server's group,
# or the hang-up of the terminal kills the detached program (SIGHUP), as
# GDB's tests do it: run, detach, monitor exit, attach again elsewhere.
if command -v script >/dev/null; then
	PTY_OUT=$WORK/pty.out
	script -qfc "$SERVER --once --multi :0" "$PTY_OUT" >/dev/null 2>&1 &
	track $!
	wait_until file_has "$PTY_OUT" 'Listening on port'
	port=$(tr -d '\r' <"$PTY_OUT" | sed -n 's/^Listening on port \([0-9]*\).*/\1/p' | head -1)
	ex_args "target extended-remote $HOST:$port" 'set remote exec-file /bin/sleep' 'set args 100' \
		'starti' 'detach' 'monitor exit'
	run_gdb "${EX[@]}"
	pid=$(tr -d '\r' <"$PTY_OUT" | created_pid)
	track "$pid"
	like "$GDB_OUT" 'detached' 'with a terminal: run, detach, monitor exit'
	sleep 0.5
	ok '  the detached program lives on after the server exits' pid_alive "$pid"
	kill -9 "$pid" 2>/dev/null
else
	skip 2 'script(1) is not installed'
fi

# 4 ------------------------------- extended-remote to a server without --multi
# The program exits: the connection stays (gdb may `run` again), as with
# gdbserver (gdb.server/exit-multiple-threads.exp).
start_server --once :0 "$PROG" || bail "server did not start"
ex_args "target extended-remote $TARGET" 'continue' 'run' 'info inferiors'
run_gdb "$PROG" "${EX[@]}"
like "$GDB_OUT" 'exited with code 07' 'no --multi: the program exits'
unlike "$GDB_OUT" 'Remote connection closed' '  the connection stays'
is "$(grep -c 'exited with code 07' <<<"$GDB_OUT")" 2 '  and run starts it again'
is "$(grep -c '^Process .* created; pid = ' "$SERVER_ERR")" 2 '  ... through the server'

# 5 ------------------------ a killed fork child, then a reconnect
# gdb kills the child it followed and reconnects: the stop '?' reports is
# the parent's, not the dead child's (gdb.server/extended-remote-restart.exp).
FORKP=$INFDIR/syscall_fork
start_server --multi :0 || bail "server did not start"
ex_args "target extended-remote $TARGET" "set remote exec-file $FORKP" 'set detach-on-fork off' \
	'set follow-fork-mode child' 'break say' 'run' 'continue' 'info inferiors' 'kill' 'disconnect' \
	"target extended-remote $TARGET" 'echo MARK\n' 'info inferiors' 'kill'
run_gdb "$FORKP" "${EX[@]}"
unlike "$GDB_OUT" 'internal-error' 'a fork child killed: gdb reconnects'
like "$GDB_OUT" 'hit Breakpoint 1(\.[0-9]+)?, say \(s=.*"child 1' '  the child stopped in say'
AFTER=$(sed -n '/^MARK$/,$p' <<<"$GDB_OUT")
is "$(grep -c ' process [0-9]\+ ' <<<"$AFTER")" 1 '  after the reconnect: one process, the parent'
like "$AFTER" '^\[Inferior [0-9]+ \(process [0-9]+\) killed\]' '  which gdb kills'
kill -TERM "$SERVER_PID" 2>/dev/null
server_exits

done_testing
