/*
 * The in-process agent's fast tracepoints (AGENT_PROG_TRACE programs,
 * src/agent/inproc/agent_inproc.c): the blob mapped in this process and
 * called as a trampoline would, its frame records read back with
 * agent_trace_parse() as utraced reads them. A frame holds what utraced's
 * collection holds (the registers of the frame, memory ranges, tracenz);
 * a false condition records nothing; whatever the agent cannot do (a
 * trace state variable, a condition that fails, a full ring, the pass
 * count or the buffer's space used up) traps with nothing published; a
 * published frame is marked for the exactly-once rule; hostile records
 * are refused. Also the agent's own cost per frame.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "agent/agent.h"
#include "agent/agent_inproc.h"
#include "agent_blob.h"
#include "tap.h"

static agent_inproc_entry_fn entry;
static struct agent_inproc_frame frame;
static struct agent_out_region *out;
static uint8_t mem[256];

/* addr len trace end: what gdb_tp_fast.c makes of an 'M' action */
static struct code trace_mem(uint64_t addr, uint64_t len, int op)
{
	struct code c = {0};

	push64(&c, addr);
	push64(&c, len);
	emit(&c, op);
	emit(&c, 0x27);
	return c;
}

static struct code constant(uint64_t v)
{
	struct code c = {0};

	push64(&c, v);
	emit(&c, 0x27);
	return c;
}

static struct agent_trace_ctl *hits_ctl, *budget_ctl;

static struct agent_inproc_prog *trace_prog(const struct code *cond, const struct code *acts,
					    size_t n, bool regs)
{
	static _Alignas(8) uint8_t buf[4096];
	struct agent_inproc_prog *prog = (void *)buf;
	size_t off = sizeof(*prog);

	memset(buf, 0, sizeof(buf));
	prog->pc = 0x401136;
	prog->nconds = cond ? 1 : 0;
	prog->ncmds = (uint32_t)n;
	prog->flags = AGENT_PROG_TRACE | (regs ? AGENT_PROG_REGS : 0);
	prog->out = (uint64_t)(uintptr_t)out;
	prog->tpnum = 7;
	prog->regs_len = 560;
	prog->hits_left = (uint64_t)(uintptr_t)hits_ctl;
	prog->budget = (uint64_t)(uintptr_t)budget_ctl;
	for (size_t i = 0; i < n + (cond ? 1 : 0); i++)
		off = code_put(buf, off, cond && i == 0 ? cond : &acts[i - (cond ? 1 : 0)]);
	prog->size = (uint32_t)off;
	return prog;
}

static unsigned my_slot(void)
{
	uint64_t tp;

	__asm__ volatile("mov %%fs:0, %0" : "=r"(tp));
	for (unsigned i = 0; i < AGENT_OUT_SLOTS; i++)
		if (out->slot[i].owner == tp)
			return i;
	return 0;
}

/* The record published last (at head before), copied out of the ring. */
static bool last_record(uint64_t head, uint8_t *buf, struct agent_trace_record *r)
{
	unsigned s = my_slot();
	uint64_t len = out->slot[s].head - head;

	if (!len || len > AGENT_TRACE_REC_MAX + 8)
		return false;
	for (uint64_t i = 0; i < len; i++)
		buf[i] = out->ring[s][(head + i) & (AGENT_OUT_RING - 1)];
	return agent_trace_parse(buf, len, r) == 0;
}

static uint64_t head_now(void)
{
	return out->slot[my_slot()].head;
}

