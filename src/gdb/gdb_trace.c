/*
 * gdb_trace.c: Qutraced.trace, a syscall trace run inside the daemon and
 * streamed to the client ("strace and gdb at the same time").
 *
 * A process utraced holds cannot be ptraced by anyone else, so `ustrace
 * -p PID` joins it through RUNDIR/<pid>.sock like any client and asks, in
 * one packet, for a trace with its options. The session then stops being
 * a gdb session: its engine is swapped for an observer engine
 * (engine_observe), the strace core (src/strace/) decodes each event right
 * here while the thread is stopped (its reader is engine_mem_read and
 * /proc), time stamps are taken here at the event, and its output goes to
 * the client as RSP notifications: not as finished text but as the
 * records of src/strace/trc_stream.c, so that the client lays out the
 * lines where they meet those of the other processes it traces
 * ("<unfinished ...>", "[pid N]", one -c table). With -f the fork
 * children are traced too: the engine hands us an observer engine on each
 * (ENGINE_OBSERVE_FORKS), kept in tr->kids until the child exits; the
 * trace, like the session, ends with the held process. A traced thread never waits for the
 * client's round trip: the thread goes on as soon as the line is queued.
 *
 * utraced's own packets (gdb's vendor-prefix convention, "Qcompany.name"):
 *
 *   Qutraced.trace:OPTS   OPTS is src/strace/trc_wire.h's text. Only on a
 *                         session that joined a held process (rendezvous
 *                         socket or FUSE file), as its first resume-less
 *                         act. Reply OK once the process has stopped
 *                         for the trace's own engine (late, if a thread is
 *                         slow to stop: the daemon does not wait), or Exx
 *                         (E6e: not stopped within the stop timeout).
 *   Qutraced.detach       the engine leaves; reply OK after the last
 *                         records. The connection then closes.
 *
 * and its notifications, in order with the replies:
 *
 *   %utraced.out:RECORDS  trace records (trc_stream.c; RSP-escaped), in order
 *   %utraced.msg:TEXT     a line for the client's stderr ("Process N attached")
 *   %utraced.exit:Wxx     the process exited with code xx (hex), or
 *   %utraced.exit:Xxx     was killed by signal xx; the connection closes
 *
 * Back-pressure, never loss: text not yet written to the client (queued
 * packets plus unframed text) above TRACE_HIGH makes each thread that
 * reports a syscall stay stopped (engine_observe_hold) instead of going
 * on; when the endpoint has written the backlog down to TRACE_LOW
 * (gdb_trace_pump, called around every flush) they are let go. So a slow
 * or stopped ustrace slows the threads that make syscalls, as a slow
 * terminal slows strace, while gdb and the daemon's other clients are
 * served as usual; the daemon's memory per trace stays bounded.
 */
#include "gdb_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../engine/engine_trc.h"
#include "../strace/trc.h"
#include "../strace/trc_stream.h"
#include "../strace/trc_wire.h"

#define TRACE_CHUNK 8192u	/* text per notification */
#define TRACE_HIGH  (1u << 20)	/* backlog above which syscalling threads are held */
#define TRACE_LOW   (64u << 10) /* ... and at or below which they go on */
#define OUT_PREFIX  "utraced.out:"

struct gdb_trace {
	struct gdb_session *s;
	struct engine *e; /* the observer while it is in s->procs, else NULL */
	pid_t pid;
	struct engine_client client;
	struct trc *trc;
	bool follow;		 /* -f: every thread, and fork children */
	bool quiet;		 /* -q: no "Process N attached" */
	bool holding;		 /* threads are held for back-pressure */
	struct buf text;	 /* trace records not yet framed into s->rsp.out */
	struct buf pkt;		 /* a notification being built */
	struct engine_kids kids; /* -f: fork children, each with our observer engine */
	struct engine *joiner;	 /* the observer until its attach stop: then e */
	struct trc_wire w;	 /* ... and the options the trace starts with then */
};

/* The observer, if it is still the session's (a stray 'D' may have taken it). */
static struct engine *trace_engine(struct gdb_trace *tr)
{
	for (size_t i = 0; tr->e && i < tr->s->nprocs; i++)
		if (tr->s->procs[i].e == tr->e)
			return tr->e;
	tr->e = NULL;
	return NULL;
}

static void notify(struct gdb_trace *tr, const char *what, const void *data, size_t len)
{
	buf_reset(&tr->pkt);
	buf_puts(&tr->pkt, what);
	buf_append(&tr->pkt, data, len);
	rsp_send_notify(&tr->s->rsp, tr->pkt.data, tr->pkt.len);
}

/* Everything in tr->text into notifications of at most TRACE_CHUNK bytes. */
static void frame_text(struct gdb_trace *tr)
{
	size_t off = 0;

	while (off < tr->text.len) {
		size_t n = tr->text.len - off < TRACE_CHUNK ? tr->text.len - off : TRACE_CHUNK;

		notify(tr, OUT_PREFIX, tr->text.data + off, n);
		off += n;
	}
	buf_reset(&tr->text);
}

