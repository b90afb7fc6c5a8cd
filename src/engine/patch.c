/*
 * patch.c: breakpoints whose conditions run inside the traced process.
 *
 * A breakpoint that gdb gave conditions (agent bytecode), each of whose
 * engines gave its own (then the agent runs them all: combine()), starts
 * as an int3, as any other. At its first hit that nobody reports, the
 * thread's stop is used to write, into xol pages (xol.c), the
 * in-process agent (src/agent/inproc, once per process), the breakpoint's
 * program (its conditions) and its trampoline (x86_patch.c). At the next
 * moment every thread is stopped (sched.c asks for one), the int3 becomes
 * a jmp to the trampoline: from then on a false condition costs no stop at
 * all, and a true one (or one the agent cannot evaluate) traps with the
 * registers of the breakpoint address, reported as a hit there.
 *
 * The jmp is written and undone only with every thread stopped, and every
 * thread that stops inside a trampoline or the agent (a signal, ^C, a
 * fault of a condition's read) is first put back at its breakpoint
 * (arch_patch_rollback): nobody ever sees agent code, and no thread is in
 * a trampoline when it goes. Memory reads show the original bytes, as
 * under an int3; a step, in place, lifts the jmp like the int3.
 *
 * A 32-bit process gets the i386 build of the agent (agent_inproc32_blob)
 * and i386 trampolines; everything it is given is below 4 GiB (its own
 * mmap2 maps nothing higher).
 *
 * What is not patched stays an int3 with its reason in `monitor utraced
 * stats`: a second engine's dprintf or unconditional breakpoint at the
 * address, an instruction shorter than the jmp, one that cannot run
 * elsewhere, conditions too long for the program slot, no page in reach.
 */
#include "engine_int.h"
#include "../agent/agent.h"
#include "../agent/agent_inproc.h"

#include <errno.h>
#include <stddef.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>

#define TRAMP_SLOTS (ARCH_PATCH_TRAMP / ARCH_XOL_SLOT)
#define PROG_BYTES  512
#define PATCH_SLOTS (TRAMP_SLOTS + PROG_BYTES / ARCH_XOL_SLOT)

/* The agent's code for p's personality: the i386 build for a 32-bit process. */
static const unsigned char *agent_blob(const struct uproc *p, size_t *len)
{
	if (p->arch->ptr_size == 4) {
		*len = agent_inproc32_blob_len;
		return agent_inproc32_blob;
	}
	*len = agent_inproc_blob_len;
	return agent_inproc_blob;
}

const uint8_t *patch_bytes(const struct uproc *p, const struct swbp *bp, size_t *len)
{
	if (bp->patch && bp->patch->applied) {
		*len = bp->patch->code.jump_len;
		return bp->patch->code.jump;
	}
	*len = p->arch->trap_len;
	return p->arch->trap_insn;
}

bool patch_wanted(struct uproc *p, const struct swbp *bp)
{
	return bp->cond && !bp->patch && !bp->patch_why && bp->owners == bp->cond_owner &&
	       p->arch->patch && p->t->xol && p->t->agent && !p->xol_off;
}

static enum xol_result give_up(struct uproc *p, struct swbp *bp, const char *why)
{
	bp->patch_why = why;
	p->xol_stats.unpatched++;
	p->xol_stats.last_unpatched_why = why;
	if (bp->trace_on) {
		p->xol_stats.trace_unpatched++;
		p->xol_stats.last_trace_unpatched_why = why;
	}
	return XOL_NO;
}

_Static_assert(sizeof(((struct uproc *)0)->trace_ctl_used) * 8 == AGENT_CTL_SLOTS,
	       "one bit per agent_trace_ctl");

static uint64_t ctl_addr(const struct uproc *p, unsigned idx)
{
	return p->agent_out + offsetof(struct agent_out_region, ctl) +
	       (uint64_t)idx * sizeof(struct agent_trace_ctl);
}

static struct engine *engine_of_bit(struct uproc *p, uint64_t bit)
{
	for_each_engine(p, e)
		if (ENGINE_BIT(e) == bit)
			return e;
	return NULL;
}