static void test_frames(void)
{
	static uint8_t buf[AGENT_TRACE_REC_MAX + 64];
	struct code acts[3] = {trace_mem((uintptr_t)mem, 64, 0x0c),
			       trace_mem((uintptr_t)mem + 100, 50, 0x2f),
			       trace_mem((uintptr_t)mem + 200, 70000, 0x0c)};
	struct agent_trace_record r;
	uint64_t head = head_now(), want_rsp;
	unsigned slot;

	frame.gpr[7] = 0x7000;
	ok(entry(&frame, trace_prog(NULL, acts, 2, true)) == AGENT_INPROC_GO, "a frame: goes on");
	slot = my_slot();
	ok(last_record(head, buf, &r), "its record parses");
	want_rsp = (uint64_t)(uintptr_t)(&frame + 1) + AGENT_INPROC_RED_ZONE;
	ok(r.bp == 0x401136 && r.tpnum == 7 && r.has_regs, "its tracepoint, its registers");
	ok(r.regs[0] == frame.gpr[0] && r.regs[15] == frame.gpr[15] && r.regs[7] == want_rsp &&
		   r.regs[16] == 0x401136 && r.regs[17] == frame.eflags,
	   "the registers: the frame's, rsp as at the tracepoint, rip its address");
	/* 'M' addr len bytes: 64 of mem, then mem+100 up to and with its NUL (mem[110]) */
	ok(r.mem_len == 11 + 64 + 11 + 11 && r.mem[0] == 'M' && !memcmp(r.mem + 11, mem, 64) &&
		   r.mem[75] == 'M' && r.mem[84] == 11 && !memcmp(r.mem + 86, mem + 100, 11),
	   "the memory: a range, and a string up to its NUL (tracenz)");
	ok(r.reserved == AGENT_TRACE_FRAME_HDR + 1 + 560 + r.mem_len,
	   "what it reserved: its cost in utraced's buffer (%u)", r.reserved);
	ok(frame.gpr[7] == (AGENT_OUT_MARK | (uint64_t)slot << 48 | head),
	   "marked before publishing (exactly once)");
	ok(budget_ctl->used == (int64_t)r.reserved && hits_ctl->left == 99,
	   "the pass count and the buffer's space taken");
	ok(r.seq == 0 && budget_ctl->seq == 1, "numbered in the order of the hits: the first, 0");

	head = head_now();
	ok(entry(&frame, trace_prog(NULL, &acts[2], 1, false)) == AGENT_INPROC_TRAP &&
		   head_now() == head,
	   "a range larger than a record: traps, nothing published");
	{
		struct code f = constant(0), t = constant(1), getv = {0};

		emit(&getv, 0x2c), emit(&getv, 0), emit(&getv, 1), emit(&getv, 0x27);
		ok(entry(&frame, trace_prog(&f, acts, 1, true)) == AGENT_INPROC_GO &&
			   head_now() == head,
		   "a false condition: goes on, no frame");
		ok(entry(&frame, trace_prog(&t, acts, 1, false)) == AGENT_INPROC_GO &&
			   head_now() > head,
		   "a true one: a frame");
		ok(last_record(head, buf, &r) && r.seq == 1 && budget_ctl->seq == 2,
		   "... the second number: a trap and a false condition took none");
		head = head_now();
		ok(entry(&frame, trace_prog(&getv, acts, 1, false)) == AGENT_INPROC_TRAP &&
			   head_now() == head,
		   "a condition on a trace state variable: traps (utraced has them)");
		ok(entry(&frame, trace_prog(NULL, &getv, 1, false)) == AGENT_INPROC_TRAP &&
			   head_now() == head,
		   "an action on one: traps, nothing published");
	}
}

static void test_limits(void)
{
	struct code act = trace_mem((uintptr_t)mem, 64, 0x0c);
	uint64_t head;
	int n = 0;

	hits_ctl->left = 3;
	head = head_now();
	while (n < 10 && entry(&frame, trace_prog(NULL, &act, 1, true)) == AGENT_INPROC_GO)
		n++;
	ok(n == 3 && hits_ctl->left <= 0, "the pass count: 3 hits left, 3 frames, then a trap");
	hits_ctl->left = 1000000;
	budget_ctl->used = 0;
	budget_ctl->limit = 3 * (AGENT_TRACE_FRAME_HDR + 1 + 560 + 11 + 64) + 10;
	out->slot[my_slot()].tail = out->slot[my_slot()].head;
	for (n = 0; n < 10 && entry(&frame, trace_prog(NULL, &act, 1, true)) == AGENT_INPROC_GO;)
		n++;
	ok(n == 3, "the buffer's space: 3 frames fit, then a trap (%d)", n);
	budget_ctl->limit = INT64_MAX / 2;
	(void)head;
	for (n = 0; n < 100000; n++) {
		head = head_now();
		if (entry(&frame, trace_prog(NULL, &act, 1, true)) != AGENT_INPROC_GO)
			break;
	}
	ok(head_now() == head && head_now() - out->slot[my_slot()].tail <= AGENT_OUT_RING,
	   "a full ring: traps, nothing published, never past its size (%d frames)", n);
	out->slot[my_slot()].tail = out->slot[my_slot()].head;
}

/*
 * AGENT_PROG_FPSTATE: the x87/vector state saved by xsave into the record
 * (aligned, its length as asked), as the CPU has it at the call: MXCSR and
 * the x87 control word set here to values of their own; an area that would
 * wrap round the ring's end traps.
 */