static size_t backlog(struct gdb_trace *tr)
{
	return tr->text.len + tr->s->rsp.out.len;
}

static void trace_msg(void *ctx, const char *s, size_t n)
{
	notify(ctx, "utraced.msg:", s, n);
}

static const struct engine_trc_ops trace_trc_ops = {.msg = trace_msg};

static void trace_on_event(void *ctx, const struct engine_event *ev)
{
	struct gdb_trace *tr = ctx;
	struct engine_trc_host h = {
		.trc = tr->trc,
		.e = tr->e,
		.pid = tr->pid,
		.follow = tr->follow,
		.quiet = tr->quiet,
		.kids = &tr->kids,
		.ops = &trace_trc_ops,
		.ctx = tr,
	};
	/* a fork child's events come with its own engine, which holds its threads */
	struct engine *from = ev->engine ? ev->engine : tr->e;

	if (!tr->e || !engine_trc_event(&h, ev))
		return;
	if (tr->text.len >= TRACE_CHUNK)
		frame_text(tr);
	if ((ev->kind == ENGINE_EV_SYSCALL_ENTRY || ev->kind == ENGINE_EV_SYSCALL_EXIT) &&
	    backlog(tr) > TRACE_HIGH && engine_observe_hold(from, ev->tid) == 0)
		tr->holding = true;
}

static void trace_joined(struct gdb_trace *tr, const struct engine_stop *st);

/* The process is gone: the last text, the exit, and the engine leaves. */
static void trace_on_stop(void *ctx, const struct engine_stop *st)
{
	struct gdb_trace *tr = ctx;
	char end[16];
	int n;

	if (tr->joiner) {
		trace_joined(tr, st);
		return;
	}
	if (st->kind != ENGINE_STOP_EXITED && st->kind != ENGINE_STOP_KILLED)
		return; /* an observer is never stopped: nothing else comes */
	if (st->pid != tr->pid) {
		engine_kids_drop(&tr->kids, st->pid);
		return;
	}
	/*
	 * The trace is the process's: children still alive are let go with it
	 * (the session, and the daemon's hold, end with the process).
	 */
	engine_kids_leave(&tr->kids);
	frame_text(tr);
	if (st->kind == ENGINE_STOP_EXITED)
		n = snprintf(end, sizeof(end), "W%02x", (unsigned)st->status & 0xff);
	else
		n = snprintf(end, sizeof(end), "X%02x", (unsigned)st->sig & 0xff);
	notify(tr, "utraced.exit:", end, (size_t)n);
	tr->holding = false;
	if (trace_engine(tr))
		gdb_proc_detach(tr->s, tr->e); /* no engine left: the endpoint closes */
	tr->e = NULL;
}

static void trace_free(struct gdb_trace *tr)
{
	engine_kids_leave(&tr->kids);
	trc_free(tr->trc);
	buf_free(&tr->text);
	buf_free(&tr->pkt);
	free(tr);
}

/* The threads the trace starts with: "[pid N]" prefixes count them, as strace's. */
static void known_threads(struct gdb_trace *tr)
{
	pid_t tids[256];
	size_t n = tr->follow ? engine_threads(tr->e, tids, 256) : 0;

	trc_thread_new(tr->trc, tr->pid);
	for (size_t i = 0; i < n && i < 256; i++)
		trc_thread_new(tr->trc, tids[i]);
}

/* Threads already in a group-stop: "--- stopped by SIGSTOP ---" first, as strace prints. */
static void known_group_stops(struct gdb_trace *tr)
{
	struct engine_stop st[64];
	size_t n = engine_group_stops(tr->e, st, 64);

	for (size_t i = 0; i < n && i < 64; i++) {
		struct engine_event ev = {.kind = ENGINE_EV_STOPPED,
					  .pid = tr->pid,
					  .tid = st[i].tid,
					  .arch = engine_arch(tr->e),
					  .status = st[i].sig};

		trace_on_event(tr, &ev);
	}
}

/* A trace that never started: its engine (not the session's yet) and it go. */
static void trace_drop(struct gdb_session *s, struct gdb_trace *tr, struct engine *e)
{
	engine_detach(e);
	s->trace = NULL;
	trace_free(tr);
}

/*
 * The observer has stopped the process (its attach): it takes the
 * joiner's place in the session and the trace starts. 0, or an error
 * (the trace is gone then).
 */
static int trace_start(struct gdb_session *s, struct gdb_trace *tr)
{
	struct trc_sink sink;
	int err;

	tr->e = tr->joiner;
	tr->joiner = NULL;
	gdb_proc_detach(s, s->engine);
	err = gdb_proc_add(s, tr->e);
	if (err < 0) {
		trace_drop(s, tr, tr->e);
		return err;
	}
	s->engine = tr->e;
	sink = trc_stream_sink(&tr->text, tr->w.o.tstamp != 0);
	tr->trc = trc_new_sink(&tr->w.o, &sink);
	known_threads(tr);
	known_group_stops(tr);
	return engine_trc_observe(tr->e, &tr->w.o, tr->w.follow); /* (leaving frees it) */
}

