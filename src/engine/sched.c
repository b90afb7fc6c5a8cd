/*
 * sched.c: who runs. The arbitration between engines lives here.
 *
 * sched_update() is called after anything that may change who should run
 * (a stop arrived, an engine resumed, attached or left). In order, it:
 *  1. hands parked events to the engines that want them (event.c);
 *  2. if an engine waits for a stop report, a ^C, or a thread must step
 *     over a breakpoint, interrupts every running thread and waits until
 *     all are stopped, then delivers the reports (the process is now
 *     stopped for those engines, which hold every thread);
 *  3. sends threads that must go on past a breakpoint through their
 *     out-of-line slots (xol.c), or, for what cannot run elsewhere, steps
 *     one thread over it in place, the others held, so no thread can run
 *     through the momentarily removed trap and miss a hit;
 *  4. resumes every thread that no engine holds.
 */
#include "engine_int.h"

#include <errno.h>
#include <sys/ptrace.h>

/* Every thread of p is in a ptrace stop. */
bool sched_all_stopped(struct uproc *p)
{
	for_each_thread(p, th)
		if (!th->stopped)
			return false;
	return true;
}

static bool any_engine_stopped(struct uproc *p)
{
	for_each_engine(p, e)
		if (e->stopped)
			return true;
	return false;
}

static bool need_stop(struct uproc *p)
{
	for_each_engine(p, e)
		if (e->has_report || (e->interrupt_req && !e->stopped))
			return true;
	return false;
}

/*
 * The thread a ^C names: one that e let run, as gdbserver does. The
 * thread of an event since e resumed (it stopped anyway), else the main
 * thread: gdbserver's SIGINT to the process lands there unless it is
 * stopped. Naming the last thread that ever stopped made gdb step that
 * one over its next breakpoint, and then it always hit that breakpoint
 * first (gdb.threads/continue-pending-status). With scheduler-locking gdb
 * resumes one thread and goes on with the one the ^C names, so naming a
 * held one would lock the wrong thread in.
 */
static struct uthread *interrupted_thread(struct uproc *p, const struct engine *e)
{
	struct uthread *main = uproc_thread(p, p->pid);
	struct uthread *last = p->last_event ? p->last_event : p->threads;

	if (p->last_event && p->event_seq != e->resumed_seq &&
	    !(p->last_event->hold_mask & ENGINE_BIT(e)))
		return p->last_event;
	if (main && !(main->hold_mask & ENGINE_BIT(e)))
		return main;
	if (!last || !(last->hold_mask & ENGINE_BIT(e)))
		return last;
	for_each_thread(p, th)
		if (!(th->hold_mask & ENGINE_BIT(e)))
			return th;
	return last;
}

/*
 * The thread e's report is about was woken from its stop by a SIGKILL
 * (an exit_group or an exec in another thread), which ptrace sees before
 * its exit stop arrives: ptrace refuses a tracee with a fatal signal.
 */
static bool report_thread_dying(struct engine *e)
{
	struct uthread *th = uproc_thread(e->p, e->report.tid);
	unsigned long msg;

	return th && th->stopped && stop_dies_with_thread(e->report.kind) &&
	       ptrace(PTRACE_GETEVENTMSG, th->tid, 0L, &msg) < 0 && errno == ESRCH;
}

static void deliver_reports(struct uproc *p)
{
	for_each_engine(p, e) {
		if (!e->has_report && !(e->interrupt_req && !e->stopped))
			continue;
		if (e->has_report && report_thread_dying(e)) {
			e->has_report = false; /* its exit is on the way */
			continue;
		}
		if (!e->has_report) {
			struct uthread *th = interrupted_thread(p, e);

			e->report = (struct engine_stop){.kind = ENGINE_STOP_INTERRUPT,
							 .pid = p->pid,
							 .tid = th ? th->tid : p->pid,
							 .sig = SIGINT};
			e->interrupt_req = false;
		} else if (e->interrupt_req && e->report.kind == ENGINE_STOP_STEP) {
			/* ^C during a step: the step ends, as the interrupt */
			e->report.kind = ENGINE_STOP_INTERRUPT;
			e->report.sig = SIGINT;
			e->interrupt_req = false;
		}
		/* else a ^C that came with another stop makes the next one, as a queued SIGINT
		 * would */
		if (e->attaching) { /* its first stop: the attach's, or a signal met there */
			e->attaching = false;
			e->interrupt_req = false;
			if (e->report.kind == ENGINE_STOP_INTERRUPT)
				e->report.kind = ENGINE_STOP_ATTACHED;
		}
		e->has_report = false;
		e->stopped = true;
		for_each_thread(p, th) {
			th->hold_mask &= ~ENGINE_BIT(e);
			th->step_mask &= ~ENGINE_BIT(e);
		}
		engine_report(e, &e->report);
	}
}

