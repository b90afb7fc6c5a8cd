#!/bin/bash
# A client killed while it holds the process: its breakpoints and its hold
# go at once, and the process runs on for the others.
#
# utraced attaches to engines_loop (started here, so that it is ours to
# watch); the COMM client is a raw client that just continues.  gdb A joins
# through the rendezvous socket, stops at its breakpoint in f1 and so holds
# the process; gdb B joins too, with a breakpoint in f2, and continues.  A
# is killed with SIGKILL: B must get its stop in f2 at once; no int3 may be
# left at A's breakpoint (the process's text equals the file's); B goes on
# working and detaches; when the last client leaves the process runs on,
# untraced.
. "$(dirname "$0")/../lib/e2e.sh"
server_is_gdbserver && skip_all 'needs utraced engines'

PROG=$INFDIR/engines_loop
use_rundir
# How long B may wait for its stop once A is gone.
QUICK=${QUICK:-3}

"$PROG" 100000 >"$WORK/prog.out" 2>&1 &
PID=$!
track "$PID"
wait_until file_has "$WORK/prog.out" '^iter 100 ' || bail "engines_loop did not start"

start_server --attach :0 "$PID" || bail "server did not attach"
SOCK=$(rendezvous_sock "$PID")
ok 'the attached process has a rendezvous socket' wait_until test -S "$SOCK"

# The COMM client: continues, and waits for a stop it will not get.
"$RSPCLIENT" -t $((E2E_WAIT * 4)) "$TARGET" '?' c >"$WORK/primary.out" 2>&1 &
PRIMARY_PID=$!
track "$PRIMARY_PID"
ok 'the COMM client continues: the process runs' wait_until eval \
	'file_has "$WORK/primary.out" "^[ST][0-9a-f]{2}" && pid_running $PID'

# --- gdb A: joins, stops at f1, and stays there until killed.  Its
# breakpoint stays inserted while it is stopped (gdb removes it otherwise),
# so that there is an int3 to remove when it dies.
ex_args 'set breakpoint always-inserted on' "target remote $SOCK" 'break f1' continue \
	'printf "A-STOP g1=%d g2=%d\n", g1, g2' \
	"$(gdb_mark "$WORK/a_holds")" "$(gdb_wait_file "$WORK/a_release")" \
	continue 'printf "A-NOT-KILLED\n"'
"$GDB" "${GDB_SETUP[@]}" "$PROG" "${EX[@]}" </dev/null >"$WORK/a.out" 2>&1 &
A_PID=$!
track "$A_PID"
disown "$A_PID" # no "Killed" from bash when it is
wait_until test -e "$WORK/a_holds" || bail "gdb A did not stop at f1: $(cat "$WORK/a.out")"
A_OUT=$(cat "$WORK/a.out")
like "$A_OUT" '^Breakpoint 1, f1 \(i=[0-9]+\) at ' 'A stops at its breakpoint in f1'
A_BP=$(sed -n 's/^Breakpoint 1 at \(0x[0-9a-f]*\): .*/\1/p' <<<"$A_OUT")
BIAS=$(load_bias "$PID" "$PROG")
[[ -n $A_BP && -n $BIAS ]] || bail "no address for A's breakpoint: $A_OUT"
A_FILE=$(elf_bytes "$PROG" $((A_BP - BIAS)) 16)
ok "the process is held: not running" eval '! pid_running $PID'

# --- gdb B: joins while A holds, breaks at f2, continues (and waits)
ex_args "target remote $SOCK" 'break f2' continue \
	'printf "B-STOP g1=%d g2=%d\n", g1, g2' "$(gdb_mark "$WORK/b_stop1")" \
	"x/16bx $A_BP" \
	continue 'printf "B-STOP g1=%d g2=%d\n", g1, g2' \
	continue 'printf "B-STOP g1=%d g2=%d\n", g1, g2' \
	'info breakpoints' detach "$(gdb_mark "$WORK/b_detached")"
timeout -k 5 $((E2E_WAIT * 2)) "$GDB" "${GDB_SETUP[@]}" "$PROG" "${EX[@]}" </dev/null >"$WORK/b.out" 2>&1 &
B_PID=$!
track "$B_PID"
# B is in "continue" once its int3 is in memory (then comes vCont;c).
b_in_continue() {
	B_BP=$(sed -n 's/^Breakpoint 1 at \(0x[0-9a-f]*\): .*/\1/p' "$WORK/b.out")
	[[ -n $B_BP && $(mem_bytes "$PID" "$B_BP" 1) == cc ]]
}
ok "B joins and continues (its int3 is in memory)" wait_until b_in_continue
ok 'B gets no stop while A holds the process' eval '! file_has "$WORK/b.out" "^Breakpoint 1, f2"'
is "$(mem_bytes "$PID" "$A_BP" 1)" cc "A's int3 is in memory while A is stopped"

