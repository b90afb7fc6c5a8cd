#!/bin/bash
# A syscall catcher and a gdb on one process (issue 3: "gdb stopped at a
# breakpoint while a second client that catches a syscall waits: nothing
# runs; when gdb continues, the second client gets its syscall stop").
#
# syscall_loop runs attached (20 ms a turn); each turn is tick(i), getpid,
# getppid, write(1, "tick I\n").
#
#  1. gdb A (the COMM client) stops at its breakpoint in tick.  A raw RSP
#     client B joins through the rendezvous socket, catches write
#     (QCatchSyscalls:1;NR) and continues: while A holds the process
#     nothing runs and B gets no stop.  A continues: B gets
#     syscall_entry:NR before the line is written, then (its c)
#     syscall_return:NR after.  With B still catching, A hits its
#     breakpoint again, and never sees a syscall stop; B sees the next
#     write too; B detaches, A hits once more and detaches.  Then the
#     program runs on, untraced, every line written once.
#  2. A client that catches write and is killed (SIGKILL) while it holds
#     the process at a syscall-entry stop: the program runs on normally
#     (the held write done once), the COMM client gets no stop, and
#     detaches cleanly at the end.
#  3. Two catchers, B (getpid and write) and C (write): each gets its own
#     list; a write goes to both.
#  4. A catcher killed while it waits in its continue, gdb holding the
#     process: gdb goes on to its next breakpoint, no syscall stop.
#  5. Threads: gdb loops on a breakpoint hit flat out by one thread while
#     B catches the sleeps (clock_nanosleep) and writes of all threads:
#     each gets its own stops only, none lost, entry/return paired per
#     thread, no sleep cut short.
#  6. gdb A single-steps the syscall instruction of a write while B
#     catches write: B must still get that write.
. "$(dirname "$0")/../lib/e2e.sh"
server_is_gdbserver && skip_all 'needs utraced engines'

PROG=$INFDIR/syscall_loop
use_rundir
if [[ $(pc_register "$PROG") == eip ]]; then WRITE=4; else WRITE=1; fi
HEXW=$(printf '%x' "$WRITE")

lines() { # lines: how many lines the program has written
	wc -l <"$WORK/prog.out"
}

# ticks_in_order: the program's lines are "tick 0", "tick 1", ... with no
# gap and no line twice.
ticks_in_order() {
	awk '$1 != "tick" || $2 != NR - 1 { bad = 1 } END { exit bad || NR == 0 }' "$WORK/prog.out"
}

# b_replies [NAME]: what client NAME (default b: WORK/b.out) got so far,
# its replies on one line, stop replies shortened to "entry:NR" /
# "return:NR" / "stop" (a stop of another kind).
b_replies() {
	sed -E 's/^T05.*syscall_entry:([0-9a-f]+);.*/entry:\1/; s/^T05.*syscall_return:([0-9a-f]+);.*/return:\1/
		s/^T[0-9a-f]{2}.*/stop/' "$WORK/${1:-b}.out" | xargs
}

"$PROG" 1000000 20000 >"$WORK/prog.out" 2>&1 &
PID=$!
track "$PID"
wait_until file_has "$WORK/prog.out" '^tick 5$' || bail "syscall_loop did not start"

# ---------------------------------------------- 1. gdb holds, B catches
start_server --attach :0 "$PID" || bail "server did not attach"
SOCK=$(rendezvous_sock "$PID")
wait_until test -S "$SOCK" || bail "no rendezvous socket"

a_stop() { # a_stop: a gdb command printing what A sees at its stop
	echo 'printf "A-STOP progress=%d i=%d\n", progress, i'
}
ex_args "target remote $TARGET" 'break tick' continue "$(a_stop)" \
	"$(gdb_mark "$WORK/a_holds")" "$(gdb_wait_file "$WORK/a_go")" \
	continue "$(a_stop)" continue "$(a_stop)" 'info breakpoints' detach
