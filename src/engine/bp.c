/*
 * bp.c: breakpoints and watchpoints, shared between engines.
 *
 * One trap per address, written once whatever number of engines asked for
 * it (owners is a mask of engines); removing the last owner restores the
 * original bytes. The addresses of recently removed traps are remembered
 * ("moribund"): a thread may have hit one just before it went away, and
 * that SIGTRAP must be swallowed, not reported as a signal.
 *
 * Debug registers are one arch_dregs per process (slots shared by
 * reference count), written to each thread before it next runs.
 */
#include "engine_int.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>

struct swbp *bp_find(struct uproc *p, uint64_t addr)
{
	for (struct swbp *bp = p->bps; bp; bp = bp->next)
		if (bp->addr == addr)
			return bp;
	return NULL;
}

int bp_write_insn(struct uproc *p, struct swbp *bp, bool trap)
{
	size_t len;
	const uint8_t *ours = patch_bytes(p, bp, &len);
	ssize_t n = mem_write_raw(p, bp->addr, trap ? ours : bp->orig, len);

	if (n < 0)
		return (int)n;
	return n == (ssize_t)len ? 0 : -EIO;
}

/*
 * Is our trap still in memory? A library unloaded and another mapped at
 * the same address (dlclose, dlopen) replaces it behind our back; gdb
 * then inserts a new breakpoint where it already had one. Writing the
 * stale original bytes back there would corrupt the new code.
 */
bool bp_trap_present(struct uproc *p, struct swbp *bp)
{
	uint8_t cur[16];
	size_t len;
	const uint8_t *ours = patch_bytes(p, bp, &len);

	if (!bp->inserted)
		return false;
	if (p->step_over && p->step_over_addr == bp->addr)
		return true; /* lifted for the step over; back when it is done */
	if (mem_read_raw(p, bp->addr, cur, len) != (ssize_t)len)
		return false; /* unmapped: still "inserted", but nothing to restore */
	if (memcmp(cur, ours, len) != 0)
		bp->inserted = false;
	return bp->inserted;
}

bool bp_is_moribund(struct uproc *p, uint64_t addr)
{
	for (unsigned i = 0; i < MORIBUND_MAX; i++)
		if (p->moribund[i] == addr && addr)
			return true;
	return false;
}

/* The breakpoint at addr, new in p's list (no owner, nothing in memory); NULL: no memory. */
static struct swbp *bp_new(struct uproc *p, uint64_t addr)
{
	struct swbp *bp = calloc(1, sizeof(*bp));

	if (!bp)
		return NULL;
	bp->addr = addr;
	bp->gen = ++p->bp_gen;
	bp->next = p->bps;
	p->bps = bp;
	return bp;
}

/*
 * A breakpoint asked for under a patch's jmp while threads run (non-stop):
 * it goes in at the next moment every thread is stopped (the patch pass,
 * asked for now), after the jmp. gdb is told it is in, as gdbserver,
 * which stops every thread around such writes, would; a thread that runs
 * through those bytes before the pass is not stopped there.
 */
static int bp_owe(struct engine *e, struct swbp *bp, uint64_t addr)
{
	struct uproc *p = e->p;

	if (!bp && !(bp = bp_new(p, addr)))
		return -ENOMEM;
	bp->owners |= ENGINE_BIT(e);
	bp->insert_owed = true;
	p->patch_pass = true;
	sched_update(p);
	return 0;
}

/*
 * bp's trap is in memory: a SIGTRAP at its address is a hit again, not the
 * late one of a removed trap. (gdb removes and reinserts every breakpoint
 * at each all-stop stop: left moribund, a reinserted one was stepped over
 * in place, every thread held, for as long as the address stayed listed.)
 */
static void bp_inserted(struct uproc *p, struct swbp *bp)
{
	bp->inserted = true;
	for (unsigned i = 0; i < MORIBUND_MAX; i++)
		if (p->moribund[i] == bp->addr)
			p->moribund[i] = 0;
}

