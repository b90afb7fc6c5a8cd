/*
 * event.c: what a stop means, and which engines want to hear about it.
 *
 * event_classify() turns a signal-delivery-stop into a uevent (our int3, a
 * finished single-step, a debug-register hit, or a plain signal) and parks
 * it on the thread. event_dispatch() gives a parked event to the engines
 * that asked for it, all at once, or leaves it parked while one of them is
 * busy with an earlier stop; a breakpoint hit is not parked but dropped
 * (the thread is rewound onto the trap and will hit it again).
 */
#include "engine_int.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/ptrace.h>

/* The debug status register (x86: DR6), its hit bits cleared; 0 where the CPU has none. */
static uint64_t dr_status_take(struct uthread *th)
{
	long off = arch_dr_status_off(), st;

	if (off < 0)
		return 0;
	errno = 0;
	st = ptrace(PTRACE_PEEKUSER, th->tid, (void *)off, 0L);
	if (errno)
		return 0;
	if (arch_dr_fired((uint64_t)st))
		ptrace(PTRACE_POKEUSER, th->tid, (void *)off, 0L);
	return (uint64_t)st;
}

static bool program_trap_at(struct uproc *p, uint64_t addr)
{
	uint8_t cur[16];
	size_t len = p->arch->trap_len;

	return mem_read_raw(p, addr, cur, len) == (ssize_t)len &&
	       !memcmp(cur, p->arch->trap_insn, len);
}

/* An int3 of ours at pc-1? Rewind onto it. Returns true if it was ours. */
static bool classify_int3(struct uthread *th, struct uevent *ev)
{
	struct uproc *p = th->p;
	uint64_t addr;
	struct swbp *bp;

	if (regs_fetch(th, false) < 0)
		return false;
	addr = arch_pc(p->arch, &th->regs) - ARCH_TRAP_PC_ADV;
	bp = bp_find(p, addr);
	if (!(bp && bp->inserted) && !bp_is_moribund(p, addr))
		return false;
	if (!(bp && bp->inserted) && program_trap_at(p, addr))
		return false; /* the program's own int3 where we once had ours */
	arch_set_pc(p->arch, &th->regs, addr);
	/*
	 * Stored later (regs_sync): a hit nobody reports goes out of line,
	 * and that store of the pc (to its slot) makes this one unneeded.
	 */
	th->regs_dirty = true;
	if (bp && bp->inserted) {
		ev->kind = UEV_SWBREAK;
		ev->addr = addr;
	} else {
		ev->kind = UEV_NONE; /* a trap we removed while it was being hit */
	}
	return true;
}

static bool classify_dr(struct uthread *th, const siginfo_t *si, struct uevent *ev)
{
	struct uproc *p = th->p;
	bool stepped = false;
	int slot;

	if (!p->dregs_used)
		return false;
	slot = arch_dr_hit(&p->dregs, dr_status_take(th), si->si_code,
			   (uint64_t)(uintptr_t)si->si_addr, &stepped);
	if (slot < 0)
		return false;
	ev->kind = UEV_HW;
	ev->addr = p->dregs.addr[slot];
	ev->dr_type = p->dregs.type[slot];
	ev->also_step = th->stepping && stepped;
	return true;
}

/*
 * A SIGTRAP whose pc is just past one of our inserted traps, over an
 * instruction longer than the trap: only that int3 can have stopped the
 * thread there, in the middle of the instruction (a signal, a step's or
 * a debug register's trap come at instruction boundaries), so no siginfo
 * is needed to tell. The length is known once the instruction was
 * decoded for an out-of-line step (bp->insn_len; 0 before).
 */
static bool surely_int3(struct uthread *th)
{
	struct uproc *p = th->p;
	struct swbp *bp;

	if (!p->bps || regs_fetch(th, false) < 0)
		return false;
	bp = bp_find(p, arch_pc(p->arch, &th->regs) - p->arch->trap_len);
	return bp && bp->inserted && bp->insn_len > p->arch->trap_len;
}

