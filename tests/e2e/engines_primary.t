#!/bin/bash
# The COMM client (the one that came through the server's own port) leaves
# first while a rendezvous client is still there.  It is one engine among
# others: its leaving must drop its breakpoints and its hold, and the other
# client must go on debugging the process; the last one out detaches.
#
#  1. launched program, gdb A on TCP detaches first: gdb B goes on;
#  2. launched program, gdb A on TCP, stopped at its breakpoint (holding
#     the process), is killed with SIGKILL: gdb B, waiting in "continue",
#     gets its stop;
#  3. attached program, the COMM client disconnects: gdb B goes on, and
#     when it detaches the program runs on, untraced.
#
# (gdbserver's own rules, which utraced keeps for the COMM client, say that
# a launched program waits, stopped, for the next COMM client, and that the
# server ends when its process is detached; with other engines on the
# process these must not cut them off nor hold them for ever.)
. "$(dirname "$0")/../lib/e2e.sh"
server_is_gdbserver && skip_all 'needs utraced engines'

PROG=$INFDIR/engines_loop
use_rundir
QUICK=${QUICK:-3}

b_stops() { # b_stops FILE: how many times gdb B stopped at f2
	grep -c '^Breakpoint 1, f2 ' "$1" 2>/dev/null
}

# ---------------------------------------------- 1. A detaches first
launch "$PROG"
SOCK=$(rendezvous_sock "$INFERIOR_PID")
wait_until test -S "$SOCK" || bail "no rendezvous socket"
ex_args "target remote $TARGET" 'break f1' continue "$(gdb_mark "$WORK/1a_holds")" \
	"$(gdb_wait_file "$WORK/1b_joined")" detach "$(gdb_mark "$WORK/1a_detached")"
timeout -k 5 $((E2E_WAIT * 2)) "$GDB" "${GDB_SETUP[@]}" "$PROG" "${EX[@]}" </dev/null >"$WORK/1a.out" 2>&1 &
A=$!
track "$A"
wait_until test -e "$WORK/1a_holds" || bail "gdb A did not stop: $(cat "$WORK/1a.out")"
ex_args "target remote $SOCK" 'break f2' "$(gdb_mark "$WORK/1b_joined")" \
	"$(gdb_wait_file "$WORK/1a_detached")" \
	continue 'printf "B-STOP g1=%d g2=%d\n", g1, g2' \
	continue 'printf "B-STOP g1=%d g2=%d\n", g1, g2' detach
timeout -k 5 $((E2E_WAIT * 2)) "$GDB" "${GDB_SETUP[@]}" "$PROG" "${EX[@]}" </dev/null >"$WORK/1b.out" 2>&1 &
B=$!
track "$B"
wait_exit "$A"
wait_exit "$B"
like "$(cat "$WORK/1a.out")" "^\\[Inferior 1 \\(process $INFERIOR_PID\\) detached\\]" '1: A detaches'
B_OUT=$(cat "$WORK/1b.out")
unlike "$B_OUT" 'Remote connection closed|not being run' '1: B keeps its connection'
is "$(b_stops "$WORK/1b.out")" 2 '1: B stops twice at f2 after A left'
is "$(sed -n 's/^B-STOP //p' <<<"$B_OUT" | xargs)" 'g1=1 g2=0 g1=2 g2=1' '1: B sees the program go on'
like "$B_OUT" "^\\[Inferior 1 \\(process $INFERIOR_PID\\) detached\\]" '1: B detaches'
ok '1: the server exits after the last detach' server_exits
ok '1: the program runs to its end' wait_gone "$INFERIOR_PID"
like "$(program_output)" '^engines_loop done g1=300 g2=300 exit=42$' '1: every iteration, exit code 42'

# ---------------------------------------------- 2. A killed while holding
launch "$PROG"
SOCK=$(rendezvous_sock "$INFERIOR_PID")
wait_until test -S "$SOCK" || bail "no rendezvous socket"
ex_args 'set breakpoint always-inserted on' "target remote $TARGET" 'break f1' continue \
	"$(gdb_mark "$WORK/2a_holds")" "$(gdb_wait_file "$WORK/2a_release")"
