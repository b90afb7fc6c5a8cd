/*
 * gdb_query.c: connection-level packets: qSupported, no-ack mode, signal
 * pass lists, syscall catching, qAttached (qSymbol: gdb_tls.c).
 *
 * The signal lists and the caught syscalls are the session's settings,
 * owned here (s->sigs, s->catch): each engine the session takes is given
 * them.
 */
#include "gdb_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The syscalls gdb catches (QCatchSyscalls:1): given to each engine the session takes. */
struct gdb_catch {
	bool all; /* no list: every syscall */
	size_t n;
	long nrs[GDB_CATCH_MAX];
};

/* The signal lists gdb sent (host numbers). */
struct gdb_sigs {
	bool pass[NSIG];    /* QPassSignals: delivered without a stop */
	bool program[NSIG]; /* QProgramSignals: may be delivered at a detach */
	bool program_set;   /* (no QProgramSignals yet: every signal may) */
};

static bool has_feature(const char *f, const char *end, const char *name)
{
	size_t n = strlen(name);

	return (size_t)(end - f) >= n && !memcmp(f, name, n) && (f + n == end || f[n] == ';');
}

int gdb_handle_qsupported(struct gdb_session *s, const char *p, size_t len)
{
	const char *end = p + len;

	/* the client's features: multiprocess and the process events change what we send */
	s->multiprocess = false;
	s->events = 0;
	for (const char *f = memchr(p, ':', len); f && f < end;
	     f = memchr(f, ';', (size_t)(end - f))) {
		f++;
		if (has_feature(f, end, "multiprocess+"))
			s->multiprocess = true;
		else if (has_feature(f, end, "fork-events+"))
			s->events |= ENGINE_EVENT_FORK;
		else if (has_feature(f, end, "vfork-events+"))
			s->events |= ENGINE_EVENT_VFORK;
		else if (has_feature(f, end, "exec-events+"))
			s->events |= ENGINE_EVENT_EXEC;
		else if (has_feature(f, end, "no-resumed+"))
			s->events |= ENGINE_EVENT_NO_RESUMED;
	}
	if (!s->multiprocess) /* fork reports name the child as pPID.TID */
		s->events &= ~(ENGINE_EVENT_FORK | ENGINE_EVENT_VFORK);
	for (size_t i = 0; i < s->nprocs; i++)
		engine_set_events(s->procs[i].e, s->events);
	gdb_put_features(s, &s->reply);
	if (s->events & ENGINE_EVENT_FORK)
		buf_puts(&s->reply, ";fork-events+");
	if (s->events & ENGINE_EVENT_VFORK)
		buf_puts(&s->reply, ";vfork-events+");
	if (s->events & ENGINE_EVENT_EXEC)
		buf_puts(&s->reply, ";exec-events+");
	if (s->events & ENGINE_EVENT_NO_RESUMED)
		buf_puts(&s->reply, ";no-resumed+");
	return 0;
}

/* "QThreadEvents:0" or "QThreadEvents:1": thread creation and exit stops, for every process. */
int gdb_handle_thread_events(struct gdb_session *s, const char *p, size_t len)
{
	if (len != strlen("QThreadEvents:1") || (p[14] != '0' && p[14] != '1'))
		return -EINVAL;
	if (p[14] == '1')
		s->events |= ENGINE_EVENT_THREADS;
	else
		s->events &= ~ENGINE_EVENT_THREADS;
	for (size_t i = 0; i < s->nprocs; i++)
		engine_set_events(s->procs[i].e, s->events);
	buf_puts(&s->reply, "OK");
	return 0;
}

int gdb_handle_noack(struct gdb_session *s, const char *p, size_t len)
{
	(void)p;
	(void)len;
	buf_puts(&s->reply, "OK");
	/* the OK itself still gets acked by the client: switch after queueing it */
	s->noack_pending = true;
	return 0;
}

/* "Qname:s1;s2;..." (hex gdb signal numbers) into a host-signal mask. */
static int parse_signal_list(const char *p, size_t len, bool out[NSIG])
{
	const char *end = p + len;
	const char *q = memchr(p, ':', len);

	memset(out, 0, NSIG * sizeof(bool));
	if (!q)
		return len == strlen("QPassSignals") || len == strlen("QProgramSignals") ? 0
											 : -EINVAL;
	q++;
	while (q < end) {
		uint64_t g;
		int host;

		if (rsp_parse_hex(&q, end, &g) < 0 || g > 0xffff)
			return -EINVAL;
		host = gdb_signal_to_host((int)g);
		/*
		 * Only the gdb signal a host signal reports as counts: host 29
		 * is both SIGIO and SIGPOLL, gdb says "pass SIGPOLL" by default
		 * but lets the user stop on SIGIO, which is what 29 is reported as.
		 */
		if (host > 0 && host < NSIG && gdb_signal_from_host(host) == (int)g)
			out[host] = true;
		if (q < end && *q++ != ';')
			return -EINVAL;
	}
	return 0;
}

