# tp_vregs.py: sourced by gdb in tests/e2e/ftrace_vregs.t. Walks every
# trace frame (tfind) of the tracepoint at tp_vregs's hit() and checks its
# x87 and vector registers against what the program set before the call:
# from rdi (i), ymm0 byte k = (i * 7 + k) & 0xff, xmm1 its low half, st0
# i + 0.25. Prints one summary line.
import gdb


def nbytes(expr, n):
    v = gdb.parse_and_eval(expr)
    return [int(v[k]) & 0xFF for k in range(n)]


frames = bad = 0
first = ""
gdb.execute("tfind start", to_string=True)
while int(gdb.parse_and_eval("$trace_frame")) != -1:
    cur = int(gdb.parse_and_eval("$trace_frame"))
    i = int(gdb.parse_and_eval("$rdi"))
    want = [(i * 7 + k) & 0xFF for k in range(32)]
    y = nbytes("$ymm0.v32_int8", 32)
    x = nbytes("$xmm1.v16_int8", 16)
    st0 = float(gdb.parse_and_eval("$st0"))
    frames += 1
    if y != want or x != want[:16] or st0 != i + 0.25:
        bad += 1
        if not first:
            first = " first bad: frame %d i %d ymm0[0] %d xmm1[0] %d st0 %s" % (
                cur, i, y[0], x[0], st0)
    try:
        gdb.execute("tfind", to_string=True)
    except gdb.error:
        break
print("tp_vregs: frames %d bad %d%s" % (frames, bad, first))
