/*
 * gdb_attach.c: a client's attach, answered when the process has stopped.
 *
 * An attach never holds the daemon: the engine seizes the threads and
 * asks them to stop, and the stop comes later through on_stop(), like the
 * answer to a resume (a vfork parent or a thread in uninterruptible sleep
 * may take long). Two kinds of client wait for it here: a vAttach, whose
 * reply is that stop, and a client that joined a process through the
 * daemon (DIR/<pid>/gdb, a rendezvous socket), whose '?' is answered by it.
 * An attach that does not complete in the tracer's stop timeout gives up,
 * well before gdb's own timeout for the reply would leave the two sides
 * out of step. (A ustrace's join, Qutraced.trace, waits for its observer's
 * attach the same way: gdb_trace.c.)
 */
#include "gdb_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * In non-stop an attach is answered "OK", and every thread's stop comes as
 * a notification (gdb prints "Thread N stopped." for each), as gdbserver.
 * The OK goes first: gdb learns the process from it, and a stop heard
 * before (without multiprocess, a bare tid) would make it a new inferior
 * (gdb.multi/attach-no-multi-process.exp). And these stops go without
 * registers until gdb has taken them all: gdb reads them in the sizes of
 * the inferior's architecture, which it knows only once it has read the
 * target's description (gdbserver's come later, by chance of timing).
 */
static void attach_nonstop(struct gdb_session *s, struct engine *e)
{
	pid_t *tids;
	size_t n = gdb_proc_threads(s, e, &tids);
	struct engine_stop first;

	buf_reset(&s->reply);
	buf_puts(&s->reply, "OK");
	gdb_send_late_reply(s, "attach");
	s->attach_noregs = engine_pid(e);
	if (!tids)
		return;
	/* a signal met at the attach is that thread's stop (gdb_session_set_engine kept it) */
	first = s->last;
	if (first.kind != ENGINE_STOP_SIGNAL || first.pid != engine_pid(e))
		first.tid = 0;
	for (size_t i = 0; i < n; i++) {
		struct engine_stop st = {
			.kind = ENGINE_STOP_STOPPED, .pid = engine_pid(e), .tid = tids[i]};

		if (!engine_thread_stopped(e, tids[i]))
			continue; /* (a partial attach: it runs, gdb shows it running) */

		gdb_nonstop_on_stop(s, tids[i] == first.tid ? &first : &st);
	}
	free(tids);
}

/*
 * The process is stopped for a vAttach's engine: its reply, in s->reply;
 * true if it was sent already (non-stop).
 */
static bool attach_done(struct gdb_session *s, struct engine *e)
{
	fprintf(stderr, "Attached; pid = %d\n", engine_pid(e));
	gdb_adopt(s, e);
	if (!s->nonstop)
		return false;
	attach_nonstop(s, e);
	return true;
}

/* A vAttach's stop came: the reply it owes. */
static void vattach_done(struct gdb_session *s, struct engine *e, const struct engine_stop *st)
{
	buf_reset(&s->reply);
	if (st->kind == ENGINE_STOP_EXITED || st->kind == ENGINE_STOP_KILLED) {
		engine_detach(e); /* it died before it stopped */
		buf_printf(&s->reply, "E%02x", ESRCH);
	} else if (attach_done(s, e)) {
		return;
	}
	gdb_send_late_reply(s, "attach");
}

int gdb_handle_vattach(struct gdb_session *s, const char *p, size_t len)
{
	const char *q = p + strlen("vAttach;"), *end = p + len;
	struct engine *e;
	uint64_t pid;
	int err;

	if (len < strlen("vAttach;") || rsp_parse_hex(&q, end, &pid) < 0 || q != end || pid == 0 ||
	    pid > 0x7fffffff)
		return -EINVAL;
	/* another process beside those it has: only with multiprocess, as gdbserver */
	if ((s->engine && !s->multiprocess) || gdb_proc_of(s, (pid_t)pid) || s->attaching)
		return -EBUSY;
	/* a client of another user: only what it could ptrace itself, as the FUSE tree */
	if (gdb_session_foreign(s) && proc_may_debug(&s->peer, (pid_t)pid) < 0)
		return -EPERM;
	e = engine_attach_start(s->tracer, (pid_t)pid, &s->client, &err);
	if (!e)
		return err;
	if (!engine_alive(e)) {
		engine_detach(e);
		return -ESRCH;
	}
	if (!engine_attaching(e)) /* held stopped by another engine: stopped at once */
		return attach_done(s, e) ? GDB_NO_REPLY : 0;
	s->attaching = e;
	s->attach_replies = true;
	return GDB_NO_REPLY;
}

void gdb_session_join(struct gdb_session *s, struct engine *e)
{
	gdb_session_set_engine(s, e);
	if (s->engine == e && engine_attaching(e))
		s->attaching = e;
}

bool gdb_attach_stop(struct gdb_session *s, const struct engine_stop *st)
{
	struct engine *e = s->attaching;

	if (!e || st->pid != engine_pid(e))
		return false;
	s->attaching = NULL;
	if (s->attach_replies) {
		s->attach_replies = false;
		vattach_done(s, e, st);
		return true;
	}
	if (st->kind == ENGINE_STOP_EXITED || st->kind == ENGINE_STOP_KILLED)
		return false; /* a joiner hears of the end as of any */
	/* the stop a joiner's '?' names (held till now): as if the attach had been there at the
	 * join */
	gdb_session_set_engine(s, e);
	return true;
}

/*
 * A non-stop vAttach whose threads have not all stopped after this long
 * is answered with those that have; the others are running (gdb shows
 * them so), rather than failing at the stop timeout.
 */
#define ATTACH_PARTIAL_MS 500

int gdb_attach_expire(struct gdb_session *s)
{
	struct engine *e = s->attaching;
	int left = e ? engine_attach_time_left(e) : -1;
	int partial = e && s->nonstop && s->attach_replies
			      ? engine_attach_partial(e, ATTACH_PARTIAL_MS)
			      : -1;

	if (partial == 0) {
		s->attaching = NULL;
		s->attach_replies = false;
		attach_done(s, e); /* (non-stop: its OK and stops sent) */
		return -1;
	}
	if (partial > 0 && (left < 0 || partial < left))
		left = partial;
	if (left != 0)
		return left;
	s->attaching = NULL;
	if (s->attach_replies) {
		s->attach_replies = false;
		engine_detach(e);
		buf_reset(&s->reply);
		buf_printf(&s->reply, "E%02x", ETIMEDOUT & 0xff);
		gdb_send_late_reply(s, "attach");
		return -1;
	}
	/* a joiner: its connection closes, as when it could not join at all */
	gdb_proc_detach(s, e);
	s->engine = NULL;
	s->closing = true;
	return -1;
}

/* The client leaves: an attach of its own still in flight goes too. */
void gdb_attach_drop(struct gdb_session *s)
{
	struct engine *e = s->attaching;

	s->attaching = NULL;
	if (e && s->attach_replies)
		engine_detach(e); /* not one of its processes yet */
	s->attach_replies = false;
}
