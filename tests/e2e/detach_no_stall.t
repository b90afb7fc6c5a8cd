#!/bin/bash
# A client killed while its breakpoint is patched into a program whose
# main thread waits in vfork() (vfork_stuck: the child pauses): the
# let-go (leaving.c uproc_let_go) must take the jmp out and must not hold
# the daemon meanwhile. A raw client (no vfork events asked: its
# breakpoint stays through the vfork) attaches through --multi-style
# vAttach, inserts a breakpoint in tick() with the condition "0" (patched:
# a jmp at the address) and continues; the vfork starts; the client is
# killed (-9) while another client, joined to another process through its
# rendezvous socket, sends qC every 2 ms. That client's worst round trip
# stays short, the ticker runs on through tick() untraced, and once the
# vfork child is gone the main thread goes on, is detached, and the code
# at the address is the program's own again.
# (Seen while writing this: at the removal the vfork parent is already
# counted stopped, so this case frees the process at once, before and
# after the let-go became asynchronous; a thread that really cannot stop
# there, such as one in uninterruptible sleep, is what the asynchronous
# let-go is for.)
. "$(dirname "$0")/../lib/e2e.sh"
. "$(dirname "$0")/../lib/fuse.sh"

PROG=$INFDIR/vfork_stuck
use_rundir
sleep 1000 &
HELD=$!
track "$HELD"
start_mount --attach :0 "$HELD" || bail "utraced --mount --attach did not start"
wait_until file_has "$SERVER_ERR" "^Listening on port"
TCP=$HOST:$(sed -n 's/^Listening on port \([0-9][0-9]*\).*/\1/p' "$SERVER_ERR" | head -1)
SOCK=$(rendezvous_sock "$HELD")
wait_until test -S "$SOCK" || bail "no rendezvous socket for $HELD"

# code_at PID ADDR: the byte at ADDR in PID's memory, in hex
code_at() { dd if="/proc/$1/mem" bs=1 skip=$(($2)) count=1 2>/dev/null | od -An -tx1 | tr -d ' '; }
# tick()'s first line, past its prologue, as an offset in the file
OFF=$("$GDB" -nx -batch -ex 'break tick' "$PROG" 2>/dev/null | sed -n 's/^Breakpoint 1 at \(0x[0-9a-f]*\).*/\1/p')
[[ -n $OFF ]] || bail "no address for tick"
worst() { sed -n 's/^max=\([0-9]*\) .*/\1/p' "$1"; }

# trial N: a vfork_stuck (P) with a patched breakpoint, its vfork child
# (CHILD) paused; gdb is killed while the other client pings; W: the
# worst round trip
trial() {
	local t=$WORK/t$1 base
	"$PROG" "$t.go" >"$t.out" 2>&1 &
	P=$!
	track "$P"
	wait_until file_has "$t.out" '^ready' || bail "vfork_stuck did not start"
	base=$(awk -v exe="$(readlink -f "$PROG")" '$6 == exe { print $1; exit }' "/proc/$P/maps")
	BP=$(printf '0x%x' $((0x${base%%-*} + OFF)))
	# condition "0" (const8 0, end): never true
	timeout -k 5 "$E2E_WAIT" "$RSPCLIENT" -t "$E2E_WAIT" "$TCP" 'qSupported:multiprocess+' \
		"vAttach;$(printf %x "$P")" "Z0,${BP#0x},1;X3,220027" --nowait 'vCont;c' \
		--wait-file "$WORK/never" >"$t.rsp" 2>&1 &
	CLIENT=$!
	track "$CLIENT"
	# a false hit (one every 100 ms) has the jmp put in
	wait_until eval '[[ $(code_at $P $BP) == e9 ]]' || return 1
	touch "$t.go"
	wait_until file_has "$t.out" '^child ' || bail "no vfork child"
	CHILD=$(sed -n 's/^child //p' "$t.out")
	track "$CHILD"
	PATCHED=$(code_at "$P" "$BP")
	timeout -k 5 "$E2E_WAIT" "$RSPCLIENT" -t "$E2E_WAIT" "unix:$SOCK" --ping qC 400 2 \
		>"$t.ping" 2>&1 &
	PING_PID=$!
	track "$PING_PID"
	sleep 0.3
	kill -9 "$CLIENT"
	wait "$PING_PID"
	W=$(worst "$t.ping")
	OUT=$t.out
}

# The old let-go waited in the loop for the vfork parent (100 ms) every
# time; a loaded machine adds its own delays now and then: best of three.
BEST=100000
for n in 1 2 3; do
	trial "$n" || break
	[[ -n $W ]] && ((W < BEST)) && BEST=$W
	((BEST < 50)) && break
done
ok "a false condition in tick(), run in the program: a jmp at $BP while the vfork waits" \
	test "$PATCHED" = e9
ok "its client killed, the program let go: the other client's worst round trip $BEST ms (best of $n)" \
	test "$BEST" -lt 50

ticks() { grep -c '^tick ' "$OUT"; }
N=$(ticks)
# (the vfork parent stays traced until it can stop: detached then)
ok 'the ticker runs on through tick()' wait_until eval "(( \$(ticks) > $N + 3 ))"
kill "$CHILD"
ok 'the vfork parent goes on once its child is gone' \
	wait_until file_has "$OUT" '^vfork done$'
ok '... detached then: nothing of utraced is left in it' \
	wait_until eval '[[ $(tracer_of '"$P"') == 0 ]]'
B=$(code_at "$P" "$BP")
ok "... and its code at $BP is its own again ($B)" eval '[[ -n $B && $B != e9 && $B != cc ]]'
ok 'the daemon is up' pid_alive "$SERVER_PID"

done_testing
