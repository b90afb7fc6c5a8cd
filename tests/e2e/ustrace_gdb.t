#!/bin/bash
# ustrace_gdb: strace and gdb at the same time.  utraced holds a running
# program (--attach) and gdb, on the COMM port, runs a breakpoint loop in
# it; `ustrace -p PID` cannot ptrace it, so it joins through the
# rendezvous socket as one more engine: the daemon decodes the syscalls
# and streams strace's lines.  gdb's breakpoints keep hitting; quitting
# ustrace leaves gdb working, quitting gdb leaves ustrace working; when
# both are gone the program runs on, untraced.
#
# trace_loop stops at tick(i) once per iteration, then makes the same
# three syscalls (getppid, write, a failing openat) and sleeps: while gdb
# holds it at tick, no syscall is in flight, so which lines ustrace prints
# between two of gdb's stops is known exactly.
. "$(dirname "$0")/../lib/e2e.sh"
. "$(dirname "$0")/../lib/ustrace.sh"
skip_all_for_gdbserver 'let another tracer join'
command -v strace >/dev/null || skip_all "no strace to compare with"

PROG=$INFDIR/trace_loop
use_rundir

# the loop's lines, as strace prints them: the pid prefix, getppid's value
# and the padding before "=" taken out
loop_lines() {
	grep -E '^(\[pid +[0-9]+\] )?(getppid|write\(3,|openat\(AT_FDCWD, "/nonexistent)' "$1" |
		sed -E 's/^\[pid +[0-9]+\] //; s/^(getppid\(\) += )[0-9]+/\1PPID/; s/ +=/ =/'
}
count() { # count REGEX FILE
	grep -cE -- "$1" "$2" 2>/dev/null
}

strace -o "$WORK/alone.out" "$PROG" 3 0 >/dev/null
ALONE=$(loop_lines "$WORK/alone.out" | sort -u)
is "$(wc -l <<<"$ALONE")" 3 'strace, the program alone: three distinct loop lines'

setsid "$PROG" 0 20000 </dev/null >"$WORK/prog.out" 2>&1 &
PROG_PID=$!
track "$PROG_PID"
# attach to the program, not to setsid before its exec
wait_until eval '[[ $(readlink /proc/$PROG_PID/exe) == "$(realpath "$PROG")" ]]' ||
	bail "the program did not start"
start_server --attach :0 "$PROG_PID" || bail "utraced did not attach"
ok 'utraced made the rendezvous socket' wait_until test -S "$(rendezvous_sock "$PROG_PID")"

# gdb: three hits with the first ustrace on, three after it left, then
# it deletes its breakpoint and detaches while the second ustrace traces
ex_args "target remote $TARGET" 'break tick' continue \
	"$(gdb_mark "$WORK/hit1")" "$(gdb_wait_file "$WORK/joined1")" \
	continue continue continue \
	"$(gdb_mark "$WORK/hit4")" "$(gdb_wait_file "$WORK/left1")" \
	continue continue continue \
	"$(gdb_mark "$WORK/hit7")" "$(gdb_wait_file "$WORK/joined2")" \
	delete detach
timeout -k 5 $((E2E_WAIT * 3)) "$GDB" "${GDB_SETUP[@]}" "$PROG" "${EX[@]}" </dev/null \
	>"$WORK/gdb.out" 2>&1 &
GDB_PID=$!
track "$GDB_PID"
wait_until test -e "$WORK/hit1" || bail "gdb did not stop at tick: $(cat "$WORK/gdb.out")"

# --- the first ustrace joins while gdb holds the program at tick
"$USTRACE" -o "$WORK/u1.out" -p "$PROG_PID" 2>"$WORK/u1.err" &
U1=$!
track "$U1"
ok 'ustrace -p joins the process gdb holds' \
	wait_until file_has "$WORK/u1.err" "ustrace: Process $PROG_PID attached\$"
is "$(tracer_of "$PROG_PID")" "$SERVER_PID" 'utraced stays the one tracer'
touch "$WORK/joined1"
ok 'gdb hits its breakpoint three more times' wait_until test -e "$WORK/hit4"
ok 'ustrace prints the three iterations between' \
	wait_until eval "(( \$(count '^openat\\(AT_FDCWD, \"/nonexistent' '$WORK/u1.out') == 3 ))"
is "$(count '^(getppid|write|openat|clock_nanosleep)\(' "$WORK/u1.out")" 12 \
	'... four syscalls each, nothing else'
