#!/bin/bash
# agent_nonstop: in non-stop mode, a breakpoint asked for under the jmp of
# a patched breakpoint (an instruction the jmp replaced) while the threads
# run. It used to be refused (an E reply: "Cannot insert breakpoint"); now
# the jmp goes and the breakpoint goes in at the next all-stopped moment,
# and the next call stops there. Raw packets: the condition (`const8 0`,
# never true) on visit()'s first body instruction makes the patch, which
# replaces it and the next one; then Z0 at that next one.
. "$(dirname "$0")/../lib/e2e.sh"

PROG=$INFDIR/agent_conds
skip_all_for_gdbserver 'utraced: patched breakpoints'

# visit's body: its first two instructions (4 bytes each at -O0; 3 each in
# the 32-bit build, also run by make check's E2E32 set)
ex_args 'info line agent_conds.c:'"$(line_of agent_conds.c visit-body)" 'x/2i $_'
run_gdb "$PROG" "${EX[@]}"
mapfile -t INSNS < <(sed -n 's/^ *\(=> \)\?\(0x[0-9a-f]*\) <visit+[0-9]*>:.*/\2/p' <<<"$GDB_OUT")
((${#INSNS[@]} == 2)) || bail "no instructions: $GDB_OUT"

launch "$PROG" 400000000
BIAS=$(load_bias "$INFERIOR_PID" "$PROG")
[[ -n $BIAS ]] || bail 'no load bias'
A=$(printf '%x' $((BIAS + INSNS[0])))
B=$(printf '%x' $((BIAS + INSNS[1])))
rsp 'QNonStop:1' '?' vStopped "Z0,$A,1;X3,220027" 'vCont;c' --sleep 500 'qRcmd,75747261636564207374617473' \
	"Z0,$B,1" --notif vStopped --nowait k
like "$RSP_OUT" '^OK$' 'the replies' || diag "$RSP_OUT"
stats=$(grep -o '^O[0-9a-f]*' <<<"$RSP_OUT" | cut -c2- | xxd -r -p)
like "$stats" 'breakpoints patched[^:]*: 1' 'the conditional breakpoint is patched' || diag "$stats"
unlike "$RSP_OUT" '^E' "Z0 under the jmp while the threads run: no error (it was E0b)" ||
	diag "$RSP_OUT"
stop=$(grep '^%Stop:T05' <<<"$RSP_OUT" | head -1)
like "$stop" "swbreak" '... and the next call stops there, a breakpoint hit' || diag "$RSP_OUT"
# (the pc: rip, register 0x10, 8 bytes; a 32-bit program's eip, 8, 4 bytes)
if [[ $(pc_register "$PROG") == eip ]]; then
	pc_le=$(printf '%08x' $((BIAS + INSNS[1])) | fold -w2 | tac | tr -d '\n') pc_reg=08
else
	pc_le=$(printf '%016x' $((BIAS + INSNS[1])) | fold -w2 | tac | tr -d '\n') pc_reg=10
fi
like "$stop" ";$pc_reg:$pc_le;" '... at its address'

done_testing
