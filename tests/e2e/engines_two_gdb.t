#!/bin/bash
# Two gdbs on one process, each an engine of its own: gdb A connects on TCP
# (the COMM client) with "break f1", gdb B joins through the rendezvous
# socket with "break f2".  Each stops only at its own breakpoint, sees
# globals consistent with where the program is, reads the original byte
# under the other's breakpoint (which is really there, as an int3), steps
# on its own; when both have detached the program runs to its end.
#
# engines_loop calls f1() then f2() in a loop; f1 bumps g1, f2 bumps g2.
# The program is held from A's first stop on, so the stops are known
# exactly: A's k-th stop (at f1) sees g1 = g2 = k-1, B's k-th (at f2)
# sees g1 = k, g2 = k-1.  B leaves after 4 stops, A after 6.
. "$(dirname "$0")/../lib/e2e.sh"
server_is_gdbserver && skip_all 'needs utraced engines'

PROG=$INFDIR/engines_loop
use_rundir

# Link-time addresses of both breakpoints, and the bytes under them.
ex_args 'break f1' 'break f2' 'printf "F1 %#lx\n", (long)f1' 'printf "F2 %#lx\n", (long)f2'
run_gdb "$PROG" "${EX[@]}"
S1=$(sed -n 's/^Breakpoint 1 at \(0x[0-9a-f]*\): .*/\1/p' <<<"$GDB_OUT")
S2=$(sed -n 's/^Breakpoint 2 at \(0x[0-9a-f]*\): .*/\1/p' <<<"$GDB_OUT")
F1=$(sed -n 's/^F1 //p' <<<"$GDB_OUT")
F2=$(sed -n 's/^F2 //p' <<<"$GDB_OUT")
[[ -n $S1 && -n $S2 && -n $F1 && -n $F2 ]] || bail "no breakpoint addresses: $GDB_OUT"
OFF1=$((S1 - F1)) OFF2=$((S2 - F2))
ORIG1=$(elf_bytes "$PROG" "$S1" 1) ORIG2=$(elf_bytes "$PROG" "$S2" 1)
[[ $ORIG1 != cc && $ORIG2 != cc ]] || bail "an int3 in the file at a breakpoint?"

launch "$PROG"
SOCK=$(rendezvous_sock "$INFERIOR_PID")
ok 'the launched process has a rendezvous socket' wait_until test -S "$SOCK"

stop_line() { # stop_line WHO: a gdb command printing WHO's view of the globals
	echo "printf \"$1-STOP g1=%d g2=%d\\n\", g1, g2"
}
pc_line() { # pc_line TAG
	echo "printf \"$1 %#lx\\n\", (long)\$pc"
}

# --- gdb A: the COMM client
ex_args "target remote $TARGET" 'break f1' \
	continue "$(stop_line A)" \
	"$(gdb_mark "$WORK/a_holds")" "$(gdb_wait_file "$WORK/b_joined")" \
	continue "$(stop_line A)" \
	"printf \"A-OTHER %#lx\\n\", (long)f2 + $OFF2" "x/bx (char *)f2 + $OFF2" \
	"$(gdb_mark "$WORK/a_peek")" "$(gdb_wait_file "$WORK/peeked")" \
	"$(pc_line A-PC0)" stepi "$(pc_line A-PC1)" next "$(pc_line A-PC2)" \
	continue "$(stop_line A)" \
	continue "$(stop_line A)" \
	continue "$(stop_line A)" \
	"$(gdb_wait_file "$WORK/b_detached")" \
	continue "$(stop_line A)" \
	'info breakpoints' detach
timeout -k 5 $((E2E_WAIT * 2)) "$GDB" "${GDB_SETUP[@]}" "$PROG" "${EX[@]}" </dev/null >"$WORK/a.out" 2>&1 &
A_PID=$!
track "$A_PID"
wait_until test -e "$WORK/a_holds" || bail "gdb A did not stop at f1: $(cat "$WORK/a.out")"

# --- gdb B: joins through the rendezvous socket while A holds the process
ex_args "target remote $SOCK" 'break f2' "$(gdb_mark "$WORK/b_joined")" \
	continue "$(stop_line B)" \
	"printf \"B-OTHER %#lx\\n\", (long)f1 + $OFF1" "x/bx (char *)f1 + $OFF1" \
	"$(pc_line B-PC0)" stepi "$(pc_line B-PC1)" next "$(pc_line B-PC2)" \
	continue "$(stop_line B)" \
	continue "$(stop_line B)" \
	continue "$(stop_line B)" \
	'info breakpoints' detach "$(gdb_mark "$WORK/b_detached")"
timeout -k 5 $((E2E_WAIT * 2)) "$GDB" "${GDB_SETUP[@]}" "$PROG" "${EX[@]}" </dev/null >"$WORK/b.out" 2>&1 &
B_PID=$!
track "$B_PID"

# While A is stopped (its second stop) B is in "continue": B's breakpoint
# is in memory.  What the process really has there (not what gdb is shown):
if wait_until test -e "$WORK/a_peek"; then
	B_BP=$(sed -n 's/^Breakpoint 1 at \(0x[0-9a-f]*\): .*/\1/p' "$WORK/b.out")
	PEEK=$(mem_bytes "$INFERIOR_PID" "${B_BP:-0}" 1)
fi
touch "$WORK/peeked"

ok 'gdb B ends' wait_exit "$B_PID"
is "$EXIT_STATUS" 0 'gdb B exit status 0'
ok 'gdb A ends' wait_exit "$A_PID"
is "$EXIT_STATUS" 0 'gdb A exit status 0'
A_OUT=$(cat "$WORK/a.out")
B_OUT=$(cat "$WORK/b.out")

