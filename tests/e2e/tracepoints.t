#!/bin/bash
# tracepoints: gdb's trace/collect/tstart/tfind on 8 threads calling hit()
# in a loop (tp_threads): every hit collected once ($regs, the locals and
# a 64-byte range of the caller's stack), each frame's values those of
# its hit (tp_check.py walks them all with tfind), tstatus and qTP's
# counts right, the program's calls all made and its code the file's
# again. Then a conditional tracepoint, a pass count, a circular buffer,
# while-stepping, and tsave. (Disconnected tracing and two gdbs:
# tracepoints_engines.t.)
. "$(dirname "$0")/../lib/e2e.sh"

PROG=$INFDIR/tp_threads
CHECK=$TOP/tests/e2e/tp_check.py
# TP_ITERS=12500 E2E_WAIT=900: 100 000 hits (slow: tfind through them all)
NT=8 ITERS=${TP_ITERS:-250}
TOTAL=$((NT * ITERS))

# tp_gdb CMD...: gdb connects to TARGET and runs CMDs from a file (an
# `actions` list reads its lines from the file, not from more -ex).
tp_gdb() {
	printf '%s\n' "target remote $TARGET" "$@" >"$WORK/cmds.gdb"
	run_gdb "$PROG" -x "$WORK/cmds.gdb"
}

start_server :0 "$PROG" $NT $ITERS || bail 'the server did not start'
# (a buffer for TP_ITERS=12500: 100 000 hits of about 1 KiB each)
tp_gdb 'break main' continue 'set trace-buffer-size 268435456' 'trace hit' actions \
	'collect $regs' 'collect id, i' \
	'collect *buf@64' end 'break done' tstart continue tstatus tstop \
	"source $CHECK" 'tfind 3' 'info registers rip' 'tdump' 'tfind none' \
	'info tracepoints' continue
like "$GDB_OUT" '^Tracepoint 2 at 0x[0-9a-f]+: file .*tp_threads\.c' 'tracepoint set'
like "$GDB_OUT" '^Breakpoint 3, done \(\)' 'the program ran to its end with the trace running'
like "$GDB_OUT" '^Trace is running on the target\.' 'tstatus: running'
like "$GDB_OUT" "^Collected $TOTAL trace frames\\." "tstatus: $TOTAL frames"
like "$GDB_OUT" "^tp_check: frames $TOTAL distinct $TOTAL dup 0 bad 0\$" \
	'every hit once, each frame with its own id, i, buffer, pc and stack'
like "$GDB_OUT" '^rip +0x[0-9a-f]+ +0x[0-9a-f]+ <hit\+[0-9]+>' 'tfind: the pc is hit()'
like "$GDB_OUT" '^\*buf@64 = ' 'tdump shows the range'
like "$GDB_OUT" "^[[:space:]]+collect \\\$regs" 'info tracepoints lists the actions'
skip_if_gdbserver 'answers qTP in decimal (gdb reads hex)' ||
	like "$GDB_OUT" "tracepoint already hit $TOTAL times" 'hit count (qTP)'
like "$(program_output)" "^calls $TOTAL\$" 'every call made once'
like "$(program_output)" '^text ok$' "hit()'s code the file's again"

# --- a condition, a pass count, a circular buffer of a few frames
start_server :0 "$PROG" $NT $ITERS || bail 'the server did not start'
tp_gdb 'break main' continue 'set trace-buffer-size 268435456' 'trace hit if i % 10 == 3' \
	actions 'collect i' end \
	'trace done' 'passcount 1' 'break done' tstart continue tstop tstatus \
	'tfind start' 'while $trace_frame != -1' 'output i' 'echo \n' 'tfind' end
like "$GDB_OUT" "^Collected $((TOTAL / 10 + 1)) trace frames\\." 'condition: one hit in ten collected (and done)'
is "$(grep -Ex '[0-9]+' <<<"$GDB_OUT" | sort -nu | tr '\n' ' ')" "$(seq 3 10 $((ITERS - 1)) | tr '\n' ' ')" \
	'condition: only i % 10 == 3'
like "$GDB_OUT" '^Trace stopped by tracepoint 3\.' 'pass count: the run stopped by tracepoint 3 (done)'

start_server :0 "$PROG" $NT $ITERS || bail 'the server did not start'
tp_gdb 'break main' continue 'set trace-buffer-size 4000' 'set circular-trace-buffer on' \
	'trace hit' actions 'collect i' 'collect *buf@64' end 'break done' tstart continue tstatus tstop \
	'tfind start' 'printf "first %d\n", i' 'tfind end'