timeout -k 5 $((E2E_WAIT * 3)) "$GDB" "${GDB_SETUP[@]}" "$PROG" "${EX[@]}" </dev/null >"$WORK/a.out" 2>&1 &
A=$!
track "$A"
wait_until test -e "$WORK/a_holds" || bail "gdb A did not stop at tick: $(cat "$WORK/a.out")"
K=$(sed -n 's/^A-STOP progress=\([0-9]*\) .*/\1/p' "$WORK/a.out")
[[ -n $K ]] || bail "gdb A printed no progress: $(cat "$WORK/a.out")"

# B: catch write, continue; then two more catches, then detach
timeout -k 5 $((E2E_WAIT * 3)) "$RSPCLIENT" -t $((E2E_WAIT * 2)) "unix:$SOCK" \
	"QCatchSyscalls:1;$HEXW" c --wait-file "$WORK/b_go" c c c \
	--wait-file "$WORK/b_leave" D >"$WORK/b.out" 2>"$WORK/b.err" &
B=$!
track "$B"
ok '1: B joins and sets its catch list' wait_until file_has "$WORK/b.out" '^OK$'

# A holds the process: B's continue must not run it.  (A window of a
# second in which nothing may happen; on a slow machine it can only
# miss a failure, not make one.)
L0=$(lines)
sleep 1
is "$(lines)" "$L0" '1: while A holds the process, the program writes nothing'
is "$(b_replies)" OK '1: ... and B gets no stop'
is "$(pid_state "$PID")" t '1: ... and the process is in a tracing stop'
is "$(grep -c '^tick' "$WORK/prog.out")" "$K" "1: A's stop is at tick($K): $K lines written"

# A continues: B's catch is the next thing to happen
touch "$WORK/a_go"
ok '1: when A continues, B gets a stop' wait_until eval '[[ $(b_replies) == "OK entry:"* ]]'
is "$(b_replies)" "OK entry:$HEXW" "1: B's stop is the entry of write (syscall_entry:$HEXW)"
like "$(sed -n 2p "$WORK/b.out")" "thread:(p[0-9a-f]+\\.)?$(printf '%x' "$PID");" "1: in the program's thread"
is "$(lines)" "$K" "1: at the entry the line 'tick $K' is not written yet"
is "$(grep -c '^A-STOP' "$WORK/a.out")" 1 '1: A is still in its continue (no stop for A)'
is "$(pid_state "$PID")" t '1: B holds the process at the entry'

touch "$WORK/b_go"
ok '1: B goes on: return, then the next write' \
	wait_until eval '[[ $(b_replies) == "OK entry:$HEXW return:$HEXW entry:$HEXW return:$HEXW" ]]'
ok "1: between B's two writes A hit its breakpoint again" \
	wait_until eval '(($(grep -c "^A-STOP" "$WORK/a.out") == 2))' # (gdb's output may come a bit later)
is "$(lines)" $((K + 2)) "1: B's second return: two more lines written"
is "$(pid_state "$PID")" t '1: B holds the process at its last return'

touch "$WORK/b_leave"
ok '1: B ends' wait_exit "$B"
is "$EXIT_STATUS" 0 '1: B exit status 0 (every reply came)'
is "$(b_replies)" "OK entry:$HEXW return:$HEXW entry:$HEXW return:$HEXW OK" \
	"1: B: entry and return of two writes, nothing else; D is OK"
ok '1: gdb A ends' wait_exit "$A"
is "$EXIT_STATUS" 0 '1: gdb A exit status 0'
A_OUT=$(cat "$WORK/a.out")
is "$(sed -n 's/^A-STOP //p' <<<"$A_OUT" | xargs)" \
	"progress=$K i=$K progress=$((K + 1)) i=$((K + 1)) progress=$((K + 2)) i=$((K + 2))" \
	'1: A stopped at three consecutive ticks'