/* The session's signal lists, made at the first one gdb sends: NULL if out of memory. */
static struct gdb_sigs *sigs_of(struct gdb_session *s)
{
	if (!s->sigs)
		s->sigs = calloc(1, sizeof(*s->sigs));
	return s->sigs;
}

int gdb_handle_pass_signals(struct gdb_session *s, const char *p, size_t len)
{
	bool pass[NSIG];
	int err = parse_signal_list(p, len, pass);

	if (err)
		return err;
	if (!sigs_of(s))
		return -ENOMEM;
	memcpy(s->sigs->pass, pass, sizeof(pass));
	if (s->engine)
		engine_set_pass_signals(s->engine, s->sigs->pass);
	buf_puts(&s->reply, "OK");
	return 0;
}

int gdb_handle_program_signals(struct gdb_session *s, const char *p, size_t len)
{
	bool allow[NSIG];
	int err = parse_signal_list(p, len, allow);

	if (err)
		return err;
	if (!sigs_of(s))
		return -ENOMEM;
	memcpy(s->sigs->program, allow, sizeof(allow));
	s->sigs->program_set = true;
	buf_puts(&s->reply, "OK");
	return 0;
}

void gdb_apply_pass_signals(struct gdb_session *s, struct engine *e)
{
	static const bool none[NSIG];

	engine_set_pass_signals(e, s->sigs ? s->sigs->pass : none);
}

void gdb_keep_program_signals(struct gdb_session *s, struct engine *e)
{
	if (s->sigs && s->sigs->program_set)
		engine_keep_signals(e, s->sigs->program);
}

void gdb_sigs_free(struct gdb_session *s)
{
	free(s->sigs);
	s->sigs = NULL;
}

void gdb_apply_catch(struct gdb_session *s)
{
	const struct gdb_catch *c = s->catch;

	if (s->engine)
		engine_catch_syscalls(s->engine, c != NULL, c && !c->all ? c->nrs : NULL,
				      c ? c->n : 0);
}

void gdb_catch_free(struct gdb_session *s)
{
	free(s->catch);
	s->catch = NULL;
}

/* ";nr;nr..." (hex, each below 1024) into c, whole or not at all: 0 or -EINVAL. */
static int parse_catch_list(const char *q, const char *end, struct gdb_catch *c)
{
	size_t n = 0;

	for (; q < end; n++) {
		uint64_t nr;

		q++; /* the ';' before each number */
		if (q[-1] != ';' || rsp_parse_hex(&q, end, &nr) < 0 || nr >= 1024 ||
		    n >= GDB_CATCH_MAX)
			return -EINVAL;
		c->nrs[n] = (long)nr;
	}
	c->all = n == 0;
	c->n = n;
	return 0;
}

/*
 * "QCatchSyscalls:0" or "QCatchSyscalls:1[;nr]..." (hex syscall numbers).
 * The list is read whole before it replaces the session's: a refused one
 * leaves the one before (which the session's next engine is given).
 */
int gdb_handle_catch_syscalls(struct gdb_session *s, const char *p, size_t len)
{
	const char *end = p + len, *q = memchr(p, ':', len);
	struct gdb_catch *c = NULL;

	if (!q || end - q < 2 || (q[1] != '0' && q[1] != '1'))
		return -EINVAL;
	if (q[1] == '0' && end - q != 2)
		return -EINVAL;
	if (q[1] == '1') {
		c = malloc(sizeof(*c));
		if (!c)
			return -ENOMEM;
		if (parse_catch_list(q + 2, end, c) < 0) {
			free(c);
			return -EINVAL;
		}
	}
	gdb_catch_free(s);
	s->catch = c;
	gdb_apply_catch(s);
	buf_puts(&s->reply, "OK");
	return 0;
}

int gdb_handle_qattached(struct gdb_session *s, const char *p, size_t len)
{
	(void)p;
	(void)len;
	buf_puts(&s->reply, engine_was_attached(s->engine) ? "1" : "0");
	return 0;
}
