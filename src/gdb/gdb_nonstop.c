/*
 * gdb_nonstop.c: gdb's non-stop mode: QNonStop, %Stop notifications, vStopped.
 *
 * In non-stop every thread stops and runs on its own. A resume is
 * answered "OK" at once; each stop is queued, and gdb hears of the queue
 * through one "%Stop:" notification, then drains it with vStopped (each
 * reply is the next stop, "OK" when none is left). A stop that arrives
 * while gdb is draining is simply added to the queue. '?' reports one
 * stopped thread and lets the others run (question_one()). The queue is
 * this file's (s->nsq); gdb_resume.c only reads it (gdb_nonstop_pending).
 */
#include "gdb_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gdb_nsq {
	struct engine_stop *v;
	size_t n, cap;
};

/* Made at the first stop queued; growing it aborts when out of memory, as buf does. */
static void queue_push(struct gdb_session *s, const struct engine_stop *st)
{
	struct gdb_nsq *q = s->nsq;

	if (!q) {
		q = s->nsq = calloc(1, sizeof(*q));
		if (!q)
			abort();
	}
	q->v = array_grow(q->v, q->n, &q->cap, sizeof(*q->v));
	q->v[q->n++] = *st;
}

static size_t queue_len(const struct gdb_session *s)
{
	return s->nsq ? s->nsq->n : 0;
}

/* The first stop queued: only while queue_len() > 0. */
static const struct engine_stop *queue_head(const struct gdb_session *s)
{
	return &s->nsq->v[0];
}

/* Keep the first n stops (n <= queue_len()). */
static void queue_cut(struct gdb_session *s, size_t n)
{
	if (s->nsq)
		s->nsq->n = n;
}

static void queue_pop(struct gdb_session *s)
{
	struct gdb_nsq *q = s->nsq;

	if (q && q->n)
		memmove(q->v, q->v + 1, --q->n * sizeof(q->v[0]));
}

size_t gdb_nonstop_pending(const struct gdb_session *s, const struct engine_stop **stops)
{
	*stops = s->nsq ? s->nsq->v : NULL;
	return queue_len(s);
}

void gdb_nonstop_free(struct gdb_session *s)
{
	if (s->nsq)
		free(s->nsq->v);
	free(s->nsq);
	s->nsq = NULL;
}

/* A stop of one of our threads, in non-stop mode. */
void gdb_nonstop_on_stop(struct gdb_session *s, const struct engine_stop *st)
{
	struct buf b;

	if (st->kind != ENGINE_STOP_THREAD_EXITED && st->kind != ENGINE_STOP_NO_RESUMED) {
		s->last = *st;
		s->have_last = true;
	}
	queue_push(s, st);
	if (queue_len(s) != 1)
		return; /* gdb is draining the queue: it will get there */
	buf_init(&b);
	buf_puts(&b, "Stop:");
	gdb_stop_reply(s, st, &b);
	if (s->server && s->server->remote_debug)
		fprintf(stderr, "putpkt (\"%%%.*s\"); [notification]\n", (int)b.len, b.data);
	rsp_send_notify(&s->rsp, b.data, b.len);
	buf_free(&b);
}

int gdb_handle_qnonstop(struct gdb_session *s, const char *p, size_t len)
{
	bool on;
	int err = 0;

	if (len != strlen("QNonStop:1") || (p[9] != '0' && p[9] != '1'))
		return -EINVAL;
	on = p[9] == '1';
	for (size_t i = 0; i < s->nprocs && !err; i++)
		if (!engine_attaching(s->procs[i].e)) /* (else at its attach stop: gdb_attach.c) */
			err = engine_set_nonstop(s->procs[i].e, on);
	if (err)
		return err;
	s->nonstop = on;
	queue_cut(s, 0);
	buf_puts(&s->reply, "OK");
	return 0;
}

int gdb_handle_vstopped(struct gdb_session *s, const char *p, size_t len)
{
	(void)p;
	(void)len;
	queue_pop(s); /* the one gdb has just dealt with */
	if (!queue_len(s)) {
		s->attach_noregs = 0; /* an attach's stops all taken (gdb_attach.c) */
		buf_puts(&s->reply, "OK");
		return 0;
	}
	gdb_stop_reply(s, queue_head(s), &s->reply);
	return 0;
}

/*
 * gdb 13 cannot take more than one stop in answer to the '?' of its
 * connection: it asks for them all, then its remote target, not yet
 * asynchronous, trips over its own event marker at the second
 * ("remote.c:8351: internal-error: wait: Assertion ... failed"). So, as
 * gdbserver after an attach, the first stopped thread is reported and
 * the others, whose stops no one has heard of, run on: gdb sees them
 * running, and stops them (all-stop) or not (non-stop) as it likes.
 */
static void question_one(struct gdb_session *s)
{
	const struct engine_resume acts[2] = {
		{.tid = queue_head(s)->tid, .action = ENGINE_HOLD},
		{.tid = -1, .action = ENGINE_RUN},
	};
	const pid_t pids[2] = {queue_head(s)->pid, 0};

	if (gdb_procs_resume(s, acts, pids, 2) == 0)
		queue_cut(s, 1);
}

/* '?' in non-stop: the last event's thread, else the first stopped one. */
int gdb_nonstop_question(struct gdb_session *s)
{
	queue_cut(s, 0);
	if (!s->nprocs) {
		buf_puts(&s->reply, "OK"); /* no thread at all (extended-remote before run) */
		return 0;
	}
	if (s->have_last && gdb_proc_of(s, s->last.pid) &&
	    engine_thread_stopped(gdb_proc_of(s, s->last.pid)->e, s->last.tid))
		queue_push(s, &s->last);
	for (size_t i = 0; i < s->nprocs; i++) {
		struct engine *e = s->procs[i].e;
		size_t n = engine_threads(e, NULL, 0);
		pid_t *tids = malloc((n ? n : 1) * sizeof(*tids));

		if (!tids)
			return -ENOMEM;
		n = engine_threads(e, tids, n) < n ? engine_threads(e, tids, n) : n;
		for (size_t k = 0; k < n; k++) {
			struct engine_stop st = {
				.kind = ENGINE_STOP_STOPPED, .pid = engine_pid(e), .tid = tids[k]};

			if (!engine_thread_stopped(e, tids[k]) ||
			    (s->have_last && s->last.tid == tids[k]))
				continue;
			queue_push(s, &st);
		}
		free(tids);
	}
	if (!queue_len(s)) {
		buf_puts(&s->reply, "OK");
		return 0;
	}
	if (queue_len(s) > 1)
		question_one(s);
	gdb_stop_reply(s, queue_head(s), &s->reply);
	return 0;
}
