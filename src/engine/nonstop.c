/*
 * nonstop.c: engines whose threads stop and run one by one (gdb's non-stop).
 *
 * An all-stop engine that hears of an event holds every thread until it
 * resumes. A non-stop engine holds only the thread the event happened
 * in: the report is queued for it at once, the other threads go on, and
 * a resume names the threads it lets go. Its stops are per thread, so it
 * may have several reports waiting: they are queued (e->nsq, report.c)
 * and handed to on_stop() one by one.
 *
 * Stopping a thread on request (vCont;t, vCtrlC) is a per-thread wish
 * too (th->stop_req): the thread is interrupted, and once stopped with
 * nothing else to say it is reported as stopped (or as SIGINT for ^C).
 */
#include "engine_int.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>

/* An event of th for non-stop engine e: th alone stops for it. */
void nonstop_report(struct engine *e, struct uthread *th, const struct engine_stop *st)
{
	th->hold_mask |= ENGINE_BIT(e);
	th->step_mask &= ~ENGINE_BIT(e);
	th->stop_req &= ~ENGINE_BIT(e);
	nonstop_queue(e, st);
}

/* Threads asked to stop: interrupt them, and report those stopped with nothing else to say. */
void nonstop_stop_requests(struct uproc *p)
{
	for_each_thread(p, th) {
		if (!th->stop_req)
			continue;
		if (!th->stopped) {
			if (!th->interrupting && ptrace(PTRACE_INTERRUPT, th->tid, 0L, 0L) == 0)
				th->interrupting = true;
			continue;
		}
		if (th->has_pending || th->fork_wait)
			continue; /* its event is the report (a fork: once its child is settled) */
		for_each_engine(p, e) {
			struct engine_stop st = {
				.kind = ENGINE_STOP_STOPPED, .pid = p->pid, .tid = th->tid};

			if (!(th->stop_req & ENGINE_BIT(e)))
				continue;
			if (th->ctrlc_req & ENGINE_BIT(e)) {
				st.kind = ENGINE_STOP_INTERRUPT;
				st.sig = SIGINT;
			}
			nonstop_report(e, th, &st);
		}
		th->stop_req = 0;
		th->ctrlc_req = 0;
	}
}

int engine_set_nonstop(struct engine *e, bool on)
{
	struct uproc *p = e->p;

	if (e->dead)
		return -ESRCH;
	if (on == e->nonstop)
		return 0;
	if (on) {
		/* every thread stopped for it stays so, each on its own */
		if (!e->stopped)
			return -EBUSY;
		for_each_thread(p, th)
			th->hold_mask |= ENGINE_BIT(e);
		e->stopped = false;
		e->nonstop = true;
		return 0;
	}
	/* back to all-stop: every thread must be stopped for it */
	for_each_thread(p, th)
		if (!(th->hold_mask & ENGINE_BIT(e)))
			return -EBUSY;
	for_each_thread(p, th)
		th->hold_mask &= ~ENGINE_BIT(e);
	e->nonstop = false;
	e->stopped = true;
	e->nsq_len = 0;
	return 0;
}

/* The first stopped thread of an attach under way; NULL: none yet. */
static struct uthread *attach_stopped(struct uproc *p)
{
	for_each_thread(p, th)
		if (th->stopped)
			return th;
	return NULL;
}

/*
 * The threads that could not stop (a vfork parent, a thread in
 * uninterruptible sleep) run on: their interrupt's stop, when it comes,
 * holds nobody and they go on. The process's own attach ends here too
 * when e is the engine that attached it (alone: a joint attach of a new
 * process is all-stop's business); an engine that joins a process
 * others hold only stops waiting for the threads that have not stopped.
 */
int engine_attach_partial(struct engine *e, int after_ms)
{
	struct uproc *p = e->p;
	long long left = e->attach_started + after_ms - tracer_now_ms();
	struct uthread *first;

	if (!engine_attaching(e) || (p->attaching && (p->engines != e || e->next)))
		return -1;
	if (left > 0)
		return left > INT_MAX ? INT_MAX : (int)left;
	first = attach_stopped(p);
	if (!first)
		return 50; /* nothing to report yet */
	if (p->attaching) {
		attach_seize_new(p); /* (threads made meanwhile: ours too, running) */
		p->attaching = false;
		p->frozen = false;
		detect_arch(p, first->tid);
		for_each_thread(p, th)
			th->attach_stop = false;
	}
	for_each_thread(p, th)
		if (th->stopped)
			th->hold_mask |= ENGINE_BIT(e);
	e->attaching = false;
	e->interrupt_req = false;
	e->has_report = false;
	e->stopped = false;
	e->nonstop = true;
	sched_update(p);
	return 0;
}

bool engine_attach_arch_known(struct engine *e)
{
	struct uthread *th = engine_attaching(e) ? attach_stopped(e->p) : NULL;

	if (!th)
		return false;
	detect_arch(e->p, th->tid);
	return true;
}

bool engine_nonstop(const struct engine *e)
{
	return e->nonstop;
}

int engine_stop_thread(struct engine *e, pid_t tid, bool ctrlc)
{
	struct uproc *p = e->p;
	bool any = false;

	if (e->dead)
		return -ESRCH;
	if (!e->nonstop)
		return engine_interrupt(e);
	for_each_thread(p, th) {
		if (tid != -1 && th->tid != tid)
			continue;
		any = true;
		if (th->hold_mask & ENGINE_BIT(e))
			continue; /* already stopped for it */
		th->stop_req |= ENGINE_BIT(e);
		if (ctrlc)
			th->ctrlc_req |= ENGINE_BIT(e);
	}
	if (!any)
		return -ESRCH;
	sched_update(p);
	return 0;
}

bool engine_thread_stopped(struct engine *e, pid_t tid)
{
	struct uthread *th = uproc_thread(e->p, tid);

	if (!th)
		return false;
	if (!e->nonstop)
		return e->stopped;
	return th->hold_mask & ENGINE_BIT(e);
}
