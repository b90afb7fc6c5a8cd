#!/bin/bash
# xol_step: an engine single-steps a thread that sits on a breakpoint it
# did not lift (a raw client in non-stop mode: its own, here, or another
# engine's; the scheduler does not tell them apart). The hidden step over
# the trap runs the instruction's relocated copy in the thread's slot
# (docs/xol.md), and no other thread is stopped for it: step_spin's
# spinner thread, which never makes a system call, is never stopped (its
# voluntary context switches, /proc/PID/task/TID/status, do not move).
# The step ends where the instruction leads: the next instruction, or a
# call's target (a relocated call is two instructions in the slot: the
# step goes on through both), never in the slot.
. "$(dirname "$0")/../lib/e2e.sh"
skip_all_for_gdbserver 'utraced: out-of-line steps'

PROG=$INFDIR/step_spin
use_rundir

# name of the case, address in the file (objdump), where the step leads,
# how far the stack pointer moves
mapfile -t CASES < <(objdump -d --no-show-raw-insn "$PROG" | awk '
	/<step_here>:$/ { f = 1; n = 0; next }
	f && n < 3 { split($0, a, ":"); addr[n++] = a[1] }
	f && n == 3 { f = 0 }
	/call +[0-9a-f]+ <step_here>/ { split($0, a, ":"); call = a[1]; target = $3 }
	END {
		printf "push 0x%s 0x%s -8\n", addr[0], addr[1]
		printf "rip-relative 0x%s - 0\n", addr[2]
		printf "call 0x%s 0x%s -8\n", call, target
	}' | sed 's/0x *\([0-9a-f]\)/0x\1/g')
((${#CASES[@]} == 3)) || bail "no addresses in $PROG"

vcsw() { sed -n 's/^voluntary_ctxt_switches:[[:space:]]*//p' "/proc/$PID/task/$SPINNER/status"; }
le64() { printf '%016x' "$1" | fold -w2 | tac | tr -d '\n'; }
rip_of() { sed -n 's/.*;10:\([0-9a-f]*\);.*/\1/p' <<<"$1"; }
rsp_of() { echo $((0x$(sed -n 's/.*;07:\([0-9a-f]*\);.*/\1/p' <<<"$1" | fold -w2 | tac | tr -d '\n'))); }

"$PROG" >"$WORK/prog.out" 2>&1 &
PID=$!
track "$PID"
wait_until file_has "$WORK/prog.out" '^spinner ' || bail 'step_spin did not start'
SPINNER=$(sed -n 's/^spinner //p' "$WORK/prog.out")
start_server --attach :0 "$PID" || bail 'the server did not attach'
BIAS=$(load_bias "$PID" "$PROG")
[[ -n $BIAS ]] || bail 'no load bias'
THREAD=$(printf '%x' "$PID")

# the client: non-stop, then per case a breakpoint, its hit, a step there
items=(QNonStop:1 '?' vStopped vStopped vStopped)
for ((i = 0; i < ${#CASES[@]}; i++)); do
	read -r _ at _ <<<"${CASES[i]}"
	a=$(printf '%x' $((BIAS + at)))
	items+=("Z0,$a,1" 'vCont;c' --notif vStopped --wait-file "$WORK/go$i" "vCont;s:$THREAD"
		--notif vStopped "z0,$a,1")
done
items+=('qRcmd,75747261636564207374617473' --wait-file "$WORK/end" D)
"$RSPCLIENT" -t "$E2E_WAIT" "$TARGET" "${items[@]}" >"$WORK/a.out" 2>&1 &
A=$!
track "$A"

for ((i = 0; i < ${#CASES[@]}; i++)); do
	read -r what at next moved <<<"${CASES[i]}"
	n=$((2 * i + 1))
	wait_until eval '(($(grep -c "^%Stop:T05" "$WORK/a.out") >= n))' ||
		bail "$what: no hit of the breakpoint: $(cat "$WORK/a.out")"
	hit=$(grep '^%Stop:T05' "$WORK/a.out" | sed -n "${n}p")
	is "$(rip_of "$hit")" "$(le64 $((BIAS + at)))" "$what: the thread stops at the breakpoint"
	before=$(vcsw)
	touch "$WORK/go$i"
	wait_until eval '(($(grep -c "^%Stop:T05" "$WORK/a.out") >= n + 1))' ||
		bail "$what: the step did not end: $(cat "$WORK/a.out")"
	after=$(vcsw)
	step=$(grep '^%Stop:T05' "$WORK/a.out" | sed -n "$((n + 1))p")
	is "$after" "$before" "$what: the spinner was not stopped for the step"
	if [[ $next == - ]]; then
		# the instruction after the rip-relative load
		next=$(objdump -d --no-show-raw-insn "$PROG" | awk -v a="$(printf '%x' "$at")" '
			f { split($0, x, ":"); print "0x" x[1]; exit } $1 == a ":" { f = 1 }' | tr -d ' ')
	fi
	is "$(rip_of "$step")" "$(le64 $((BIAS + next)))" "$what: the step ends where the instruction leads"
	like "$step" "thread:$THREAD;" "$what: the step's report is of the stepped thread"
	is $(($(rsp_of "$step") - $(rsp_of "$hit"))) "$moved" "$what: the stack pointer moved by $moved"
	if [[ $what == call ]]; then
		is "$(mem_bytes "$PID" "$(rsp_of "$step")" 8)" \
			"$(le64 $((BIAS + at + 5)) | sed 's/../& /g; s/ $//')" \
			'call: the return address pushed is the one after the call'
	fi
done
# (the client asks for them after the last step's report: they may come later)
stats_text() { grep -o '^O[0-9a-f]*' "$WORK/a.out" | cut -c2- | xxd -r -p; }
wait_until eval 'stats_text | grep -q "step-overs in place:"'
stats=$(stats_text)
like "$stats" 'step-overs out of line: [1-9]' 'the steps ran out of line' || diag "$stats"
like "$stats" 'step-overs in place: 0' 'none in place' || diag "$stats"
touch "$WORK/end"
ok 'the client detaches' wait_exit "$A"
is "$EXIT_STATUS" 0 'the client got every reply'
ok 'the program is untraced' wait_until eval '[[ $(tracer_of $PID) == 0 ]]'
c1=$(sed -n 's/^State:[[:space:]]*//p' "/proc/$PID/status")
unlike "$c1" '^[tT]' 'and runs on'

done_testing