/* What the agent may still reserve of e's buffer: limit = taken so far + free. */
static void budget_write(struct uproc *p, struct engine *e)
{
	int64_t limit = e->trace_free > INT64_MAX / 2 ? INT64_MAX / 2 : e->trace_free;

	if (!p->agent_out || e->trace_ctl_at != p->agent_out || p->exited)
		return;
	limit += e->trace_drained;
	mem_write_raw(p, ctl_addr(p, (unsigned)e->slot) + offsetof(struct agent_trace_ctl, limit),
		      &limit, 8);
}

/*
 * A fast tracepoint's counters in the output region: its engine's buffer
 * space (set up at its first patch, when no program of it runs yet), and
 * its own pass count. -1: no slot left.
 */
static int trace_ctl_setup(struct uproc *p, struct swbp *bp, struct bp_patch *pt)
{
	struct engine *e = engine_of_bit(p, bp->cond_owner);
	struct agent_trace_ctl c = {0};
	unsigned idx;

	if (!e)
		return -1;
	if (e->trace_ctl_at != p->agent_out) {
		e->trace_drained = 0;
		if (mem_write_raw(p, ctl_addr(p, (unsigned)e->slot), &c, sizeof(c)) != sizeof(c))
			return -1;
		e->trace_ctl_at = p->agent_out;
		budget_write(p, e);
	}
	if (bp->trace.pass_left < 0)
		return 0;
	for (idx = AGENT_CTL_ENGINES; idx < AGENT_CTL_SLOTS; idx++)
		if (!(p->trace_ctl_used[idx / 64] & (1ULL << (idx % 64))))
			break;
	if (idx == AGENT_CTL_SLOTS)
		return -1;
	c.left = bp->trace.pass_left;
	if (mem_write_raw(p, ctl_addr(p, idx), &c, sizeof(c)) != sizeof(c))
		return -1;
	p->trace_ctl_used[idx / 64] |= 1ULL << (idx % 64);
	pt->ctl = idx;
	return 0;
}

/*
 * The agent's code (a region of its own: the blob does not fit in a page
 * of slots), bp's output region if it prints, then room in a page of
 * slots for its trampoline and program: XOL_MAPPING while one is mapped.
 */
/* The output region's memfd's name (in /proc/PID/maps), after the agent's code. */
#define OUT_NAME "utraced-agent-out"

static enum xol_result make_room(struct uthread *th, struct swbp *bp, uint64_t *at)
{
	struct uproc *p = th->p;
	enum xol_result r;
	size_t len;
	const unsigned char *blob = agent_blob(p, &len);

	if (!len)
		return give_up(p, bp, "no agent for this personality");
	if (!p->agent_map) {
		r = xol_need_region(th, len + sizeof(OUT_NAME), true, 0, &p->agent_map);
		return r == XOL_NO ? give_up(p, bp, "no room for the agent") : r;
	}
	if (!p->agent_at) {
		if (mem_write_raw(p, p->agent_map, blob, len) != (ssize_t)len ||
		    mem_write_raw(p, p->agent_map + len, OUT_NAME, sizeof(OUT_NAME)) !=
			    (ssize_t)sizeof(OUT_NAME))
			return give_up(p, bp, "agent not written");
		p->agent_at = p->agent_map;
	}
	if ((bp->cond_ncmds || bp->trace_on) && !p->agent_out) { /* the output region */
		r = xol_need_region(th, sizeof(struct agent_out_region), false, p->agent_map + len,
				    &p->agent_out);
		return r == XOL_NO ? give_up(p, bp, "no output region") : r;
	}
	*at = xol_take(p, bp->addr, PATCH_SLOTS);
	if (*at)
		return XOL_GO;
	r = xol_need_page(th, bp->addr);
	return r == XOL_NO ? give_up(p, bp, "no page") : r;
}

