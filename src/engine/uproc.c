/*
 * uproc.c: a traced process and its threads, as ptrace sees them.
 *
 * Attaching seizes every thread (PTRACE_SEIZE, so no SIGSTOP is ever sent
 * to the program, and a group-stop shows as one: thread_stop_seen); clones
 * are followed with PTRACE_O_TRACECLONE. This file turns raw wait statuses
 * into thread state and hands real events to event.c; what then runs is
 * decided in sched.c. Because threads are stopped by PTRACE_INTERRUPT, not
 * by a signal, a signal to give at a resume may have to be queued with
 * tgkill instead (uproc_resume_signal).
 */
#include "engine_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * /proc/PID/mem is tied to the address space it was opened on: reopen it
 * after an exec, and through a live thread once the leader is a zombie.
 */
void uproc_open_mem(struct uproc *p)
{
	pid_t via = p->leader_gone && p->threads ? p->threads->tid : p->pid;
	char path[64];

	if (p->memfd >= 0)
		close(p->memfd);
	snprintf(path, sizeof(path), "/proc/%d/mem", via);
	p->memfd = open(path, O_RDWR | O_CLOEXEC);
}

struct uproc *uproc_new(struct tracer *t, pid_t pid, bool attached)
{
	struct uproc *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->t = t;
	p->pid = pid;
	p->attached = attached;
	p->arch = arch_native();
	p->memfd = -1;
	uproc_open_mem(p);
	p->next = t->procs;
	t->procs = p;
	return p;
}

void uproc_free(struct uproc *p)
{
	struct uproc **pp;

	for (pp = &p->t->procs; *pp; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	}
	fork_children_parent_gone(p);
	while (p->threads)
		uthread_remove(p->threads);
	while (p->ghosts) {
		struct uthread_ghost *g = p->ghosts;

		p->ghosts = g->next;
		free(g);
	}
	xol_free(p);
	while (p->bps) {
		struct swbp *bp = p->bps;

		p->bps = bp->next;
		patch_bp_free(p, bp);
		free(bp);
	}
	if (p->memfd >= 0)
		close(p->memfd);
	free(p);
}

struct uthread *uproc_thread(struct uproc *p, pid_t tid)
{
	for_each_thread(p, th)
		if (th->tid == tid)
			return th;
	return NULL;
}

struct uthread *uthread_add(struct uproc *p, pid_t tid)
{
	struct uthread *th = calloc(1, sizeof(*th)), **tail;

	if (!th)
		abort();
	th->p = p;
	th->tid = tid;
	th->dr_dirty = p->dregs_used;
	for (tail = &p->threads; *tail; tail = &(*tail)->next)
		;
	*tail = th;
	return th;
}

/*
 * th dies in a stop with its registers read: keep them (struct
 * uthread_ghost). Called at its exit event's stop (which replaces the stop
 * its registers were read at; the others are read there), or when its
 * death is seen.
 */
void uthread_ghost_keep(struct uthread *th, bool dead)
{
	struct uthread_ghost *g;

	if (!th->stopped || !th->regs_valid)
		return;
	if (!th->ext_valid && (dead || regs_fetch(th, true) < 0))
		return; /* (a client's g reads both) */
	g = malloc(sizeof(*g));
	if (!g)
		return; /* then unavailable, as any dead thread's */
	g->tid = th->tid;
	g->regs = th->regs;
	g->next = th->p->ghosts;
	th->p->ghosts = g;
}

/* The registers th had when it died, once its whole process is dead; NULL: none. */
struct arch_regs *uproc_ghost_regs(struct uproc *p, pid_t tid)
{
	if (!p->exited)
		return NULL;
	for (struct uthread_ghost *g = p->ghosts; g; g = g->next)
		if (g->tid == tid)
			return &g->regs;
	return NULL;
}

void uthread_remove(struct uthread *th)
{
	struct uproc *p = th->p;

	for (struct uthread **pp = &p->threads; *pp; pp = &(*pp)->next) {
		if (*pp == th) {
			*pp = th->next;
			break;
		}
	}
	if (p->last_event == th)
		p->last_event = NULL;
	if (p->step_over == th)
		sched_step_over_done(p);
	xol_thread_gone(th);
	free(th);
}

int uproc_seize(struct uproc *p, pid_t tid)
{
	struct uthread *th;

	if (ptrace(PTRACE_SEIZE, tid, 0L, (long)UPROC_SEIZE_OPTIONS) < 0)
		return -errno;
	th = uthread_add(p, tid);
	th->seizing = true;
	if (ptrace(PTRACE_INTERRUPT, tid, 0L, 0L) == 0)
		th->interrupting = true;
	return 0;
}

