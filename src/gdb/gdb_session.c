/*
 * gdb_session.c: one RSP client: bytes in, packets dispatched, stop
 * replies out when the engine reports a stop.
 *
 * The dispatcher is the one place where a handler's -errno becomes an
 * "Enn" reply, so handlers never format errors themselves.
 */
#include "gdb.h"
#include "gdb_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/*
 * A software breakpoint's conditions are evaluated by the engine at the
 * hit, before anything else stops (session_bp_goes_on).
 */
static bool session_bp_goes_on(void *ctx, struct engine *e, pid_t tid, uint64_t addr)
{
	struct gdb_session *s = ctx;
	struct engine_stop st = {
		.kind = ENGINE_STOP_SWBREAK, .pid = engine_pid(e), .tid = tid, .addr = addr};

	return s->nconds && gdb_cond_false(s, &st);
}

static void session_bp_printed(void *ctx, struct engine *e, const struct agent_record *r)
{
	gdb_cond_printed(ctx, e, r);
}

static bool session_out_busy(void *ctx, struct engine *e)
{
	(void)e;
	return gdb_cond_out_busy(ctx);
}

/* A hardware breakpoint hit whose conditions are false: the thread goes on, unreported. */
static bool cond_goes_on(struct gdb_session *s, const struct engine_stop *st)
{
	struct gdb_proc *pr;
	struct engine_resume one = {.tid = st->tid, .action = ENGINE_RUN};

	if (!s->nconds || st->kind != ENGINE_STOP_HWBREAK || !gdb_cond_false(s, st))
		return false;
	if (s->nonstop) {
		pr = gdb_proc_of(s, st->pid);
		return pr && engine_resume(pr->e, &one, 1) == 0;
	}
	return gdb_resume_again(s);
}

void gdb_send_late_reply(struct gdb_session *s, const char *why)
{
	if (s->server && s->server->remote_debug)
		fprintf(stderr, "putpkt (\"%.*s\"); [%s]\n", (int)s->reply.len,
			s->reply.data ? s->reply.data : "", why);
	rsp_send(&s->rsp, s->reply.data, s->reply.len);
}

static void session_on_stop(void *ctx, const struct engine_stop *st)
{
	struct gdb_session *s = ctx;
	bool gone = st->kind == ENGINE_STOP_EXITED || st->kind == ENGINE_STOP_KILLED;

	struct gdb_proc *pr = gdb_proc_of(s, st->pid);

	if (gdb_attach_stop(s, st)) {
		gdb_session_release_held(s);
		return;
	}
	if (gdb_resume_range_goes_on(s, st) || cond_goes_on(s, st))
		return;
	gdb_resume_range_end(s);
	/* gdbserver says nothing of a fork child's exit */
	if (gone && s->server && s->server->on_exit && !s->secondary && s->nprocs <= 1)
		s->server->on_exit(s, st);
	if (gdb_procs_on_stop(s, st)) {
		/* all-stop: the answer to the resume */
		if (gdb_stop_has_thread(st) || gone) {
			s->last = *st;
			s->have_last = true;
		}
		gdb_select_stopped(s, st);
		s->waiting = false;
		buf_reset(&s->reply);
		gdb_stop_reply(s, st, &s->reply);
		gdb_send_late_reply(s, "stop");
	} else if (s->nonstop) {
		gdb_nonstop_on_stop(s, st);
	} else if (s->nprocs <= 1 && (gdb_stop_has_thread(st) || gone)) {
		s->last = *st; /* for '?' of the next client */
		s->have_last = true;
	}
	/*
	 * A death gdb has not heard of (it had the process stopped: killed
	 * from outside) keeps the process until gdb's next resume answers
	 * with it or its detach answers OK, as with gdbserver, which sees the
	 * death only then: dropped now, the connection would close under gdb.
	 */
	if (gone && pr && !gdb_procs_death_pending(s, st->pid))
		gdb_proc_detach(s, pr->e);
	gdb_session_release_held(s); /* a joiner's process that ended before its attach stop */
}

