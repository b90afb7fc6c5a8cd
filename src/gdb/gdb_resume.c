/*
 * gdb_resume.c: execution packets: ?, c/C/s/S, vCont?, vCont, vCtrlC.
 *
 * A resume gets no reply now: the session owes a stop reply, which
 * session_on_stop() sends when the engine reports the next stop.
 *
 * The last all-stop resume is kept (s->resume, owned here), so that some
 * stops go on without gdb: a range step's steps while pc stays in its
 * range, and a breakpoint hit whose condition is false.
 */
#include "gdb_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define VCONT_MAX_ACTIONS 64
#define RESUME_KEPT	  16 /* actions of a resume kept to do it again */

/* One resume: its actions and the process each names (0: any). */
struct resume_acts {
	size_t n; /* 0: none, or too long to keep */
	struct engine_resume acts[RESUME_KEPT];
	pid_t pids[RESUME_KEPT];
};

struct gdb_resume {
	struct gdb_range { /* vCont;r: keep stepping tid while pc is in [start, end) */
		bool on;
		pid_t tid;
		uint64_t start, end;
	} range;
	struct resume_acts last; /* the last all-stop resume */
};

void gdb_resume_init(struct gdb_session *s)
{
	s->resume = calloc(1, sizeof(*s->resume));
	if (!s->resume)
		abort();
}

void gdb_resume_free(struct gdb_session *s)
{
	free(s->resume);
	s->resume = NULL;
}

static void keep_acts(struct resume_acts *k, const struct engine_resume *acts, const pid_t *pids,
		      size_t n)
{
	k->n = n <= RESUME_KEPT ? n : 0;
	memcpy(k->acts, acts, k->n * sizeof(acts[0]));
	memcpy(k->pids, pids, k->n * sizeof(pids[0]));
}

/* The stop ended the resume (it is reported): no range goes on. */
void gdb_resume_range_end(struct gdb_session *s)
{
	s->resume->range.on = false;
}

/* A step of a vCont;r range step that is still in its range goes on, unreported. */
bool gdb_resume_range_goes_on(struct gdb_session *s, const struct engine_stop *st)
{
	const struct gdb_range *r = &s->resume->range;
	const struct resume_acts *k = &s->resume->last;
	struct gdb_proc *pr = gdb_proc_of(s, st->pid);
	uint64_t pc;

	if (!r->on || !s->waiting || st->kind != ENGINE_STOP_STEP || !pr || st->tid != r->tid)
		return false;
	if (engine_pc(pr->e, st->tid, &pc) < 0 || pc < r->start || pc >= r->end)
		return false;
	return gdb_procs_resume(s, k->acts, k->pids, k->n) == 0;
}

/* The last all-stop resume again (after a false condition); false if there is none to redo. */
bool gdb_resume_again(struct gdb_session *s)
{
	const struct resume_acts *k = &s->resume->last;

	if (!s->waiting || !k->n)
		return false;
	return gdb_procs_resume(s, k->acts, k->pids, k->n) == 0;
}

int gdb_handle_question(struct gdb_session *s, const char *p, size_t len)
{
	(void)p;
	(void)len;
	if (s->nonstop)
		return gdb_nonstop_question(s);
	s->npend = 0; /* gdb learns the state from this reply */
	if (!s->have_last) {
		buf_puts(&s->reply, "W00");
		return 0;
	}
	gdb_select_stopped(s, &s->last);
	gdb_stop_reply(s, &s->last, &s->reply);
	return 0;
}

int gdb_handle_vcont_query(struct gdb_session *s, const char *p, size_t len)
{
	(void)p;
	(void)len;
	buf_puts(&s->reply, "vCont;c;C;s;S;t;r");
	return 0;
}

/*
 * A gdb signal number from the client, as a host signal to deliver. An
 * explicit C/S delivers it even if QProgramSignals leaves it out (gdb's
 * `signal SIGTRAP`): that list is about signals gdb does not name, as
 * at a detach (gdbserver reads it there only).
 */
static int host_signal(struct gdb_session *s, uint64_t gsig)
{
	int sig = gsig > 0xffff ? 0 : gdb_signal_to_host((int)gsig);

	(void)s;
	if (sig <= 0 || sig >= NSIG)
		return 0;
	return sig;
}

static bool named(const struct engine_resume *acts, size_t n, pid_t tid)
{
	for (size_t i = 0; i < n; i++)
		if (acts[i].tid == tid)
			return true;
	return false;
}

/*
 * Non-stop: "OK" at once; 't' actions stop their threads, the others
 * resume theirs. A thread whose stop gdb has not collected yet (still in
 * the vStopped queue) is left out of a wildcard action, as gdbserver
 * does: gdb has not seen it stop, so it cannot mean to resume it; so is
 * the child of a fork in that queue.
 */