bool uproc_interrupt_all(struct uproc *p)
{
	bool all = true, fresh = true, sent = false;

	for_each_thread(p, th) {
		if (th->stopped)
			continue;
		all = false;
		fresh &= !th->interrupting;
		if (!th->interrupting && ptrace(PTRACE_INTERRUPT, th->tid, 0L, 0L) == 0)
			sent = th->interrupting = true;
	}
	p->xol_stats.stop_alls += fresh && sent; /* (a stop-all of its own, not one on its way) */
	return all;
}

/*
 * Interrupt every running thread and wait until all are stopped (or gone),
 * up to the deadline. Only where nothing else is served any more (the
 * daemon's exit): in the loop, wait for the stops as they come.
 */
int uproc_stop_all_sync(struct uproc *p, long long deadline)
{
	struct tracer *t = p->t;
	pid_t pid = p->pid;
	int err;

	uproc_interrupt_all(p);
	/* p may be freed by an exit handled in tracer_wait_one(): look it up each time */
	for (;;) {
		struct uproc *q;

		for (q = t->procs; q && q != p; q = q->next)
			;
		if (!q || q->pid != pid || q->exited || sched_all_stopped(q))
			return 0;
		err = tracer_wait_until(t, deadline);
		if (err == -ETIMEDOUT)
			return err;
		if (err < 0)
			return 0; /* nothing traced any more */
	}
}

/*
 * Let every thread go, each with the signal it was about to receive; one
 * that has not stopped (it cannot detach before) goes at its next stop.
 */
void uproc_detach_all(struct uproc *p)
{
	for_each_thread(p, th) {
		int sig = th->deliver_sig;

		if (!th->stopped) {
			if (!th->interrupting)
				ptrace(PTRACE_INTERRUPT, th->tid, 0L, 0L);
			leaving_add(p, th->tid);
			continue;
		}
		regs_sync(th); /* a hit's rewind onto its trap (event.c) */
		/* a step's trap an interrupt overtook: taken at its stop (leaving.c), not passed */
		if (!th->deliver_sig && !th->has_pending && leaving_step_trap_queued(th->tid) &&
		    ptrace(PTRACE_CONT, th->tid, 0L, 0L) == 0) {
			leaving_add(p, th->tid);
			continue;
		}
		if (th->has_pending && th->pending.kind == UEV_SIGNAL)
			sig = th->pending.sig;
		th->deliver_sig = sig;
		sig = uproc_resume_signal(th);
		if (p->dregs_used)
			bp_dregs_clear(th->tid);
		/*
		 * ESRCH: no longer in its stop, woken by a SIGKILL (a kill just
		 * sent). It will stop again at PTRACE_EVENT_EXIT: gone then.
		 */
		if (ptrace(PTRACE_DETACH, th->tid, 0L, (long)sig) < 0 && errno == ESRCH)
			leaving_add(p, th->tid);
	}
}

/*
 * Only a signal's stop and a syscall's stop pass on the signal given to
 * PTRACE_CONT and the like; at an interrupt's or an event's stop (clone,
 * fork, exec, seccomp) the kernel drops it. There it is queued to the
 * thread with tgkill, and its stop, which comes before the thread runs
 * on, is let through without a report (owed_sig).
 */
int uproc_resume_signal(struct uthread *th)
{
	int sig = th->deliver_sig;

	if (!sig || th->sig_stop)
		return sig;
	if (syscall(SYS_tgkill, th->p->pid, th->tid, sig) == 0)
		th->owed_sig = sig;
	return 0;
}

void uproc_exited(struct uproc *p, int status)
{
	struct engine_stop st = {.pid = p->pid, .tid = p->pid};

	p->exited = true;
	observe_exit(p, p->pid, status);
	if (WIFEXITED(status)) {
		st.kind = ENGINE_STOP_EXITED;
		st.status = WEXITSTATUS(status);
	} else {
		st.kind = ENGINE_STOP_KILLED;
		st.sig = WTERMSIG(status);
	}
	while (p->threads) {
		uthread_ghost_keep(p->threads, true);
		uthread_remove(p->threads);
	}
	for_each_engine(p, e) {
		e->dead = true;
		e->stopped = false;
		e->has_report = false;
		engine_report(e, &st);
	}
}

void event_seen(struct uthread *th)
{
	th->p->last_event = th;
	th->p->event_seq++;
}

/* Park a process event on th for the engines that asked for it. */
static void report_event(struct uthread *th, enum uevent_kind kind, unsigned need)
{
	for_each_engine(th->p, e) {
		if (e->observer || !(e->events & need))
			continue;
		th->pending = (struct uevent){.kind = kind};
		th->has_pending = true;
		event_seen(th);
		return;
	}
}

/*
 * A thread other than the leader exec'd: the kernel reports it under the
 * leader's tid, and the leader is gone. What the engines wished for the
 * execing thread (resumed, stepped, held) is now the leader's: gdb stepping
 * that thread with the leader held (scheduler-locking) waits for its exec.
 */
