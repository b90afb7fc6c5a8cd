/*
 * gdb_tp_fast.c: fast tracepoints (gdb's ftrace), collected inside the
 * traced program by utraced's in-process agent (docs/agent.md), with
 * nothing preloaded.
 *
 * A fast tracepoint is a trap of the experiment's engine like any other
 * (gdb_tp.c) until its first hit; then the engine patches a jmp to a
 * trampoline that runs the agent with the tracepoint's program, given
 * here (engine_bp_trace): its condition, whether it collects the
 * registers, and its actions as agent expressions (a memory range
 * becomes `trace` opcodes). The agent writes each frame into the
 * thread's ring in the program; the engine hands it back here
 * (tp_collected) at each stop, every 20 ms, and when we ask
 * (tp_fast_drain), and it goes into the trace buffer as a normal frame,
 * in the order of the hits (the number the agent gives each: below).
 *
 * What the agent cannot do traps, and gdb_tp.c collects that hit itself:
 * a trace state variable, a fault, a full ring, a condition that fails,
 * and the two limits it is given: the tracepoint's hits left before its
 * pass count, and the buffer's space (engine_trace_budget, kept here).
 * A site that cannot be patched stays a trap (monitor utraced stats).
 */
#include "gdb_tp.h"
#include "../agent/agent.h"
#include "../agent/agent_inproc.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(TPS_HDR == AGENT_TRACE_FRAME_HDR, "a frame's cost, as the agent reserves it");

/* An 'M' action as bytecode: [reg R; const64 off; add | const64 off]; const64 len; trace; end. */
static size_t mem_action_code(const struct tp_action *a, uint8_t *code)
{
	size_t n = 0;

	if (a->basereg >= 0) {
		code[n++] = 0x26; /* reg */
		code[n++] = (uint8_t)(a->basereg >> 8);
		code[n++] = (uint8_t)a->basereg;
	}
	code[n++] = 0x25; /* const64 */
	for (int i = 7; i >= 0; i--)
		code[n++] = (uint8_t)(a->off >> (8 * i));
	if (a->basereg >= 0)
		code[n++] = 0x02; /* add */
	code[n++] = 0x25;
	for (int i = 7; i >= 0; i--)
		code[n++] = (uint8_t)(a->len >> (8 * i));
	code[n++] = 0x0c; /* trace */
	code[n++] = 0x27; /* end */
	return n;
}

#define MEM_CODE_MAX 24

/* May the agent collect p: no while-stepping, the only enabled point at its address. */
static bool fast_ok(const struct tp_exp *x, const struct tp_point *p)
{
	if (p->type != 'F' || !p->enabled || p->step)
		return false;
	for (size_t i = 0; i < x->npts; i++)
		if (&x->pts[i] != p && x->pts[i].addr == p->addr && x->pts[i].enabled)
			return false;
	return true;
}

static int fast_template(struct tp_exp *x);

/*
 * Does register action a ask for one the agent's general block has not
 * (x87, vectors: then the agent saves them too, xsave)? `collect $regs`
 * does; the base register of a local's address does not.
 */
static bool wants_fpstate(struct tp_exp *x, const struct tp_action *a)
{
	if (fast_template(x) < 0)
		return true;
	for (int i = 0; i < 4; i++)
		if (a->rmask[i] & ~x->fast_covered[i])
			return true;
	return false;
}

static int give_program(struct tp_exp *x, struct tp_point *p)
{
	struct engine_trace t = {.tpnum = p->num,
				 .regs_len = (uint32_t)x->arch->g_size,
				 .pass_left = p->pass ? (int64_t)(p->pass - 1) : -1};
	struct agent_expr cond = {p->cond, p->condlen}, *acts;
	uint8_t(*mem)[MEM_CODE_MAX];
	size_t n = 0;
	int err;

	acts = calloc(p->nacts + 1, sizeof(*acts));
	mem = calloc(p->nacts + 1, sizeof(*mem));
	if (!acts || !mem) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < p->nacts; i++) {
		const struct tp_action *a = &p->acts[i];

		if (a->kind == 'R') {
			t.regs = true;
			t.fpstate |= wants_fpstate(x, a);
		} else if (a->kind == 'M')
			acts[n++] = (struct agent_expr){mem[i], mem_action_code(a, mem[i])};
		else if (a->kind == 'X')
			acts[n++] = (struct agent_expr){a->code, a->codelen};
	}
	err = engine_bp_trace(x->e, p->addr, &cond, p->cond ? 1 : 0, acts, n, &t);
out:
	free(acts);
	free(mem);
	return err;
}