/* bp's program (struct agent_inproc_prog, its conditions and commands) at addr. */
static int write_prog(struct uproc *p, const struct swbp *bp, const struct bp_patch *pt,
		      uint64_t addr)
{
	uint8_t buf[PROG_BYTES] = {0};
	struct agent_inproc_prog *prog = (void *)buf;
	uint32_t nexprs = 0;

	prog->pc = bp->addr;
	for (size_t off = 0; off + 4 <= bp->cond_len; nexprs++) {
		uint32_t len;

		memcpy(&len, bp->cond + off, 4);
		off += 4 + ((len + 3) & ~3u);
	}
	prog->ncmds = bp->cond_ncmds;
	prog->nconds = nexprs - bp->cond_ncmds;
	prog->out = bp->cond_ncmds || bp->trace_on ? p->agent_out : 0;
	if (bp->trace_on) {
		struct engine *e = engine_of_bit(p, bp->cond_owner);

		prog->flags = AGENT_PROG_TRACE | (bp->trace.regs ? AGENT_PROG_REGS : 0);
		if (bp->trace.fpstate &&
		    arch_agent_fpstate(p->arch, &prog->fp_mask, &prog->fp_len) == 0)
			prog->flags |= AGENT_PROG_FPSTATE;
		prog->tpnum = bp->trace.tpnum;
		prog->regs_len = bp->trace.regs_len;
		prog->hits_left = pt->ctl ? ctl_addr(p, pt->ctl) : 0;
		prog->budget = e ? ctl_addr(p, (unsigned)e->slot) : 0;
	}
	prog->size = (uint32_t)(sizeof(*prog) + bp->cond_len);
	memcpy(buf + sizeof(*prog), bp->cond, bp->cond_len);
	return mem_write_raw(p, addr, buf, prog->size) == (ssize_t)prog->size ? 0 : -EIO;
}

/* Does one of the relocated instructions make a call by a push and a jmp? */
static bool patch_pushes(const struct arch_patch *code)
{
	for (unsigned k = 0; k < code->ninsns; k++)
		if (code->reloc[k].pushes)
			return true;
	return false;
}

enum xol_result patch_prepare(struct uthread *th, struct swbp *bp)
{
	struct uproc *p = th->p;
	struct bp_patch *pt;
	uint8_t insn[32];
	enum xol_result r;
	uint64_t at;
	ssize_t n;

	if (sizeof(struct agent_inproc_prog) + bp->cond_len > PROG_BYTES)
		return give_up(p, bp, "conditions too long");
	r = make_room(th, bp, &at);
	if (r != XOL_GO)
		return r;
	n = mem_read_orig(p, bp->addr, insn, sizeof(insn));
	pt = calloc(1, sizeof(*pt));
	if (n < (ssize_t)p->arch->trap_len || !pt) {
		free(pt);
		xol_give_back(p, at, PATCH_SLOTS);
		return give_up(p, bp, n < 0 ? "unreadable" : "out of memory");
	}
	pt->at = at;
	if (bp->trace_on && trace_ctl_setup(p, bp, pt) < 0)
		pt->code.why = "no counter for the tracepoint";
	else
		arch_patch_prepare(p->arch, insn, (size_t)n, bp->addr, at, p->agent_at,
				   at + ARCH_PATCH_TRAMP, &pt->code);
	if (!pt->code.why)
		pt->code.why = patch_site_check(p, bp->addr, &pt->code);
	if (!pt->code.why && patch_pushes(&pt->code) && xol_shadow_stack(p, p->pid))
		pt->code.why = "call under a shadow stack";
	if (!pt->code.why &&
	    (write_prog(p, bp, pt, at + ARCH_PATCH_TRAMP) < 0 ||
	     mem_write_raw(p, at, pt->code.code, pt->code.code_len) != (ssize_t)pt->code.code_len))
		pt->code.why = "not written";
	if (pt->code.why) {
		give_up(p, bp, pt->code.why);
		bp->patch = pt;
		patch_forget(p, bp);
		return XOL_NO;
	}
	bp->patch = pt;
	p->patch_pass = true; /* the jmp goes in with every thread stopped */
	return XOL_NO;	      /* this hit goes on out of line, as before */
}

enum xol_result patch_go_on(struct uthread *th, struct swbp *bp)
{
	struct uproc *p = th->p;

	if (regs_fetch(th, false) < 0)
		return XOL_NO;
	arch_set_pc(p->arch, &th->regs, bp->patch->at + bp->patch->code.go_off);
	if (regs_store(th, ARCH_RS_GP) < 0)
		return XOL_NO;
	p->xol_stats.runs++;
	return XOL_GO;
}

void patch_forget(struct uproc *p, struct swbp *bp)
{
	unsigned idx = bp->patch ? bp->patch->ctl : 0;

	if (idx) /* (no thread runs its program: never applied, or undone all stopped) */
		p->trace_ctl_used[idx / 64] &= ~(1ULL << (idx % 64));
	if (bp->patch)
		xol_give_back(p, bp->patch->at, PATCH_SLOTS);
	free(bp->patch);
	bp->patch = NULL;
}