static void exec_takeover(struct uthread *th, struct uthread *from)
{
	if (!from || from == th)
		return;
	th->hold_mask = from->hold_mask;
	th->step_mask = from->step_mask;
	th->stop_req = from->stop_req;
	th->ctrlc_req = from->ctrlc_req;
	th->stepping = from->stepping;
}

/*
 * Does task tid still exist (alive or a zombie not yet reaped)? A new
 * thread's first stop can be reaped before its creator's clone event (the
 * kernel's wait hands out the newest tracee's statuses first); adopted
 * then, it may run, exit and be reaped before that event comes. /proc/TID
 * answers for any thread, listed under its process or not.
 */
static bool task_exists(pid_t tid)
{
	char path[32];

	snprintf(path, sizeof(path), "/proc/%d", tid);
	return access(path, F_OK) == 0 || errno != ENOENT;
}

static void handle_ptrace_event(struct uproc *p, struct uthread *th, int event)
{
	unsigned long msg = 0;

	ptrace(PTRACE_GETEVENTMSG, th->tid, 0L, &msg);
	switch (event) {
	case PTRACE_EVENT_CLONE:
		if (!uproc_thread(p, (pid_t)msg) && !task_exists((pid_t)msg))
			break; /* it was adopted early, ran and was reaped: not to be born again */
		if (!uproc_thread(p, (pid_t)msg) && !fork_is_thread(p, (pid_t)msg)) {
			fork_event(th, (pid_t)msg, false); /* a clone that makes a process */
			break;
		}
		if (!uproc_thread(p, (pid_t)msg)) {
			struct uthread *nt = thread_born(p, (pid_t)msg);
			int first;

			/* a clone of its own thread group stopped first: kept as "early" */
			if (tracer_take_early(p->t, nt->tid, &first) == 0)
				nt->stopped = true;
		}
		break;

	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
		fork_event(th, (pid_t)msg, event == PTRACE_EVENT_VFORK);
		break;
	case PTRACE_EVENT_VFORK_DONE:
		report_event(th, UEV_VFORK_DONE, ENGINE_EVENT_VFORK);
		break;
	case PTRACE_EVENT_EXEC:
		/*
		 * The old image is gone, and with it our trap bytes and every
		 * other thread (their deaths may or may not be reported; an
		 * unknown tid is ignored). The execing thread now has the
		 * leader's tid, which is the one this stop came with.
		 */
		patch_drain_exec(p); /* (first: the breakpoints say whose records they are) */
		exec_takeover(th, uproc_thread(p, (pid_t)msg));
		if ((pid_t)msg > 0 && (pid_t)msg != th->tid)
			observe_tid_changed(th, (pid_t)msg);
		for (struct uthread *o = p->threads, *n; o; o = n) {
			n = o->next;
			if (o != th)
				uthread_remove(o);
		}
		for (struct swbp *bp = p->bps; bp; bp = bp->next) {
			bp->inserted = false;
			patch_forget(p, bp); /* (went with the old address space) */
		}
		memset(p->moribund, 0, sizeof(p->moribund));
		xol_exec(p);
		p->leader_gone = false; /* the execing thread is the leader now */
		uproc_open_mem(p);
		th->in_syscall = false;
		detect_arch(p, th->tid); /* a 64-bit program may exec a 32-bit one */
		report_event(th, UEV_EXEC, ENGINE_EVENT_EXEC);
		break;
	default:
		break;
	}
}

/* The signals on th's own queue (not the process's), at most max: their count. */
static long own_queue(struct uthread *th, siginfo_t *si, unsigned max)
{
	struct __ptrace_peeksiginfo_args args = {.off = 0, .flags = 0, .nr = max};
	long n = ptrace(PTRACE_PEEKSIGINFO, th->tid, &args, si);

	return n < 0 ? 0 : n;
}

/*
 * A PTRACE_INTERRUPT can stop a thread between its int3 and the SIGTRAP's
 * delivery: the trap is pending, and pc is already past it. Reported as
 * it is, gdb would see a pc in the middle of an instruction (and put its
 * next breakpoint there). Is such a trap pending on th?
 */
static bool int3_pending(struct uthread *th)
{
	siginfo_t si[8];
	long n = own_queue(th, si, 8);

	for (long i = 0; i < n; i++)
		if (si[i].si_signo == SIGTRAP && si[i].si_code == ARCH_TRAP_SI_CODE)
			return true;
	return false;
}

/*
 * Would th, continued, stop at once for a signal on its own queue? Stop
 * signals do not count: a SIGCONT from outside may flush them meanwhile.
 */
