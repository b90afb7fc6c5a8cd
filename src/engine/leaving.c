/*
 * leaving.c: threads we let go of before they could stop.
 *
 * PTRACE_DETACH needs a stopped tracee, and some threads cannot stop for
 * a long time: a vfork parent waits for its child's exec or exit, a thread
 * in uninterruptible sleep (a hung NFS or FUSE request) waits for the
 * kernel. Waiting for them would hold the daemon's one event loop, so every
 * other client would wait too (and a user could hold it on purpose, with a
 * process of their own). So an attach that is given up (its client's ^C,
 * detach or end; a ustrace join's stop timeout) and a last engine's
 * detach leave the threads still running here: each is detached at its
 * next stop, with the signal that stop was for, and if that stop is the
 * SIGTRAP of one of our traps (removed meanwhile) it is rewound onto the
 * trap's address first. A process with such threads
 * cannot be attached again until they are gone (EAGAIN).
 *
 * A whole process waits here too, without engines, when its let-go needs
 * every thread stopped first (uproc_let_go).
 */
#include "engine_int.h"

#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

static struct leaving *leaving_find(struct tracer *t, pid_t tid)
{
	for (size_t i = 0; i < t->nleaving; i++)
		if (t->leaving[i].tid == tid)
			return &t->leaving[i];
	return NULL;
}

static void leaving_remove(struct tracer *t, struct leaving *l)
{
	*l = t->leaving[--t->nleaving];
}

static struct leaving *leaving_new(struct tracer *t, const struct leaving *like)
{
	t->leaving = array_grow(t->leaving, t->nleaving, &t->leaving_cap, sizeof(*t->leaving));
	t->leaving[t->nleaving] = *like;
	return &t->leaving[t->nleaving++];
}

/* No allocation: the crash handler (crash.c) fills one on its stack too. */
void leaving_init(struct leaving *l, const struct uproc *p, pid_t tid)
{
	*l = (struct leaving){.pid = p->pid, .tid = tid, .dregs = p->dregs_used, .arch = p->arch};
	/* (past MORIBUND_MAX inserted ones, a hit on the others is not rewound) */
	for (struct swbp *bp = p->bps; bp && l->ntraps < MORIBUND_MAX; bp = bp->next)
		l->traps[l->ntraps++] = bp->addr;
	for (unsigned i = 0; i < MORIBUND_MAX; i++)
		if (p->moribund[i])
			l->traps[l->ntraps++] = p->moribund[i];
}

void leaving_add(struct uproc *p, pid_t tid)
{
	struct leaving l;

	leaving_init(&l, p, tid);
	leaving_new(p->t, &l);
}

bool leaving_pid(struct tracer *t, pid_t pid)
{
	for (size_t i = 0; i < t->nleaving; i++)
		if (t->leaving[i].pid == pid)
			return true;
	return false;
}

/*
 * A new thread or process made by a leaving thread is traced too
 * (PTRACE_O_TRACECLONE, ...): it goes the same way, at its first stop,
 * which may already be waiting among the early statuses.
 */
static void leaving_adopt(struct tracer *t, const struct leaving *parent, int event)
{
	struct leaving l;
	unsigned long msg;
	pid_t child;

	if (ptrace(PTRACE_GETEVENTMSG, parent->tid, 0L, &msg) < 0 || !msg)
		return;
	child = (pid_t)msg;
	l = *parent; /* (parent may move) */
	l.pid = event == PTRACE_EVENT_CLONE ? parent->pid : child;
	l.tid = child;
	leaving_new(t, &l);
	for (unsigned i = 0; i < t->nearly; i++) {
		if (t->early[i].pid != child)
			continue;
		leaving_status(t, child, t->early[i].status);
		t->early[i] = t->early[--t->nearly];
		break;
	}
}

/*
 * It hit one of our traps before it stopped (the byte is back now): it
 * goes on from the trap's address, not one byte past it. Only a trap's
 * SIGTRAP (SI_KERNEL): a single-step's lands on pc - 1 as easily.
 */
static void leaving_rewind(const struct leaving *l)
{
	struct arch_regs regs;
	siginfo_t si;
	uint64_t pc;

	if (!l->arch || ptrace(PTRACE_GETSIGINFO, l->tid, 0L, &si) < 0 ||
	    si.si_code != ARCH_TRAP_SI_CODE || regs_gp_get(l->arch, l->tid, &regs.gp) < 0)
		return;
	pc = arch_pc(l->arch, &regs) - ARCH_TRAP_PC_ADV;
	for (unsigned i = 0; i < l->ntraps; i++) {
		if (l->traps[i] != pc)
			continue;
		arch_set_pc(l->arch, &regs, pc);
		regs_gp_set(l->arch, l->tid, &regs.gp);
		return;
	}
}

void leaving_let_go(const struct leaving *l, int status)
{
	int event = (unsigned)status >> 16, sig = 0;

	/* a signal it was about to receive goes with it; our own traps do not */
	if (!event && WSTOPSIG(status) != SIGTRAP && WSTOPSIG(status) != (SIGTRAP | 0x80))
		sig = WSTOPSIG(status);
	if (!event && WSTOPSIG(status) == SIGTRAP)
		leaving_rewind(l);
	if (l->dregs)
		bp_dregs_clear(l->tid);
	ptrace(PTRACE_DETACH, l->tid, 0L, (long)sig);
}