static void progs_free(struct bp_prog *g)
{
	while (g) {
		struct bp_prog *next = g->next;

		free(g->code);
		free(g);
		g = next;
	}
}

void patch_bp_free(struct uproc *p, struct swbp *bp)
{
	patch_forget(p, bp);
	progs_free(bp->progs);
	bp->progs = NULL;
	free(bp->cond);
	bp->cond = NULL;
}

/* The jmp in: bp's int3 is still there (nobody replaced the code meanwhile). */
static void apply(struct uproc *p, struct swbp *bp)
{
	struct bp_patch *pt = bp->patch;
	size_t len = pt->code.jump_len;
	uint8_t cur[8];

	if (mem_read_raw(p, bp->addr, cur, len) != (ssize_t)len ||
	    memcmp(cur, p->arch->trap_insn, p->arch->trap_len)) {
		give_up(p, bp, "code changed");
		patch_forget(p, bp);
		return;
	}
	for (struct swbp *o = p->bps; o; o = o->next) {
		if (o->addr > bp->addr && o->addr < bp->addr + len) { /* (inserted meanwhile) */
			give_up(p, bp, "another breakpoint under the jmp");
			patch_forget(p, bp);
			return;
		}
	}
	memcpy(bp->orig + p->arch->trap_len, cur + p->arch->trap_len, len - p->arch->trap_len);
	if (mem_write_raw(p, bp->addr, pt->code.jump, len) != (ssize_t)len)
		return;
	pt->applied = true;
	p->xol_stats.patched++;
	p->xol_stats.trace_patched += bp->trace_on;
}

/* The jmp out: an int3 again (still owned) or the original (a patch left to undo). */
static void undo(struct uproc *p, struct swbp *bp)
{
	size_t len = bp->patch->code.jump_len;
	uint8_t buf[8];

	memcpy(buf, bp->orig, len);
	if (bp->owners)
		memcpy(buf, p->arch->trap_insn, p->arch->trap_len);
	mem_write_raw(p, bp->addr, buf, len);
	bp->patch->applied = false;
	patch_forget(p, bp);
}

/*
 * keep_lazy: the threads about to run only single-step (gdb stepping a
 * thread off its breakpoint, the others held, before it inserts its
 * breakpoints again): a breakpoint removed lazily keeps its jmp, which no
 * single step runs (a step in its bytes lifts it: sched.c's step over).
 */
static void pass(struct uproc *p, bool keep_lazy)
{
	struct swbp **pp = &p->bps, *bp;
	bool lazy_left = false;

	p->patch_pass = false;
	for_each_thread(p, th)
		patch_stopped(th); /* (done at each stop; a detach's too) */
	bp_insert_owed(p);	   /* (after the jmp over them is undone) */
	while ((bp = *pp)) {
		bool keep = bp->owners && bp->cond && bp->owners == bp->cond_owner &&
			    !(bp->patch && bp->patch->unwanted);

		if (!bp->owners && bp->lazy && keep_lazy) {
			lazy_left = true;
			pp = &bp->next;
			continue;
		}
		bp->lazy = false;

		if (bp->patch && bp->patch->applied && !keep)
			undo(p, bp);
		else if (bp->patch && !bp->patch->applied && !keep)
			patch_forget(p, bp);
		else if (bp->patch && !bp->patch->applied && bp->inserted)
			apply(p, bp);
		if (!bp->owners) { /* a patch left to undo: now gone */
			*pp = bp->next;
			patch_bp_free(p, bp);
			free(bp);
			continue;
		}
		pp = &bp->next;
	}
	p->patch_pass |= lazy_left;
}

void patch_pass(struct uproc *p)
{
	pass(p, false);
}

void patch_pass_resume(struct uproc *p, bool only_steps)
{
	pass(p, only_steps);
}

bool patch_undo_under(struct uproc *p, uint64_t addr)
{
	for (struct swbp *bp = p->bps; bp; bp = bp->next) {
		if (!bp->patch || !bp->patch->applied || addr <= bp->addr ||
		    addr >= bp->addr + bp->patch->code.jump_len)
			continue;
		undo(p, bp);
		bp->patch_why = "another breakpoint under the jmp";
		if (!bp->owners) /* (a patch left to undo: its bp goes at the next pass) */
			p->patch_pass = true;
		return true;
	}
	return false;
}

