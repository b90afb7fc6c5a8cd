/*
 * gdb_thread.c: thread ids and thread packets: H, T, qC, qfThreadInfo and
 * qsThreadInfo.
 */
#include "gdb_int.h"

#include <errno.h>
#include <stdlib.h>

static int parse_id(const char **pp, const char *end, pid_t *out)
{
	uint64_t v;

	if (*pp + 2 <= end && (*pp)[0] == '-' && (*pp)[1] == '1') {
		*pp += 2;
		*out = -1;
		return 0;
	}
	if (rsp_parse_hex(pp, end, &v) < 0 || v > 0x7fffffff)
		return -EINVAL;
	*out = (pid_t)v;
	return 0;
}

int gdb_parse_tid(const char **pp, const char *end, pid_t *pid, pid_t *tid)
{
	const char *p = *pp;

	*pid = 0;
	if (p < end && *p == 'p') {
		p++;
		if (parse_id(&p, end, pid) < 0)
			return -EINVAL;
		*tid = -1;
		if (p < end && *p == '.') {
			p++;
			if (parse_id(&p, end, tid) < 0)
				return -EINVAL;
		}
	} else if (parse_id(&p, end, tid) < 0) {
		return -EINVAL;
	}
	*pp = p;
	return 0;
}

void gdb_put_ptid(struct gdb_session *s, struct buf *b, pid_t pid, pid_t tid)
{
	if (s->multiprocess && pid > 0)
		buf_printf(b, "p%x.%x", (unsigned)pid, (unsigned)tid);
	else
		buf_printf(b, "%x", (unsigned)tid);
}

void gdb_put_tid(struct gdb_session *s, struct buf *b, pid_t tid)
{
	gdb_put_ptid(s, b, s->engine ? engine_pid(s->engine) : 0, tid);
}

pid_t gdb_current_tid(struct gdb_session *s)
{
	if (s->g_tid > 0)
		return s->g_tid; /* even if gone: its registers are unavailable, not another's */
	if (s->have_last && engine_thread_alive(s->engine, s->last.tid))
		return s->last.tid;
	return engine_pid(s->engine);
}

/* The session's process that has thread pid.tid (pid 0: any), or NULL. */
static struct engine *engine_of(struct gdb_session *s, pid_t pid, pid_t tid)
{
	struct gdb_proc *pr = pid > 0 ? gdb_proc_of(s, pid) : NULL;

	if (pr)
		return tid <= 0 || engine_thread_alive(pr->e, tid) ? pr->e : NULL;
	if (pid > 0)
		return NULL;
	if (s->engine && (tid <= 0 || engine_thread_alive(s->engine, tid)))
		return s->engine;
	for (size_t i = 0; tid > 0 && i < s->nprocs; i++)
		if (engine_thread_alive(s->procs[i].e, tid))
			return s->procs[i].e;
	return NULL;
}

/* Check a parsed thread id against our processes: -ESRCH for another one. */
static int check_tid(struct gdb_session *s, pid_t pid, pid_t tid)
{
	return engine_of(s, pid, tid) ? 0 : -ESRCH;
}

int gdb_handle_h(struct gdb_session *s, const char *p, size_t len)
{
	const char *end = p + len, *q = p + 2;
	pid_t pid, tid;
	int err;

	if (len < 3 || (p[1] != 'g' && p[1] != 'c'))
		return -EINVAL;
	if (gdb_parse_tid(&q, end, &pid, &tid) < 0 || q != end)
		return -EINVAL;
	err = check_tid(s, pid, tid);
	if (err && p[1] == 'g' && pid > 0 && tid > 0 && gdb_proc_of(s, pid)) {
		/*
		 * A thread of one of our processes that has just exited (gdb
		 * listed it): selected all the same, its registers read as
		 * unavailable, rather than an error that stops gdb's resume.
		 */
		s->engine = gdb_proc_of(s, pid)->e;
		s->g_tid = tid;
		buf_puts(&s->reply, "OK");
		return 0;
	}
	if (err)
		return err;
	if (p[1] == 'g' && engine_of(s, pid, tid) != s->engine) {
		s->engine = engine_of(s, pid, tid); /* gdb switched process */
		s->c_tid = 0;
	}
	if (p[1] == 'g')
		s->g_tid = tid;
	else
		s->c_tid = tid;
	buf_puts(&s->reply, "OK");
	return 0;
}

