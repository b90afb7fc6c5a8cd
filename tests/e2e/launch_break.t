#!/bin/bash
# Launch breakloop under the server and drive it with gdb: breakpoint,
# finish, next, step, stepi, info frame, a watchpoint, the exit code.
. "$(dirname "$0")/../lib/e2e.sh"

PROG=$INFDIR/breakloop
SRC='breakloop\.c'
BODY=$(line_of breakloop.c bump-body)
CALL=$(line_of breakloop.c call)
WATCH=$(line_of breakloop.c watch)
FOR=$(line_of breakloop.c for)

launch "$PROG"
remote_gdb "$PROG" 'tbreak bump' continue \
	finish next next next step \
	'p/x $pc' stepi 'p/x $pc' 'info frame' \
	'watch watched' continue 'print watched' 'print counter' \
	delete continue
like "$GDB_OUT" "^Temporary breakpoint 1, bump \\(step=1\\) at .*$SRC:$BODY\$" 'break bump, continue: hit'
like "$GDB_OUT" "in main \\(argc=1, argv=0x[0-9a-f]+\\) at .*$SRC:$CALL\$" 'finish: back in main'
like "$GDB_OUT" '^Value returned is \$1 = 10$' 'finish: value returned'
like "$GDB_OUT" "^$WATCH"$'\t'".*LINE:watch" 'next: the next line'
like "$GDB_OUT" "^$FOR"$'\t'".*LINE:for" 'next: the loop'
like "$GDB_OUT" "^bump \\(step=2\\) at .*$SRC:$BODY\$" 'step: into bump'
pcs=$(sed -n 's/^\$[23] = \(0x[0-9a-f]*\)$/\1/p' <<<"$GDB_OUT")
[[ $(wc -l <<<"$pcs") == 2 && $(head -1 <<<"$pcs") != $(tail -1 <<<"$pcs") ]]
ok "stepi: the pc moves ($(echo $pcs))" test $? = 0
like "$GDB_OUT" '^Stack level 0, frame at 0x[0-9a-f]+:$' 'info frame: stack level'
like "$GDB_OUT" "^ [er]ip = 0x[0-9a-f]+ in bump \\(.*$SRC:$BODY\\); saved [er]ip = 0x[0-9a-f]+\$" 'info frame: pc and saved pc'
like "$GDB_OUT" '^ Arglist at 0x[0-9a-f]+, args: step=2$' 'info frame: args'
like "$GDB_OUT" '^Hardware watchpoint 2: watched$' 'watch: a hardware watchpoint'
if hw_watchpoints_work; then
	like "$GDB_OUT" '^Old value = 0$' 'watchpoint hit: Old value'
	like "$GDB_OUT" '^New value = 3$' 'watchpoint hit: New value'
	like "$GDB_OUT" '^\$4 = 3$' 'the watched global after the hit'
	like "$GDB_OUT" '^\$5 = 3$' 'counter after two calls'
else
	skip 4 "this machine's debug registers never trap (tests/lib/hw_watch_probe.c)"
fi
exited_with 7 'to the end'
like "$(server_stderr)" '^Child exited with status 7$' 'server: Child exited with status 7'
like "$(program_output)" '^counter=15 total=350$' "the program's output"

done_testing