static void trace_reply(struct gdb_session *s, int err)
{
	buf_reset(&s->reply);
	if (err < 0)
		buf_printf(&s->reply, "E%02x", -err & 0xff);
	else
		buf_puts(&s->reply, "OK");
}

/* The joiner's attach stop, or the end of the process before it: the reply owed. */
static void trace_joined(struct gdb_trace *tr, const struct engine_stop *st)
{
	struct gdb_session *s = tr->s;
	int err = -ESRCH;

	if (st->kind != ENGINE_STOP_EXITED && st->kind != ENGINE_STOP_KILLED)
		err = trace_start(s, tr);
	else
		trace_drop(s, tr, tr->joiner);
	trace_reply(s, err);
	gdb_send_late_reply(s, "trace");
}

int gdb_handle_utraced_trace(struct gdb_session *s, const char *p, size_t len)
{
	size_t plen = strlen("Qutraced.trace:");
	struct gdb_trace *tr;
	struct trc_wire w;
	struct engine *e;
	int err = 0;

	if (len < plen || p[plen - 1] != ':' || trc_wire_decode(&w, p + plen, len - plen) < 0)
		return -EINVAL;
	if (s->trace || !s->secondary || s->nprocs != 1 || s->nonstop || s->waiting)
		return -EBUSY; /* a fresh joiner only: not gdb's session, not twice */
	tr = calloc(1, sizeof(*tr));
	if (!tr)
		return -ENOMEM;
	tr->s = s;
	tr->pid = engine_pid(s->engine);
	tr->follow = w.follow;
	tr->quiet = w.o.quiet & TRC_QUIET_ATTACH;
	tr->w = w;
	buf_init(&tr->text);
	buf_init(&tr->pkt);
	tr->client = s->client;
	tr->client.ctx = tr;
	tr->client.on_stop = trace_on_stop;
	tr->client.on_event = trace_on_event;
	tr->client.name = "ustrace";
	/*
	 * The joiner's engine cannot hear events: a new one joins, then the old
	 * one leaves. Its attach may take long (a thread that cannot stop yet):
	 * the reply waits for it, the daemon does not (trace_joined).
	 */
	e = engine_attach_start(s->tracer, tr->pid, &tr->client, &err);
	if (e && !engine_alive(e)) {
		engine_detach(e);
		e = NULL;
		err = -ESRCH;
	}
	if (!e) {
		trace_free(tr);
		return err ? err : -ESRCH;
	}
	tr->joiner = e;
	s->trace = tr;
	if (engine_attaching(e))
		return GDB_NO_REPLY;
	err = trace_start(s, tr);
	if (err < 0)
		return err;
	buf_puts(&s->reply, "OK");
	return 0;
}

bool gdb_trace_joining(const struct gdb_session *s)
{
	return s->trace && s->trace->joiner;
}

int gdb_trace_join_expire(struct gdb_session *s)
{
	struct gdb_trace *tr = s->trace;
	int left = tr && tr->joiner ? engine_attach_time_left(tr->joiner) : -1;

	if (left != 0)
		return left;
	trace_drop(s, tr, tr->joiner);
	trace_reply(s, -ETIMEDOUT);
	gdb_send_late_reply(s, "trace");
	return -1;
}

int gdb_handle_utraced_detach(struct gdb_session *s, const char *p, size_t len)
{
	struct gdb_trace *tr = s->trace;

	(void)p;
	(void)len;
	if (!tr)
		return -EINVAL;
	if (trace_engine(tr)) {
		frame_text(tr); /* the open line, the -c table: the client's */
		engine_kids_leave(&tr->kids);
		gdb_proc_detach(s, tr->e); /* the process runs on for the others */
		tr->e = NULL;
	}
	tr->holding = false;
	buf_puts(&s->reply, "OK");
	return 0;
}

void gdb_trace_pump(struct gdb_session *s)
{
	struct gdb_trace *tr = s->trace;

	if (!tr)
		return;
	if (tr->text.len)
		frame_text(tr);
	if (tr->holding && backlog(tr) <= TRACE_LOW) {
		tr->holding = false;
		if (trace_engine(tr))
			engine_observe_release(tr->e);
		for (size_t i = 0; i < tr->kids.n; i++)
			engine_observe_release(tr->kids.v[i].e);
	}
}

void gdb_trace_end(struct gdb_session *s)
{
	struct gdb_trace *tr = s->trace;

	if (!tr)
		return;
	s->trace = NULL;
	if (tr->joiner)
		engine_detach(tr->joiner); /* its attach still in flight */
	if (trace_engine(tr))
		gdb_proc_detach(s, tr->e);
	trace_free(tr);
}