static bool runnable(const struct uthread *th);

/*
 * A thread in a group-stop (job control) that is to run again. gdbserver,
 * whose PTRACE_ATTACH tracees show a group-stop as a SIGSTOP stop,
 * reports the stop signal at every resume (passed, it stops the program
 * again), so the program stays stopped until a SIGCONT: the same here,
 * the group-stop becomes a signal stop for the engines that stop for that
 * signal (a gdb's). When no engine does (observers: ustrace, as strace),
 * it stays stopped with PTRACE_LISTEN instead (resume_thread). Not while
 * an engine attaches: the group-stop is its attach stop, and an observer
 * (pass[] not yet set) would be asked about it as a signal.
 */
static void group_stop_report(struct uthread *th)
{
	struct uevent ev = {.kind = UEV_SIGNAL, .sig = th->group_stop};

	if (!th->group_stop || !runnable(th))
		return;
	for_each_engine(th->p, e)
		if (e->attaching)
			return;
	if (!event_wanted_by(th, &ev))
		return;
	th->group_stop = 0;
	th->pending = ev;
	th->has_pending = true;
	event_seen(th);
	event_dispatch(th);
}

static int resume_thread(struct uthread *th, bool step)
{
	int req = step ? PTRACE_SINGLESTEP : sys_resume_request(th);

	/* a step over a syscall another engine catches: see sys_step_needs_stops() */
	if (step && (th->step_sys || sys_step_needs_stops(th))) {
		req = PTRACE_SYSCALL;
		th->step_sys = true;
	} else if (!step) {
		th->step_sys = false; /* the step was given up */
	}
	if (th->group_stop && !th->deliver_sig)
		req = PTRACE_LISTEN; /* nobody stops for it (group_stop_report): stays stopped */

	regs_sync(th);
	if (th->dr_dirty)
		bp_dregs_apply(th);
	patch_resume(th);
	if (ptrace(req, th->tid, 0L, (long)uproc_resume_signal(th)) < 0)
		return -errno; /* ESRCH: it died; its exit status is on the way */
	th->stopped = false;
	th->stepping = step;
	th->deliver_sig = 0;
	th->sig_owners = 0;
	th->sig_suppressed = false;
	if (th->p->step_over != th)
		th->at_bp = false; /* a step over keeps it until the step is done */
	regs_invalidate(th);
	return 0;
}

static bool runnable(const struct uthread *th)
{
	return th->stopped && !th->has_pending && !th->hold_mask && !th->stop_req &&
	       !th->xol_wait && !th->fork_wait && !th->out_wait;
}

/* Are the threads about to run single-steppers only? */
static bool only_steps(struct uproc *p)
{
	for_each_thread(p, th)
		if (runnable(th) && !th->step_mask)
			return false;
	return true;
}

/*
 * A runnable thread sitting on an inserted trap it was stopped at, that
 * must step over it in place; those that can go out of line (xol.c) are
 * sent on their way here, without stopping anything.
 */
static struct uthread *find_step_over(struct uproc *p)
{
	for_each_thread(p, th) {
		struct swbp *bp;
		uint64_t pc;

		/* (a step in a patch's replaced bytes lifts its jmp too: patch_site.c) */
		if (!runnable(th) || !(th->at_bp || (th->step_mask && p->agent_at)))
			continue;
		if (regs_fetch(th, false) < 0)
			continue;
		pc = arch_pc(p->arch, &th->regs);
		if (!th->at_bp) {
			if (patch_covering(p, pc))
				return th;
			continue;
		}
		bp = bp_find(p, pc);
		if (!bp || !bp->inserted) {
			th->at_bp = false;
			continue;
		}
		/* a step asked for: one instruction, out of line too */
		switch (th->step_mask ? xol_start_step(th, pc) : xol_start(th, pc)) {
		case XOL_GO:
			resume_thread(th, th->step_mask != 0);
			CRASH_POINT("xol"); /* a thread on its way through a slot */
			break;
		case XOL_MAPPING:
			break;
		case XOL_NO:
			return th;
		}
	}
	return NULL;
}