all_like "$(grep -E '^(Breakpoint [0-9]+, |Catchpoint|Program received|Program terminated|\[Inferior)' <<<"$A_OUT" |
	grep -v '^\[Inferior .* detached\]$')" '^Breakpoint 1, tick \(i=[0-9]+\) at .*syscall_loop\.c:[0-9]+$' \
	'1: A stops only at its breakpoint'
unlike "$A_OUT" 'Catchpoint|call to syscall|returned from syscall|SIGTRAP|SIGSEGV' "1: B's catch does not leak to A: no syscall stop, no stray signal"
like "$A_OUT" "^\\[Inferior 1 \\(process $PID\\) detached\\]" '1: A detaches'
ok '1: the server exits after the last detach' server_exits
is "$EXIT_STATUS" 0 '1: server exit status 0'
ok '1: the program is untraced' wait_until eval '[[ $(tracer_of $PID) == 0 ]]'
L1=$(lines)
ok '1: and runs on' wait_until eval '(($(lines) >= L1 + 10))'
ok '1: every line written once, in order' ticks_in_order

# ---------------------------------------------- 2. B killed while holding
start_server --attach :0 "$PID" || bail "server did not attach again"
SOCK=$(rendezvous_sock "$PID")
wait_until test -S "$SOCK" || bail "no rendezvous socket"
# the COMM client lets the program run, waits, then interrupts and detaches
"$RSPCLIENT" -t $((E2E_WAIT * 3)) "$TARGET" '?' --nowait c --wait-file "$WORK/p_go" \
	--raw '\x03' D >"$WORK/primary.out" 2>&1 &
P=$!
track "$P"
wait_until file_has "$WORK/primary.out" '^T' || bail "the COMM client got no stop reply"
ok '2: the COMM client lets the program run' wait_until pid_running "$PID"
"$RSPCLIENT" -t $((E2E_WAIT * 3)) "unix:$SOCK" "QCatchSyscalls:1;$HEXW" c \
	--wait-file "$WORK/never" >"$WORK/b2.out" 2>&1 &
B=$!
track "$B"
disown "$B" # killed below: no "Killed" message from the shell
ok '2: B gets the entry of write' wait_until eval '[[ $(b_replies b2) == "OK entry:$HEXW" ]]'
L2=$(lines)
is "$(pid_state "$PID")" t '2: B holds the process'
kill -KILL "$B"
wait_gone "$B"
ok '2: B killed at the entry: the program runs on' wait_until eval '(($(lines) >= L2 + 10))'
ok '2: not held, not stopped' pid_running "$PID"
ok '2: every line written once, in order (the held write done once)' ticks_in_order
is "$(wc -l <"$WORK/primary.out")" 1 '2: the COMM client got no stop meanwhile'
touch "$WORK/p_go"
ok '2: the COMM client ends' wait_exit "$P"
is "$EXIT_STATUS" 0 '2: the COMM client exit status 0'
like "$(sed -n 2p "$WORK/primary.out")" '^T[0-9a-f]{2}' '2: its ^C gets a stop'
unlike "$(sed -n 2p "$WORK/primary.out")" 'syscall' "2: ... not a syscall stop of B's"
is "$(sed -n 3p "$WORK/primary.out")" OK '2: its D is OK'
ok '2: the server exits after the detach' server_exits
ok '2: the program is untraced' wait_until eval '[[ $(tracer_of $PID) == 0 ]]'
L3=$(lines)
ok '2: and runs on' wait_until eval '(($(lines) >= L3 + 10))'
ok '2: every line written once, in order' ticks_in_order

# ---------------------------------------------- 3. two catchers, lists that overlap
# B catches getpid and write, C write only: a write is reported to both,
# each gets only its own list, and each must continue before the program does.
start_server --attach :0 "$PID" || bail "server did not attach a third time"
SOCK=$(rendezvous_sock "$PID")
wait_until test -S "$SOCK" || bail "no rendezvous socket"
"$RSPCLIENT" -t $((E2E_WAIT * 3)) "$TARGET" '?' --nowait c --wait-file "$WORK/p3_go" \
	--raw '\x03' D >"$WORK/primary3.out" 2>&1 &