static int resume_nonstop(struct gdb_session *s, const struct engine_resume *acts,
			  const pid_t *pids, size_t n)
{
	struct engine_resume all[VCONT_MAX_ACTIONS * 2];
	pid_t allpids[VCONT_MAX_ACTIONS * 2];
	const struct engine_stop *queued;
	size_t k = 0, nq = gdb_nonstop_pending(s, &queued);
	int err;

	for (size_t i = 0; i < nq && k < VCONT_MAX_ACTIONS; i++) {
		const struct engine_stop *st = &queued[i];

		if (st->kind == ENGINE_STOP_EXITED || st->kind == ENGINE_STOP_KILLED ||
		    named(acts, n, st->tid))
			continue;
		all[k] = (struct engine_resume){.tid = st->tid, .action = ENGINE_HOLD};
		allpids[k++] = st->pid;
		if ((st->kind != ENGINE_STOP_FORK && st->kind != ENGINE_STOP_VFORK) ||
		    k == VCONT_MAX_ACTIONS)
			continue;
		/* nor may it resume a fork child it has not heard of */
		all[k] = (struct engine_resume){.tid = st->child, .action = ENGINE_HOLD};
		allpids[k++] = st->child;
	}
	memcpy(all + k, acts, n * sizeof(acts[0]));
	memcpy(allpids + k, pids, n * sizeof(pids[0]));
	err = gdb_procs_resume(s, all, allpids, k + n);

	for (size_t i = 0; i < n; i++) {
		struct gdb_proc *pr = pids[i] > 0 ? gdb_proc_of(s, pids[i]) : NULL;

		if (acts[i].action != ENGINE_HOLD)
			continue; /* (only gdb's own 't' actions stop threads) */
		for (size_t k = 0; k < s->nprocs; k++)
			if (!pr || pr == &s->procs[k])
				engine_stop_thread(s->procs[k].e, acts[i].tid, false);
	}
	if (err && err != -ESRCH)
		return err;
	buf_puts(&s->reply, "OK");
	return 0;
}

/*
 * Resume; pids[i] is the process acts[i] names (0: any). A stop gdb has
 * not heard of yet answers at once instead, nothing resumed.
 */
static int start_resume(struct gdb_session *s, const struct engine_resume *acts, const pid_t *pids,
			size_t n, const struct gdb_range *range)
{
	struct engine_stop st;
	int err;

	s->resume->range.on = false;
	if (s->nonstop)
		return resume_nonstop(s, acts, pids, n);
	if (gdb_procs_take_pending(s, &st)) {
		struct gdb_proc *pr = gdb_proc_of(s, st.pid);

		s->last = st;
		s->have_last = true;
		gdb_select_stopped(s, &st);
		gdb_stop_reply(s, &st, &s->reply);
		/* a death kept for this answer: gdb is done with the process now */
		if (pr && (st.kind == ENGINE_STOP_EXITED || st.kind == ENGINE_STOP_KILLED))
			gdb_proc_detach(s, pr->e);
		return 0;
	}
	err = gdb_procs_resume(s, acts, pids, n);
	if (err)
		return err;
	keep_acts(&s->resume->last, acts, pids, n);
	s->resume->range = *range;
	/* a range step needs the whole resume to do it again: else plain steps */
	s->resume->range.on &= s->resume->last.n > 0;
	s->waiting = true;
	return GDB_NO_REPLY;
}

/* One vCont action "a[sig][:tid]" at *pp; an 'r' action's range into *range. */
static int parse_action(struct gdb_session *s, const char **pp, const char *end,
			struct engine_resume *a, pid_t *pid, struct gdb_range *range)
{
	const char *q = *pp;
	char kind = *q++;
	uint64_t sig = 0;

	switch (kind) {
	case 'C':
	case 'S':
		if (rsp_parse_hex(&q, end, &sig) < 0)
			return -EINVAL;
		/* fall through */
	case 'c':
	case 's':
		a->action = (kind == 's' || kind == 'S') ? ENGINE_STEP : ENGINE_RUN;
		break;
	case 't':
		a->action = ENGINE_HOLD;
		break;
	case 'r': /* range step: a step that goes on while pc stays in [start, end) */
		if (rsp_parse_hex(&q, end, &range->start) < 0 || q >= end || *q++ != ',' ||
		    rsp_parse_hex(&q, end, &range->end) < 0)
			return -EINVAL;
		a->action = ENGINE_STEP;
		range->on = true;
		break;
	default:
		return -EINVAL;
	}
	a->sig = host_signal(s, sig);
	a->tid = -1;
	*pid = 0;
	if (q < end && *q == ':') {
		q++;
		if (gdb_parse_tid(&q, end, pid, &a->tid) < 0)
			return -EINVAL;
		if (*pid > 0 && !gdb_proc_of(s, *pid) && kind != 't' && !s->nonstop)
			return -ESRCH;
	}
	if (kind == 'r')
		range->tid = a->tid;
	if (q < end && *q != ';')
		return -EINVAL;
	*pp = q;
	return 0;
}