bool patch_remove(struct uproc *p, struct swbp *bp)
{
	if (!bp->patch || !bp->patch->applied || p->exited || sched_all_stopped(p))
		return true; /* the usual restore of its bytes will do */
	p->patch_pass = true;
	return false;
}

static int read_stack(void *ctx, uint64_t addr, void *buf, size_t len)
{
	ssize_t n = mem_read_raw(ctx, addr, buf, len);

	return n == (ssize_t)len ? 0 : -EIO;
}

/* The patched breakpoint whose trampoline (or agent call) r's pc is in; NULL: none. */
static struct swbp *patch_at_pc(struct uproc *p, const struct arch_regs *r, bool *in_agent)
{
	uint64_t pc = arch_pc(p->arch, r), ret = 0;
	size_t len;

	agent_blob(p, &len);
	*in_agent = pc >= p->agent_at && pc < p->agent_at + len;
	if (*in_agent) {
		/* (little-endian: a 32-bit process's 4 bytes are the low ones) */
		if (read_stack(p, arch_patch_agent_ret_slot(p->arch, r), &ret, p->arch->ptr_size) <
		    0)
			return NULL;
		pc = ret;
	}
	for (struct swbp *bp = p->bps; bp; bp = bp->next)
		if (bp->patch && pc >= bp->patch->at &&
		    pc <= bp->patch->at + bp->patch->code.code_len)
			return bp;
	return NULL;
}

/*
 * Has the thread whose frame is at frame already published its printf
 * records (the agent's mark, and its ring's head moved past it)? Then
 * it goes on past its breakpoint: taken back, it would print again.
 */
static bool printed_already(struct uproc *p, const struct bp_patch *pt, uint64_t frame)
{
	uint64_t mark, head;
	unsigned slot;

	if (!frame || !p->agent_out || read_stack(p, frame + pt->code.mark_off, &mark, 8) < 0 ||
	    !(mark & AGENT_OUT_MARK))
		return false;
	slot = AGENT_OUT_MARK_SLOT(mark);
	if (slot >= AGENT_OUT_SLOTS ||
	    read_stack(p,
		       p->agent_out + slot * sizeof(struct agent_out_slot) +
			       offsetof(struct agent_out_slot, head),
		       &head, 8) < 0)
		return false;
	return AGENT_OUT_MARK_HEAD(head) != AGENT_OUT_MARK_HEAD(mark);
}

/*
 * Put a thread stopped in bp's trampoline or the agent back at bp's
 * address, as the program would be; false: r untouched (not ours, lost).
 * *past: it is there with its hit's work done (its dprintf published, or
 * in the relocated copy of the first instruction): going on from there
 * must not run the trampoline again, or it would print twice.
 */
static bool roll_back(struct uproc *p, struct swbp *bp, bool in_agent, struct arch_regs *r,
		      enum arch_patch_where *w, bool *past)
{
	uint64_t frame = arch_patch_frame(&bp->patch->code, bp->patch->at, in_agent, p->arch, r);
	bool printed = printed_already(p, bp->patch, frame);

	*w = arch_patch_rollback(&bp->patch->code, bp->patch->at, in_agent, p->arch, r, read_stack,
				 p);
	if (*w == ARCH_PATCH_OUT || *w == ARCH_PATCH_LOST)
		return false;
	*past = (printed && *w == ARCH_PATCH_BACK) ||
		(*w == ARCH_PATCH_RELOC && arch_pc(p->arch, r) == bp->addr);
	return true;
}

void patch_stopped(struct uthread *th)
{
	struct uproc *p = th->p;
	enum arch_patch_where w;
	struct swbp *bp;
	bool in_agent, past;

	th->patch_hit = 0;
	if (!p->agent_at || !th->stopped)
		return;
	patch_drain(p); /* lines recorded before this stop come before what it causes */
	if (regs_fetch(th, false) < 0)
		return;
	bp = patch_at_pc(p, &th->regs, &in_agent);
	if (!bp)
		return;
	if (!roll_back(p, bp, in_agent, &th->regs, &w, &past)) {
		regs_invalidate(th);
		return;
	}
	regs_store(th, ARCH_RS_GP);
	p->xol_stats.caught++;
	if (past) { /* on past it, as from a hit: not through the agent again */
		th->at_bp = true;
		th->bp_pc = bp->addr;
	} else if (w == ARCH_PATCH_HIT || in_agent)
		th->patch_hit = bp->addr;
	th->patch_in_agent = in_agent;
}