static void test_fpstate(void)
{
	static uint8_t buf[AGENT_TRACE_REC_MAX + 64];
	struct code act = trace_mem((uintptr_t)mem, 16, 0x0c);
	struct agent_inproc_prog *prog = trace_prog(NULL, &act, 1, true);
	struct agent_trace_record r;
	uint32_t csr = 0, csr_set = 0x3f80, csr_got, fcw_got;
	uint16_t fcw = 0, fcw_set = 0x27f;
	unsigned s = my_slot();
	uint64_t head, res, ring_at;

	prog->flags |= AGENT_PROG_FPSTATE;
	prog->fp_mask = 7; /* x87, SSE, AVX */
	prog->fp_len = 832;
	if (!__builtin_cpu_supports("avx")) {
		prog->fp_mask = 0; /* fxsave */
		prog->fp_len = 512;
	}
	head = head_now();
	__asm__ volatile("stmxcsr %0; fnstcw %1" : "=m"(csr), "=m"(fcw));
	__asm__ volatile("ldmxcsr %0; fldcw %1" ::"m"(csr_set), "m"(fcw_set));
	res = entry(&frame, prog);
	__asm__ volatile("ldmxcsr %0; fldcw %1" ::"m"(csr), "m"(fcw));
	ok(res == AGENT_INPROC_GO && last_record(head, buf, &r), "a frame with the vector state");
	ok(r.has_regs && r.fp && r.fp_len == prog->fp_len && r.mem_len == 11 + 16,
	   "... its area after the registers, as long as asked (%zu), the memory after it",
	   r.fp_len);
	ring_at = head & (AGENT_OUT_RING - 1);
	ok(r.fp && ((uintptr_t)out->ring[s] + ring_at + (size_t)(r.fp - buf)) % 64 == 0,
	   "... 64-byte aligned in the ring (xsave's rule)");
	memcpy(&csr_got, r.fp + 24, 4);
	memcpy(&fcw_got, r.fp, 2);
	ok(r.fp && csr_got == csr_set && (fcw_got & 0xffff) == fcw_set,
	   "... MXCSR and the x87 control word as they were at the call (%#x %#x)", csr_got,
	   fcw_got);
	/* the ring's end where the area would go: it starts at the ring's start */
	for (uint64_t back = 700; back >= 500; back -= 8) {
		out->slot[s].head = out->slot[s].tail =
			(out->slot[s].head | (AGENT_OUT_RING - 1)) + 1 - back;
		head = head_now();
		csr_got = 0;
		if (entry(&frame, prog) != AGENT_INPROC_GO || !last_record(head, buf, &r) ||
		    !r.fp || r.fp_len != prog->fp_len)
			break;
		memcpy(&csr_got, r.fp + 24, 4);
		if (csr_got != csr)
			break;
	}
	ok(csr_got == csr, "an area that would wrap round the ring: after its end, whole");
	prog->flags &= ~AGENT_PROG_FPSTATE;
}

static void test_parse(void)
{
	static uint8_t rec[512];
	struct agent_trace_record r;
	struct agent_trace_rec h = {.len = 64, .kind = AGENT_REC_TRACE, .bp = 1, .tpnum = 2};
	int refused = 0, read_in = 0;

	memcpy(rec, &h, sizeof(h));
	rec[24] = 'M';
	memset(rec + 25, 0, 8);
	rec[33] = 200; /* a length past the record */
	ok(agent_trace_parse(rec, 64, &r) == -EINVAL, "a block past its record: refused");
	srand(7);
	for (int i = 0; i < 100000; i++) {
		size_t len = 24 + (size_t)(rand() % 200);

		for (size_t k = 24; k < len; k++)
			rec[k] = (uint8_t)(rand() % 4 ? "RM\0"[rand() % 3] : rand());
		h.len = (uint32_t)len;
		memcpy(rec, &h, sizeof(h));
		if (agent_trace_parse(rec, len, &r) < 0) {
			refused++;
			continue;
		}
		read_in += r.mem >= rec && r.mem + r.mem_len <= rec + len;
	}
	ok(refused + read_in == 100000 && read_in > 0,
	   "100000 random records: each refused or read inside its bytes (%d read)", read_in);
}

/* What a frame costs the agent (no trampoline: its ~40 pushes and pops are a few ns). */
/* ns per frame of prog, the ring emptied after each */
static double cost_of(const struct agent_inproc_prog *prog)
{
	struct timespec t0, t1;
	const int n = 200000;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < n; i++) {
		if (entry(&frame, prog) != AGENT_INPROC_GO)
			break;
		out->slot[my_slot()].tail = out->slot[my_slot()].head;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / n;
}

static void test_cost(void)
{
	struct code act = trace_mem((uintptr_t)mem, 64, 0x0c);
	struct agent_inproc_prog *prog = trace_prog(NULL, &act, 1, true);
	double ns = cost_of(prog), fp;

	diag("the agent's cost of a frame of $regs and 64 bytes: %.0f ns", ns);
	ok(ns < 5000, "a frame costs the agent %.0f ns", ns);
	prog->flags |= AGENT_PROG_FPSTATE;
	prog->fp_mask = __builtin_cpu_supports("avx") ? 7 : 0;
	prog->fp_len = prog->fp_mask ? 832 : 512;
	fp = cost_of(prog);
	diag("... with the x87/vector state (%u bytes): %.0f ns", prog->fp_len, fp);
	ok(fp < 5000, "a frame with the vector state costs the agent %.0f ns", fp);
}

int main(void)
{
	static struct agent_trace_ctl ctls[2];

	entry = agent_blob_load();
	out = calloc(1, sizeof(*out));
	if (!out)
		abort();
	hits_ctl = &ctls[0];
	budget_ctl = &ctls[1];
	hits_ctl->left = 100;
	budget_ctl->limit = INT64_MAX / 2;
	for (int i = 0; i < 16; i++)
		frame.gpr[i] = 0x0101010101010101ull * (uint64_t)(i + 1);
	frame.eflags = 0x246;
	for (size_t i = 0; i < sizeof(mem); i++) {
		uint8_t v = (uint8_t)(i * 37 + 11);

		mem[i] = v ? v : 1; /* (no NUL but the one below) */
	}
	mem[110] = 0;
	test_frames();
	test_limits();
	test_fpstate();
	test_parse();
	test_cost();
	free(out);
	return done_testing();
}