# --- where each stopped
A_HITS=$(grep -E '^(Breakpoint [0-9]+, |Program received|Program terminated|\[Inferior)' <<<"$A_OUT")
B_HITS=$(grep -E '^(Breakpoint [0-9]+, |Program received|Program terminated|\[Inferior)' <<<"$B_OUT")
all_like "$(grep -v '^\[Inferior .* detached\]$' <<<"$A_HITS")" '^Breakpoint 1, f1 \(i=[0-9]+\) at .*engines_loop\.c:[0-9]+$' \
	'A stops only at its breakpoint in f1'
all_like "$(grep -v '^\[Inferior .* detached\]$' <<<"$B_HITS")" '^Breakpoint 1, f2 \(i=[0-9]+\) at .*engines_loop\.c:[0-9]+$' \
	'B stops only at its breakpoint in f2'
is "$(grep -c '^Breakpoint 1, f1 ' <<<"$A_HITS")" 6 'A stopped 6 times'
is "$(grep -c '^Breakpoint 1, f2 ' <<<"$B_HITS")" 4 'B stopped 4 times'
unlike "$A_OUT" 'SIGTRAP|SIGSEGV|SIGILL' 'A saw no stray signal'
unlike "$B_OUT" 'SIGTRAP|SIGSEGV|SIGILL' 'B saw no stray signal'
like "$B_OUT" '^Breakpoint 1 at 0x[0-9a-f]+: file .*engines_loop\.c' 'B: its breakpoint set'

# --- the globals each saw: consistent with its stop, consecutive
is "$(sed -n 's/^A-STOP //p' <<<"$A_OUT" | xargs)" \
	'g1=0 g2=0 g1=1 g2=1 g1=2 g2=2 g1=3 g2=3 g1=4 g2=4 g1=5 g2=5' 'A: g1 = g2 = k-1 at its k-th stop'
is "$(sed -n 's/^B-STOP //p' <<<"$B_OUT" | xargs)" \
	'g1=1 g2=0 g1=2 g2=1 g1=3 g2=2 g1=4 g2=3' 'B: g1 = k, g2 = k-1 at its k-th stop'

# --- the other's breakpoint: hidden from reads, but there
A_OTHER=$(sed -n 's/^A-OTHER //p' <<<"$A_OUT")
B_OTHER=$(sed -n 's/^B-OTHER //p' <<<"$B_OUT")
A_BP=$(sed -n 's/^Breakpoint 1 at \(0x[0-9a-f]*\): .*/\1/p' <<<"$A_OUT")
is "$A_OTHER" "${B_BP:-none}" "A computes B's breakpoint address ($A_OTHER)"
is "$B_OTHER" "${A_BP:-none}" "B computes A's breakpoint address ($B_OTHER)"
like "$A_OUT" "^$A_OTHER <f2\\+$OFF2>:[[:space:]]+0x$ORIG2\$" "A: x/bx at B's breakpoint shows the original byte 0x$ORIG2"
like "$B_OUT" "^$B_OTHER <f1\\+$OFF1>:[[:space:]]+0x$ORIG1\$" "B: x/bx at A's breakpoint shows the original byte 0x$ORIG1"
is "${PEEK:-}" cc "B's int3 is really in memory while A reads around it"

# --- stepping on one's own
pcs() { # pcs OUT WHO: WHO's pc before stepi, after it, after next
	echo "$(sed -n "s/^$2-PC0 //p" <<<"$1") $(sed -n "s/^$2-PC1 //p" <<<"$1") $(sed -n "s/^$2-PC2 //p" <<<"$1")"
}
read -r A0 A1 A2 <<<"$(pcs "$A_OUT" A)"
read -r B0 B1 B2 <<<"$(pcs "$B_OUT" B)"
ok "A: stepi moves one instruction on in f1 ($A0 -> $A1)" eval '((A1 > A0 && A1 - A0 < 16))'
ok "B: stepi moves one instruction on in f2 ($B0 -> $B1)" eval '((B1 > B0 && B1 - B0 < 16))'
like "$A_OUT" "^$(line_of engines_loop.c f1-ret)[[:space:]]+return i \\+ g1;" 'A: next goes to the next line of f1'
like "$B_OUT" "^$(line_of engines_loop.c f2-ret)[[:space:]]+return i \\+ g2;" 'B: next goes to the next line of f2'
ok "A: next moved on ($A1 -> $A2)" eval '((A2 > A1))'
ok "B: next moved on ($B1 -> $B2)" eval '((B2 > B1))'

# --- each sees only its own breakpoints
like "$A_OUT" '^1 +breakpoint +keep y +0x[0-9a-f]+ in f1 at ' 'A: info breakpoints lists f1'
unlike "$A_OUT" '^[0-9]+ +breakpoint .* in f2 at ' "A: info breakpoints does not list B's"

# --- both gone: the program runs to its end, untraced
like "$A_OUT" "^\\[Inferior 1 \\(process $INFERIOR_PID\\) detached\\]" 'A: detached'
like "$B_OUT" "^\\[Inferior 1 \\(process $INFERIOR_PID\\) detached\\]" 'B: detached'
ok 'the server exits after the last detach' server_exits
is "$EXIT_STATUS" 0 'server exit status 0'
like "$(server_stderr)" "^Detaching from process $INFERIOR_PID\$" 'server: Detaching from process N'
ok 'the program ends' wait_gone "$INFERIOR_PID"
like "$(program_output)" '^engines_loop done g1=300 g2=300 exit=42$' 'the program ran every iteration, exit code 42'
unlike "$(program_output)" 'Trace|trap|Segmentation' 'no trace/trap message from the program'

done_testing