bool patch_classify(struct uthread *th, int sig)
{
	struct uproc *p = th->p;
	struct swbp *bp;

	if (!th->patch_hit)
		return false;
	/* a true condition's trap; a condition's bad read (gdbserver: the breakpoint stops) */
	if (th->patch_in_agent ? sig != SIGSEGV && sig != SIGBUS : sig != SIGTRAP)
		return false;
	bp = bp_find(p, th->patch_hit);
	if (bp && !th->patch_in_agent && patch_out_busy(p, bp->owners)) {
		th->out_wait = true; /* it runs the breakpoint again when there is room */
		p->xol_stats.out_waits++;
		return true;
	}
	if (bp && bp->owners && bp->inserted) {
		th->pending = (struct uevent){.kind = UEV_SWBREAK, .addr = th->patch_hit};
		th->has_pending = true;
	}
	return true; /* (a patch being undone: nobody to tell; it goes through again) */
}

/* Append exprs[0..n) to buf at *off, in the program's format (u32 length, code, padding). */
static void put_exprs(uint8_t *buf, size_t *off, const struct agent_expr *exprs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t l = (uint32_t)exprs[i].len;

		memcpy(buf + *off, &l, 4);
		memcpy(buf + *off + 4, exprs[i].code, l);
		*off += 4 + ((l + 3) & ~3u);
	}
}

static size_t exprs_len(const struct agent_expr *exprs, size_t n)
{
	size_t len = 0;

	for (size_t i = 0; i < n; i++)
		len += 4 + ((exprs[i].len + 3) & ~(size_t)3);
	return len;
}

static void set_combined(struct swbp *bp, uint8_t *code, size_t len, uint32_t ncmds,
			 uint64_t owners)
{
	free(bp->cond);
	bp->cond = code;
	bp->cond_len = (uint32_t)len;
	bp->cond_ncmds = ncmds;
	bp->cond_owner = code ? owners : 0;
	bp->trace_on = false;
}

/*
 * What the agent runs at bp, from each engine's program: one as it is;
 * several, their conditions one after the other (the agent traps when
 * one holds, and each engine evaluates its own at the hit), unless one
 * has commands or is a tracepoint (whose output would need telling
 * apart): then none, and an int3.
 */
static void combine(struct uproc *p, struct swbp *bp)
{
	size_t len = 0, off = 0;
	uint64_t owners = 0;
	bool cmds = false;
	unsigned n = 0;
	uint8_t *buf;

	for (struct bp_prog *g = bp->progs; g; g = g->next, n++) {
		len += g->len;
		owners |= g->owner;
		cmds |= g->ncmds || g->trace_on;
	}
	set_combined(bp, NULL, 0, 0, 0);
	if (!n)
		return;
	if (n > 1 && cmds) {
		give_up(p, bp, "two engines' programs, one with commands");
		return;
	}
	if (len > PROG_BYTES)
		len = PROG_BYTES + 1; /* too long for the agent: kept, never patched */
	buf = calloc(1, len ? len : 1);
	if (!buf)
		return;
	for (struct bp_prog *g = bp->progs; g && len <= PROG_BYTES; g = g->next) {
		memcpy(buf + off, g->code, g->len);
		off += g->len;
	}
	set_combined(bp, buf, len, n == 1 ? bp->progs->ncmds : 0, owners);
	if (n == 1 && bp->progs->trace_on) {
		bp->trace_on = true;
		bp->trace = bp->progs->trace;
	}
}

/* The program the agent runs changed: a patch of the old one goes. */
static void recombined(struct uproc *p, struct swbp *bp)
{
	bp->patch_why = NULL; /* new conditions: worth a new try */
	combine(p, bp);
	if (bp->patch) {
		bp->patch->unwanted = true; /* its program is the old one */
		p->patch_pass = true;
	}
}

void patch_prog_drop(struct uproc *p, struct swbp *bp, uint64_t owner)
{
	struct bp_prog **gp = &bp->progs, *g;
	bool any = false;

	while ((g = *gp)) {
		if (!(g->owner & owner)) {
			gp = &g->next;
			continue;
		}
		*gp = g->next;
		g->next = NULL;
		progs_free(g);
		any = true;
	}
	if (any)
		recombined(p, bp);
}

