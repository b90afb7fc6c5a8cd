#!/bin/bash
# Hardware watchpoints and breakpoints through the real gdb (Z1-Z4 packets):
# watch, rwatch, awatch and hbreak on breakloop, the values gdb reports and
# the hit counts it keeps. Needs debug registers that trap: skipped on a
# machine whose never do (tests/lib/hw_watch_probe.c); `make check-vm` runs
# it in a guest where they do, with 64-bit and 32-bit programs.
. "$(dirname "$0")/../lib/e2e.sh"

hw_watchpoints_work || skip_all "this machine's debug registers never trap (tests/lib/hw_watch_probe.c)"
PROG=$INFDIR/breakloop
SRC='breakloop\.c'
BODY=$(line_of breakloop.c bump-body)
WATCH=$(line_of breakloop.c watch)

# breakloop: bump(k) reads counter, writes counter + k, reads it again;
# main writes watched = 3 * i after each call (0 first: no change).
launch "$PROG"
remote_gdb "$PROG" 'watch watched' continue continue 'print watched' \
	'info watchpoints' delete continue
like "$GDB_OUT" '^Hardware watchpoint 1: watched$' 'watch: a hardware watchpoint'
vals=$(grep -A3 '^Hardware watchpoint 1: watched$' <<<"$GDB_OUT" | grep -E '^(Old|New) value' | tr '\n' ' ')
is "$vals" 'Old value = 0 New value = 3 Old value = 3 New value = 6 ' \
	'watch: the writes that change it, with old and new values (the first write of 0 is silent)'
like "$GDB_OUT" "^main \\(argc=1, argv=0x[0-9a-f]+\\) at .*$SRC:[0-9]+\$" 'watch: stopped in main'
like "$GDB_OUT" '^\$1 = 6$' 'watch: the value after the second hit'
like "$GDB_OUT" '^[[:space:]]+breakpoint already hit 2 times$' 'watch: hit 2 times'
exited_with 7 'watch deleted: to the end'

launch "$PROG"
remote_gdb "$PROG" 'hbreak bump' continue continue 'info breakpoints' 'delete 1' \
	'rwatch counter' continue continue 'info watchpoints' delete continue
like "$GDB_OUT" "^Hardware assisted breakpoint 1 at 0x[0-9a-f]+: file .*$SRC, line $BODY\\.\$" \
	'hbreak: a hardware breakpoint'
like "$GDB_OUT" "^Breakpoint 1, bump \\(step=1\\) at .*$SRC:$BODY\$" 'hbreak: first hit, step=1'
like "$GDB_OUT" "^Breakpoint 1, bump \\(step=2\\) at .*$SRC:$BODY\$" 'hbreak: second hit, step=2'
like "$GDB_OUT" '^1 +hw breakpoint +keep y .* in bump at ' 'info breakpoints: hw breakpoint'
like "$GDB_OUT" '^[[:space:]]+breakpoint already hit 2 times$' 'hbreak: hit 2 times'
like "$GDB_OUT" '^Hardware read watchpoint 2: counter$' 'rwatch: a read watchpoint'
# In bump(2) counter is 1 when read, then 3 after the write, read again for the return.
vals=$(grep -A2 '^Hardware read watchpoint 2: counter$' <<<"$GDB_OUT" | grep -E '^Value = ' | tr '\n' ' ')
is "$vals" 'Value = 1 Value = 3 ' 'rwatch: the two reads, the write between them not reported'
like "$GDB_OUT" '^2 +read watchpoint +keep y +counter$' 'info watchpoints: read watchpoint'
exited_with 7 'rwatch deleted: to the end'

launch "$PROG"
remote_gdb "$PROG" 'awatch counter' continue continue continue 'info watchpoints' \
	delete continue
like "$GDB_OUT" '^Hardware access \(read/write\) watchpoint 1: counter$' 'awatch: an access watchpoint'
vals=$(grep -A3 '^Hardware access (read/write) watchpoint 1: counter$' <<<"$GDB_OUT" |
	grep -E '^(Value|Old value|New value) = ' | tr '\n' ' ')
is "$vals" 'Value = 0 Old value = 0 New value = 1 Value = 1 ' \
	'awatch: read 0, write 0 -> 1, read 1 (bump(1))'
like "$GDB_OUT" "^bump \\(step=1\\) at .*$SRC:[0-9]+\$" 'awatch: stopped in bump'
like "$GDB_OUT" '^[[:space:]]+breakpoint already hit 3 times$' 'awatch: hit 3 times'
exited_with 7 'awatch deleted: to the end'

# Four debug registers in use at once, with conditions; the fourth watches
# the second byte of counter, which stays 0 (counter never reaches 256).
# With gdbserver 13.1 the first stop never comes here (gdb times out) and the
# guest's kernel then reports an RCU stall on one CPU for good: seen in the
# check-vm guest under QEMU's software emulation, not analysed.
if server_is_gdbserver; then
	skip 6 "gdbserver 13.1 does not stop with these four"
else
	launch "$PROG"
	remote_gdb "$PROG" 'watch watched if watched == 6' 'awatch counter if counter == 10' \
		'hbreak bump if step == 5' 'watch *((char *)&counter + 1)' \
		continue continue continue continue 'print watched' 'print counter' delete continue
	vals=$(grep -E '^(Hardware [a-z() /]*(watchpoint|breakpoint) [0-9]+|Breakpoint [0-9]+, |Value = |Old value = |New value = )' \
		<<<"$GDB_OUT" | sed 's/ at .*//' | tr '\n' ' ')
	want="Hardware watchpoint 1: watched Hardware access (read/write) watchpoint 2: counter "
	want+="Hardware assisted breakpoint 3 Hardware watchpoint 4: *((char *)&counter + 1) "
	want+="Hardware watchpoint 1: watched Old value = 3 New value = 6 "
	want+="Hardware access (read/write) watchpoint 2: counter Old value = 6 New value = 10 "
	want+="Hardware access (read/write) watchpoint 2: counter Value = 10 Breakpoint 3, bump (step=5) "
	is "$vals" "$want" \
		'four at once: each stop when its condition holds, in order'
	like "$GDB_OUT" '^\$1 = 9$' 'four at once: watched when bump(5) is called'
	like "$GDB_OUT" '^\$2 = 10$' 'four at once: counter when bump(5) is called'
	exited_with 7 'four at once: to the end'
fi

done_testing
