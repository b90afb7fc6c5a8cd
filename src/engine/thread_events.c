/*
 * thread_events.c: threads coming and going, as engines hear of them.
 *
 * An engine that asked for thread events (gdb's QThreadEvents) is stopped
 * by a new thread (the thread's first stop, held until it is resumed) and
 * told of each thread that exits. One that asked for no-resumed (gdb's
 * "N" stop reply) is told when every thread it had let run is gone while
 * the process lives on: gdb waiting for a stop would otherwise wait for
 * ever (scheduler-locking on a thread that exits).
 *
 * The leader is the odd one: when it calls exit() alone (pthread_exit in
 * main) it stays a zombie that no wait reports until the whole group is
 * gone, and its /proc/PID/mem has no address space any more. gdbserver
 * polls for zombie leaders; we stop it at PTRACE_EVENT_EXIT instead, see
 * that the syscall is exit, not exit_group, let it go and forget it. Its
 * final status then ends the process.
 */
#include "engine_int.h"

#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

/* Is e waiting for threads it let run (not stopped, no report on its way)? */
static bool engine_running(const struct engine *e)
{
	if (e->observer || e->dead)
		return false;
	return e->nonstop || (!e->stopped && !e->has_report && !e->interrupt_req);
}

static bool thread_runs_for(const struct uthread *th, const struct engine *e)
{
	return engine_running(e) && !(th->hold_mask & ENGINE_BIT(e));
}

static bool any_runs_for(struct uproc *p, const struct engine *e)
{
	for_each_thread(p, th)
		if (thread_runs_for(th, e))
			return true;
	return false;
}

/*
 * A report about no live thread: queued (non-stop), the next stop
 * (all-stop), or kept until the engine runs again if it is busy.
 */
static void report_threadless(struct engine *e, const struct engine_stop *st)
{
	if (e->nonstop) {
		nonstop_queue(e, st);
		return;
	}
	if (e->stopped || e->has_report || e->interrupt_req) {
		e->later = array_grow(e->later, e->nlater, &e->later_cap, sizeof(*e->later));
		e->later[e->nlater++] = *st;
		return;
	}
	e->report = *st;
	e->has_report = true;
}

/* All-stop engines running again hear what was kept for them, oldest first. */
void thread_reports_next(struct uproc *p)
{
	for_each_engine(p, e) {
		if (!e->nlater || e->nonstop || e->dead || e->stopped || e->has_report ||
		    e->interrupt_req)
			continue;
		e->report = e->later[0];
		e->has_report = true;
		memmove(e->later, e->later + 1, --e->nlater * sizeof(e->later[0]));
	}
}

struct uthread *thread_born(struct uproc *p, pid_t tid)
{
	struct uthread *th = uthread_add(p, tid);

	/* (the leader's tid back: another thread exec'd after the leader left alone) */
	if (tid != p->pid)
		observe_thread_new(p, tid);
	for_each_engine(p, e) {
		if (e->observer || e->dead || !(e->events & ENGINE_EVENT_THREADS))
			continue;
		/* reported at its first stop; it waits for that engine until then */
		th->pending = (struct uevent){.kind = UEV_THREAD_NEW};
		th->has_pending = true;
		break;
	}
	return th;
}

/* th is gone: forget it, then tell the engines that want to know. */
/*
 * A stop of th not yet reported (an all-stop engine waits for the other
 * threads) that goes with it when it dies: a SIGKILL (exit_group, or an
 * exec in another thread) woke it from its stop. Reported, gdb would ask
 * for the registers of a thread that is no more.
 */
bool stop_dies_with_thread(enum engine_stop_kind kind)
{
	switch (kind) {
	case ENGINE_STOP_SIGNAL:
	case ENGINE_STOP_SWBREAK:
	case ENGINE_STOP_HWBREAK:
	case ENGINE_STOP_WATCH:
	case ENGINE_STOP_STEP:
	case ENGINE_STOP_SYSCALL_ENTRY:
	case ENGINE_STOP_SYSCALL_RETURN:
		return true;
	default:
		return false;
	}
}

static void thread_gone(struct uproc *p, struct uthread *th, int code)
{
	struct engine_stop st = {.pid = p->pid, .tid = th->tid, .status = code};
	uint64_t ran = 0;

	for_each_engine(p, e)
		if (thread_runs_for(th, e))
			ran |= ENGINE_BIT(e);
	for_each_engine(p, e)
		if (e->has_report && e->report.tid == th->tid &&
		    stop_dies_with_thread(e->report.kind))
			e->has_report = false;
	uthread_remove(th);
	for_each_engine(p, e) {
		/* decided before the w report, which makes e busy */
		bool none_left = (ran & ENGINE_BIT(e)) && p->threads && !p->group_exiting &&
				 !any_runs_for(p, e);

		if (e->observer || e->dead)
			continue;
		if (e->events & ENGINE_EVENT_THREADS) {
			st.kind = ENGINE_STOP_THREAD_EXITED;
			report_threadless(e, &st);
		}
		if ((e->events & ENGINE_EVENT_NO_RESUMED) && none_left) {
			struct engine_stop nr = {
				.kind = ENGINE_STOP_NO_RESUMED, .pid = p->pid, .tid = -1};

			report_threadless(e, &nr);
		}
	}
}

void thread_exited(struct uthread *th, int status)
{
	struct uproc *p = th->p;

	observe_exit(p, th->tid, status);
	uthread_ghost_keep(th, true);
	thread_gone(p, th, WIFEXITED(status) ? WEXITSTATUS(status) : 0);
}

/* Is th ending alone (exit), not with its whole process (exit_group, a fatal signal)? */
static bool exits_alone(struct uthread *th)
{
	struct uproc *p = th->p;

	if (regs_fetch(th, false) < 0)
		return false;
	return arch_syscall_is_thread_exit(p->arch, arch_syscall_nr(p->arch, &th->regs));
}

/*
 * A PTRACE_EVENT_EXIT stop: the thread is on its way out, and nobody may
 * hold it there (a SIGKILL would otherwise leave it stuck while a client
 * holds the process). A leader leaving alone is forgotten at once; any
 * other thread's end comes with its exit status. th may be freed.
 */
void thread_exit_stop(struct uthread *th)
{
	struct uproc *p = th->p;
	bool alone = exits_alone(th);

	observe_exiting(th); /* (strace ends its call in progress here: "= ?") */
	ptrace(PTRACE_CONT, th->tid, 0L, 0L);
	th->stopped = false;
	th->at_bp = false;
	if (!alone)
		p->group_exiting = true; /* no "no-resumed" while the rest die */
	if (!alone || th->tid != p->pid || (p->threads == th && !th->next))
		return;
	p->leader_gone = true;
	thread_gone(p, th, 0);
	uproc_open_mem(p); /* through a live thread: the leader has no address space left */
}

/*
 * Every stop of th: is it now in a group-stop (job control)? A seized
 * thread shows one as PTRACE_EVENT_STOP with the stop signal (an
 * interrupt's, or the one ending a PTRACE_LISTEN at SIGCONT, carries
 * SIGTRAP). Observers hear of each group-stop once, as strace prints
 * "--- stopped by SIGSTOP ---" once; our own interrupts of a thread that
 * stays stopped say nothing new.
 */
void thread_stop_seen(struct uthread *th, int status)
{
	int sig = WSTOPSIG(status);
	bool group = (unsigned)status >> 16 == PTRACE_EVENT_STOP &&
		     (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU);

	if (!group) {
		th->group_stop = 0;
		return;
	}
	if (th->group_stop)
		return;
	th->group_stop = sig;
	observe_group_stop(th, sig);
}
