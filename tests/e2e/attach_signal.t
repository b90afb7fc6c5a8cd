#!/bin/bash
# vfork_signal's thread waits in vfork() nearly all the time with a SIGUSR1
# already queued on it. Attached then, gdb must hear of that signal first
# (gdbserver's attach SIGSTOP queues behind it; utraced's PTRACE_INTERRUPT
# would overtake it), and the signal must reach the program's handler when
# gdb continues, and when it detaches.
. "$(dirname "$0")/../lib/e2e.sh"

PROG=$INFDIR/vfork_signal
GOT_USR1='^Program received signal SIGUSR1, User defined signal 1\.$'
SI_TKILL=-6

start_reader "$PROG"
reader_says '^ready$' || bail "vfork_signal did not start: $(cat "$READER_OUT")"

# attach_gdb CMD...: a fresh server (--multi); gdb attaches, runs each CMD.
attach_gdb() {
	start_server --multi :0 || bail "server did not start"
	ex_args "target extended-remote $TARGET" "attach $READER_PID" "$@" 'monitor exit'
	run_gdb "$PROG" "${EX[@]}"
}

count_of() { # count_of N: the value of gdb's $N
	sed -n "s/^\\\$$1 = \\([0-9]*\\)\$/\\1/p" <<<"$GDB_OUT"
}

# --- the signal is the attach stop; continue delivers it to the handler
attach_gdb 'print usr1_count' 'print $_siginfo.si_signo' 'print $_siginfo.si_code' \
	'break on_usr1' continue 'print usr1_count' detach
like "$GDB_OUT" "$GOT_USR1" 'attach: the signal already queued is reported'
like "$GDB_OUT" '^\$2 = 10$' '$_siginfo: SIGUSR1'
like "$GDB_OUT" "^\\\$3 = $SI_TKILL\$" '$_siginfo: si_code SI_TKILL (sent by the vfork child)'
like "$GDB_OUT" '^Breakpoint 1, on_usr1 \(sig=10\) at .*vfork_signal\.c:[0-9]+$' \
	'continue: the handler runs with it'
ok 'in the handler, before it counts' test -n "$(count_of 4)" -a "$(count_of 4)" = "$(count_of 1)"
ok 'server exits' server_exits
first=$(count_of 1)

# --- detached at the attach stop: the signal is not lost
attach_gdb 'print usr1_count' detach
like "$GDB_OUT" "$GOT_USR1" 'second attach: reported again'
ok 'server exits' server_exits
second=$(count_of 1)
ok "the program counted on between the sessions ($first, $second)" test "$second" -gt "$first"
ok 'the program runs after the detach' pid_running "$READER_PID"
sleep 1
attach_gdb 'print usr1_count' detach
third=$(count_of 1)
ok "the signal left at the detach was delivered, and more since ($second, $third)" \
	test "$third" -gt $((second + 1))
ok 'the program runs at the end' pid_running "$READER_PID"

# --- non-stop: the signal is the thread's stop there too, and goes with it
start_server --multi :0 || bail "server did not start"
EX=(-ex 'set non-stop on' -ex "target extended-remote $TARGET" -ex "attach $READER_PID"
	-ex 'print usr1_count' -ex 'print $_siginfo.si_signo' -ex 'break on_usr1' -ex continue
	-ex 'print usr1_count' -ex detach -ex 'monitor exit')
run_gdb "$PROG" "${EX[@]}"
like "$GDB_OUT" '^\$2 = 10$' 'non-stop: the attach stop is the SIGUSR1'
like "$GDB_OUT" '^Thread 1 "vfork_signal" hit Breakpoint 1, on_usr1 \(sig=10\)|^Breakpoint 1, on_usr1 \(sig=10\)' \
	'non-stop: continue delivers it'
ok 'non-stop: in the handler, before it counts' test -n "$(count_of 3)" -a "$(count_of 3)" = "$(count_of 1)"
ok 'server exits' server_exits
ok 'the program runs at the end of it all' pid_running "$READER_PID"

done_testing
