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
 * (engine_detach) drops the holds with the engine.
 */
#include "engine_int.h"

#include <errno.h>

int engine_observe_hold(struct engine *e, pid_t tid)
{
	struct uthread *th;

	if (e->dead)
		return -ESRCH;
	if (!e->observer)
		return -EINVAL;
	th = uproc_thread(e->p, tid);
	if (!th || !th->stopped)
		return -ESRCH;
	th->hold_mask |= ENGINE_BIT(e);
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