void bp_insert_owed(struct uproc *p)
{
	for (struct swbp *bp = p->bps; bp; bp = bp->next) {
		if (!bp->insert_owed)
			continue;
		bp->insert_owed = false;
		if (!bp->owners || (patch_under_jmp(p, bp->addr) && !patch_undo_under(p, bp->addr)))
			continue;
		if (mem_read_raw(p, bp->addr, bp->orig, p->arch->trap_len) ==
			    (ssize_t)p->arch->trap_len &&
		    bp_write_insn(p, bp, true) == 0)
			bp_inserted(p, bp);
	}
}

int bp_sw_insert(struct engine *e, uint64_t addr)
{
	struct uproc *p = e->p;
	struct swbp *bp = bp_find(p, addr);
	ssize_t n;
	int err;

	/* under a patch's jmp: the jmp goes first, with every thread stopped */
	if (patch_under_jmp(p, addr) && !(sched_all_stopped(p) && patch_undo_under(p, addr)))
		return bp_owe(e, bp, addr);
	if (bp && bp->lazy && bp->cond_owner != ENGINE_BIT(e))
		patch_prog_drop(p, bp, bp->cond_owner); /* (kept for its owner's return only) */
	if (bp)
		bp->lazy = false;
	if (bp && bp_trap_present(p, bp)) {
		bp->owners |= ENGINE_BIT(e);
		if (bp->patch && bp->owners != bp->cond_owner)
			p->patch_pass = true; /* the agent has not e's conditions (yet) */
		return 0;
	}
	if (bp) {
		patch_forget(p, bp); /* its code was replaced: a new int3 */
		bp->gen = ++p->bp_gen;
		bp->insn_len = 0;
	} else if (!(bp = bp_new(p, addr)))
		return -ENOMEM;
	n = mem_read_raw(p, addr, bp->orig, p->arch->trap_len);
	err = n == (ssize_t)p->arch->trap_len ? bp_write_insn(p, bp, true) : -EIO;
	if (err) {
		if (!bp->owners)
			bp_sw_remove(e, addr);
		return err;
	}
	bp_inserted(p, bp);
	bp->owners |= ENGINE_BIT(e);
	return 0;
}

/*
 * May bp, whose last owner e removes it, keep its jmp for a while (lazy)?
 * Only gdb's z0 with every thread stopped, e's own conditions on it.
 */
static bool keep_lazily(struct uproc *p, struct engine *e, struct swbp *bp, bool lazy_ok)
{
	return lazy_ok && bp->owners == ENGINE_BIT(e) && bp->cond_owner == ENGINE_BIT(e) &&
	       bp->patch && bp->patch->applied && !bp->patch->unwanted && !bp->trace_on &&
	       !p->exited && bp_trap_present(p, bp) && sched_all_stopped(p);
}

static int sw_remove(struct engine *e, uint64_t addr, bool lazy_ok)
{
	struct uproc *p = e->p;
	struct swbp **pp, *bp;
	int err = 0;

	for (pp = &p->bps; *pp && (*pp)->addr != addr; pp = &(*pp)->next)
		;
	bp = *pp;
	if (!bp)
		return 0; /* removing twice is fine, as gdb expects */
	if (keep_lazily(p, e, bp, lazy_ok)) {
		bp->owners = 0;
		bp->lazy = true;
		p->patch_pass = true; /* (runs at the resume, or the detach) */
		p->xol_stats.lazy_removed++;
		return 0;
	}
	bp->owners &= ~ENGINE_BIT(e);
	patch_prog_drop(p, bp, ENGINE_BIT(e));
	if (bp->patch && bp->owners)
		p->patch_pass = true; /* the agent no longer runs e's conditions */
	if (bp->owners)
		return 0;
	if (!patch_remove(p, bp))
		return 0; /* the jmp goes with every thread stopped (patch_pass) */
	if (!p->exited && bp_trap_present(p, bp)) {
		bp_write_insn(p, bp, false);
		p->moribund[p->moribund_next++ % MORIBUND_MAX] = addr;
	} else if (!p->exited && bp->inserted) {
		err = -EIO; /* unmapped: gdb warns that it could not remove it */
	}
	*pp = bp->next;
	patch_bp_free(p, bp);
	free(bp);
	return err;
}

