/*
 * leaving.c: threads we let go of before they could stop.
 *
 * PTRACE_DETACH needs a stopped tracee, and some threads cannot stop for
 * a long time: a vfork parent waits for its child's exec or exit, a thread
 * in uninterruptible sleep (a hung NFS or FUSE request) waits for the
 * kernel. Waiting for them would hold the daemon's one event loop, so every
 * other client would wait too (and a user could hold it on purpose, with a
 * process of their own). So in the daemon an attach waits for a bounded
 * time (tracer_set_stop_timeout()), a detach for 100 ms at the most, and
 * they leave the threads still running here: each is detached at its next
 * stop, with the signal that stop was for. A process with such threads is
 * attached again only once they are gone (the attach waits for them).
 */
#include "engine_int.h"

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

void leaving_add(struct tracer *t, pid_t pid, pid_t tid, bool dregs)
{
	t->leaving = array_grow(t->leaving, t->nleaving, &t->leaving_cap, sizeof(*t->leaving));
	t->leaving[t->nleaving++] = (struct leaving){pid, tid, dregs};
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
	unsigned long msg;
	pid_t child;

	if (ptrace(PTRACE_GETEVENTMSG, parent->tid, 0L, &msg) < 0 || !msg)
		return;
	child = (pid_t)msg;
	leaving_add(t, event == PTRACE_EVENT_CLONE ? parent->pid : child, child, parent->dregs);
	for (unsigned i = 0; i < t->nearly; i++) {
		if (t->early[i].pid != child)
			continue;
		leaving_status(t, child, t->early[i].status);
		t->early[i] = t->early[--t->nearly];
		break;
	}
}

bool leaving_status(struct tracer *t, pid_t tid, int status)
{
	struct leaving *l = leaving_find(t, tid);
	int event = (unsigned)status >> 16, sig = 0;

	if (!l)
		return false;
	if (!WIFSTOPPED(status)) { /* exited */
		leaving_remove(t, l);
		return true;
	}
	if (event == PTRACE_EVENT_CLONE || event == PTRACE_EVENT_FORK ||
	    event == PTRACE_EVENT_VFORK)
		leaving_adopt(t, l, event);
	l = leaving_find(t, tid); /* the array may have moved */
	/* a signal it was about to receive goes with it; our own traps do not */
	if (!event && WSTOPSIG(status) != SIGTRAP && WSTOPSIG(status) != (SIGTRAP | 0x80))
		sig = WSTOPSIG(status);
	if (l->dregs)
		bp_dregs_clear(tid);
	ptrace(PTRACE_DETACH, tid, 0L, (long)sig);
	leaving_remove(t, l);
	return true;
}

void leaving_free(struct tracer *t)
{
	free(t->leaving); /* the kernel detaches them when we exit */
	t->leaving = NULL;
	t->nleaving = t->leaving_cap = 0;
}
