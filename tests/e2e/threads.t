#!/bin/bash
# threads: main and three workers named "worker-1".."worker-3", each in
# worker_fn(id).  gdb must see the names, switch threads, unwind each one,
# and be told which thread hit a breakpoint.
. "$(dirname "$0")/../lib/e2e.sh"

PROG=$INFDIR/threads
SRC='threads\.c'

# --- all threads parked: names, and a backtrace in each
launch "$PROG"
remote_gdb "$PROG" 'break all_named' continue 'info threads' \
	'thread 1' bt 'thread 2' bt 'thread 3' bt 'thread 4' bt continue
like "$GDB_OUT" "hit Breakpoint 1, all_named \\(\\) at .*$SRC:$(line_of threads.c all-named)\$" \
	'main thread stops in all_named'
like "$GDB_OUT" '^\* 1 +Thread .*"threads" +all_named \(\)' 'info threads: main thread, current, named threads'
for n in 1 2 3; do
	like "$GDB_OUT" "^  [2-4] +Thread .*\"worker-$n\" " "info threads: worker-$n"
done
like "$GDB_OUT" '^\[Switching to thread 1 ' 'thread 1'
like "$GDB_OUT" '^#1 .* in main \(\) at ' 'thread 1: bt reaches main'
ids=$(grep -Eo '^#[0-9]+ +0x[0-9a-f]+ in worker_fn \(id=[1-3]\)' <<<"$GDB_OUT" | grep -o 'id=.' | sort -u | xargs)
for n in 2 3 4; do
	like "$GDB_OUT" "^\\[Switching to thread $n " "thread $n"
done
is "$ids" 'id=1 id=2 id=3' 'bt in threads 2, 3, 4: worker_fn of workers 1, 2, 3'
exited_with 0 'parked'
like "$(program_output)" '^sum=14$' 'the workers did their work'

# --- a breakpoint hit in a worker
launch "$PROG"
remote_gdb "$PROG" 'break worker_fn' continue 'info threads' delete continue
like "$GDB_OUT" "^Thread ([2-9]|[1-9][0-9]+) \"worker-[1-3]\" hit Breakpoint 1, worker_fn \\(id=[1-3]\\) at .*$SRC:$(line_of threads.c worker-wait)\$" \
	'the breakpoint is reported in a worker thread, by number and name'
like "$GDB_OUT" '^\* ([2-9]|[1-9][0-9]+) +Thread .* worker_fn \(id=[1-3]\)' 'info threads: that worker is current'
exited_with 0 'worker breakpoint'
like "$(program_output)" '^sum=14$' 'the workers did their work after the breakpoint'

done_testing