void event_classify(struct uthread *th, int sig)
{
	struct uevent ev = {.kind = UEV_SIGNAL, .sig = sig};
	siginfo_t si;

	if (sig != SIGTRAP)
		goto out;
	if (surely_int3(th) && classify_int3(th, &ev))
		goto out;
	if (ptrace(PTRACE_GETSIGINFO, th->tid, 0L, &si) < 0)
		goto out;
	if (si.si_code == ARCH_TRAP_SI_CODE && classify_int3(th, &ev))
		goto out;
	if (si.si_code <= 0)
		goto out; /* sent by a process: a real SIGTRAP */
	if (classify_dr(th, &si, &ev))
		goto out;
	if (th->stepping) {
		ev.kind = UEV_STEP;
		th->step_stale = false;
	} else if (th->step_stale && si.si_code != ARCH_TRAP_SI_CODE) {
		/*
		 * The trap of a step given up inside a syscall (the thread was
		 * interrupted, then continued): the kernel reports it at the
		 * syscall's exit (TRAP_BRKPT on x86), or as the step's own
		 * trap. Nobody asked for it; the program must not get it. An
		 * int3's (SI_KERNEL) is the program's own: it goes on.
		 */
		ev.kind = UEV_NONE;
		th->step_stale = false;
	}
out:
	if (ev.kind == UEV_SIGNAL)
		observe_signal(th, sig);
	if (ev.kind == UEV_NONE)
		return;
	th->pending = ev;
	th->has_pending = true;
}

static bool hw_matches(const struct hwbp *h, const struct uevent *ev)
{
	bool exec = h->type == ENGINE_BP_HW;

	if (exec != (ev->dr_type == ARCH_DR_EXEC))
		return false;
	return ev->addr >= h->addr && ev->addr < h->addr + (uint64_t)h->len;
}

/*
 * Engines with a breakpoint where th stands: a signal there is theirs
 * even if passed (gdb's call-dummy breakpoint on a non-executable stack
 * returns as a SIGSEGV at that address), as gdbserver does.
 */
static uint64_t bp_owners_at_pc(struct uthread *th)
{
	struct swbp *bp;

	if (!th->p->bps || regs_fetch(th, false) < 0)
		return 0;
	bp = bp_find(th->p, arch_pc(th->p->arch, &th->regs));
	return bp ? bp->owners : 0;
}

static unsigned event_need(const struct uevent *ev)
{
	if (ev->kind == UEV_EXEC)
		return ENGINE_EVENT_EXEC;
	if (ev->kind == UEV_THREAD_NEW)
		return ENGINE_EVENT_THREADS;
	if (ev->kind == UEV_FORK && !ev->vfork)
		return ENGINE_EVENT_FORK;
	return ENGINE_EVENT_VFORK;
}

uint64_t event_wanted_by(struct uthread *th, const struct uevent *ev)
{
	struct uproc *p = th->p;
	uint64_t want = 0;
	struct swbp *bp;

	switch (ev->kind) {
	case UEV_SIGNAL:
		/*
		 * A passed signal is still reported to an engine stepping the
		 * thread (as gdbserver does): gdb must know a handler is about
		 * to run inside its step.
		 */
		for_each_engine(p, e)
			if (!e->pass[ev->sig] || (!e->observer && (th->step_mask & ENGINE_BIT(e))))
				want |= ENGINE_BIT(e);
		return want | bp_owners_at_pc(th);
	case UEV_SWBREAK:
		bp = bp_find(p, ev->addr);
		return bp ? bp->owners : 0;
	case UEV_STEP:
		return th->step_mask;
	case UEV_SYSCALL:
		return sys_wanted_by(p, ev);
	case UEV_FORK:
	case UEV_VFORK_DONE:
	case UEV_EXEC:
	case UEV_THREAD_NEW:
		for_each_engine(p, e)
			if (!e->observer && (e->events & event_need(ev)))
				want |= ENGINE_BIT(e);
		return want;
	case UEV_HW:
		for_each_engine(p, e)
			for (struct hwbp *h = e->hw; h; h = h->next)
				if (hw_matches(h, ev))
					want |= ENGINE_BIT(e);
		return want | (ev->also_step ? th->step_mask : 0);
	default:
		return 0;
	}
}