static bool same_prog(const struct bp_prog *g, const uint8_t *code, size_t len, size_t ncmds,
		      const struct engine_trace *t)
{
	return g->len == len && g->ncmds == ncmds && !memcmp(g->code, code, len) &&
	       g->trace_on == (t != NULL) &&
	       (!t || (g->trace.tpnum == t->tpnum && g->trace.regs_len == t->regs_len &&
		       g->trace.regs == t->regs && g->trace.fpstate == t->fpstate &&
		       g->trace.pass_left == t->pass_left));
}

/* e's program at bp (conditions then commands, or a fast tracepoint's: t). */
static int set_prog(struct engine *e, uint64_t addr, const struct agent_expr *conds, size_t n,
		    const struct agent_expr *cmds, size_t ncmds, const struct engine_trace *t)
{
	struct uproc *p = e->p;
	struct swbp *bp = bp_find(p, addr);
	size_t len = exprs_len(conds, n) + exprs_len(cmds, ncmds), off = 0;
	bool any = n || ncmds || t;
	struct bp_prog **gp, *g;
	uint8_t *buf;

	if (!bp || !(bp->owners & ENGINE_BIT(e)))
		return -ENOENT;
	for (gp = &bp->progs; *gp && (*gp)->owner != ENGINE_BIT(e); gp = &(*gp)->next)
		;
	if (!any) {
		patch_prog_drop(p, bp, ENGINE_BIT(e));
		return 0;
	}
	if (len > PROG_BYTES)
		len = PROG_BYTES + 1; /* too long for the agent: kept, never patched */
	buf = calloc(1, len ? len : 1);
	if (!buf)
		return -ENOMEM;
	if (len <= PROG_BYTES) {
		put_exprs(buf, &off, conds, n);
		put_exprs(buf, &off, cmds, ncmds);
	}
	if (*gp && same_prog(*gp, buf, len, ncmds, t)) {
		free(buf); /* gdb sends them again at each resume: the patch stays */
		return 0;
	}
	g = *gp;
	if (!g && !(g = calloc(1, sizeof(*g)))) {
		free(buf);
		return -ENOMEM;
	}
	if (!*gp) {
		g->owner = ENGINE_BIT(e);
		*gp = g;
	}
	free(g->code);
	g->code = buf;
	g->len = (uint32_t)len;
	g->ncmds = (uint32_t)ncmds;
	g->trace_on = t != NULL;
	if (t)
		g->trace = *t;
	recombined(p, bp);
	return 0;
}

int engine_bp_conds(struct engine *e, uint64_t addr, const struct agent_expr *conds, size_t n,
		    const struct agent_expr *cmds, size_t ncmds)
{
	return set_prog(e, addr, conds, n, cmds, ncmds, NULL);
}

int engine_bp_trace(struct engine *e, uint64_t addr, const struct agent_expr *cond, size_t n,
		    const struct agent_expr *acts, size_t nacts, const struct engine_trace *t)
{
	struct engine_trace tt;

	if (n > 1 || !t)
		return -EINVAL;
	tt = (struct engine_trace){.tpnum = t->tpnum,
				   .regs_len = t->regs_len,
				   .regs = t->regs,
				   .fpstate = t->regs && t->fpstate,
				   .pass_left = t->pass_left < 0 ? -1 : t->pass_left};
	return set_prog(e, addr, cond, n, acts, nacts, &tt);
}

void engine_trace_budget(struct engine *e, int64_t free_bytes)
{
	e->trace_free = free_bytes < 0 ? 0 : free_bytes;
	budget_write(e->p, e);
}

void engine_trace_drain(struct engine *e)
{
	patch_drain(e->p);
}

int patch_rollback_tid(struct uproc *p, pid_t tid)
{
	struct arch_regs r;
	enum arch_patch_where w;
	struct swbp *bp;
	bool in_agent, past; /* (its jmp is about to go: the original instruction runs) */

	if (!p->agent_at || regs_gp_get(p->arch, tid, &r.gp) < 0)
		return 0;
	bp = patch_at_pc(p, &r, &in_agent);
	if (!bp || !roll_back(p, bp, in_agent, &r, &w, &past) ||
	    regs_gp_set(p->arch, tid, &r.gp) < 0)
		return 0;
	return in_agent ? 2 : 1;
}