P=$!
track "$P"
wait_until file_has "$WORK/primary3.out" '^T' || bail "the COMM client got no stop reply"
HEXP=$(printf '%x' "$( ((WRITE == 4)) && echo 20 || echo 39)") # getpid
"$RSPCLIENT" -t $((E2E_WAIT * 3)) "unix:$SOCK" "QCatchSyscalls:1;$HEXP;$HEXW" c c c c c c c c \
	--wait-file "$WORK/b3_leave" D >"$WORK/b3.out" 2>&1 &
B=$!
track "$B"
wait_until file_has "$WORK/b3.out" '^OK$' || bail "B did not join: $(cat "$WORK/b3.out")"
"$RSPCLIENT" -t $((E2E_WAIT * 3)) "unix:$SOCK" "QCatchSyscalls:1;$HEXW" c c c c \
	--wait-file "$WORK/c3_leave" D >"$WORK/c3.out" 2>&1 &
C=$!
track "$C"
# Whichever has all its stops first holds the process until it leaves;
# then the other gets the rest of its own.
b3_done() { (($(grep -c '^T' "$WORK/b3.out") == 8)); }
c3_done() { (($(grep -c '^T' "$WORK/c3.out") == 4)); }
wait_until eval 'b3_done || c3_done'
if c3_done; then FIRST=C SECOND=B; else FIRST=B SECOND=C; fi
touch "$WORK/$(tr BC bc <<<$FIRST)3_leave"
ok "3: $FIRST gets all its stops, and when it leaves $SECOND gets all its own" \
	wait_until eval 'b3_done && c3_done'
touch "$WORK/b3_leave" "$WORK/c3_leave"
ok '3: B ends' wait_exit "$B"
is "$EXIT_STATUS" 0 '3: B exit status 0'
ok '3: C ends' wait_exit "$C"
is "$EXIT_STATUS" 0 '3: C exit status 0'
# C may join while the thread is inside a write (B runs meanwhile): then
# its first stop is that write's return, as with gdbserver or strace -p.
like "$(b_replies c3)" "^OK (entry:$HEXW return:$HEXW entry:$HEXW return:$HEXW|return:$HEXW entry:$HEXW return:$HEXW entry:$HEXW) OK\$" \
	'3: C: write only, entry and return alternating, four stops'