static void make_stop(struct uthread *th, const struct uevent *ev, struct engine *e,
		      struct engine_stop *st)
{
	memset(st, 0, sizeof(*st));
	st->pid = th->p->pid;
	st->tid = th->tid;
	st->sig = SIGTRAP;
	st->addr = ev->addr;
	switch (ev->kind) {
	case UEV_SIGNAL:
		st->kind = ENGINE_STOP_SIGNAL;
		st->sig = ev->sig;
		break;
	case UEV_SWBREAK:
		st->kind = ENGINE_STOP_SWBREAK;
		break;
	case UEV_HW:
		st->kind = ev->dr_type == ARCH_DR_EXEC ? ENGINE_STOP_HWBREAK : ENGINE_STOP_WATCH;
		st->watch = ev->dr_type;
		for (struct hwbp *h = e->hw; h; h = h->next)
			if (hw_matches(h, ev))
				return;
		st->kind = ENGINE_STOP_STEP; /* only its step finished */
		break;
	case UEV_SYSCALL:
		st->kind = ev->sys_entry ? ENGINE_STOP_SYSCALL_ENTRY : ENGINE_STOP_SYSCALL_RETURN;
		st->sysno = ev->nr;
		break;
	case UEV_FORK:
		st->kind = ev->vfork ? ENGINE_STOP_VFORK : ENGINE_STOP_FORK;
		st->child = (pid_t)ev->addr;
		st->addr = 0;
		break;
	case UEV_VFORK_DONE:
		st->kind = ENGINE_STOP_VFORK_DONE;
		break;
	case UEV_EXEC:
		st->kind = ENGINE_STOP_EXEC;
		break;
	case UEV_THREAD_NEW:
		st->kind = ENGINE_STOP_THREAD_CREATED;
		break;
	default:
		st->kind = ENGINE_STOP_STEP;
		break;
	}
}

/*
 * Engines whose condition at this hit is false, or whose dprintf ran,
 * drop out: asked once per hit, while the thread is stopped and the
 * others run on, so a hit nobody reports stops nothing else.
 */
static uint64_t bp_filter(struct uthread *th, uint64_t addr, uint64_t want)
{
	for_each_engine(th->p, e) {
		if (!(want & ENGINE_BIT(e)) || !e->client.bp_goes_on)
			continue;
		if (e->client.bp_goes_on(e->client.ctx, e, th->tid, addr))
			want &= ~ENGINE_BIT(e);
	}
	return want;
}

void event_dispatch(struct uthread *th)
{
	struct uproc *p = th->p;
	struct uevent ev = th->pending;
	uint64_t want = event_wanted_by(th, &ev);

	for_each_engine(p, e) {
		bool busy = e->stopped || e->has_report;

		/*
		 * An all-stop engine that left this thread out of its resume
		 * hears of it when it resumes it (gdbserver reports events of
		 * resumed threads only): gdb stepping one thread over a
		 * breakpoint must not get another thread's old event.
		 */
		busy |= (th->hold_mask & ENGINE_BIT(e)) != 0;
		if (!(want & ENGINE_BIT(e)) || e->nonstop || !busy)
			continue;
		/* someone who wants it is busy: keep it for later */
		if (ev.kind == UEV_SWBREAK)
			th->has_pending = false; /* ... or let it hit again */
		regs_sync(th);
		return;
	}
	th->has_pending = false;
	if (ev.kind == UEV_SWBREAK) {
		want = bp_filter(th, ev.addr, want);
		th->at_bp = true; /* reported or not, it must go on past the trap */
		th->bp_pc = ev.addr;
	}
	if (ev.kind == UEV_SIGNAL) {
		th->deliver_sig = ev.sig;
		th->sig_orig = ev.sig;
		th->sig_suppressed = false;
		th->sig_owners = want;
	}
	if (!want)
		return; /* (a hit: it goes on out of line, its pc stored then) */
	regs_sync(th);
	for_each_engine(p, e) {
		struct engine_stop st;

		if (!(want & ENGINE_BIT(e)))
			continue;
		if (e->nonstop) {
			make_stop(th, &ev, e, &st);
			nonstop_report(e, th, &st);
			continue;
		}
		make_stop(th, &ev, e, &e->report);
		e->has_report = true;
	}
}
