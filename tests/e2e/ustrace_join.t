#!/bin/bash
# ustrace_join: several processes utraced holds, joined by one ustrace
# (-p A -p B), laid out as strace lays out several processes: a line one
# process leaves open when the other's comes is split into
# "<unfinished ...>" / "<... read resumed>", the "[pid N]" prefixes go
# once only one process is left, and -c prints one table for both.  Then
# -f: the fork children and the new threads of a held process.
# Compared with strace -p A -p B on the same scenario (two unheld
# programs fed the same input in the same order), pids named A and B.
. "$(dirname "$0")/../lib/e2e.sh"
. "$(dirname "$0")/../lib/ustrace.sh"
skip_all_for_gdbserver 'let another tracer join'
command -v strace >/dev/null || skip_all "no strace to compare with"
use_rundir

# start_two [held]: A and B, each blocked in read() on a FIFO of its own
# (held: each by a utraced that a gdb has continued).
start_two() {
	local x pid
	for x in A B; do
		rm -f "$WORK/$x.in"
		mkfifo "$WORK/$x.in"
		setsid "$CALLS" block <"$WORK/$x.in" >/dev/null 2>&1 &
		pid=$!
		track "$pid"
		sleep infinity >"$WORK/$x.in" &
		track "$!"
		eval "$x=$pid ${x}_HOLD=$!"
		wait_until eval '[[ $(readlink /proc/'"$pid"'/exe) == *ustrace_calls ]]' ||
			bail "$x did not start"
		if [[ ${1:-} == held ]]; then
			start_server --attach :0 "$pid" || bail "utraced did not attach to $x"
			wait_until test -S "$(rendezvous_sock "$pid")" || bail "no rendezvous socket"
			remote_gdb_bg "$WORK/gdb$x.out" "$CALLS" continue
		fi
		wait_until eval '[[ $(pid_state '"$pid"') == S ]]' || bail "$x is not in read()"
	done
}

# count REGEX FILE: lines of FILE matching REGEX; 0 while FILE is not there yet
count() {
	local n
	n=$(grep -cE -- "$1" "$2" 2>/dev/null)
	echo "${n:-0}"
}
reads() { count 'read\(0, "\\n", 1\) *= 1' "$1"; }
wait_reads() { wait_until eval '(( $(reads '"$1"') >= '"$2"' ))'; }

# scenario OUT TRACER [OPTS]: the trace of the two (in OUT, stderr messages
# left out), fed A, B, A, then A's input closed, then B fed again, then ^C.
scenario() {
	local out=$1 tracer=$2 t
	shift 2
	timeout -k 5 "$E2E_WAIT" "$tracer" -e trace=read,exit_group "$@" -p "$A" -p "$B" \
		2>"$out.raw" &
	t=$!
	track "$t"
	wait_until eval '(( $(count "Process [0-9]* attached" '"$out.raw"') == 2 ))'
	sleep 0.5 # the reads in progress restarted under the tracer
	printf 'h\n' >"$WORK/A.in"
	wait_reads "$out.raw" 1
	printf 'h\n' >"$WORK/B.in"
	wait_reads "$out.raw" 2
	printf 'h\n' >"$WORK/A.in"
	wait_reads "$out.raw" 3
	kill "$A_HOLD"
	wait_until eval 'grep -q "exited with 0" '"$out.raw"
	printf 'h\n' >"$WORK/B.in"
	wait_reads "$out.raw" 4
	sleep 0.2
	kill -INT "$t"
	wait_exit "$t"
	# from A's first whole line on (before it, the order of the two restarts is the
	# scheduler's); strace writes "Process B detached" in the middle of the open line
	perl -0pe 's/\S*strace: Process [0-9]+ (attached|detached)\n//g' "$out.raw" |
		sed -E "s/\\b$A\\b/A/g; s/\\b$B\\b/B/g" |
		sed -E 's/^\[pid +([AB])\] /[pid \1] /; s/ +=/ =/' |
		awk '/read\(0, "\\n", 1\)/ { on = 1 } on' >"$out"
}

start_two
scenario "$WORK/strace.out" strace
kill "$B_HOLD"
wait_gone "$B"
start_two held
scenario "$WORK/ustrace.out" "$USTRACE"
d=$(diff "$WORK/strace.out" "$WORK/ustrace.out")
[[ -z $d ]]
_tap_result $? 'two held processes: the lines strace prints, <unfinished ...> and resumed' ||
	diag "$d" "strace:" "$(cat "$WORK/strace.out")"