# B joined anywhere in a turn: its stops are a stretch of the cycle
# getpid entry, getpid return, write entry, write return.
CYCLE="entry:$HEXP return:$HEXP entry:$HEXW return:$HEXW"
CYCLE="$CYCLE $CYCLE $CYCLE"
B3=$(b_replies b3)
B3_STOPS=${B3#OK }
B3_STOPS=${B3_STOPS% OK}
ok "3: B: getpid and write in program order ($B3_STOPS)" \
	eval '[[ $B3 == "OK "*" OK" && " $CYCLE " == *" $B3_STOPS "* ]]'
touch "$WORK/p3_go"
ok '3: the COMM client ends' wait_exit "$P"
is "$(sed -n 3p "$WORK/primary3.out")" OK '3: its D is OK'
ok '3: the server exits after the detach' server_exits
ok '3: the program is untraced' wait_until eval '[[ $(tracer_of $PID) == 0 ]]'
L4=$(lines)
ok '3: and runs on' wait_until eval '(($(lines) >= L4 + 10))'
ok '3: every line written once, in order' ticks_in_order

# ---------------------------------------------- 4. B killed while waiting
# gdb A holds the process at its breakpoint; B has caught write and is in
# its continue when it is killed.  A goes on to its next tick, with no
# syscall stop on the way.
start_server --attach :0 "$PID" || bail "server did not attach a fourth time"
SOCK=$(rendezvous_sock "$PID")
wait_until test -S "$SOCK" || bail "no rendezvous socket"
ex_args "target remote $TARGET" 'break tick' continue "$(a_stop)" \
	"$(gdb_mark "$WORK/a4_holds")" "$(gdb_wait_file "$WORK/a4_go")" \
	continue "$(a_stop)" detach
timeout -k 5 $((E2E_WAIT * 3)) "$GDB" "${GDB_SETUP[@]}" "$PROG" "${EX[@]}" </dev/null >"$WORK/a4.out" 2>&1 &
A=$!
track "$A"
wait_until test -e "$WORK/a4_holds" || bail "gdb A did not stop at tick: $(cat "$WORK/a4.out")"
K=$(sed -n 's/^A-STOP progress=\([0-9]*\) .*/\1/p' "$WORK/a4.out")
"$RSPCLIENT" -t $((E2E_WAIT * 3)) "unix:$SOCK" "QCatchSyscalls:1;$HEXW" c >"$WORK/b4.out" 2>&1 &
B=$!
track "$B"
disown "$B"
ok '4: B joins and sets its catch list' wait_until file_has "$WORK/b4.out" '^OK$'
sleep 0.3 # (time for B to send its c; killed before, it tests the same thing less)
kill -KILL "$B"
wait_gone "$B"
touch "$WORK/a4_go"
ok '4: gdb A ends' wait_exit "$A"
is "$EXIT_STATUS" 0 '4: gdb A exit status 0'
is "$(sed -n 's/^A-STOP //p' "$WORK/a4.out" | xargs)" "progress=$K i=$K progress=$((K + 1)) i=$((K + 1))" \
	'4: A goes on to its next tick'
unlike "$(cat "$WORK/a4.out")" 'Catchpoint|call to syscall|returned from syscall|SIGTRAP|SIGSEGV' \
	"4: A sees no syscall stop of B's"
ok '4: the server exits after the detach' server_exits
ok '4: the program is untraced' wait_until eval '[[ $(tracer_of $PID) == 0 ]]'
L5=$(lines)
ok '4: and runs on' wait_until eval '(($(lines) >= L5 + 10))'
ok '4: every line written once, in order' ticks_in_order
ok '4: the program is alive' pid_alive "$PID"

# ---------------------------------------------- 5. threads
# engines_threads: worker 1 calls work() flat out, workers 2 and 3 (and
# main) sleep in clock_nanosleep between turns, main writes a line every
# 100 ms.  gdb A loops on a breakpoint in work() while B catches the
# sleeps and the writes of every thread: stops in two engines at once,
# threads stopped inside a caught syscall by the other's stops.
TPROG=$INFDIR/engines_threads
if [[ $WRITE == 4 ]]; then TLIST="10b;197;$HEXW"; else TLIST="e6;$HEXW"; fi # clock_nanosleep(_time64), write
"$TPROG" >"$WORK/threads.out" 2>&1 &
TPID=$!
track "$TPID"
wait_until file_has "$WORK/threads.out" '^tick 2 ' || bail "engines_threads did not start"
start_server --attach :0 "$TPID" || bail "server did not attach to engines_threads"
SOCK=$(rendezvous_sock "$TPID")
wait_until test -S "$SOCK" || bail "no rendezvous socket"
A_LOOP=()
for ((n = 0; n < 30; n++)); do
	A_LOOP+=(continue 'printf "A-STOP id=%d\n", id')
done
ex_args "target remote $TARGET" 'break work' continue "$(gdb_mark "$WORK/a5_holds")" \
	"$(gdb_wait_file "$WORK/b5_joined")" "${A_LOOP[@]}" detach
timeout -k 5 $((E2E_WAIT * 3)) "$GDB" "${GDB_SETUP[@]}" "$TPROG" "${EX[@]}" </dev/null >"$WORK/a5.out" 2>&1 &
A=$!
track "$A"
wait_until test -e "$WORK/a5_holds" || bail "gdb A did not stop at work: $(cat "$WORK/a5.out")"
B_LOOP=()
for ((n = 0; n < 60; n++)); do
	B_LOOP+=(c)
done
timeout -k 5 $((E2E_WAIT * 3)) "$RSPCLIENT" -t $((E2E_WAIT * 2)) "unix:$SOCK" \
	"QCatchSyscalls:1;$TLIST" "${B_LOOP[@]}" D >"$WORK/b5.out" 2>&1 &
B=$!
track "$B"
wait_until file_has "$WORK/b5.out" '^OK$' || bail "B did not join: $(cat "$WORK/b5.out")"
touch "$WORK/b5_joined"
ok '5: B ends' wait_exit "$B"
is "$EXIT_STATUS" 0 '5: B exit status 0 (every reply came)'
ok '5: gdb A ends' wait_exit "$A"
is "$EXIT_STATUS" 0 '5: gdb A exit status 0'
B5=$(sed -n '2,$p' "$WORK/b5.out")
is "$(grep -c '^T05' <<<"$B5")" 60 '5: B got 60 stops'
all_like "$(head -n 60 <<<"$B5")" "^T05.*;syscall_(entry|return):($(tr ';' '|' <<<"$TLIST"));" \
	'5: all of them syscall stops of its list'
is "$(tail -n 1 <<<"$B5")" OK "5: B's D is OK"
# per thread: entry, return, entry, return, ... of one syscall at a time
pairs_ok() {
	local tid
	for tid in $(grep -o 'thread:[0-9a-f.p]*;' <<<"$B5" | sort -u); do
		grep -F "$tid" <<<"$B5" | grep -Eo 'syscall_(entry|return):[0-9a-f]+' |
			awk -F: '{ k = $1 == "syscall_entry" ? "e" : "r" }
				(k == "e") == (NR % 2 == 0) { exit 1 }
				k == "r" && $2 != nr { exit 1 }
				{ nr = $2 }' || { diag "thread $tid: $(grep -F "$tid" <<<"$B5" | grep -Eo 'syscall_[a-z]+:[0-9a-f]+' | xargs)"; return 1; }
	done
}
ok '5: B: in each thread, entries and returns alternate, each return of the syscall entered' pairs_ok
A5=$(cat "$WORK/a5.out")
is "$(grep -c '^A-STOP id=[1-3]$' <<<"$A5")" 30 '5: A stopped 30 more times in work()'
all_like "$(grep -E '^(Thread [0-9]+ .* hit |Breakpoint [0-9]+, |Catchpoint|Program received|Program terminated|\[Inferior)' <<<"$A5" |
	grep -v '^\[Inferior .* detached\]$')" '(^| hit )Breakpoint 1, work \(id=[1-3]\) at ' \
	'5: A stops only at its breakpoint'
