# tp_order.py: sourced by gdb in tests/e2e/ftrace_order.t. Walks every
# trace frame (tfind) of tp_order's hit() and other() and checks that the
# counter n each collected increases with the frame number: across all
# threads (the hits happened in the order of n: tp_order calls them under
# one lock), and for each thread. Prints one summary line.
import gdb

frames = inversions = thread_inversions = 0
first = ""
last = None
last_of = {}
gdb.execute("tfind start", to_string=True)
while int(gdb.parse_and_eval("$trace_frame")) != -1:
    cur = int(gdb.parse_and_eval("$trace_frame"))
    tid = int(gdb.parse_and_eval("id"))
    n = int(gdb.parse_and_eval("n"))
    frames += 1
    if last is not None and n <= last:
        inversions += 1
        if not first:
            first = " first: frame %d n %d after n %d" % (cur, n, last)
    if tid in last_of and n <= last_of[tid]:
        thread_inversions += 1
    last = n
    last_of[tid] = n
    try:
        gdb.execute("tfind", to_string=True)
    except gdb.error:
        break
print("tp_order: frames %d threads %d inversions %d thread_inversions %d%s"
      % (frames, len(last_of), inversions, thread_inversions, first))