# --- kill A
kill -KILL "$A_PID"
t0=$(date +%s%N)
ok 'A is gone' wait_gone "$A_PID"
touch "$WORK/a_release" # A's "shell" child, orphaned, ends
E2E_WAIT=$QUICK wait_until test -e "$WORK/b_stop1"
_tap_result $? "B gets its stop within ${QUICK}s of A's death" ||
	{ diag "B's output:"; diag "$(cat "$WORK/b.out")"; }
diag "B's stop came $((($(date +%s%N) - t0) / 1000000)) ms after the SIGKILL"
ok 'B stops later anyway' wait_until test -e "$WORK/b_stop1"

# --- no int3 left where A had its breakpoint
is "$(mem_bytes "$PID" "$A_BP" 16)" "$A_FILE" "the process's text at A's breakpoint ($A_BP) is the file's"

# --- B goes on, detaches; the process runs on
ok 'gdb B ends' wait_exit "$B_PID"
is "$EXIT_STATUS" 0 'gdb B exit status 0'
B_OUT=$(cat "$WORK/b.out")
all_like "$(grep -E '^(Breakpoint [0-9]+, |Program received|Program terminated)' <<<"$B_OUT")" \
	'^Breakpoint 1, f2 \(i=[0-9]+\) at ' 'B stops only at its own breakpoint in f2'
is "$(grep -c '^Breakpoint 1, f2 ' <<<"$B_OUT")" 3 'B stopped 3 times'
unlike "$B_OUT" 'SIGTRAP|SIGSEGV|SIGILL' 'B saw no stray signal'
G=$(sed -n 's/^B-STOP g1=\([0-9]*\) g2=\([0-9]*\)$/\1 \2/p' <<<"$B_OUT" | xargs)
read -r g1a g2a g1b g2b g1c g2c <<<"$G"
ok "B sees g1 = g2 + 1 at each stop, g2 going up by one ($G)" eval \
	'((g1a == g2a + 1 && g1b == g2b + 1 && g1c == g2c + 1 && g2b == g2a + 1 && g2c == g2b + 1))'
x16=$(grep -E "^$A_BP <f1\\+[0-9]+>:" -A1 <<<"$B_OUT" | sed 's/^[^:]*://' | grep -o '0x[0-9a-f]*' | sed 's/0x//' | xargs)
is "$x16" "$A_FILE" "B: x/16bx at A's breakpoint shows the file's bytes"
like "$B_OUT" "^\\[Inferior 1 \\(process $PID\\) detached\\]" 'B: detached'
ok 'the process survives A and B' pid_alive "$PID"
ok 'it runs (the COMM client still continues)' wait_until pid_running "$PID"
is "$(mem_bytes "$PID" "$A_BP" 16)" "$A_FILE" "after B left, still the file's bytes at A's breakpoint"
is "$(mem_bytes "$PID" "$B_BP" 16)" "$(elf_bytes "$PROG" $((B_BP - BIAS)) 16)" "and at B's breakpoint"
ok 'the server is alive' pid_alive "$SERVER_PID"
unlike "$(cat "$WORK/a.out")" 'A-NOT-KILLED' 'A never went on'

# --- the last client leaves: the process is let go
kill -TERM "$PRIMARY_PID"
ok 'the server exits when the COMM client leaves' server_exits
is "$EXIT_STATUS" 0 'server exit status 0'
ok 'the process is untraced' wait_until eval '[[ $(tracer_of $PID) == 0 ]]'
n=$(grep -c '^iter ' "$WORK/prog.out")
ok 'and runs on: it prints more' wait_until eval '(($(grep -c "^iter " "$WORK/prog.out") > n))'
like "$(cat "$WORK/prog.out")" '^iter [0-9]+00 g1=[0-9]+00 g2=[0-9]+00$' 'its counters are consistent'
unlike "$(cat "$WORK/prog.out")" 'Trace|trap|Segmentation' 'no trace/trap message from the program'
ok 'the rendezvous socket is gone' wait_until eval '[[ ! -e $SOCK ]]'

done_testing
