/*
 * gdb_attach.c: a client's attach, answered when the process has stopped.
 *
 * An attach never holds the daemon: the engine seizes the threads and
 * asks them to stop, and the stop comes later through on_stop(), like the
 * answer to a resume (a vfork parent or a thread in uninterruptible sleep
 * may take long). Two kinds of client wait for it here: a vAttach, whose
 * reply is that stop, and a client that joined a process through the
 * daemon (DIR/<pid>/gdb, a rendezvous socket), whose '?' is answered by it.
 *
 * An all-stop attach waits as long as its threads take, as gdbserver's
 * (a vfork parent stops when its child execs or exits). gdb gives up on
 * a reply after 3 x remotetimeout of silence (6 s) and then takes the
 * late reply for the answer to its next packet, but it skips whatever
 * comes before a packet's '$' and counts its timeout from the last byte:
 * so while the reply is owed, a space goes to the client every
 * ATTACH_KEEPALIVE_MS. A ^C from the client meanwhile gives the attach
 * up (a vAttach fails with E04; a joiner's connection closes), as does
 * its detach or its end: the process runs on as it was. In non-stop the
 * threads that have stopped are reported after ATTACH_PARTIAL_MS, the
 * others shown running. (A ustrace's join, Qutraced.trace, waits for its
 * observer's attach the same way, up to the stop timeout: gdb_trace.c.)
 */
#include "gdb_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
	s->attach_alive_at = 0;
	return GDB_NO_REPLY;
}

void gdb_session_join(struct gdb_session *s, struct engine *e)
{
	gdb_session_set_engine(s, e);
	if (s->engine == e && engine_attaching(e)) {
		s->attaching = e;
		s->attach_alive_at = 0;
	}
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
 * A non-stop attach whose threads have not all stopped after this long
 * is answered with those that have; the others are running (gdb shows
 * them so).
 */
#define ATTACH_PARTIAL_MS 500

/* Under gdb's shortest sensible remotetimeout (1 s). */
#define ATTACH_KEEPALIVE_MS 500

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * The client waits for what the attach owes it: a vAttach's reply, or a
 * packet held for the attach stop (gdb_session.c: '?', a joining gdb's
 * qXfer of the target description).
 */
static bool answer_owed(const struct gdb_session *s)
{
	return s->attaching && (s->attach_replies || s->held);
}

/* A byte before the reply's '$', which gdb skips, so that it waits on. */
static int keepalive(struct gdb_session *s)
{
	long long now = now_ms();

	if (!answer_owed(s))
		return -1;
	if (!s->attach_alive_at)
		s->attach_alive_at = now + ATTACH_KEEPALIVE_MS;
	if (now >= s->attach_alive_at) {
		buf_putc(&s->rsp.out, ' ');
		s->attach_alive_at = now + ATTACH_KEEPALIVE_MS;
	}
	return (int)(s->attach_alive_at - now);
}

/*
 * A joiner's attach is over without its stop (a partial non-stop one):
 * the session takes its engine as at the stop, and what waited goes on.
 */
static void join_done(struct gdb_session *s, struct engine *e)
{
	gdb_session_set_engine(s, e);
	gdb_session_release_held(s); /* its '?' among them */
}

/* A non-stop attach that waited long enough: 0 done, else as engine_attach_partial. */
static int partial(struct gdb_session *s)
{
	struct engine *e = s->attaching;
	int left = s->nonstop ? engine_attach_partial(e, ATTACH_PARTIAL_MS) : -1;

	if (left != 0)
		return left;
	s->attaching = NULL;
	if (s->attach_replies) {
		s->attach_replies = false;
		attach_done(s, e); /* (non-stop: its OK and stops sent) */
	} else {
		join_done(s, e);
	}
	return 0;
}

int gdb_attach_expire(struct gdb_session *s)
{
	int left, alive;

	if (!s->attaching)
		return -1;
	left = partial(s);
	if (left == 0)
		return -1;
	alive = keepalive(s);
	return left < 0 || (alive >= 0 && alive < left) ? alive : left;
}

/*
 * A ^C while the client waits for its attach's answer: it gives up (the
 * attach is all the client asked for, and ^C says to stop waiting). False
 * when no answer is owed: the ^C is then the engine's as usual.
 */
bool gdb_attach_interrupt(struct gdb_session *s)
{
	struct engine *e = s->attaching;

	if (!answer_owed(s))
		return false;
	s->attaching = NULL;
	if (s->attach_replies) {
		s->attach_replies = false;
		engine_detach(e);
		buf_reset(&s->reply);
		buf_printf(&s->reply, "E%02x", EINTR);
		gdb_send_late_reply(s, "attach");
		return true;
	}
	/* a joiner: its connection closes, as when it could not join at all */
	gdb_proc_detach(s, e);
	s->engine = NULL;
	s->closing = true;
	return true;
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