void tp_fast_install(struct tp_exp *x, uint64_t addr)
{
	struct tp_point *fast = NULL;

	if (!x->e)
		return;
	for (size_t i = 0; i < x->npts; i++)
		if (x->pts[i].addr == addr && x->pts[i].inserted && fast_ok(x, &x->pts[i]))
			fast = &x->pts[i];
	/* none (or a normal one, or several at the address): a trap, as a normal tracepoint */
	if (!fast || give_program(x, fast) < 0)
		engine_bp_conds(x->e, addr, NULL, 0, NULL, 0);
	tp_fast_budget(x);
}

void tp_fast_budget(struct tp_exp *x)
{
	int64_t free_bytes = (int64_t)(x->store.size - x->store.used) - (int64_t)x->fast_pend.len;

	if (!x->e)
		return;
	if (x->store.circular)
		free_bytes = INT64_MAX;
	engine_trace_budget(x->e, x->running ? free_bytes : 0);
}

void tp_fast_drain(struct tp_exp *x)
{
	if (x->e && x->running)
		engine_trace_drain(x->e);
	tp_fast_flush(x);
}

/*
 * The 'g' block of an agent's frame: the registers it has not (vectors,
 * x87) zero, the same in every frame: made once, with where in it each
 * of the agent's registers goes (found by changing them one by one: the
 * bytes that change). Each frame then costs a copy and a few stores.
 */
static int fast_template(struct tp_exp *x)
{
	const struct arch_desc *d = x->arch;
	static struct arch_regs regs;
	static uint8_t other[sizeof(x->fast_g)];
	size_t off = 0;

	if (x->fast_g_len == d->g_size)
		return 0;
	if (d->g_size > sizeof(x->fast_g))
		return -E2BIG;
	memset(&regs, 0, sizeof(regs));
	x->fast_nregs = 0;
	memset(x->fast_covered, 0, sizeof(x->fast_covered));
	for (int i = 0; i < d->nregs; i++) {
		size_t n = d->regs[i].size;
		uint64_t v[ARCH_AGENT_REGS] = {0};

		arch_gp_of_agent(&regs.gp, v);
		if (arch_reg_read(d, &regs, i, x->fast_g + off) < 0)
			memset(x->fast_g + off, 0, n);
		for (unsigned k = 0; k < ARCH_AGENT_REGS && n <= 8; k++) {
			v[k] = 0x0102030405060708ULL;
			arch_gp_of_agent(&regs.gp, v);
			v[k] = 0;
			if (arch_reg_read(d, &regs, i, other) < 0 ||
			    !memcmp(other, x->fast_g + off, n))
				continue;
			if (x->fast_nregs < TP_FAST_REGS)
				x->fast_regs[x->fast_nregs++] =
					(struct tpf_reg){.src = (uint8_t)k,
							 .off = (uint16_t)off,
							 .size = (uint8_t)n};
			if (i < 256)
				x->fast_covered[i / 64] |= 1ULL << (i % 64);
			break;
		}
		off += n;
	}
	x->fast_g_len = d->g_size;
	x->fast_map = (struct tpf_regmap){x->fast_g, x->fast_g_len, x->fast_regs, x->fast_nregs};
	tps_set_regmap(&x->store, &x->fast_map);
	return 0;
}

_Static_assert(sizeof(((struct agent_trace_record *)0)->regs) == TPF_COMPACT_LEN,
	       "the store's 'r' block is the agent's registers");

/*
 * The 'g' block of an agent's frame with the x87/vector state (r->fp, as
 * xsave wrote it): read register by register as from a thread's regsets,
 * the same way as a normal tracepoint's.
 */
static int full_regs(struct tp_exp *x, const struct agent_trace_record *r, uint8_t *out)
{
	const struct arch_desc *d = x->arch;
	static struct arch_regs regs;
	size_t off = 0;

	if (d->g_size > TPS_REGS_MAX || r->fp_len > sizeof(regs.ext))
		return -E2BIG;
	memset(&regs, 0, sizeof(regs));
	arch_gp_of_agent(&regs.gp, r->regs);
	memcpy(regs.ext, r->fp, r->fp_len);
	regs.ext_len = r->fp_len;
	for (int i = 0; i < d->nregs; i++) {
		size_t n = d->regs[i].size;

		if (arch_reg_read(d, &regs, i, out + off) < 0)
			memset(out + off, 0, n);
		off += n;
	}
	return 0;
}

