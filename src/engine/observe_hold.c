/*
 * observe_hold.c: back-pressure for observers.
 *
 * An observer is told of an event while the thread is stopped, and the
 * thread goes on when it returns: the traced thread never waits for the
 * client. A client that streams what it observes (utraced's trace
 * sessions, src/gdb/gdb_trace.c) must still neither drop events when its
 * reader falls behind nor block the daemon; so it may keep the event's
 * thread stopped, with an ordinary hold bit of its own (sched.c's rule 4),
 * and let go of all its holds once the reader has caught up.
 *
 * A held thread is stopped-by-us, so everything else works as with a
 * vCont hold: other engines stop, read and resume the process, a ^C is
 * reported, the thread's own step for another engine waits; and leaving
 * (engine_detach) drops the holds with the engine. An observer may also
 * give the stopped thread a signal for its resume (engine_observe_signal).
 */
#include "engine_int.h"

#include <errno.h>
#include <signal.h>

/* The thread an observer was told of, stopped at that event; NULL: *err. */
static struct uthread *observed_thread(struct engine *e, pid_t tid, int *err)
{
	struct uthread *th;

	*err = e->dead ? -ESRCH : !e->observer ? -EINVAL : 0;
	if (*err)
		return NULL;
	th = uproc_thread(e->p, tid);
	if (!th || !th->stopped) {
		*err = -ESRCH;
		return NULL;
	}
	return th;
}

int engine_observe_hold(struct engine *e, pid_t tid)
{
	int err;
	struct uthread *th = observed_thread(e, tid, &err);

	if (!th)
		return err;
	th->hold_mask |= ENGINE_BIT(e);
	return 0;
}

/*
 * An observer's signal for tid, stopped at a syscall stop it was told of:
 * given when the thread resumes, as a tracer's restart signal (the kernel
 * sends it with si_code SI_KERNEL). ustrace's -e inject=...:signal=.
 */
int engine_observe_signal(struct engine *e, pid_t tid, int sig)
{
	int err;
	struct uthread *th = observed_thread(e, tid, &err);

	if (!th)
		return err;
	if (sig <= 0 || sig >= NSIG)
		return -EINVAL;
	if (!th->sig_stop)
		return -ESRCH;
	th->deliver_sig = sig;
	return 0;
}

void engine_observe_release(struct engine *e)
{
	bool held = false;

	if (e->dead)
		return;
	for_each_thread(e->p, th) {
		if (!(th->hold_mask & ENGINE_BIT(e)))
			continue;
		th->hold_mask &= ~ENGINE_BIT(e);
		held = true;
	}
	if (held)
		sched_update(e->p);
}