"$GDB" "${GDB_SETUP[@]}" "$PROG" "${EX[@]}" </dev/null >"$WORK/2a.out" 2>&1 &
A=$!
track "$A"
disown "$A"
wait_until test -e "$WORK/2a_holds" || bail "gdb A did not stop: $(cat "$WORK/2a.out")"
ex_args "target remote $SOCK" 'break f2' continue "$(gdb_mark "$WORK/2b_stop")" \
	'printf "B-STOP g1=%d g2=%d\n", g1, g2' detach
timeout -k 5 $((E2E_WAIT * 2)) "$GDB" "${GDB_SETUP[@]}" "$PROG" "${EX[@]}" </dev/null >"$WORK/2b.out" 2>&1 &
B=$!
track "$B"
b_bp() {
	B_BP=$(sed -n 's/^Breakpoint 1 at \(0x[0-9a-f]*\): .*/\1/p' "$WORK/2b.out")
	[[ -n $B_BP && $(mem_bytes "$INFERIOR_PID" "$B_BP" 1) == cc ]]
}
wait_until b_bp || bail "gdb B did not continue: $(cat "$WORK/2b.out")"
kill -KILL "$A"
wait_gone "$A"
touch "$WORK/2a_release"
E2E_WAIT=$QUICK wait_until test -e "$WORK/2b_stop"
_tap_result $? "2: B gets its stop within ${QUICK}s of A's death"
A_BP=$(sed -n 's/^Breakpoint 1 at \(0x[0-9a-f]*\): .*/\1/p' "$WORK/2a.out")
BIAS=$(load_bias "$INFERIOR_PID" "$PROG")
is "$(mem_bytes "$INFERIOR_PID" "${A_BP:-0}" 8)" "$(elf_bytes "$PROG" $((A_BP - BIAS)) 8)" \
	"2: no int3 left at A's breakpoint"
if [[ -e $WORK/2b_stop ]]; then
	ok '2: B ends' wait_exit "$B"
	like "$(cat "$WORK/2b.out")" '^Breakpoint 1, f2 ' '2: B stopped at f2'
	like "$(cat "$WORK/2b.out")" "^\\[Inferior 1 \\(process $INFERIOR_PID\\) detached\\]" '2: B detaches'
else
	kill -TERM "$B" # it would wait for ever
	skip 3 'B got no stop'
fi
kill -TERM "$SERVER_PID"
server_exits

# ---------------------------------------------- 3. attached, COMM client goes
"$PROG" 100000 >"$WORK/prog.out" 2>&1 &
PID=$!
track "$PID"
wait_until file_has "$WORK/prog.out" '^iter 100 ' || bail "engines_loop did not start"
start_server --attach :0 "$PID" || bail "server did not attach"
SOCK=$(rendezvous_sock "$PID")
wait_until test -S "$SOCK" || bail "no rendezvous socket"
"$RSPCLIENT" -t 120 "$TARGET" '?' c >"$WORK/primary.out" 2>&1 &
PRIMARY_PID=$!
track "$PRIMARY_PID"
wait_until file_has "$WORK/primary.out" '^T05' || bail "the COMM client did not continue"
ex_args "target remote $SOCK" 'break f2' continue "$(gdb_mark "$WORK/3b_stop")" \
	"$(gdb_wait_file "$WORK/3primary_gone")" \
	continue 'printf "B-STOP g1=%d g2=%d\n", g1, g2' detach
timeout -k 5 $((E2E_WAIT * 2)) "$GDB" "${GDB_SETUP[@]}" "$PROG" "${EX[@]}" </dev/null >"$WORK/3b.out" 2>&1 &
B=$!
track "$B"
wait_until test -e "$WORK/3b_stop" || bail "gdb B did not stop: $(cat "$WORK/3b.out")"
kill -TERM "$PRIMARY_PID"
wait_gone "$PRIMARY_PID"
touch "$WORK/3primary_gone"
ok '3: B ends' wait_exit "$B"
B_OUT=$(cat "$WORK/3b.out")
unlike "$B_OUT" 'Remote connection closed|not being run' '3: B keeps its connection'
is "$(b_stops "$WORK/3b.out")" 2 '3: B stops again at f2 after the COMM client left'
like "$B_OUT" "^\\[Inferior 1 \\(process $PID\\) detached\\]" '3: B detaches'
ok '3: the program is untraced' wait_until eval '[[ $(tracer_of $PID) == 0 ]]'
ok '3: and runs' wait_until pid_running "$PID"

done_testing