/* A frame from the agent into the buffer. */
static void keep(struct tp_exp *x, const struct agent_trace_record *r)
{
	struct tp_point *p = tp_find(x, r->tpnum, r->bp);
	static uint8_t g[TPS_REGS_MAX];
	uint8_t *d;
	size_t len, glen = x->arch->g_size;
	bool full, regs;

	if (!x->running || !p || !p->enabled)
		return; /* a hit after the run stopped (the agent was told at once) */
	p->hits++;
	/*
	 * Built where it is kept; its registers as the agent has them (an
	 * 'r' block: a quarter of a 'g' block, made one when read), or, with
	 * the vector registers, the 'R' block made now.
	 */
	full = r->has_regs && r->fp && full_regs(x, r, g) == 0;
	regs = !full && r->has_regs && fast_template(x) == 0;
	len = (full ? 1 + glen : regs ? 1 + TPF_COMPACT_LEN : 0) + r->mem_len;
	if (tps_reserve(&x->store, p->num, len, regs, &d) < 0) {
		tp_stop(x, "tfull", 0);
		return;
	}
	if (full) {
		d[0] = 'R';
		memcpy(d + 1, g, glen);
	} else if (regs) {
		d[0] = TPF_COMPACT;
		memcpy(d + 1, r->regs, TPF_COMPACT_LEN);
	}
	memcpy(d + len - r->mem_len, r->mem, r->mem_len);
	p->usage += TPS_HDR + len + (regs ? x->fast_g_len - TPF_COMPACT_LEN : 0);
	if (p->pass && p->hits >= p->pass)
		tp_stop(x, "tpasscount", p->num);
}

/*
 * Frame numbers follow the hits, across the threads' rings: a drain's
 * frames wait in fast_pend (a copy of each record), sorted by the number
 * the agent gave each hit, then are kept. A hit that took its number
 * just before the drain read the rings but published just after it is
 * in the next drain: the frames past such a gap in the numbers wait for
 * one more drain (at most), unless something needs them now (force: a
 * frame of ours, gdb's tfind, tstatus, tstop, tsave).
 */
struct tp_pend {
	struct agent_trace_record r; /* (r.mem, r.fp: the bytes after it, set when kept) */
	size_t size;		     /* this and its bytes, 8-byte aligned */
};

static int by_seq(const void *a, const void *b)
{
	const struct tp_pend *x = *(struct tp_pend *const *)a, *y = *(struct tp_pend *const *)b;

	if (x->r.seq != y->r.seq)
		return x->r.seq < y->r.seq ? -1 : 1;
	return x < y ? -1 : x > y; /* (equal: a number domain started again; arrival order) */
}

static void pend(struct tp_exp *x, const struct agent_trace_record *r)
{
	size_t fp_len = r->fp ? r->fp_len : 0;
	struct tp_pend h = {.r = *r, .size = (sizeof(h) + r->mem_len + fp_len + 7) & ~(size_t)7};
	static const uint8_t pad[8];

	h.r.mem = NULL;
	h.r.fp = NULL;
	h.r.fp_len = fp_len;
	buf_append(&x->fast_pend, &h, sizeof(h));
	buf_append(&x->fast_pend, r->mem, r->mem_len);
	if (fp_len)
		buf_append(&x->fast_pend, r->fp, fp_len);
	buf_append(&x->fast_pend, pad, h.size - sizeof(h) - r->mem_len - fp_len);
	x->fast_npend++;
}

static void flush(struct tp_exp *x, bool force)
{
	struct tp_pend **v;
	struct buf rest;
	size_t n = x->fast_npend, i, off = 0;

	if (!n)
		return;
	v = malloc(n * sizeof(*v));
	if (!v) { /* (no order then: as they came) */
		force = true;
	} else {
		for (i = 0; i < n; off += v[i]->size, i++)
			v[i] = (struct tp_pend *)(void *)(x->fast_pend.data + off);
		qsort(v, n, sizeof(*v), by_seq);
	}
	for (i = 0, off = 0; i < n; i++) {
		struct tp_pend *pe = v ? v[i] : (struct tp_pend *)(void *)(x->fast_pend.data + off);

		if (!force && !x->fast_held && x->fast_seq_known && pe->r.seq > x->fast_next_seq)
			break; /* a gap: a hit still publishing? */
		pe->r.mem = (const uint8_t *)(pe + 1);
		pe->r.fp = pe->r.fp_len ? pe->r.mem + pe->r.mem_len : NULL;
		keep(x, &pe->r);
		if (!x->fast_seq_known || pe->r.seq >= x->fast_next_seq)
			x->fast_next_seq = pe->r.seq + 1;
		x->fast_seq_known = true;
		off += pe->size;
	}
	x->fast_held = i < n;
	buf_init(&rest);
	for (size_t k = i; k < n; k++)
		buf_append(&rest, v[k], v[k]->size);
	buf_free(&x->fast_pend);
	x->fast_pend = rest;
	x->fast_npend = n - i;
	free(v);
}

void tp_fast_flush(struct tp_exp *x)
{
	flush(x, true);
}

void tp_fast_reset(struct tp_exp *x)
{
	buf_reset(&x->fast_pend);
	x->fast_npend = 0;
	x->fast_seq_known = false;
	x->fast_held = false;
}

void tp_collected(void *ctx, struct engine *e, const struct agent_trace_record *r)
{
	struct tp_exp *x = ctx;

	(void)e;
	if (r) {
		pend(x, r);
		return;
	}
	flush(x, false);   /* the batch is over */
	tp_fast_budget(x); /* what the agent may take now */
}
