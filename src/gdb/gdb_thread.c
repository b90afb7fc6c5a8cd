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

void gdb_put_tid(struct gdb_session *s, struct buf *b, pid_t tid)
{
	if (s->multiprocess && s->engine)
		buf_printf(b, "p%x.%x", (unsigned)engine_pid(s->engine), (unsigned)tid);
	else
		buf_printf(b, "%x", (unsigned)tid);
}

pid_t gdb_current_tid(struct gdb_session *s)
{
	if (s->g_tid > 0 && engine_thread_alive(s->engine, s->g_tid))
		return s->g_tid;
	if (s->have_last && engine_thread_alive(s->engine, s->last.tid))
		return s->last.tid;
	return engine_pid(s->engine);
}

/* Check a parsed thread id against our process: -ESRCH for another one. */
static int check_tid(struct gdb_session *s, pid_t pid, pid_t tid)
{
	if (!s->engine)
		return -ESRCH;
	if (pid > 0 && pid != engine_pid(s->engine))
		return -ESRCH;
	if (tid > 0 && !engine_thread_alive(s->engine, tid))
		return -ESRCH;
	return 0;
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
	if (err)
		return err;
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

/* Emit threads from s->thread_iter on, as many as fit in one reply. */
static int thread_info_chunk(struct gdb_session *s)
{
	size_t n, i, cap = 64;
	pid_t *tids = NULL;

	if (!s->engine) {
		buf_puts(&s->reply, "l");
		return 0;
	}
	do {
		free(tids);
		cap *= 4;
		tids = malloc(cap * sizeof(*tids));
		if (!tids)
			return -ENOMEM;
		n = engine_threads(s->engine, tids, cap);
	} while (n > cap);
	if (s->thread_iter >= n) {
		buf_puts(&s->reply, "l");
		free(tids);
		return 0;
	}
	buf_putc(&s->reply, 'm');
	for (i = s->thread_iter; i < n && s->reply.len < RSP_MAX_PACKET / 2; i++) {
		if (i > s->thread_iter)
			buf_putc(&s->reply, ',');
		gdb_put_tid(s, &s->reply, tids[i]);
	}
	s->thread_iter = i;
	free(tids);
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