int bp_sw_remove(struct engine *e, uint64_t addr)
{
	return sw_remove(e, addr, false);
}

int bp_sw_remove_lazy(struct engine *e, uint64_t addr)
{
	return sw_remove(e, addr, true);
}

static enum arch_dr_type dr_type(enum engine_bp_type type)
{
	switch (type) {
	case ENGINE_BP_WRITE:
		return ARCH_DR_WRITE;
	case ENGINE_BP_READ:
		return ARCH_DR_READ;
	case ENGINE_BP_ACCESS:
		return ARCH_DR_ACCESS;
	default:
		return ARCH_DR_EXEC;
	}
}

static void dregs_changed(struct uproc *p)
{
	p->dregs_used = true;
	for_each_thread(p, th) {
		th->dr_dirty = true;
		if (th->stopped)
			bp_dregs_apply(th);
	}
}

int bp_hw_insert(struct engine *e, enum engine_bp_type type, uint64_t addr, int len)
{
	struct hwbp *h;
	int err;

	for (h = e->hw; h; h = h->next) {
		if (h->type == type && h->addr == addr && h->len == len) {
			h->refs++;
			return 0;
		}
	}
	err = arch_dr_insert(&e->p->dregs, dr_type(type), addr, len);
	if (err)
		return err;
	h = calloc(1, sizeof(*h));
	if (!h) {
		arch_dr_remove(&e->p->dregs, dr_type(type), addr, len);
		return -ENOMEM;
	}
	*h = (struct hwbp){.next = e->hw, .type = type, .addr = addr, .len = len, .refs = 1};
	e->hw = h;
	dregs_changed(e->p);
	return 0;
}

int bp_hw_remove(struct engine *e, enum engine_bp_type type, uint64_t addr, int len)
{
	struct hwbp **hp, *h;

	for (hp = &e->hw; *hp; hp = &(*hp)->next) {
		h = *hp;
		if (h->type != type || h->addr != addr || h->len != len)
			continue;
		if (--h->refs)
			return 0;
		*hp = h->next;
		free(h);
		arch_dr_remove(&e->p->dregs, dr_type(type), addr, len);
		dregs_changed(e->p);
		return 0;
	}
	return -ENOENT;
}

void bp_engine_drop(struct engine *e)
{
	struct uproc *p = e->p;
	struct swbp *bp, *next;

	for (bp = p->bps; bp; bp = next) {
		next = bp->next;
		if (bp->owners & ENGINE_BIT(e))
			bp_sw_remove(e, bp->addr);
	}
	while (e->hw) {
		struct hwbp *h = e->hw;

		h->refs = 1;
		bp_hw_remove(e, h->type, h->addr, h->len);
	}
}

/* The CPU's writes (arch_dr_plan): user-area words, or regsets. */
static void dr_write(pid_t tid, const struct arch_dregs *dr)
{
	static struct arch_dr_plan plan;

	arch_dr_plan(dr, &plan);
	for (unsigned i = 0; i < plan.n; i++) {
		const struct arch_dr_write *w = &plan.w[i];
		struct iovec iov = {.iov_base = (void *)w->buf, .iov_len = w->len};

		if (w->note)
			ptrace(PTRACE_SETREGSET, tid, (void *)w->note, &iov);
		else
			ptrace(PTRACE_POKEUSER, tid, (void *)w->off, (void *)w->val);
	}
}

void bp_dregs_apply(struct uthread *th)
{
	dr_write(th->tid, &th->p->dregs);
	th->dr_dirty = false;
}

void bp_dregs_clear(pid_t tid)
{
	dr_write(tid, NULL);
}