unlike "$A5" 'Catchpoint|call to syscall|returned from syscall|SIGTRAP|SIGSEGV' "5: A sees no syscall stop, no stray signal"
ok '5: the server exits after the last detach' server_exits
ok '5: the program is untraced' wait_until eval '[[ $(tracer_of $TPID) == 0 ]]'
N5=$(grep -c '^tick' "$WORK/threads.out")
ok '5: and runs on' wait_until eval '(($(grep -c "^tick" "$WORK/threads.out") >= N5 + 5))'
unlike "$(cat "$WORK/threads.out")" 'EINTR|BACKWARDS' '5: no sleep cut short (EINTR), no counter going back'
ok '5: the program is alive' pid_alive "$TPID"

# ---------------------------------------------- 6. A steps over B's syscall
# gdb A single-steps (stepi) the very syscall instruction of a write while
# B catches write.  B asked for every write: it must get this one's entry
# and return (A's stepi completing once the syscall is done).
launch "$PROG" 4
SOCK=$(rendezvous_sock "$INFERIOR_PID")
wait_until test -S "$SOCK" || bail "no rendezvous socket"
# to the syscall instruction of the second say()'s write (the first one
# goes through the dynamic linker's lazy binding)
cat >"$WORK/a6.gdb" <<EOG
break say
continue
continue
set \$n = 0
while \$n < 500 && *(unsigned short *)\$pc != 0x050f && *(unsigned short *)\$pc != 0x340f && *(unsigned short *)\$pc != 0x80cd
  stepi
  set \$n = \$n + 1