/*
 * Are all the actions stops ('t') of processes that are gone? gdb (its
 * target non-stop mode) stops everything after the last exit, and stops
 * the threads of a process whose exit it has just heard.
 */
static bool only_stops_of_gone(struct gdb_session *s, const struct engine_resume *acts,
			       const pid_t *pids, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (acts[i].action != ENGINE_HOLD)
			return false;
		if (pids[i] > 0 ? gdb_proc_of(s, pids[i]) != NULL : s->nprocs > 0)
			return false;
	}
	return true;
}

/*
 * Non-stop: drop the actions of processes that are gone. gdb may resume a
 * process whose death notification it has received but not handled yet
 * (gdb.multi/multi-kill.exp: it steps a dead thread over a breakpoint);
 * gdbserver answers OK and gdb then handles the death. Returns the
 * actions left.
 */
static size_t drop_gone(struct gdb_session *s, struct engine_resume *acts, pid_t *pids, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (pids[i] > 0 && !gdb_proc_of(s, pids[i]))
			continue;
		acts[k] = acts[i];
		pids[k++] = pids[i];
	}
	return k;
}

/*
 * The whole packet is parsed before anything changes: a bad action
 * anywhere refuses it and leaves the session as it was.
 */
int gdb_handle_vcont(struct gdb_session *s, const char *p, size_t len)
{
	struct engine_resume acts[VCONT_MAX_ACTIONS];
	pid_t pids[VCONT_MAX_ACTIONS];
	struct gdb_range range = {.on = false};
	const char *q = p + strlen("vCont"), *end = p + len;
	size_t n = 0;
	int err;

	while (q < end) {
		if (*q++ != ';' || q >= end || n == VCONT_MAX_ACTIONS)
			return -EINVAL;
		err = parse_action(s, &q, end, &acts[n], &pids[n], &range);
		n++;
		if (err)
			return err;
	}
	if (!n)
		return -EINVAL;
	if (only_stops_of_gone(s, acts, pids, n)) {
		buf_puts(&s->reply, "OK"); /* as gdbserver: nothing left to stop */
		return 0;
	}
	if (s->nonstop)
		n = drop_gone(s, acts, pids, n);
	if (!n) {
		buf_puts(&s->reply, "OK"); /* nothing left to run */
		return 0;
	}
	if (!s->engine)
		return -ESRCH;
	if (range.tid <= 0)
		range.on = false; /* plain steps: gdb steps again itself */
	return start_resume(s, acts, pids, n, &range);
}

int gdb_handle_vctrlc(struct gdb_session *s, const char *p, size_t len)
{
	int err;

	(void)p;
	(void)len;
	err = engine_stop_thread(s->engine, engine_pid(s->engine), true);

	if (err)
		return err;
	buf_puts(&s->reply, "OK");
	return 0;
}

/* Legacy c/C/s/S [sig][;addr]: the Hc thread (or the current one) acts, others run. */
int gdb_handle_c(struct gdb_session *s, const char *p, size_t len)
{
	const char *q = p + 1, *end = p + len;
	bool step = p[0] == 's' || p[0] == 'S';
	struct engine_resume acts[2];
	uint64_t sig = 0, addr;
	pid_t tid = s->c_tid > 0 ? s->c_tid : gdb_current_tid(s);

	if ((p[0] == 'C' || p[0] == 'S') && rsp_parse_hex(&q, end, &sig) < 0)
		return -EINVAL;
	if (q < end && (p[0] == 'C' || p[0] == 'S') && *q++ != ';')
		return -EINVAL;
	if (q < end) {
		const struct arch_desc *d = engine_arch(s->engine);
		struct arch_regs *r;
		int err;

		if (rsp_parse_hex(&q, end, &addr) < 0 || q != end)
			return -EINVAL;
		err = engine_regs(s->engine, tid, &r);
		if (err)
			return err;
		arch_set_pc(d, r, addr);
		err = engine_regs_store(s->engine, tid, ARCH_RS_GP);
		if (err)
			return err;
	}
	acts[0] = (struct engine_resume){tid, step ? ENGINE_STEP : ENGINE_RUN, host_signal(s, sig)};
	acts[1] = (struct engine_resume){-1, ENGINE_RUN, 0};
	return start_resume(s, acts, (const pid_t[]){0, 0}, 2, &(struct gdb_range){.on = false});
}