like "$(cat "$WORK/ustrace.out")" '^\[pid A\] read\(0,  <unfinished \.\.\.>$' '... a line left open by A'
like "$(cat "$WORK/ustrace.out")" '^\[pid A\] <\.\.\. read resumed>"h", 1\) = 1$' '... resumed'
like "$(cat "$WORK/ustrace.out")" '^read\(0, "\\n", 1\) += 1$' '... no prefix once B is alone'
like "$(cat "$WORK/ustrace.out")" '^read\(0,  <detached \.\.\.>$' '... B'"'"'s read detached at ^C'
ok 'B runs on' pid_alive "$B"
kill "$B_HOLD"
ok '... and ends when its input does' wait_gone "$B"

# -c: one table for both, with the calls strace counts
counts() { awk 'NF >= 5 && $1 ~ /^[0-9.]+$/ { print $(NF), $4, (NF == 6 ? $5 : 0) }' "$1" | sort; }
count_scenario() { # OUT TRACER
	local t
	timeout -k 5 "$E2E_WAIT" "$2" -c -p "$A" -p "$B" 2>"$1" &
	t=$!
	track "$t"
	wait_until eval '(( $(count "Process [0-9]* attached" '"$1"') == 2 ))'
	sleep 0.5
	printf 'h\n' >"$WORK/A.in"
	printf 'h\n' >"$WORK/B.in"
	sleep 0.2
	kill "$A_HOLD" "$B_HOLD"
	wait_exit "$t"
}
start_two
count_scenario "$WORK/strace.c" strace
start_two held
count_scenario "$WORK/ustrace.c" "$USTRACE"
is "$(grep -c '^% time' "$WORK/ustrace.c")" 1 '-c, two held processes: one table'
is "$(counts "$WORK/ustrace.c")" "$(counts "$WORK/strace.c")" '... the calls and errors strace counts'
like "$(counts "$WORK/ustrace.c")" '^read [0-9]+ 0$' '... reads of both among them'

# -f through the daemon follows fork children: a shell held by utraced
# runs a command per line it reads; the same lines as strace -f -p (pids
# normalised, <unfinished ...> pairs joined: the interleaving is the
# scheduler's; so is whether bash reaps a child in a blocking wait4 or in
# its SIGCHLD handler, hence no wait4)
start_shell() { # [held]
	rm -f "$WORK/sh.in"
	mkfifo "$WORK/sh.in"
	setsid bash -c 'while read -r x; do /bin/echo "$x"; done' <"$WORK/sh.in" >/dev/null 2>&1 &
	SH=$!
	track "$SH"
	sleep infinity >"$WORK/sh.in" &
	SH_HOLD=$!
	track "$SH_HOLD"
	wait_until eval '[[ $(pid_state '"$SH"') == S ]]' || bail "the shell did not start"
	if [[ ${1:-} == held ]]; then
		start_server --attach :0 "$SH" || bail "utraced did not attach to the shell"
		wait_until test -S "$(rendezvous_sock "$SH")" || bail "no rendezvous socket"
		remote_gdb_bg "$WORK/gdbsh.out" /bin/bash continue
		sleep 0.5
		wait_until eval '[[ $(pid_state '"$SH"') == S ]]' || bail "the shell is not reading"
	fi
}
fork_scenario() { # OUT TRACER
	local t
	timeout -k 5 "$E2E_WAIT" "$2" -f -o "$1" -e trace=clone,execve,write,exit_group -p "$SH" 2>"$1.err" &
	t=$!
	track "$t"
	wait_until file_has "$1.err" "Process $SH attached"
	sleep 0.5
	printf 'one\n' >"$WORK/sh.in"
	wait_until eval '(( $(count "exited with 0" '"$1"') >= 1 ))'
	printf 'two\n' >"$WORK/sh.in"
	wait_until eval '(( $(count "exited with 0" '"$1"') >= 2 ))'
	sleep 0.2
	kill -INT "$t"
	wait_exit "$t"
	kill "$SH_HOLD"
	wait_gone "$SH"
}
start_shell
fork_scenario "$WORK/strace.f" strace
start_shell held
fork_scenario "$WORK/ustrace.f" "$USTRACE"
d=$(diff <(joined "$WORK/strace.f") <(joined "$WORK/ustrace.f"))
[[ -z $d ]]
_tap_result $? '-f, a held shell: its fork children traced, the lines strace prints' ||
	diag "$d" "ustrace:" "$(cat "$WORK/ustrace.f")"
like "$(cat "$WORK/ustrace.f")" '^[0-9]+ +execve\("/bin/echo", \["/bin/echo", "two"\]' \
	'... the second child'"'"'s execve'