end
printf "A-AT %#lx\\n", \$pc
$(gdb_mark "$WORK/a6_at")
$(gdb_wait_file "$WORK/b6_joined")
stepi
printf "A-AFTER %#lx %ld\\n", \$pc, \$$( ((WRITE == 4)) && echo eax || echo rax)
$(gdb_mark "$WORK/a6_stepped")
$(gdb_wait_file "$WORK/a6_go")
delete
continue
EOG
timeout -k 5 $((E2E_WAIT * 3)) "$GDB" "${GDB_SETUP[@]}" "$PROG" -ex "target remote $TARGET" -x "$WORK/a6.gdb" \
	</dev/null >"$WORK/a6.out" 2>&1 &
A=$!
track "$A"
wait_until test -e "$WORK/a6_at" || bail "gdb A did not get to the syscall instruction: $(cat "$WORK/a6.out")"
timeout -k 5 $((E2E_WAIT * 3)) "$RSPCLIENT" -t $((E2E_WAIT * 2)) "unix:$SOCK" \
	"QCatchSyscalls:1;$HEXW" c --wait-file "$WORK/b6_c2" c --wait-file "$WORK/b6_leave" D >"$WORK/b6.out" 2>&1 &
B=$!
track "$B"
wait_until file_has "$WORK/b6.out" '^OK$' || bail "B did not join: $(cat "$WORK/b6.out")"
touch "$WORK/b6_joined"
# either A's stepi completes or B gets a stop (then A's stepi waits for B)
wait_until eval '[[ -e $WORK/a6_stepped ]] || file_has "$WORK/b6.out" "^T"'
B6_FIRST=$(b_replies b6)
B6_LINES=$(grep -c '^tick' "$SERVER_OUT")
touch "$WORK/b6_c2"
ok "6: A's stepi completes" wait_until test -e "$WORK/a6_stepped"
AT=$(sed -n 's/^A-AT //p' "$WORK/a6.out")
read -r AFTER RET6 <<<"$(sed -n 's/^A-AFTER //p' "$WORK/a6.out")"
# (just past the instruction; i386's sysenter comes back a little further on)
ok "6: A's stepi: past the syscall instruction ($AT -> $AFTER), the write done (7 bytes)" \
	eval '((AFTER > AT && AFTER <= AT + 16 && RET6 == 7))'
is "$B6_FIRST $B6_LINES" "OK entry:$HEXW 1" \
	"6: B gets the entry of the write A steps over (one line written)"
E2E_WAIT=5 wait_until eval '[[ $(b_replies b6) == *return* ]]' # (not before a6_go, today)
B6_SECOND=$(b_replies b6)
is "$B6_SECOND" "OK entry:$HEXW return:$HEXW" \
	"6: ... and its return"
touch "$WORK/a6_go" "$WORK/b6_leave"
ok '6: gdb A ends' wait_exit "$A"
ok '6: B ends' wait_exit "$B"
is "$EXIT_STATUS" 0 '6: B exit status 0'
like "$(cat "$WORK/a6.out")" "^\\[Inferior 1 \\(process $INFERIOR_PID\\) exited with code 013\\]\$" '6: the program runs to its end'
is "$(program_output | xargs)" 'tick 0 tick 1 tick 2 tick 3 syscall_loop done n=4 exit=11' '6: every line written once'
ok '6: the server exits' server_exits

done_testing
