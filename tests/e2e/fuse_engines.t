#!/bin/bash
# Many clients through `utraced --mount DIR`: two gdbs that each open
# DIR/<pid>/gdb are two engines (A breaks at f1, B at f2, each stops only
# at its own), DIR/<pid>/engines lists both; then one gdb through the file
# and one through the rendezvous socket share the process the same way.
# When they have gone, the program runs on, untraced.
#
# engines_loop calls f1() then f2() in a loop; f1 bumps g1, f2 bumps g2:
# at a stop in f1, g1 == g2; in f2, g1 == g2 + 1.
. "$(dirname "$0")/../lib/e2e.sh"
. "$(dirname "$0")/../lib/fuse.sh"

PROG=$INFDIR/engines_loop
use_rundir
start_mount || bail "utraced --mount did not start"
"$PROG" 1000000 >"$WORK/loop.out" 2>&1 &
P=$!
track "$P"
wait_until file_has "$WORK/loop.out" '^iter 100 ' || bail "engines_loop does not run"
FILE=$MNT/$P/gdb

stop_line() { # stop_line WHO: a gdb command printing WHO's view of the globals
	echo "printf \"$1-STOP %d %d\\n\", g1, g2"
}

# gdb_bg OUT CMD...: gdb on PROG running CMD..., in the background; its pid in BG_PID.
gdb_bg() {
	local out=$1
	shift
	ex_args "$@"
	"$GDB" "${GDB_SETUP[@]}" "$PROG" "${EX[@]}" </dev/null >"$out" 2>&1 &
	BG_PID=$!
	track "$BG_PID"
}

# stops OUT WHO: "ok" when every WHO-STOP line of OUT has g1 - g2 == $3 and
# the stops are consecutive iterations; else the lines.
stops() {
	local g1 g2 prev= bad=
	while read -r g1 g2; do
		(((g1 - g2) == $3)) || bad=1
		[[ -n $prev ]] && ((g1 != prev + 1)) && bad=1
		prev=$g1
	done < <(sed -n "s/^$2-STOP //p" "$1")
	[[ -z $bad && -n $prev ]] && echo ok || sed -n "s/^$2-STOP //p" "$1" | xargs
}

# --- two gdbs through the file
gdb_bg "$WORK/a.out" "target remote $FILE" 'break f1' continue "$(stop_line A)" \
	"$(gdb_mark "$WORK/a_holds")" "$(gdb_wait_file "$WORK/snap")" \
	continue "$(stop_line A)" continue "$(stop_line A)" \
	"$(gdb_wait_file "$WORK/b_left")" continue "$(stop_line A)" detach
A_PID=$BG_PID
wait_until test -e "$WORK/a_holds" || bail "gdb A did not stop at f1: $(cat "$WORK/a.out")"
gdb_bg "$WORK/b.out" "target remote $FILE" 'break f2' "$(gdb_mark "$WORK/b_joined")" \
	continue "$(stop_line B)" continue "$(stop_line B)" detach "$(gdb_mark "$WORK/b_left")"
B_PID=$BG_PID
# While A holds the process, B continues: its breakpoint is in.
wait_until test -e "$WORK/b_joined"
wait_until eval "engines_of $P | grep -q 'client=$B_PID uid=0 state=running breakpoints=0x'"
ENGINES=$(engines_of "$P")
touch "$WORK/snap"
ok 'gdb B ends' wait_exit "$B_PID"
is "$EXIT_STATUS" 0 'gdb B exit status 0'
ok 'gdb A ends' wait_exit "$A_PID"
is "$EXIT_STATUS" 0 'gdb A exit status 0'

is "$(grep -c 'endpoint=fuse' <<<"$ENGINES")" 2 'engines: two sessions through the file'
like "$ENGINES" "^[0-9]+ endpoint=fuse client=$A_PID uid=0 state=stopped " \
	"engines: A (gdb $A_PID) holds the process stopped"
