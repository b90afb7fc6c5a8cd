#!/bin/bash
# osdata: gdb's `info os` through an extended-remote server, before any
# program runs (nothing attached) and while one is stopped: the list of
# types, processes (a program with markup in its arguments), process
# groups, files, sockets (the server's own port), the threads of a
# stopped multi-threaded program, and an unknown type.
. "$(dirname "$0")/../lib/e2e.sh"

READER=$INFDIR/demo_reader
PROG=$INFDIR/threads

# re TEXT: TEXT as a literal in an extended regular expression.
re() {
	sed 's/[][\.*^$+?(){}|/]/\\&/g' <<<"$1"
}

start_server --multi :0 || bail "server did not start"

# --- the raw protocol: advertised, and served with no process (after '!',
# as gdb does: gdbserver ends when a plain remote client leaves it idle)
rsp 'qSupported:multiprocess+' '!' 'qXfer:osdata:read::0,40' 'qXfer:osdata:read:nosuchtype:0,fff'
like "$RSP_OUT" '(^|;)qXfer:osdata:read\+(;|$)' 'qSupported advertises qXfer:osdata:read+'
like "$RSP_OUT" '^m<osdata type="types">' 'types, first chunk: more to come (m)'
like "$RSP_OUT" '^l$' 'an unknown type: an empty document (l)'

# --- a program to find: its own process group, markup in its arguments
start_reader "$READER" 'a<b&c' "it's"
reader_says '^demo> ' || bail "demo_reader did not start"

ex_args "target extended-remote $TARGET" 'info connections' 'info os' 'info os processes' 'info os procgroups' \
	'info os files' 'info os sockets' 'info os nosuchtype'
run_gdb "${EX[@]}"
# (gdb without a connection would answer `info os` itself, from its own /proc)
like "$GDB_OUT" "^\\* 1 +extended-remote $TARGET " 'gdb is connected'
like "$GDB_OUT" '^Type +Description *$' 'info os: a table of types'
for t in cpus files modules msg processes procgroups semaphores shm sockets threads; do
	like "$GDB_OUT" "^$t +Listing of all " "info os: lists $t"
done
like "$GDB_OUT" '^pid +user +command +cores *$' 'info os processes: the columns'
cmd="$(re "$READER") a<b&c it's"
like "$GDB_OUT" "^$READER_PID +\\S+ +$cmd +[0-9,]+ *\$" \
	'info os processes: the program, its whole command line unescaped'
like "$GDB_OUT" '^1 +\S+ +\S' 'info os processes: pid 1'
like "$GDB_OUT" "^$READER_PID +demo_reader +$READER_PID +$cmd *\$" \
	'info os procgroups: the program leads its group'
like "$GDB_OUT" "^$READER_PID +demo_reader +0 +$(re "$WORK/reader.in") *\$" \
	'info os files: its stdin is the FIFO'
like "$GDB_OUT" "^127\\.0\\.0\\.1 +$PORT +127\\.0\\.0\\.1 +[0-9]+ +ESTABLISHED +\\S+ +INET +STREAM *\$" \
	"info os sockets: the server's port"
like "$GDB_OUT" '^warning: Empty data returned by target.  Wrong osdata type\?' \
	'info os nosuchtype: gdb says the type is wrong'
unlike "$GDB_OUT" '^warning: (while parsing|Can not parse|Remote failure)' 'no XML or protocol error'
ok 'the program is still running' pid_running "$READER_PID"
close_reader

# --- System V IPC objects made for the test (ipcmk, util-linux)
if command -v ipcmk >/dev/null; then
	shmid=$(ipcmk -M 4096 -p 0640 | sed -n 's/^Shared memory id: //p')
	semid=$(ipcmk -S 3 -p 0604 | sed -n 's/^Semaphore id: //p')
	msqid=$(ipcmk -Q -p 0600 | sed -n 's/^Message queue id: //p')
	ex_args "target extended-remote $TARGET" 'info os shm' 'info os semaphores' 'info os msg'
	run_gdb "${EX[@]}"
	ipcrm ${shmid:+-m "$shmid"} ${semid:+-s "$semid"} ${msqid:+-q "$msqid"}
	me=$(id -un) grp=$(id -gn)
	like "$GDB_OUT" "^key +shmid +permissions +size +creator command +last op\. command +num attached +user +group +creator user +creator group +last shmat\(\) time +last shmdt\(\) time +last shmctl\(\) time *\$" \
		'info os shm: the columns'
	like "$GDB_OUT" "^-?[0-9]+ +$shmid +640 +4096 +\S+ +\S+ +0 +$me +$grp +$me +$grp +.*[0-9]{4} *\$" \
		'info os shm: the segment (perms in octal, size, owners, ctime)'
	like "$GDB_OUT" "^-?[0-9]+ +$semid +604 +3 +$me +$grp +$me +$grp +.*[0-9]{4} *\$" \
		'info os semaphores: the set of 3'
	like "$GDB_OUT" "^-?[0-9]+ +$msqid +600 +0 +0 +\S+ +\S+ +$me +$grp +$me +$grp +.*[0-9]{4} *\$" \
		'info os msg: the empty queue'
else
	skip 4 'no ipcmk: System V IPC listings not checked'
fi
ok 'the server lives on without a process' pid_alive "$SERVER_PID"

# --- the threads of a stopped multi-threaded program
ex_args "target extended-remote $TARGET" "set remote exec-file $PROG" 'break all_named' run \
	'info inferiors' 'info os threads' kill
run_gdb "$PROG" "${EX[@]}"
like "$GDB_OUT" 'hit Breakpoint 1, all_named \(\)' 'run: stopped with every worker named'
pid=$(sed -n 's/^\* 1 \+process \([0-9]\+\) .*/\1/p' <<<"$GDB_OUT" | head -1)
ok 'info inferiors: the pid' test -n "$pid"
track "${pid:-0}"
rows=$(grep -E "^$pid +threads +[0-9]+ +-?[0-9]+ *\$" <<<"$GDB_OUT")
is "$(wc -l <<<"$rows")" 4 'info os threads: main and three workers, named after the process'
like "$rows" "^$pid +threads +$pid " 'info os threads: the main thread, tid = pid'
is "$(awk '{print $3}' <<<"$rows" | sort -u | wc -l)" 4 'info os threads: four distinct tids'
like "$GDB_OUT" '^pid +command +tid +core *$' 'info os threads: the columns'

done_testing
