/*
 * gdb_nonstop.c: gdb's non-stop mode: QNonStop, %Stop notifications, vStopped.
 *
 * In non-stop every thread stops and runs on its own. A resume is
 * answered "OK" at once; each stop is queued, and gdb hears of the queue
 * through one "%Stop:" notification, then drains it with vStopped (each
 * reply is the next stop, "OK" when none is left). A stop that arrives
 * while gdb is draining is simply added to the queue. '?' reports one
 * stopped thread and lets the others run (question_one()).
 */
#include "gdb_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void queue_push(struct gdb_session *s, const struct engine_stop *st)
{
	if (s->nsq_len == s->nsq_cap) {
		size_t cap = s->nsq_cap ? s->nsq_cap * 2 : 16;
		struct engine_stop *q = realloc(s->nsq, cap * sizeof(*q));

		if (!q)
			return;
		s->nsq = q;
		s->nsq_cap = cap;
	}
	s->nsq[s->nsq_len++] = *st;
}

static void queue_pop(struct gdb_session *s)
{
	if (s->nsq_len)
		memmove(s->nsq, s->nsq + 1, --s->nsq_len * sizeof(s->nsq[0]));
}

void gdb_nonstop_free(struct gdb_session *s)
{
	free(s->nsq);
	s->nsq = NULL;
	s->nsq_len = s->nsq_cap = 0;
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
	if (s->nsq_len != 1)
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
		err = engine_set_nonstop(s->procs[i].e, on);
	if (err)
		return err;
	s->nonstop = on;
	s->nsq_len = 0;
	buf_puts(&s->reply, "OK");
	return 0;
}

int gdb_handle_vstopped(struct gdb_session *s, const char *p, size_t len)
{
	(void)p;
	(void)len;
	queue_pop(s); /* the one gdb has just dealt with */
	if (!s->nsq_len) {
		s->attach_noregs = 0; /* an attach's stops all taken (gdb_attach.c) */
		buf_puts(&s->reply, "OK");
		return 0;
	}
	gdb_stop_reply(s, &s->nsq[0], &s->reply);
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
		{.tid = s->nsq[0].tid, .action = ENGINE_HOLD},
		{.tid = -1, .action = ENGINE_RUN},
	};
	const pid_t pids[2] = {s->nsq[0].pid, 0};

	if (gdb_procs_resume(s, acts, pids, 2) == 0)
		s->nsq_len = 1;
}

/* '?' in non-stop: the last event's thread, else the first stopped one. */
int gdb_nonstop_question(struct gdb_session *s)
{
	s->nsq_len = 0;
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
	if (!s->nsq_len) {
		buf_puts(&s->reply, "OK");
		return 0;
	}
	if (s->nsq_len > 1)
		question_one(s);
	gdb_stop_reply(s, &s->nsq[0], &s->reply);
	return 0;
}