int gdb_handle_t(struct gdb_session *s, const char *p, size_t len)
{
	const char *end = p + len, *q = p + 1;
	pid_t pid, tid;
	int err;

	if (gdb_parse_tid(&q, end, &pid, &tid) < 0 || q != end || tid <= 0)
		return -EINVAL;
	err = check_tid(s, pid, tid);
	if (err)
		return err;
	buf_puts(&s->reply, "OK");
	return 0;
}

int gdb_handle_qc(struct gdb_session *s, const char *p, size_t len)
{
	(void)p;
	(void)len;
	buf_puts(&s->reply, "QC");
	gdb_put_tid(s, &s->reply, gdb_current_tid(s));
	return 0;
}

static size_t min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

/*
 * The threads gdb is shown for e's process, in a malloc'd array (*out,
 * NULL on failure). A process whose death gdb has not heard yet (one
 * stop per resume in all-stop) keeps its main thread in the list, as with
 * gdbserver: otherwise gdb forgets its threads and never resumes it to
 * hear the exit (gdb.multi/multi-kill.exp).
 */
size_t gdb_proc_threads(struct gdb_session *s, struct engine *e, pid_t **out)
{
	size_t n = engine_threads(e, NULL, 0);
	pid_t *tids = malloc((n ? n : 1) * sizeof(*tids));

	*out = tids;
	if (!tids)
		return 0;
	n = min_size(n, engine_threads(e, tids, n));
	if (!n && gdb_procs_death_pending(s, engine_pid(e))) {
		tids[0] = engine_pid(e);
		n = 1;
	}
	return n;
}

/* Every thread of every process of the session, as (pid, tid) pairs. */
static size_t all_threads(struct gdb_session *s, pid_t **out)
{
	size_t total = 0;
	pid_t *v = NULL;

	for (size_t i = 0; i < s->nprocs; i++) {
		struct engine *e = s->procs[i].e;
		pid_t *tids, *nv;
		size_t n = gdb_proc_threads(s, e, &tids);

		nv = realloc(v, (total + n) * 2 * sizeof(pid_t) + 1);
		if (!nv || !tids) {
			free(nv ? nv : v);
			free(tids);
			return 0;
		}
		v = nv;
		for (size_t k = 0; k < n; k++) {
			v[2 * (total + k)] = engine_pid(e);
			v[2 * (total + k) + 1] = tids[k];
		}
		total += n;
		free(tids);
	}
	*out = v;
	return total;
}

/* Emit threads from s->thread_iter on, as many as fit in one reply. */
static int thread_info_chunk(struct gdb_session *s)
{
	pid_t *v = NULL;
	size_t n = all_threads(s, &v), i;

	if (s->thread_iter >= n) {
		buf_puts(&s->reply, "l");
		free(v);
		return 0;
	}
	buf_putc(&s->reply, 'm');
	for (i = s->thread_iter; i < n && s->reply.len < RSP_MAX_PACKET / 2; i++) {
		if (i > s->thread_iter)
			buf_putc(&s->reply, ',');
		gdb_put_ptid(s, &s->reply, v[2 * i], v[2 * i + 1]);
	}
	s->thread_iter = i;
	free(v);
	return 0;
}

int gdb_handle_qfthreadinfo(struct gdb_session *s, const char *p, size_t len)
{
	(void)p;
	(void)len;
	s->thread_iter = 0;
	return thread_info_chunk(s);
}

int gdb_handle_qsthreadinfo(struct gdb_session *s, const char *p, size_t len)
{
	(void)p;
	(void)len;
	return thread_info_chunk(s);
}