like "$GDB_OUT" '^Trace buffer is circular\.' 'circular buffer'
GS_CIRC='stops its circular 4000-byte buffer as full (gdbserver 13)'
skip_if_gdbserver "$GS_CIRC" || like "$GDB_OUT" "^Buffer contains [0-9]+ trace frames \\(of $TOTAL created total\\)\\." \
	'some frames kept, every one created'
like "$GDB_OUT" "^Trace buffer has [0-9]+ bytes of 4000 bytes free" 'size 4000'
skip_if_gdbserver "$GS_CIRC" ||
	like "$GDB_OUT" "^Trace is running on the target\\." 'a full circular buffer does not stop the run'
FIRST=$(sed -n 's/^first //p' <<<"$GDB_OUT")
skip_if_gdbserver "$GS_CIRC" || ok 'the oldest frames were dropped' test "${FIRST:-0}" -gt 0

# tsave -r: utraced writes the file (QTSave; gdbserver 13 has none)
TSAVE_R=()
server_is_gdbserver || TSAVE_R=("tsave -r $WORK/tp_r.tf")
start_server :0 "$PROG" 1 3 || bail 'the server did not start'
tp_gdb 'break main' continue 'trace hit' actions 'collect i' 'while-stepping 3' \
	'collect $rip' end end 'break done' tstart continue tstop tstatus 'tfind start' \
	'while $trace_frame != -1' 'printf "frame %d pc %#lx\n", $trace_frame, $pc' 'tfind' end \
	"tsave $WORK/tp.tf" "${TSAVE_R[@]}" 'tfind none' "target tfile $WORK/tp.tf" 'tfind start' 'p i'
like "$GDB_OUT" '^Collected 12 trace frames\.' 'while-stepping: 3 hits, 3 steps each'
is "$(grep -c '^frame ' <<<"$GDB_OUT")" 12 'tfind walks them'
is "$(sed -n 's/^frame [0-9]* pc //p' <<<"$GDB_OUT" | sort -u | wc -l)" 4 'four distinct pcs'
ok 'tsave wrote the file' test -s "$WORK/tp.tf"
like "$GDB_OUT" '^\$[0-9]+ = 0$' 'the saved file reads back (tfile)'

# The file utraced wrote (tsave -r) is gdb's own (tsave) but for its
# status line (fields in another order) and the target description's
# first line (gdb drops the XML declaration): definitions and frames
# byte for byte; and gdb reads it back.
defs_and_frames() { grep -av '^tdesc \|^status ' "$1"; }
if skip_if_gdbserver 'has no QTSave (tsave -r)'; then :; else
	ok 'tsave -r wrote the file' test -s "$WORK/tp_r.tf"
	ok 'tsave -r: the definitions and frames gdb writes, byte for byte' \
		cmp <(defs_and_frames "$WORK/tp.tf") <(defs_and_frames "$WORK/tp_r.tf")
	# gdb reads both the same way (a fresh gdb: the PIE's addresses as in the file)
	read_back() {
		run_gdb "$PROG" -ex "target tfile $1" -ex tstatus -ex 'tfind start' -ex 'p $pc' \
			-ex 'tfind 11' -ex 'p $pc' -ex 'tdump' -ex 'info tracepoints'
		grep -v 'tp_r\?\.tf' <<<"$GDB_OUT"
	}
	R=$(read_back "$WORK/tp_r.tf")
	like "$R" '^Collected 12 trace frames\.' 'tsave -r: gdb reads its status'
	like "$R" '^Found trace frame 11, tracepoint 1' 'tsave -r: the last frame'
	like "$R" 'collect i' 'tsave -r: the tracepoint and its actions'
	is "$R" "$(read_back "$WORK/tp.tf")" "tsave -r: gdb reads it as its own tsave's file"
	# hostile names: not hex, a FIFO (would block the daemon), no such directory
	mkfifo "$WORK/fifo"
	start_server :0 "$PROG" 1 3 || bail 'the server did not start'
	rsp 'QTSave:7' 'QTSave:' "QTSave:$(printf '%s' "$WORK/fifo" | xxd -p | tr -d '\n')" \
		"QTSave:$(printf '%s' "$WORK/none/x.tf" | xxd -p | tr -d '\n')" 'QTSave:2f00' k
	is "$(head -5 "$RSP_FILE" | xargs)" 'E16 E16 E06 E02 E16' \
		'QTSave refuses odd hex, an empty name, a FIFO (no reader: ENXIO), a missing directory, a NUL'
fi
done_testing