is "$(loop_lines "$WORK/u1.out" | sort -u)" "$ALONE" '... the lines strace prints for it alone'
like "$(cat "$WORK/u1.out")" '^clock_nanosleep\(CLOCK_REALTIME, 0, \{tv_sec=0, tv_nsec=20000000\}, (NULL|0x[0-9a-f]+)\) += 0$' \
	'... and its sleeps, decoded'
kill -INT "$U1"
ok 'ustrace ends on SIGINT' wait_exit "$U1"
is "$EXIT_STATUS" 130 '... dying of it, as strace does'
like "$(cat "$WORK/u1.err")" "ustrace: Process $PROG_PID detached\$" '... saying it detached'
is "$(count '' "$WORK/u1.out")" 12 '... no line after the detach: nothing was in flight'
is "$(tracer_of "$PROG_PID")" "$SERVER_PID" 'gdb still holds the program'
touch "$WORK/left1"
ok 'gdb goes on hitting its breakpoint after ustrace left' wait_until test -e "$WORK/hit7"

# --- a second ustrace (-ttt -T); then gdb leaves
"$USTRACE" -ttt -T -o "$WORK/u2.out" -p "$PROG_PID" 2>"$WORK/u2.err" &
U2=$!
track "$U2"
ok 'a second ustrace joins' wait_until file_has "$WORK/u2.err" "ustrace: Process $PROG_PID attached\$"
touch "$WORK/joined2"
ok 'gdb detaches and ends' wait_exit "$GDB_PID"
is "$(count '^Breakpoint 1, tick \(i=' "$WORK/gdb.out")" 7 'gdb saw its seven hits'
like "$(cat "$WORK/gdb.out")" "^\\[Inferior 1 \\(process $PROG_PID\\) detached\\]\$" 'gdb detached'
N=$(count '^[0-9.]+ getppid' "$WORK/u2.out")
ok 'ustrace goes on after gdb left' \
	wait_until eval "(( \$(count '^[0-9.]+ getppid' '$WORK/u2.out') >= $N + 5 ))"
NOW=$(date +%s)
all_like "$(grep -E 'getppid|write\(3,|/nonexistent' "$WORK/u2.out")" '^[0-9]+\.[0-9]{6} (getppid|write|openat)\(.* <0\.[0-9]{6}>$' \
	'-ttt -T: time stamps and durations'
LAST=$(grep -E '^[0-9]+\.[0-9]{6} getppid' "$WORK/u2.out" | tail -1 | cut -d. -f1)
ok '... taken at the events (within 10 s of now)' test "$((NOW - ${LAST:-0}))" -le 10 -a "$((NOW - ${LAST:-0}))" -ge -10
kill -INT "$U2"
ok 'the second ustrace ends on SIGINT' wait_exit "$U2"
is "$EXIT_STATUS" 130 '... dying of it, as strace does'
ok 'utraced lets go of the program when the last client left' \
	wait_until eval '[[ $(tracer_of '"$PROG_PID"') == 0 ]]'
ok 'the program runs on' pid_running "$PROG_PID"
sleep 0.3
ok '... and is still alive a moment later' pid_running "$PROG_PID"

# --- -p of a held process and a free one in one run (a daemon's and our own engine)
"$PROG" 0 20000 </dev/null >/dev/null 2>&1 &
FREE=$!
track "$FREE"
start_server --attach :0 "$PROG_PID" || bail "utraced did not attach again"
wait_until test -S "$(rendezvous_sock "$PROG_PID")"
remote_gdb_bg "$WORK/gdb2.out" "$PROG" continue # (--attach: stopped until a client continues)
"$USTRACE" -o "$WORK/u3.out" -e trace=getppid -p "$PROG_PID,$FREE" 2>"$WORK/u3.err" &
U3=$!
track "$U3"
wait_until eval "(( \$(count '^$PROG_PID +getppid' '$WORK/u3.out') >= 3 && \$(count '^$FREE +getppid' '$WORK/u3.out') >= 3 ))"
_tap_result $? 'one ustrace, a held and a free process: lines of both'
is "$(tracer_of "$FREE")" "$U3" '... the free one traced by ustrace itself'
is "$(tracer_of "$PROG_PID")" "$SERVER_PID" '... the held one by utraced'
kill -INT "$U3"
ok '... ends on SIGINT' wait_exit "$U3"
# (two processes' calls may interleave: strace's unfinished/resumed halves)
all_like "$(cat "$WORK/u3.out")" \
	'^[0-9]+ +(getppid\(\) += [0-9]+|getppid\( <unfinished \.\.\.>|<\.\.\. getppid resumed>\) += [0-9]+)$' \
	'... well-formed lines, each with its pid'
kill "$SERVER_PID"
server_exits
ok 'both programs alive' eval "pid_alive $PROG_PID && pid_alive $FREE"

done_testing