is "$(grep -c 'exited with 0' "$WORK/ustrace.f")" 2 '... both children exit'

# -f through the daemon, a thread made after the join: announced, and its
# very first syscalls (rseq, set_robust_list, right after clone3) traced
start_reader "$INFDIR/trace_loop" 3 0 gate thread
start_server --attach :0 "$READER_PID" || bail "utraced did not attach"
wait_until test -S "$(rendezvous_sock "$READER_PID")" || bail "no rendezvous socket"
remote_gdb_bg "$WORK/gdbt.out" "$INFDIR/trace_loop" continue
"$USTRACE" -f -o "$WORK/t.out" -p "$READER_PID" 2>"$WORK/t.err" &
U=$!
track "$U"
wait_until file_has "$WORK/t.err" "ustrace: Process $READER_PID attached\$"
wait_until eval '[[ $(pid_state '"$READER_PID"') == S ]]'
feed_reader go
ok '-f, a new thread of a held process: ustrace ends with the program' wait_exit "$U"
TID=$(awk '{ print $1 }' "$WORK/t.out" | sort -u | grep -vx "$READER_PID")
is "$(wc -w <<<"$TID")" 1 '... lines of one more task: the thread'
like "$(cat "$WORK/t.err")" "ustrace: Process ${TID:-none} attached\$" '... the new thread is announced'
like "$(cat "$WORK/t.out")" "^${TID:-none} +rseq\(" '... its first syscall, rseq, is there'
like "$(cat "$WORK/t.out")" "^${TID:-none} +set_robust_list\(" '... and set_robust_list'

# -ff -xx -r through the daemon: the daemon decodes with -xx (the options
# travel), ustrace writes a file per task and times the lines
start_reader "$INFDIR/trace_loop" 3 0 gate thread
start_server --attach :0 "$READER_PID" || bail "utraced did not attach"
wait_until test -S "$(rendezvous_sock "$READER_PID")" || bail "no rendezvous socket"
remote_gdb_bg "$WORK/gdbff.out" "$INFDIR/trace_loop" continue
"$USTRACE" -ff -xx -r -e trace=write,rseq -o "$WORK/ff" -p "$READER_PID" 2>"$WORK/ff.err" &
U=$!
track "$U"
wait_until file_has "$WORK/ff.err" "ustrace: Process $READER_PID attached\$"
wait_until eval '[[ $(pid_state '"$READER_PID"') == S ]]'
feed_reader go
ok '-ff -xx -r, a held process: ustrace ends with the program' wait_exit "$U"
FILES=$(cd "$WORK" && ls ff.[0-9]* | tr '\n' ' ')
is "$(wc -w <<<"$FILES")" 2 "... two files, the leader's and the thread's ($FILES)"
like "$(cat "$WORK/ff.$READER_PID")" '^ +[0-9]+\.[0-9]{6} write\(3, "\\x74\\x69\\x63\\x6b\\x0a", 5\) += 5$' \
	"... the leader's writes, strings in hex, relative times"
TID=$(tr ' ' '\n' <<<"$FILES" | grep -vx "ff.$READER_PID" | head -1)
like "$(cat "$WORK/${TID:-none}" 2>/dev/null)" '^ +[0-9]+\.[0-9]{6} rseq\(' "... the thread's own file, from its first syscall"
unlike "$(cat "$WORK"/ff.*)" 'unfinished|resumed|^\[pid' '... no prefixes, no unfinished lines'

# -P through the daemon: the path travels too; only the calls naming it
start_reader "$INFDIR/trace_loop" 3 0 gate
start_server --attach :0 "$READER_PID" || bail "utraced did not attach"
wait_until test -S "$(rendezvous_sock "$READER_PID")" || bail "no rendezvous socket"
remote_gdb_bg "$WORK/gdbP.out" "$INFDIR/trace_loop" continue
"$USTRACE" -P /nonexistent/trace_loop -o "$WORK/P.out" -p "$READER_PID" 2>"$WORK/P.err" &
U=$!
track "$U"
wait_until file_has "$WORK/P.err" "ustrace: Process $READER_PID attached\$"
wait_until eval '[[ $(pid_state '"$READER_PID"') == S ]]'
feed_reader go
ok '-P, a held process: ustrace ends with the program' wait_exit "$U"
is "$(grep -c '^openat(AT_FDCWD, "/nonexistent/trace_loop", O_RDONLY) = -1 ENOENT' "$WORK/P.out")" 3 \
	'... the three openat of the path'
is "$(grep -cv '^openat\|^+++ exited' "$WORK/P.out")" 0 '... and nothing else'

done_testing
