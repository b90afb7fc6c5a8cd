#!/bin/bash
# ustrace_attach: ustrace -p PID on a program blocked in read(): it shows
# the read that was in progress, then the next ones with their data; ^C
# (SIGINT) detaches and the program runs on, no longer traced.  Also the
# command-line errors strace gives.
. "$(dirname "$0")/../lib/e2e.sh"
. "$(dirname "$0")/../lib/ustrace.sh"

start_reader "$CALLS" block
wait_until eval '[[ $(readlink /proc/$READER_PID/exe) == *ustrace_calls ]]'
sleep 0.2 # in read() by now
OUT=$WORK/attach.out
"$USTRACE" -o "$OUT" -p "$READER_PID" 2>"$WORK/attach.err" &
UPID=$!
track "$UPID"
ok 'ustrace says it attached' wait_until file_has "$WORK/attach.err" "ustrace: Process $READER_PID attached\$"
feed_reader "hello"
ok 'the read shows the data fed' wait_until file_has "$OUT" '^read\(0, "h", 1\) += 1$'
is "$(tracer_of "$READER_PID")" "$UPID" 'ustrace is the tracer'
kill -INT "$UPID"
ok 'ustrace ends on SIGINT' wait_exit "$UPID"
is "$EXIT_STATUS" 130 'after the detach ustrace dies of the SIGINT, as strace does'
like "$(cat "$WORK/attach.err")" "ustrace: Process $READER_PID detached\$" 'ustrace says it detached'
like "$(cat "$OUT")" '^read\(0, +<detached \.\.\.>$' 'the read in progress ends with <detached ...>'
is "$(tracer_of "$READER_PID")" 0 'the program is no longer traced'
ok 'the program is alive' pid_alive "$READER_PID"
close_reader
ok 'the program ends normally when its input ends' wait_gone "$READER_PID"

# several -p: "PID " prefixes with -o
start_reader "$CALLS" block
"$USTRACE" -o "$OUT" -e trace=read -p "$READER_PID,$READER_PID" 2>"$WORK/attach.err" &
UPID=$!
track "$UPID"
wait_until file_has "$WORK/attach.err" "attached"
close_reader
ok 'ustrace ends when the program does' wait_exit "$UPID"
like "$(cat "$OUT")" "^$READER_PID +\\+\\+\\+ exited with 0 \\+\\+\\+\$" '-o with two -p: pid prefixes'

# a signal already queued when ustrace attaches (vfork_signal's thread
# waits in vfork() with SIGUSR1 pending): printed first, as strace does,
# and delivered: the handler's rt_sigreturn follows
start_reader "$INFDIR/vfork_signal"
reader_says '^ready$' || bail 'vfork_signal did not start'
"$USTRACE" -o "$OUT" -p "$READER_PID" 2>"$WORK/attach.err" &
UPID=$!
track "$UPID"
wait_until eval '[[ $(grep -c "^vfork()" "$OUT") -ge 2 ]]'
kill -INT "$UPID"
ok 'ustrace ends on SIGINT' wait_exit "$UPID"
like "$(head -1 "$OUT")" '^--- SIGUSR1 \{si_signo=SIGUSR1, si_code=SI_TKILL, si_pid=[0-9]+, si_uid=0\} ---$' \
	'the signal met at the attach comes first'
like "$(sed -n 3p "$OUT")" '^rt_sigreturn\(\{mask=\[\]\}\) += [0-9]+$' \
	'it was delivered: its handler returned (after SIGCHLD)'
ok 'the program runs on' pid_running "$READER_PID"
close_reader

# two threads, each with its signal queued: -f prints both first (strace
# prints the second when its thread takes it; both are delivered)
start_reader "$INFDIR/vfork_signal" two
reader_says '^ready$' || bail 'vfork_signal (two threads) did not start'
"$USTRACE" -f -o "$OUT" -p "$READER_PID" 2>"$WORK/attach.err" &
UPID=$!
track "$UPID"
wait_until eval '[[ $(grep -c "vfork(" "$OUT") -ge 2 ]]'
kill -INT "$UPID"
ok 'ustrace -f ends on SIGINT' wait_exit "$UPID"
FIRST2=$(head -2 "$OUT")
all_like "$FIRST2" '^[0-9]+ +--- SIGUSR1 \{si_signo=SIGUSR1, si_code=SI_TKILL, ' \
	'-f: the two signals met at the attach come first'
is "$(cut -d' ' -f1 <<<"$FIRST2" | sort -u | wc -l)" 2 '... one from each thread'

# errors, as strace words them
"$USTRACE" >/dev/null 2>"$WORK/err"
is "$?" 1 'no program: exit status 1'
like "$(cat "$WORK/err")" 'ustrace: must have PROG \[ARGS\] or -p PID$' 'no program: message'
"$USTRACE" -e trace=nosuchcall true >/dev/null 2>"$WORK/err"
like "$(cat "$WORK/err")" "invalid system call 'nosuchcall'" 'unknown syscall name refused'
"$USTRACE" -h >"$WORK/out" 2>&1
like "$(cat "$WORK/out")" '^Usage: ustrace' '-h prints the usage'
"$USTRACE" -V >"$WORK/out" 2>&1
like "$(cat "$WORK/out")" '^ustrace -- ' '-V prints the version'

done_testing