static void start_step_over(struct uproc *p)
{
	struct uthread *th = p->step_over;
	uint64_t pc;
	struct swbp *bp;

	regs_fetch(th, false);
	pc = arch_pc(p->arch, &th->regs);
	bp = bp_find(p, pc);
	if (!bp && (bp = patch_covering(p, pc)))
		pc = bp->addr; /* between its replaced instructions: its jmp is lifted */
	p->step_over_addr = pc;
	if (bp && bp_trap_present(p, bp))
		bp_write_insn(p, bp, false);
	if (resume_thread(th, true) < 0)
		sched_step_over_done(p);
}

void sched_step_over_done(struct uproc *p)
{
	struct swbp *bp = bp_find(p, p->step_over_addr);
	struct uthread *th = p->step_over;

	if (bp && bp->inserted)
		bp_write_insn(p, bp, true);
	/* interrupted before it moved: the step over is still owed */
	if (th && th->stopped && regs_fetch(th, false) == 0)
		th->at_bp = arch_pc(p->arch, &th->regs) == p->step_over_addr;
	p->step_over = NULL;
}

/* e is running, waiting only for a step of one of its threads. */
static bool waits_for_step(struct uproc *p, const struct engine *e)
{
	if (e->stopped || e->has_report || e->interrupt_req)
		return false;
	for_each_thread(p, th)
		if (th->step_mask & ENGINE_BIT(e))
			return true;
	return false;
}

/*
 * Two engines that each step one thread with the others held (gdb's
 * step over a breakpoint) would wait for each other for ever: each holds
 * the thread the other steps. A hold by an engine that only waits for its
 * own step does not block another engine's step, but such steps go one at
 * a time with every other thread stopped, so each engine still sees its
 * thread move alone.
 */
static struct uthread *find_weak_step(struct uproc *p)
{
	if (!sched_all_stopped(p))
		return NULL;
	for_each_thread(p, th) {
		bool weak = th->step_mask && !th->has_pending;

		for_each_engine(p, e)
			if (weak && (th->hold_mask & ENGINE_BIT(e)) && !waits_for_step(p, e))
				weak = false;
		if (weak && th->hold_mask)
			return th;
	}
	return NULL;
}

static void sched_run(struct uproc *p)
{
	struct uthread *th;

	if (p->exited || (p->attaching && !attach_settle(p)) || p->frozen)
		return;
	thread_reports_next(p);
	for_each_thread(p, t) {
		group_stop_report(t);
		if (t->stopped && t->has_pending)
			event_dispatch(t);
		if (t->stopped && !t->has_pending && t->step_owed) {
			/* its syscall-step is done: reported after the syscall's own report */
			t->step_owed = false;
			t->pending = (struct uevent){.kind = UEV_STEP};
			t->has_pending = true;
			event_dispatch(t);
		}
	}
	nonstop_stop_requests(p);
	if (need_stop(p)) {
		if (!uproc_interrupt_all(p))
			return;
		deliver_reports(p);
	}
	if (any_engine_stopped(p))
		return;
	if (p->step_over)
		return;	     /* one instruction, then sched_step_over_done() */
	if (p->patch_pass) { /* jmps to write or undo (patch.c): with every thread stopped */
		if (!uproc_interrupt_all(p))
			return;
		patch_pass_resume(p, only_steps(p));
	}
	th = find_step_over(p);
	if (th) {
		if (uproc_interrupt_all(p)) {
			p->step_over = th;
			start_step_over(p);
		}
		return;
	}
	for_each_thread(p, t)
		if (runnable(t))
			resume_thread(t, t->step_mask != 0);
	th = find_weak_step(p);
	if (th)
		resume_thread(th, true);
}

void sched_update(struct uproc *p)
{
	sched_run(p);
	/* a hit's rewound pc that no out-of-line step stored (event.c) */
	for_each_thread(p, th)
		regs_sync(th);
}
