/*
 * gdb_procs.c: the processes one gdb session debugs, and its all-stop view.
 *
 * A session starts with one process. With fork-events a fork adds the
 * child, which gdb then detaches, follows, or keeps beside its parent
 * ("detach-on-fork off"). s->engine is the process gdb selected (Hg).
 *
 * gdb's all-stop spans every process: the first stop is reported and the
 * other processes are interrupted quietly (their INTERRUPT is dropped);
 * any other stop that arrives while gdb is not waiting is kept and is
 * the answer to its next resume, as gdbserver does with pending events.
 */
#include "gdb_int.h"

#include <errno.h>
#include <string.h>

struct gdb_proc *gdb_proc_of(struct gdb_session *s, pid_t pid)
{
	for (size_t i = 0; i < s->nprocs; i++)
		if (engine_pid(s->procs[i].e) == pid)
			return &s->procs[i];
	return NULL;
}

int gdb_proc_add(struct gdb_session *s, struct engine *e)
{
	if (s->nprocs == GDB_MAX_PROCS)
		return -ENOSPC;
	s->procs[s->nprocs++] = (struct gdb_proc){.e = e};
	engine_set_events(e, s->events);
	return 0;
}

/*
 * The last stop was a thread of a process gdb is done with (vKill of one
 * of several): '?' must not name it (a reconnecting gdb cannot find the
 * thread and stops with an internal error). It names another's stop.
 */
static void last_elsewhere(struct gdb_session *s, pid_t gone)
{
	struct engine_stop st;
	struct engine *e;
	pid_t tid;

	if (!s->have_last || s->last.pid != gone || !gdb_stop_has_thread(&s->last))
		return;
	if (!s->nprocs) {
		s->have_last = false;
		return;
	}
	/* a plain stop: its own last event (a fork, say) gdb has dealt with already */
	e = s->procs[0].e;
	tid = engine_stop_report(e, &st) && gdb_stop_has_thread(&st) ? st.tid : engine_pid(e);
	s->last =
		(struct engine_stop){.kind = ENGINE_STOP_STOPPED, .pid = engine_pid(e), .tid = tid};
}

/* Forget e (already detached or about to be); select another process. */
void gdb_proc_remove(struct gdb_session *s, struct engine *e)
{
	pid_t pid = engine_pid(e);

	for (size_t i = 0; i < s->nprocs; i++) {
		if (s->procs[i].e != e)
			continue;
		s->procs[i] = s->procs[--s->nprocs];
		break;
	}
	/* a stop of it gdb has not heard of is no one's now (gdbserver discards them too) */
	for (size_t i = 0; i < s->npend;) {
		if (s->pend[i].pid == pid)
			memmove(s->pend + i, s->pend + i + 1,
				(--s->npend - i) * sizeof(s->pend[0]));
		else
			i++;
	}
	if (s->engine == e) {
		s->engine = s->nprocs ? s->procs[0].e : NULL;
		s->g_tid = 0;
		s->c_tid = 0;
	}
	last_elsewhere(s, pid);
}

void gdb_proc_detach(struct gdb_session *s, struct engine *e)
{
	/* a signal gdb stopped for goes to the program only if gdb passes it */
	gdb_keep_program_signals(s, e);
	gdb_proc_remove(s, e);
	if (s->attaching == e) /* a joiner that leaves before its attach stop */
		s->attaching = NULL;
	engine_detach(e);
}

void gdb_session_leave(struct gdb_session *s, bool kill)
{
	gdb_attach_drop(s);
	while (s->nprocs) {
		struct engine *e = s->procs[0].e;

		if (kill)
			engine_kill(e);
		gdb_proc_detach(s, e);
	}
	s->engine = NULL;
	s->npend = 0;
	s->have_last = false; /* its stop is no one's now: '?' of the next client says so */
	gdb_trace_end(s);     /* a trace session's state, its engine gone with the others */
}

/*
 * A stop reply makes its thread gdb's general thread (gdb assumes so and
 * sends no Hg for it, as gdbserver switches to the event thread).
 */
void gdb_select_stopped(struct gdb_session *s, const struct engine_stop *st)
{
	struct gdb_proc *pr = gdb_proc_of(s, st->pid);

	if (!pr || !gdb_stop_has_thread(st))
		return;
	s->engine = pr->e;
	s->g_tid = st->tid;
}