like "$ENGINES" "^[0-9]+ endpoint=fuse client=$B_PID uid=0 state=running breakpoints=0x[0-9a-fx,]+ " \
	"engines: B (gdb $B_PID) runs it, with its breakpoint"
all_like "$(grep -E '^(Breakpoint [0-9]+, |Program)' "$WORK/a.out")" '^Breakpoint 1, f1 \(' \
	'A stops only at its breakpoint in f1'
all_like "$(grep -E '^(Breakpoint [0-9]+, |Program)' "$WORK/b.out")" '^Breakpoint 1, f2 \(' \
	'B stops only at its breakpoint in f2'
is "$(grep -c '^Breakpoint 1, f1 ' "$WORK/a.out")" 4 'A stopped 4 times'
is "$(grep -c '^Breakpoint 1, f2 ' "$WORK/b.out")" 2 'B stopped 2 times'
is "$(stops "$WORK/a.out" A 0)" ok 'A: at f1 g1 == g2, on consecutive iterations'
is "$(stops "$WORK/b.out" B 1)" ok 'B: at f2 g1 == g2 + 1, on consecutive iterations'
ok 'both gone: the program runs on, traced by nobody' wait_until traced_by_nobody "$P"
is "$(engines_of "$P")" '' 'engines: nobody left'

# --- one through the file, one through the rendezvous socket
SOCK=$(rendezvous_sock "$P")
rm -f "$WORK"/a_holds "$WORK"/b_joined "$WORK"/b_left "$WORK"/snap
gdb_bg "$WORK/a2.out" "target remote $FILE" 'break f1' continue "$(stop_line A)" \
	"$(gdb_mark "$WORK/a_holds")" "$(gdb_wait_file "$WORK/snap")" \
	continue "$(stop_line A)" "$(gdb_wait_file "$WORK/b_left")" detach
A_PID=$BG_PID
wait_until test -e "$WORK/a_holds" || bail "gdb A did not stop at f1: $(cat "$WORK/a2.out")"
ok 'a process held through the file has a rendezvous socket' test -S "$SOCK"
gdb_bg "$WORK/b2.out" "target remote $SOCK" 'break f2' "$(gdb_mark "$WORK/b_joined")" \
	continue "$(stop_line B)" detach "$(gdb_mark "$WORK/b_left")"
B_PID=$BG_PID
wait_until test -e "$WORK/b_joined"
wait_until eval "engines_of $P | grep -q 'endpoint=rendezvous .* state=running'"
ENGINES=$(engines_of "$P")
touch "$WORK/snap"
ok 'gdb B (rendezvous) ends' wait_exit "$B_PID"
ok 'gdb A (file) ends' wait_exit "$A_PID"
like "$ENGINES" "^[0-9]+ endpoint=fuse client=$A_PID " 'engines: A through the file'
like "$ENGINES" "^[0-9]+ endpoint=rendezvous client=$B_PID uid=0 " 'engines: B through the rendezvous socket'
is "$(grep -c '^Breakpoint 1, f1 ' "$WORK/a2.out")" 2 'A (file) stopped twice, at f1'
is "$(grep -c '^Breakpoint 1, f2 ' "$WORK/b2.out")" 1 'B (socket) stopped once, at f2'
is "$(stops "$WORK/a2.out" A 0)" ok 'A: g1 == g2 at f1'
is "$(stops "$WORK/b2.out" B 1)" ok 'B: g1 == g2 + 1 at f2'
ok 'both gone: the program runs on, traced by nobody' wait_until traced_by_nobody "$P"
ok 'the rendezvous socket goes with the last engine' wait_until eval "[[ ! -e $SOCK ]]"
N=$(grep -c '^iter ' "$WORK/loop.out")
ok 'the program goes on iterating' wait_until eval "(( \$(grep -c '^iter ' $WORK/loop.out) > N ))"
unlike "$(cat "$WORK/loop.out")" 'Trace|trap|Segmentation' 'no stray trap in the program'

done_testing