static bool own_signal_queued(struct uthread *th)
{
	siginfo_t si[16];
	uint64_t blocked = ~0ULL;
	long n = own_queue(th, si, 16);

	if (n == 0 || ptrace(PTRACE_GETSIGMASK, th->tid, sizeof(blocked), &blocked) < 0)
		return false;
	for (long i = 0; i < n; i++) {
		int sig = si[i].si_signo;

		if (sig > 0 && sig <= 64 && sig != SIGSTOP && sig != SIGTSTP && sig != SIGTTIN &&
		    sig != SIGTTOU && !(blocked & (1ULL << (sig - 1))))
			return true;
	}
	return false;
}

/*
 * Once every thread of a process being attached is stopped: a
 * PTRACE_ATTACH's SIGSTOP would have queued behind a signal already
 * pending on a thread, and gdb reports that signal at the attach
 * (gdb.threads/attach-into-signal.exp); our PTRACE_INTERRUPT overtook it.
 * Such a thread is continued: it dequeues the signal and stops for it
 * before running an instruction. Only now, with no thread running that
 * could take a process-wide signal or flush the queue (sigaction), and
 * only the thread's own queue.
 */
void uproc_take_queued_signals(struct uproc *p)
{
	for_each_thread(p, th) {
		bool take = th->attach_stop && th->stopped && !th->has_pending;

		th->attach_stop = false;
		if (take && own_signal_queued(th) && ptrace(PTRACE_CONT, th->tid, 0L, 0L) == 0) {
			th->stopped = false;
			th->interrupting = true; /* its stop is on its way: nothing to send */
		}
	}
}

void uproc_handle_status(struct uproc *p, struct uthread *th, int status)
{
	int sig = WSTOPSIG(status);
	int event = (unsigned)status >> 16;

	CRASH_POINT("stop");
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		/* the leader's death is reported after every other thread's */
		if (th->tid == p->pid) {
			uproc_exited(p, status);
			return;
		}
		thread_exited(th, status);
		sched_update(p);
		return;
	}
	if (!WIFSTOPPED(status))
		return;
	/* seized inside a vfork: its end is the stop asked for (any stop ends an interrupt) */
	if (th->seizing && event == PTRACE_EVENT_VFORK_DONE)
		event = PTRACE_EVENT_STOP;
	/* (only a stop we asked for can overtake a trap: a new thread's first stop cannot) */
	if (event == PTRACE_EVENT_STOP && sig == SIGTRAP && th->interrupting && int3_pending(th) &&
	    ptrace(PTRACE_CONT, th->tid, 0L, 0L) == 0) {
		/* the SIGTRAP is delivered before it runs again: that is the stop */
		th->interrupting = true;
		return;
	}
	/*
	 * A signal's or an interrupt's stop is on the way back to user mode;
	 * an event's (clone, exec, exit...) and a syscall stop are inside a
	 * syscall, where a syscall cannot be injected (xol.c): resumed, the
	 * thread would first finish, or start, that one.
	 */
	th->user_stop = (unsigned)status >> 16 == PTRACE_EVENT_STOP ||
			(!((unsigned)status >> 16) && sig != (SIGTRAP | 0x80));
	th->sig_stop = !((unsigned)status >> 16);
	th->attach_stop = th->seizing && event == PTRACE_EVENT_STOP && sig == SIGTRAP;
	th->seizing = false;
	if (event == PTRACE_EVENT_EXIT)
		uthread_ghost_keep(th, false);
	th->stopped = true;
	th->interrupting = false;
	regs_invalidate(th);
	thread_stop_seen(th, status);
	if (th->xol_inj && xol_inject_stop(th, status)) {
		sched_update(p);
		return;
	}
	if (xol_stopped(th, status))
		return; /* a step through its slot, one more instruction of it */
	patch_stopped(th);
	if (event == PTRACE_EVENT_EXIT) {
		if (p->step_over == th)
			sched_step_over_done(p);
		thread_exit_stop(th); /* th may be gone */
		sched_update(p);
		return;
	}
	if (event == PTRACE_EVENT_STOP) {
		/* an interrupt, a group-stop (observers heard it) or a new thread's first stop */
	} else if (event && event != PTRACE_EVENT_SECCOMP) {
		handle_ptrace_event(p, th, event);
	} else if (event || sig == (SIGTRAP | 0x80)) { /* a seccomp stop is a syscall entry */
		sys_handle_stop(th);
		if (th->has_pending)
			event_seen(th);
	} else if (sig == th->owed_sig) {
		/* the signal we queued: given now, as it was meant to be */
		th->owed_sig = 0;
		th->deliver_sig = sig;
		sched_update(p);
		return;
	} else {
		event_seen(th);
		if (!patch_classify(th, sig))
			event_classify(th, sig);
	}
	if (p->step_over == th)
		sched_step_over_done(p);
	if (th->stepping && !th->step_sys &&
	    !(th->has_pending && (th->pending.kind == UEV_STEP || th->pending.also_step)))
		th->step_stale = true;
	th->stepping = false;
	sched_update(p);
}