/* The stop that answers the next resume, if one is waiting. */
bool gdb_procs_take_pending(struct gdb_session *s, struct engine_stop *st)
{
	if (!s->npend)
		return false;
	*st = s->pend[0];
	memmove(s->pend, s->pend + 1, --s->npend * sizeof(s->pend[0]));
	return true;
}

/* Is the death of pid kept for gdb's next resume? */
bool gdb_procs_death_pending(struct gdb_session *s, pid_t pid)
{
	for (size_t i = 0; i < s->npend; i++)
		if (s->pend[i].pid == pid && (s->pend[i].kind == ENGINE_STOP_EXITED ||
					      s->pend[i].kind == ENGINE_STOP_KILLED))
			return true;
	return false;
}

static void keep_pending(struct gdb_session *s, const struct engine_stop *st)
{
	if (s->npend < GDB_MAX_PROCS)
		s->pend[s->npend++] = *st;
}

/* gdb heard of a stop of from: stop the other processes for it, quietly. */
static void stop_others(struct gdb_session *s, struct gdb_proc *from)
{
	for (size_t i = 0; i < s->nprocs; i++) {
		struct gdb_proc *pr = &s->procs[i];

		if (pr == from || engine_stopped(pr->e) || !engine_alive(pr->e))
			continue;
		pr->quiet = true;
		pr->ndeferred = 0;
		engine_interrupt(pr->e);
	}
}

/*
 * Route a stop of one of the session's processes. Returns true when it
 * is to be reported to gdb now (s->waiting), false when it was kept or
 * dropped.
 */
bool gdb_procs_on_stop(struct gdb_session *s, const struct engine_stop *st)
{
	struct gdb_proc *pr = gdb_proc_of(s, st->pid);
	bool quiet = pr && pr->quiet;

	if (pr)
		pr->quiet = false;
	if (quiet && st->kind == ENGINE_STOP_INTERRUPT) {
		/* gdb resumed it meanwhile: let it go on as asked */
		if (pr->ndeferred && engine_resume(pr->e, pr->deferred, pr->ndeferred) == 0)
			pr->ndeferred = 0;
		return false;
	}
	if ((st->kind == ENGINE_STOP_FORK || st->kind == ENGINE_STOP_VFORK) && pr) {
		struct engine *child = engine_fork_child(pr->e, st->child);

		if (child && gdb_proc_add(s, child) < 0) {
			engine_detach(child);
		} else if (child) {
			/* a copy of the parent's memory: its symbols are where the parent's are */
			s->procs[s->nprocs - 1].tls = pr->tls;
			if (s->nonstop)
				engine_set_nonstop(child, true);
		}
	}
	if (st->kind == ENGINE_STOP_EXEC && pr)
		gdb_tls_forget(pr); /* gdb asks qSymbol again for the new program */
	if (s->nonstop)
		return false; /* gdb_nonstop_on_stop() queues it */
	if (!s->waiting) {
		keep_pending(s, st);
		return false;
	}
	stop_others(s, pr);
	return true;
}

static size_t actions_for(const struct engine_resume *acts, const pid_t *pids, size_t n, pid_t pid,
			  struct engine_resume *out, size_t max)
{
	size_t k = 0;

	for (size_t i = 0; i < n && k < max; i++)
		if (pids[i] <= 0 || pids[i] == pid)
			out[k++] = acts[i];
	return k;
}

/*
 * Resume the session's processes: each gets the actions that name it or
 * no process; one that no action names stays stopped. pids[i] is the
 * process of acts[i] (0 or -1: any).
 */
int gdb_procs_resume(struct gdb_session *s, const struct engine_resume *acts, const pid_t *pids,
		     size_t n)
{
	struct engine_resume mine[64];
	int resumed = 0, err = -ESRCH;

	for (size_t i = 0; i < s->nprocs; i++) {
		struct gdb_proc *pr = &s->procs[i];
		size_t k = actions_for(acts, pids, n, engine_pid(pr->e), mine, 64);

		if (!k)
			continue;
		if (pr->quiet && !engine_stopped(pr->e)) {
			/* its quiet interrupt is still on the way */
			pr->ndeferred = k < 8 ? k : 8;
			memcpy(pr->deferred, mine, pr->ndeferred * sizeof(mine[0]));
			resumed++;
			continue;
		}
		err = engine_resume(pr->e, mine, k);
		if (err == 0)
			resumed++;
	}
	return resumed ? 0 : err;
}