void gdb_session_init(struct gdb_session *s, struct tracer *t, struct gdb_server *srv)
{
	memset(s, 0, sizeof(*s));
	rsp_conn_init(&s->rsp);
	buf_init(&s->reply);
	buf_init(&s->held_pkt);
	buf_init(&s->held_input);
	s->tracer = t;
	s->server = srv;
	s->tframe = -1;
	s->client.ctx = s;
	s->client.on_stop = session_on_stop;
	s->client.bp_goes_on = session_bp_goes_on;
	s->client.bp_printed = session_bp_printed;
	s->client.out_busy = session_out_busy;
	s->client.name = "gdb";
	gdb_extended_init(s);
	gdb_resume_init(s);
}

void gdb_session_init_joined(struct gdb_session *s, struct tracer *t, struct gdb_server *srv,
			     const char *how, const struct proc_caller *peer)
{
	gdb_session_init(s, t, srv);
	s->secondary = true;
	s->client.name = how;
	gdb_session_set_peer(s, peer);
}

void gdb_session_set_engine(struct gdb_session *s, struct engine *e)
{
	if (!gdb_proc_of(s, engine_pid(e)) && gdb_proc_add(s, e) < 0) {
		engine_detach(e);
		return;
	}
	s->engine = e;
	s->g_tid = 0;
	s->c_tid = 0;
	/* a signal met at the attach is the first stop gdb hears of, as with gdbserver */
	if (!engine_stop_report(e, &s->last) || s->last.kind != ENGINE_STOP_SIGNAL)
		s->last = (struct engine_stop){.kind = ENGINE_STOP_ATTACHED,
					       .pid = engine_pid(e),
					       .tid = engine_pid(e),
					       .sig = SIGTRAP};
	s->have_last = true;
	gdb_apply_pass_signals(s, e);
	gdb_apply_catch(s);
	if (s->nonstop)
		engine_set_nonstop(e, true);
}

void gdb_session_set_peer(struct gdb_session *s, const struct proc_caller *peer)
{
	s->peer = *peer;
	s->client.peer_pid = peer->tgid;
	s->client.peer_uid = peer->uid;
	s->peer_known = true;
}

bool gdb_session_foreign(const struct gdb_session *s)
{
	return s->peer_known && s->client.peer_uid != 0 && s->client.peer_uid != geteuid();
}

void gdb_session_free(struct gdb_session *s)
{
	s->freeing = true; /* (the lines a detach drains go to our stdout) */
	gdb_vfile_free(s);
	gdb_tp_session_gone(s);
	gdb_session_leave(s, false);
	gdb_cond_session_gone(s);
	gdb_nonstop_free(s);
	gdb_cond_free_all(s);
	gdb_catch_free(s);
	gdb_sigs_free(s);
	gdb_extended_free(s);
	gdb_resume_free(s);
	rsp_conn_free(&s->rsp);
	buf_free(&s->reply);
	gdb_xfer_free(s);
	buf_free(&s->held_pkt);
	buf_free(&s->held_input);
}

static void handle_packet(struct gdb_session *s, const char *pkt, size_t len)
{
	const struct gdb_packet *gp = gdb_packet_find(pkt, len);
	int ret = 0;

	CRASH_POINT("packet");

	if (s->server && s->server->remote_debug)
		fprintf(stderr, "getpkt (\"%.*s\");\n", (int)(len > 200 ? 200 : len), pkt);
	buf_reset(&s->reply);
	if (gp && gdb_packet_disabled(s, gp))
		gp = NULL;
	if (gp && gp->needs_engine && !s->engine)
		ret = -ESRCH;
	else if (gp)
		ret = gp->fn(s, pkt, len);
	if (ret == GDB_NO_REPLY)
		return;
	if (ret < 0) {
		buf_reset(&s->reply);
		buf_printf(&s->reply, "E%02x", (unsigned)(-ret) & 0xff);
	}
	if (s->server && s->server->remote_debug)
		fprintf(stderr, "putpkt (\"%.*s\");\n",
			(int)(s->reply.len > 200 ? 200 : s->reply.len),
			s->reply.data ? s->reply.data : "");
	rsp_send(&s->rsp, s->reply.data, s->reply.len);
	if (s->noack_pending) {
		s->noack_pending = false;
		s->rsp.noack = true;
	}
}

