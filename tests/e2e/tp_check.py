# tp_check.py: sourced by gdb in tests/e2e/tracepoints.t. Walks every
# trace frame (tfind) of the tracepoint on hit() in tp_threads and checks
# what was collected against what the program computes: buf[k] is
# (id * 16 + i + k) & 0xff, the pc is the tracepoint's, rsp/rbp the
# thread's stack. Prints one summary line.
import re

import gdb

seen = set()
frames = bad = dup = 0
first_bad = ""
info = gdb.execute("info tracepoints", to_string=True)
m = re.search(r"^\d+\s+(?:fast )?tracepoint\s+\S+\s+\S+\s+(0x[0-9a-f]+)", info, re.M)
# a gdb that attached to a running experiment has no tracepoint of its own
addr = int(m.group(1), 16) if m else None
if gdb.convenience_variable("tp_check_pc") is not None:  # (a tfile's, moved)
    addr = int(gdb.convenience_variable("tp_check_pc"))
# $tp_check_step: every step-th frame only
step = int(gdb.convenience_variable("tp_check_step") or 1)
cur = 0
gdb.execute("tfind start", to_string=True)
while int(gdb.parse_and_eval("$trace_frame")) != -1:
    frames += 1
    tid = int(gdb.parse_and_eval("id"))
    i = int(gdb.parse_and_eval("i"))
    buf = int(gdb.parse_and_eval("buf"))
    mem = bytes(gdb.selected_inferior().read_memory(buf, 64))
    want = bytes(((tid * 16 + i + k) & 0xFF) for k in range(64))
    pc = int(gdb.parse_and_eval("$pc"))
    sp = int(gdb.parse_and_eval("$sp"))
    if (tid, i) in seen:
        dup += 1
    seen.add((tid, i))
    if mem != want or (addr is not None and pc != addr) or not (sp < buf < sp + 4096):
        bad += 1
        if not first_bad:
            first_bad = " first bad: frame %d id %d i %d pc %#x" % (cur, tid, i, pc)
    cur += step
    try:
        gdb.execute("tfind %d" % cur if step > 1 else "tfind", to_string=True)
    except gdb.error:
        break
print("tp_check: frames %d distinct %d dup %d bad %d%s" % (frames, len(seen), dup, bad, first_bad))
