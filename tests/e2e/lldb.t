#!/bin/bash
# LLDB as the client: another debugger speaking GDB's remote protocol
# (its gdb-remote plugin), with its own packets (qHostInfo,
# qProcessInfo, QThreadSuffixSupported, qMemoryRegionInfo, x...), which
# utraced leaves unanswered where it has nothing to say, as gdbserver.
#
#  1. Launch: a breakpoint in bump() of breakloop, its argument, the pc,
#     memory, a second hit, then the program runs to its end (exit 7).
#  2. Beside another client: syscall_loop held by utraced for a raw COMM
#     client that lets it run; LLDB joins through the rendezvous socket,
#     stops in tick(), reads its argument, detaches; the program runs on,
#     and the COMM client never heard of any of it.
# gdbserver 13 with LLDB 14 stops at a SIGTRAP in _start instead of the
# breakpoint, and has no rendezvous socket: skipped for it.
. "$(dirname "$0")/../lib/e2e.sh"
skip_all_for_gdbserver 'LLDB stops at a SIGTRAP in _start with gdbserver 13'
LLDB=${LLDB:-$(command -v lldb-14 lldb | head -1)}
[[ -n $LLDB ]] || skip_all 'no lldb (apt-get install lldb-14)'

# lldb_run CMD...: LLDB in batch mode on PROG, each CMD in turn; its
# output in LLDB_OUT (Debian's LLDB 14 complains of its Python module:
# those lines are left out).
lldb_run() {
	local args=() c
	for c; do args+=(-o "$c"); done
	LLDB_OUT=$(timeout -k 5 "$E2E_WAIT" "$LLDB" --batch --no-lldbinit -o "file $PROG" "${args[@]}" \
		</dev/null 2>&1 | grep -v -e '^Traceback' -e '^  File "<string>"' -e 'Error: No module' \
		-e "NameError: name 'run_one_line'")
}

# ---------------------------------------------- 1. launch
PROG=$INFDIR/breakloop
start_server :0 "$PROG" 3 || bail 'server did not start'
lldb_run "gdb-remote $PORT" 'breakpoint set -n bump' continue 'frame variable step' \
	'register read rip' 'memory read -s4 -fd -c1 &counter' continue 'frame variable step' \
	'expr counter' 'breakpoint delete 1' continue
like "$LLDB_OUT" 'stop reason = breakpoint 1\.1' 'the breakpoint is hit'
like "$LLDB_OUT" '^\(int\) step = 1$' 'its argument, first call'
BP=$(sed -n 's/^Breakpoint 1: where = .*, address = \(0x[0-9a-f]*\)$/\1/p' <<<"$LLDB_OUT")
like "$LLDB_OUT" "^ +rip = $BP +breakloop\`bump" 'the pc is the breakpoint address'
like "$LLDB_OUT" '^0x[0-9a-f]+: 0$' 'memory: counter is 0 at the first hit'
like "$LLDB_OUT" '^\(int\) step = 2$' 'its argument, second call'
like "$LLDB_OUT" '^\(int\) \$[0-9]+ = 1$' 'counter is 1 then'
like "$LLDB_OUT" 'exited with status = 7' 'the program runs to its end, exit code 7'
ok 'the server exits' server_exits

# ---------------------------------------------- 2. beside another client
PROG=$INFDIR/syscall_loop
use_rundir
"$PROG" 1000000 20000 >"$WORK/prog.out" 2>&1 &
PID=$!
track "$PID"
wait_until file_has "$WORK/prog.out" '^tick 3$' || bail 'syscall_loop did not start'
start_server --attach :0 "$PID" || bail 'server did not attach'
SOCK=$(rendezvous_sock "$PID")
wait_until test -S "$SOCK" || bail 'no rendezvous socket'
"$RSPCLIENT" -t $((E2E_WAIT * 3)) "$TARGET" '?' --nowait c --wait-file "$WORK/p_go" \
	--raw '\x03' D >"$WORK/primary.out" 2>&1 &
P=$!
track "$P"
wait_until file_has "$WORK/primary.out" '^T' || bail 'the COMM client got no stop reply'
lldb_run "process connect --plugin gdb-remote unix-connect://$SOCK" 'breakpoint set -n tick' \
	continue 'frame variable i' 'process detach'
like "$LLDB_OUT" "^Process $PID stopped" 'LLDB joins the held process'
like "$LLDB_OUT" 'stop reason = breakpoint 1\.1' 'and stops at its breakpoint in tick()'
N=$(sed -n 's/^(int) i = \([0-9]*\)$/\1/p' <<<"$LLDB_OUT")
like "$N" '^[0-9]+$' "it reads tick()'s argument ($N)"
ok '... the tick that comes next' wait_until eval '(($(grep -c "^tick " "$WORK/prog.out") > N))'
like "$LLDB_OUT" "Process $PID detached" 'LLDB detaches'
L=$(grep -c '^tick ' "$WORK/prog.out")
ok 'the program runs on' wait_until eval '(($(grep -c "^tick " "$WORK/prog.out") >= L + 5))'
is "$(wc -l <"$WORK/primary.out")" 1 'the COMM client heard of nothing meanwhile'
touch "$WORK/p_go"
ok 'the COMM client ends' wait_exit "$P"
is "$(sed -n 3p "$WORK/primary.out")" OK 'its D is OK'
ok 'the server exits after the detach' server_exits
ok 'the program is untraced' wait_until eval '[[ $(tracer_of $PID) == 0 ]]'
done_testing
