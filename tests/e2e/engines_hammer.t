#!/bin/bash
# Eight raw clients hammer one multi-threaded process at once, each
# joining through the rendezvous socket again and again, for HAMMER
# seconds: memory and register reads, breakpoints inserted and removed,
# steps, continues to a breakpoint, continues ended by ^C, detaches and
# plain disconnects (one of them with its breakpoint still in).
#
# Every reply must come within REPLY_WAIT seconds and be the one expected
# for its request, in order: a stop reply exactly for each "?" and each
# resume, the right thread for a step, the breakpoint's address for a hit,
# the original bytes under every breakpoint, nothing unsolicited.  The
# program must live through it all, and when the last client has left it
# must be untraced and running as before.
#
# utraced attaches to engines_threads (started here); the COMM client just
# continues, and must see no stop at all.
. "$(dirname "$0")/../lib/e2e.sh"
server_is_gdbserver && skip_all 'needs utraced engines'

PROG=$INFDIR/engines_threads
NCLIENTS=${NCLIENTS:-8}
HAMMER=${HAMMER:-30}
REPLY_WAIT=${REPLY_WAIT:-15}
use_rundir

"$PROG" >"$WORK/prog.out" 2>&1 &
PID=$!
track "$PID"
wait_until file_has "$WORK/prog.out" '^tick 1 ' || bail "engines_threads did not start"
mapfile -t TIDS < <(ls "/proc/$PID/task" | sort -n)
((${#TIDS[@]} == 4)) || bail "engines_threads has ${#TIDS[@]} threads, not 4"

# Addresses: work() and counts[1] in the running process; the bytes of the
# file at work().
ex_args 'printf "WORK %#lx\n", (long)work' 'printf "COUNT %#lx\n", (long)&counts[1]'
run_gdb "$PROG" "${EX[@]}"
S_WORK=$(sed -n 's/^WORK //p' <<<"$GDB_OUT")
S_COUNT=$(sed -n 's/^COUNT //p' <<<"$GDB_OUT")
BIAS=$(load_bias "$PID" "$PROG")
[[ -n $S_WORK && -n $S_COUNT && -n $BIAS ]] || bail "no addresses: $GDB_OUT"
WORK_X=$(printf '%x' $((BIAS + S_WORK)))
COUNT_X=$(printf '%x' $((BIAS + S_COUNT)))
ORIG8=$(elf_bytes "$PROG" "$S_WORK" 8 | tr -d ' ')
ORIG1=${ORIG8:0:2}
# The pc register (10: rip) in a T reply when a thread is at work().
WORK_LE=$(printf '%016x' $((BIAS + S_WORK)) | fold -w2 | tac | tr -d '\n')
AT_WORK=";10:$WORK_LE;"
[[ $(pc_register "$PROG") == rip ]] || skip_all 'the checks of pc values are for amd64'

start_server --attach :0 "$PID" || bail "server did not attach"
SOCK=$(rendezvous_sock "$PID")
ok 'the rendezvous socket is there' wait_until test -S "$SOCK"
"$RSPCLIENT" -t $((HAMMER + 60)) "$TARGET" '?' c >"$WORK/primary.out" 2>&1 &
PRIMARY_PID=$!
track "$PRIMARY_PID"
ok 'the COMM client continues: the process runs' wait_until eval \
	'file_has "$WORK/primary.out" "^T05" && pid_running $PID'

# ------------------------------------------------------------ the scripts
# Each sets ITEMS (rspclient's arguments) and EXPECT (an extended regular
# expression for each line it prints).

tid_x() { # tid_x N: thread N (0 main, 1..3 workers) in hex
	printf '%x' "${TIDS[$1]}"
}

script_read() { # looks around, detaches
	local t
	t=$(tid_x $((RANDOM % 4)))
	ITEMS=('?' qfThreadInfo qsThreadInfo "Hg$t" g "m$WORK_X,8" "m$COUNT_X,8" D)
	EXPECT=('^T05' '^m[0-9a-f]+(,[0-9a-f]+){3}$' '^l$' '^OK$' '^[0-9a-fx]{200,}$'
		"^$ORIG8\$" '^[0-9a-f]{16}$' '^OK$')
}

script_break() { # breakpoint, continue to it, remove it; detaches or just goes
	ITEMS=('?' "Z0,$WORK_X,1" "m$WORK_X,1" c "m$WORK_X,8" g "z0,$WORK_X,1" "m$WORK_X,8")
	EXPECT=('^T05' '^OK$' "^$ORIG1\$" "^T05.*$AT_WORK" "^$ORIG8\$" '^[0-9a-fx]{200,}$'
		'^OK$' "^$ORIG8\$")
	if ((RANDOM % 2)); then
		ITEMS+=(D)
		EXPECT+=('^OK$')
	fi
}

script_leave() { # breakpoint, continue, and leave without waiting
	ITEMS=('?' "Z0,$WORK_X,1" --nowait c --sleep $((RANDOM % 50)))
	EXPECT=('^T05' '^OK$')
}

script_step() { # steps, the other threads running: vCont;s:T;c as gdb's "step", and s
	local a=$((RANDOM % 4)) b=$((RANDOM % 4))
	ITEMS=('?' 'vCont?' "vCont;s:$(tid_x $a);c" "Hc$(tid_x $b)" s D)
	EXPECT=('^T05' '^vCont;c;C;s;S' "^T05thread:$(tid_x $a);" '^OK$'
		"^T05thread:$(tid_x $b);" '^OK$')
}

# vCont;s:T alone (the other threads held) is how gdb steps over a
# breakpoint; two engines doing it on different threads at once must not
# wait for each other (engines_step_holds.t).
script_solostep() {
	local a=$((RANDOM % 4))
	ITEMS=('?' "vCont;s:$(tid_x $a)" "vCont;s:$(tid_x $a)" D)
	EXPECT=('^T05' "^T05thread:$(tid_x $a);" "^T05thread:$(tid_x $a);" '^OK$')
}

script_ctrlc() { # continue, ^C, twice; then nothing more may come
	ITEMS=('?' --nowait 'vCont;c' --sleep $((RANDOM % 200)) --raw '\x03' "m$COUNT_X,8"
		--nowait c --sleep $((RANDOM % 100)) --raw '\x03' --send '' D)
	EXPECT=('^T05' '^T02' '^[0-9a-f]{16}$' '^T02' '^OK$')
}

script_stepbp() { # hit a breakpoint, step off it, hit it again
	ITEMS=('?' "Z0,$WORK_X,1" c s c "m$WORK_X,8" "z0,$WORK_X,1" --send '' D)
	EXPECT=('^T05' '^OK$' "^T05.*$AT_WORK" '^T05' "^T05.*$AT_WORK" "^$ORIG8\$" '^OK$' '^OK$')
}

script_leavestep() { # a step, and gone before it is reported (as a gdb killed then)
	ITEMS=('?' --nowait "vCont;s:$(tid_x $((RANDOM % 4)));c")
	EXPECT=('^T05')
}

script_ctrlstep() { # a step interrupted by ^C, then detach
	ITEMS=('?' --nowait "vCont;s:$(tid_x $((RANDOM % 4)));c" --raw '\x03' D)
	EXPECT=('^T05' '^T0[25]thread:[0-9a-f]+;' '^OK$')
}

# The mix; HAMMER_SCRIPTS="read break ..." to choose.
SCRIPTS=(read break step ctrlc stepbp leave read break ctrlc stepbp leavestep ctrlstep solostep)
[[ -n ${HAMMER_SCRIPTS:-} ]] && read -r -a SCRIPTS <<<"$HAMMER_SCRIPTS"

# hammer K: client K's loop, one connection after another, for HAMMER s.
hammer() {
	local k=$1 it=0 end=$((SECONDS + HAMMER)) script f
	# (a dead server or program: no point going on)
	while ((SECONDS < end)) && pid_alive "$SERVER_PID" && pid_alive "$PID"; do
		it=$((it + 1))
		script=${SCRIPTS[$(((k * 7 + it * 3 + RANDOM % 2) % ${#SCRIPTS[@]}))]}
		"script_$script"
		f=$WORK/c$k.$it
		echo "$script" >"$f.name"
		echo "${ITEMS[*]}" >"$f.items"
		printf '%s\n' "${EXPECT[@]}" >"$f.exp"
		timeout -k 2 $((REPLY_WAIT * 3)) "$RSPCLIENT" --noack -t "$REPLY_WAIT" --quiet 100 \
			"unix:$SOCK" "${ITEMS[@]}" >"$f.out" 2>&1
		echo $? >"$f.rc"
	done
}

# check_run F: the run F (its .out, .exp, .rc) went as expected.
check_run() {
	local f=$1 rc i
	local -a got want
	read -r rc <"$f.rc"
	mapfile -t got <"$f.out"
	mapfile -t want <"$f.exp"
	[[ $rc == 0 ]] || { WHY="exit status $rc" && return 1; }
	((${#got[@]} == ${#want[@]})) || { WHY="${#got[@]} lines for ${#want[@]} expected" && return 1; }
	for ((i = 0; i < ${#want[@]}; i++)); do
		[[ ${got[i]} =~ ${want[i]} ]] || { WHY="line $((i + 1)) does not match /${want[i]}/" && return 1; }
	done
}

# ------------------------------------------------------------ the hammer
t0=$SECONDS
HPIDS=()
for ((k = 1; k <= NCLIENTS; k++)); do
	hammer "$k" &
	HPIDS+=($!)
	track $!
done
hammers_done() {
	local p
	for p in "${HPIDS[@]}"; do
		pid_alive "$p" && return 1
	done
	return 0
}
E2E_WAIT=$((HAMMER + REPLY_WAIT * 3 + 10)) wait_until hammers_done
ok "the $NCLIENTS clients end (after $((SECONDS - t0)) s)" hammers_done
ok 'the program survives' pid_alive "$PID"
is "$(sed -n 2p "$WORK/primary.out")" '' 'the COMM client got no stop'
ok 'the server is alive' pid_alive "$SERVER_PID"

# --- every run of every client
declare -A runs_of fails_of
total=0 failed=0
for f in "$WORK"/c*.rc; do
	f=${f%.rc}
	read -r script <"$f.name"
	runs_of[$script]=$((${runs_of[$script]:-0} + 1))
	total=$((total + 1))
	if ! check_run "$f"; then
		failed=$((failed + 1))
		fails_of[$script]=$((${fails_of[$script]:-0} + 1))
		if ((failed <= 3)); then
			diag "${f##*/} ($script): $WHY"
			diag "sent: $(cat "$f.items")"
			diag "got:"
			diag "$(cat "$f.out")"
			diag "expected:"
			diag "$(cat "$f.exp")"
		fi
	fi
done
summary=
for s in "${!runs_of[@]}"; do
	summary+="$s ${runs_of[$s]} (${fails_of[$s]:-0} bad), "
done
diag "runs: $total: ${summary%, }"
ok "enough runs ($total)" eval '((total >= NCLIENTS * 3))'
is "$failed" 0 'every reply came in time and was the one expected'
for s in $(printf '%s\n' "${SCRIPTS[@]}" | sort -u); do
	ok "script $s was run" eval '((${runs_of[$s]:-0} > 0))'
done

# --- stop replies only for "?" and resumes
for ((k = 1; k <= NCLIENTS; k++)); do
	st=$(cat "$WORK"/c$k.*.out 2>/dev/null | grep -cE '^[TSWX][0-9a-f]{2}')
	ex=$(cat "$WORK"/c$k.*.exp 2>/dev/null | grep -cE '^\^[TSWX]')
	is "$st" "$ex" "client $k: as many stop replies as requests for one"
done

# --- after the storm
if ! pid_alive "$PID" || ! pid_alive "$SERVER_PID"; then
	if ! pid_alive "$PID"; then
		wait "$PID" 2>/dev/null
		diag "the program ended with status $? (128 + 5: SIGTRAP)"
	fi
	diag "the COMM client got:"
	diag "$(cat "$WORK/primary.out")"
	skip 12 'the program or the server is gone'
	done_testing
fi
script_read
timeout -k 2 $((REPLY_WAIT * 2)) "$RSPCLIENT" --noack -t "$REPLY_WAIT" "unix:$SOCK" "${ITEMS[@]}" >"$WORK/last.out" 2>&1
echo $? >"$WORK/last.rc"
printf '%s\n' "${EXPECT[@]}" >"$WORK/last.exp"
WHY=
check_run "$WORK/last"
_tap_result $? 'one more client joins, reads, detaches' || { diag "$WHY"; diag "$(cat "$WORK/last.out")"; }
ok 'the process runs again' wait_until pid_running "$PID"
is "$(mem_bytes "$PID" "0x$WORK_X" 8 | tr -d ' ')" "$ORIG8" 'no int3 left in work()'
is "$(wc -l <"$WORK/primary.out")" 1 'the COMM client still got no stop'
kill -TERM "$PRIMARY_PID" 2>/dev/null
ok 'the server exits when the COMM client leaves' server_exits
is "$EXIT_STATUS" 0 'server exit status 0'
ok 'the program is untraced' wait_until eval '[[ $(tracer_of $PID) == 0 ]]'
n=$(grep -c '^tick ' "$WORK/prog.out")
ok 'and runs on: it ticks' wait_until eval '(($(grep -c "^tick " "$WORK/prog.out") > n + 2))'
ok 'it is running' pid_running "$PID"
all_like "$(grep -v '^started$' "$WORK/prog.out")" '^tick [0-9]+ c1=[0-9]+ c2=[0-9]+ c3=[0-9]+$' \
	'no EINTR nor BACKWARDS in its output'
last=$(tail -1 "$WORK/prog.out")
diag "the program's last tick: $last"
ok 'every worker made progress' eval '[[ $last =~ c1=[1-9][0-9]*\ c2=[1-9][0-9]*\ c3=[1-9][0-9]* ]]'
ok 'the rendezvous socket is gone' wait_until eval '[[ ! -e $SOCK ]]'

done_testing