/*
 * A trap is a signal (a single-step's: TRAP_TRACE; an int3's: SI_KERNEL),
 * which an interrupt's stop overtakes and leaves queued: detached then,
 * the thread would die of it.
 */
bool leaving_trap_queued(pid_t tid, int si_code)
{
	struct __ptrace_peeksiginfo_args a = {.off = 0, .flags = 0, .nr = 8};
	siginfo_t si[8];
	long n = ptrace(PTRACE_PEEKSIGINFO, tid, &a, si);

	for (long i = 0; i < n; i++)
		if (si[i].si_signo == SIGTRAP && si[i].si_code == si_code)
			return true;
	return false;
}

bool leaving_step_trap_queued(pid_t tid)
{
	return leaving_trap_queued(tid, TRAP_TRACE);
}

bool leaving_status(struct tracer *t, pid_t tid, int status)
{
	struct leaving *l = leaving_find(t, tid);
	int event = (unsigned)status >> 16;

	if (!l)
		return false;
	if (!WIFSTOPPED(status)) { /* exited */
		leaving_remove(t, l);
		return true;
	}
	/* its step's trap next (a stop of its own, not passed on), then it goes */
	if (event == PTRACE_EVENT_STOP && leaving_step_trap_queued(tid) &&
	    ptrace(PTRACE_CONT, tid, 0L, 0L) == 0)
		return true;
	if (event == PTRACE_EVENT_CLONE || event == PTRACE_EVENT_FORK ||
	    event == PTRACE_EVENT_VFORK)
		leaving_adopt(t, l, event);
	l = leaving_find(t, tid); /* the array may have moved */
	leaving_let_go(l, status);
	leaving_remove(t, l);
	return true;
}

/*
 * Before we exit: the kernel would detach the leaving threads itself, but
 * one stopped at a trap of ours would go on one byte past it. So wait for
 * their stops a while (nothing else is served any more).
 */
#define LEAVING_DRAIN_MS 1000

void leaving_drain(struct tracer *t)
{
	long long deadline = tracer_now_ms() + LEAVING_DRAIN_MS;

	while (t->nleaving && tracer_wait_until(t, deadline) == 0)
		;
}

/* A thread in a syscall we injected or on its way through a slot (xol.c). */
static bool xol_in_flight(struct uproc *p)
{
	for_each_thread(p, th)
		if (th->xol_inj || (th->xol_busy && !th->stopped))
			return true;
	return false;
}

/*
 * The rest of a let-go: every thread stopped, or the wait for them over.
 * False while the out-of-line pages' munmaps are on their way (xol.c): p
 * stays, frozen, and this comes again when its threads have stopped.
 */
static bool let_go_finish(struct uproc *p, bool sync)
{
	if (!p->exited && p->patch_pass)
		patch_pass(p); /* the jmps out, every thread out of the trampolines */
	if (!p->exited && xol_release(p, sync)) {
		p->let_go_by = tracer_detach_deadline(p->t); /* (or then, to look again) */
		return false;
	}
	if (!p->exited)
		uproc_detach_all(p);
	uproc_free(p);
	return true;
}

/*
 * The last engine is gone: the process runs on as it was found. The
 * stopped threads go now, the others at their next stop (leaving_add),
 * except in two cases that need every thread stopped first: threads in
 * the out-of-line machinery (an injected syscall's registers must be put
 * back, and a slot may end in a trap of ours) and patched breakpoints
 * (patch.c: the jmps go with every thread out of the trampolines). Then
 * the process stays here, frozen and without engines, until its threads
 * have stopped or a short while has passed (leaving_procs_advance, from
 * the loop): the daemon never waits for it. An attach meanwhile takes it
 * back as it is.
 */
void uproc_let_go(struct uproc *p)
{
	p->frozen = true;
	p->attaching = false;
	if (p->exited || !(xol_in_flight(p) || p->patch_pass) || uproc_interrupt_all(p)) {
		let_go_finish(p, false);
		return;
	}
	p->let_go_by = tracer_detach_deadline(p->t);
}

int leaving_procs_advance(struct tracer *t)
{
	long long now = tracer_now_ms(), next = LLONG_MAX;
	struct uproc *p, *after;

	for (p = t->procs; p; p = after) {
		after = p->next;
		if (!p->let_go_by)
			continue;
		if ((p->exited || now >= p->let_go_by || sched_all_stopped(p)) &&
		    let_go_finish(p, false))
			continue;
		if (p->let_go_by < next)
			next = p->let_go_by;
	}
	if (next == LLONG_MAX)
		return -1;
	return next - now > INT_MAX ? INT_MAX : (int)(next - now);
}

void leaving_proc_finish_sync(struct uproc *p)
{
	long long by = tracer_now_ms() + LEAVING_DRAIN_MS;

	uproc_stop_all_sync(p, p->let_go_by < by ? p->let_go_by : by);
	let_go_finish(p, true);
}

void leaving_free(struct tracer *t)
{
	free(t->leaving); /* the kernel detaches them when we exit */
	t->leaving = NULL;
	t->nleaving = t->leaving_cap = 0;
}