/*
 * A joiner's packets that act on the process wait for its attach stop, as
 * gdbserver serves nothing before its attach is done: a 'c' sent at once
 * resumes the stopped process then, instead of failing (EBUSY) on a
 * process still running, and '?' names that stop (or the end, if the
 * process ends first). A detach, an interrupt and ustrace's join do not
 * wait.
 */
static bool held_for_attach(const struct gdb_session *s, const char *pkt, size_t len)
{
	const struct gdb_packet *gp;

	if (!s->attaching || s->attach_replies)
		return false;
	gp = gdb_packet_find(pkt, len);
	if (!gp || gdb_packet_disabled(s, gp))
		return false;
	if (gp->fn == gdb_handle_vcont || gp->fn == gdb_handle_question)
		return true;
	/* gdb reads it before it says QNonStop: held, a non-stop join would wait for ever */
	if (!strncmp(pkt, "qXfer:features:read", strlen("qXfer:features:read")) &&
	    engine_attach_arch_known(s->attaching))
		return false;
	return gp->needs_engine && gp->fn != gdb_handle_detach && gp->fn != gdb_handle_vctrlc &&
	       gp->fn != gdb_handle_utraced_trace;
}

/*
 * A ^C among the bytes that wait behind a held packet (they start where
 * that packet ended: between packets), read by a codec of its own.
 */
static bool held_interrupt(const struct gdb_session *s)
{
	const uint8_t *p = (const uint8_t *)s->held_input.data;
	size_t len = s->held_input.len;
	struct rsp_conn c;
	bool intr = false;

	if (!len || !memchr(p, 0x03, len))
		return false;
	rsp_conn_init(&c);
	c.noack = true;
	while (len && !intr) {
		struct rsp_event ev;
		size_t n = rsp_feed(&c, p, len, &ev);

		p += n;
		len -= n;
		intr = ev.kind == RSP_EV_INTERRUPT;
	}
	rsp_conn_free(&c);
	return intr;
}

void gdb_session_input(struct gdb_session *s, const uint8_t *data, size_t len)
{
	struct rsp_event ev;

	if (s->held) {
		buf_append(&s->held_input, data, len);
		/* the client waits for its attach stop: a ^C gives it up meanwhile */
		if (held_interrupt(s))
			gdb_attach_interrupt(s);
		return;
	}
	while (len && !s->closing) {
		size_t n = rsp_feed(&s->rsp, data, len, &ev);

		data += n;
		len -= n;
		if (ev.kind == RSP_EV_PACKET && held_for_attach(s, ev.data, ev.len)) {
			s->held = true;
			buf_append(&s->held_pkt, ev.data, ev.len);
			buf_append(&s->held_input, data, len);
			return;
		}
		if (ev.kind == RSP_EV_PACKET)
			handle_packet(s, ev.data, ev.len);
		else if (ev.kind == RSP_EV_INTERRUPT && gdb_attach_interrupt(s))
			continue; /* it waited for its attach: given up */
		else if (ev.kind == RSP_EV_INTERRUPT && s->engine)
			engine_interrupt(s->engine); /* stopped: the next resume stops at once */
	}
}

/* The attach stop came (or the end): what waited for it is served now. */
void gdb_session_release_held(struct gdb_session *s)
{
	struct buf pkt = s->held_pkt, rest = s->held_input;

	if (!s->held || (s->attaching && !s->attach_replies))
		return;
	s->held = false;
	buf_init(&s->held_pkt);
	buf_init(&s->held_input);
	if (!s->closing)
		handle_packet(s, pkt.data ? pkt.data : "", pkt.len);
	if (rest.len)
		gdb_session_input(s, (const uint8_t *)rest.data, rest.len);
	buf_free(&pkt);
	buf_free(&rest);
}
