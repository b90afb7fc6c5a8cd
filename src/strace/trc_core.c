/*
 * trc_core.c: events in, the pieces of strace's lines out.
 *
 * Per thread: the syscall in flight (its arguments and what the decoder
 * kept from entry to exit), what is shown, how a line ends ("= ?",
 * "+++ exited with N +++"). The line discipline itself (whose line is
 * open, "<unfinished ...>", the "= " column, "[pid N]") is the sink's
 * (trc_out.c), so that it can be shared by cores that run in different
 * processes. With -z/-Z a line is kept back ("staged") until the return
 * value says whether it is shown.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "trc_int.h"

/* The kernel's restart codes, which never reach user space as errno. */
#define ERESTARTSYS	      512
#define ERESTARTNOINTR	      513
#define ERESTARTNOHAND	      514
#define ERESTART_RESTARTBLOCK 516

struct trc_thr {
	struct trc_thr *next;
	pid_t tid;
	enum trc_pers pers;
	bool in_syscall; /* entry seen, exit not yet */
	bool shown;	 /* ... and the entry was printed (or staged) */
	bool staging;	 /* the line is in staged, not yet out (-z/-Z) */
	long nr;
	long prev_nr; /* the syscall before this one, for restart_syscall */
	uint64_t args[6];
	int rv; /* the decoder's answer at entry */
	uint64_t aux;
	struct timespec entry_ts;
	int64_t entry_stime; /* ns */
	struct buf staged;   /* -z/-Z: the entry half ("name(args"), no leader */
};

struct trc {
	struct trc_opts o;
	struct trc_sink sink;
	struct trc_out *own; /* trc_new's */
	struct trc_thr *threads;
	struct buf pre, post; /* a line's text before and after the "= " column */
};

void trc_opts_init(struct trc_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->strsize = 32;
	o->acolumn = 40;
	memset(o->trace, 0xff, sizeof(o->trace));
	memset(&o->signals, 0xff, sizeof(o->signals));
}

struct trc *trc_new_sink(const struct trc_opts *o, const struct trc_sink *sink)
{
	struct trc *t = calloc(1, sizeof(*t));

	if (!t)
		abort();
	t->o = *o;
	t->sink = *sink;
	buf_init(&t->pre);
	buf_init(&t->post);
	return t;
}

struct trc *trc_new(const struct trc_opts *o, trc_write_fn write, void *ctx)
{
	struct trc_out *out = trc_out_new(o, write, ctx);
	struct trc_sink sink = trc_out_sink(out);
	struct trc *t = trc_new_sink(o, &sink);

	t->own = out;
	return t;
}

void trc_free(struct trc *t)
{
	struct trc_thr *th, *next;

	if (!t)
		return;
	for (th = t->threads; th; th = next) {
		next = th->next;
		buf_free(&th->staged);
		free(th);
	}
	buf_free(&t->pre);
	buf_free(&t->post);
	trc_out_free(t->own);
	free(t);
}

static struct trc_thr *thr_get(struct trc *t, pid_t tid, bool create)
{
	struct trc_thr *th;

	for (th = t->threads; th; th = th->next)
		if (th->tid == tid)
			return th;
	if (!create)
		return NULL;
	th = calloc(1, sizeof(*th));
	if (!th)
		abort();
	th->tid = tid;
	th->prev_nr = -1;
	buf_init(&th->staged);
	th->next = t->threads;
	t->threads = th;
	t->sink.task(t->sink.ctx, tid, true);
	return th;
}

void trc_thread_new(struct trc *t, pid_t tid)
{
	thr_get(t, tid, true);
}

void trc_forget(struct trc *t, pid_t tid)
{
	struct trc_thr **pp, *th;

	for (pp = &t->threads; (th = *pp); pp = &th->next) {
		if (th->tid != tid)
			continue;
		*pp = th->next;
		buf_free(&th->staged);
		free(th);
		t->sink.task(t->sink.ctx, tid, false);
		return;
	}
}

/* The sink's calls, shorter. */
static void out_text(struct trc *t, const struct buf *b)
{
	if (b->len)
		t->sink.text(t->sink.ctx, b->data, b->len);
}

static void out_str(struct trc *t, const char *s)
{
	t->sink.text(t->sink.ctx, s, strlen(s));
}

static void out_end(struct trc *t)
{
	t->sink.end(t->sink.ctx);
}

void trc_flush_pending(struct trc *t, const char *note)
{
	if (t->own)
		trc_out_flush_pending(t->own, note);
}

static bool traced(const struct trc *t, enum trc_pers p, long nr)
{
	return nr >= 0 && trc_set_has(&t->o.trace[p], (unsigned)nr);
}

static void call_init(struct trc *t, struct trc_call *c, const struct trc_who *w,
		      struct trc_thr *th, struct buf *b)
{
	memset(c, 0, sizeof(*c));
	c->t = t;
	c->o = &t->o;
	c->rd = w->rd;
	c->b = b;
	c->pers = th->pers;
	c->a = th->args;
	c->aux = th->aux;
	c->prev_nr = th->prev_nr;
	c->abbrev = !trc_opt_in(t->o.noabbrev, th->pers, th->nr);
	c->verbose = !trc_opt_in(t->o.noverbose, th->pers, th->nr);
}

/* Unknown numbers print as strace does: syscall_0x1b6(args...). */
static void print_name(struct buf *b, enum trc_pers p, long nr)
{
	const char *name = trc_syscall_name(p, nr);

	if (name)
		buf_puts(b, name);
	else
		buf_printf(b, "syscall_%#lx", (unsigned long)nr);
}

static int decode_raw(struct trc_call *c, unsigned nargs)
{
	unsigned i;

	for (i = 0; i < nargs; i++) {
		if (i)
			tp_sep(c);
		tp_hex(c, c->a[i]);
	}
	return RV_DECODED;
}

static int run_decoder(struct trc_call *c, long nr)
{
	const struct trc_spec *sp = trc_spec_of(c->pers, nr);

	if (trc_opt_in(c->o->raw, c->pers, nr)) /* -e raw= */
		return c->exiting ? RV_HEX : decode_raw(c, sp ? sp->nargs : 6);
	if (sp && sp->dec && (c->pers == TRC_PERS_64 || sp->any_pers))
		return sp->dec(c);
	if (c->exiting)
		return RV_DEC;
	return decode_raw(c, sp ? sp->nargs : 6);
}

void trc_syscall_entry(struct trc *t, const struct trc_who *w, long nr, const uint64_t args[6])
{
	struct trc_thr *th = thr_get(t, w->tid, true);
	bool by_result = t->o.only_ok || t->o.only_fail; /* -z/-Z: shown, or not, at exit */
	struct trc_call c;
	struct buf *b;
	int i;

	th->pers = w->pers;
	th->in_syscall = true;
	th->nr = nr;
	th->entry_ts = w->ts;
	th->entry_stime = w->stime_ns;
	th->aux = 0;
	for (i = 0; i < 6; i++)
		th->args[i] = w->pers == TRC_PERS_32 ? (uint32_t)args[i] : args[i];
	th->shown = traced(t, w->pers, nr);
	if (!th->shown || (t->o.count == TRC_COUNT_ONLY && !t->o.paths[0]))
		return;
	/* -P decides once the arguments are decoded: the line waits until then */
	th->staging = by_result || t->o.paths[0];
	b = th->staging ? &th->staged : &t->pre;
	buf_reset(b);
	print_name(b, w->pers, nr);
	buf_putc(b, '(');
	call_init(t, &c, w, th, b);
	th->rv = run_decoder(&c, nr);
	th->aux = c.aux;
	if (t->o.paths[0] && !c.path_hit) {
		th->shown = th->staging = false; /* neither shown nor counted */
		return;
	}
	th->staging = by_result;
	if (!th->staging && t->o.count != TRC_COUNT_ONLY) {
		t->sink.start(t->sink.ctx, w->tid, &w->ts);
		out_text(t, b);
	}
}

static void print_errno(struct buf *b, int64_t ret)
{
	int err = (int)-ret;
	const char *name;

	switch (err) {
	case ERESTARTSYS:
		buf_puts(b, "= ? ERESTARTSYS (To be restarted if SA_RESTART is set)");
		return;
	case ERESTARTNOINTR:
		buf_puts(b, "= ? ERESTARTNOINTR (To be restarted)");
		return;
	case ERESTARTNOHAND:
		buf_puts(b, "= ? ERESTARTNOHAND (To be restarted if no handler)");
		return;
	case ERESTART_RESTARTBLOCK:
		buf_puts(b, "= ? ERESTART_RESTARTBLOCK (Interrupted by signal)");
		return;
	}
	name = trc_errno_name(err);
	if (name)
		buf_printf(b, "= -1 %s (%s)", name, strerror(err));
	else
		buf_printf(b, "= -1 (errno %d)", err);
}

static void print_retval(struct trc_call *c, int rv)
{
	int64_t ret = c->ret;

	if (c->failed) {
		print_errno(c->b, ret);
	} else if (rv & RV_NONE) {
		buf_puts(c->b, "= ?");
	} else {
		buf_puts(c->b, "= ");
		switch (rv & RV_MASK) {
		case RV_HEX:
			tp_hex(c, c->pers == TRC_PERS_32 ? (uint32_t)ret : (uint64_t)ret);
			break;
		case RV_OCT:
			tp_oct(c, (uint64_t)ret);
			break;
		case RV_UDEC:
			tp_udec(c, c->pers == TRC_PERS_32 ? (uint32_t)ret : (uint64_t)ret);
			break;
		case RV_FD:
			tp_fd(c, (uint64_t)ret);
			break;
		default:
			tp_dec(c, ret);
		}
	}
	if ((rv & RV_STR) && c->auxstr)
		buf_printf(c->b, " (%s)", c->auxstr);
}

static void print_elapsed(struct buf *b, const struct timespec *from, const struct timespec *to)
{
	long long ns = (to->tv_sec - from->tv_sec) * 1000000000ll + (to->tv_nsec - from->tv_nsec);

	if (ns < 0)
		ns = 0;
	buf_printf(b, " <%lld.%06lld>", ns / 1000000000ll, ns % 1000000000ll / 1000);
}

/* The exit half: "<... name resumed>" if another line came in between. */
static void resume_line(struct trc *t, struct trc_thr *th, const struct timespec *ts)
{
	t->sink.resume(t->sink.ctx, th->tid, ts, th->pers, th->nr);
}

static int64_t ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

static bool is_error(enum trc_pers p, int64_t ret)
{
	if (p == TRC_PERS_32)
		ret = (int32_t)ret;
	return ret < 0 && ret >= -4095;
}

void trc_syscall_exit(struct trc *t, const struct trc_who *w, int64_t ret)
{
	struct trc_thr *th = thr_get(t, w->tid, true);
	struct trc_call c;
	int rv;

	if (!th->in_syscall)
		return; /* attached in the middle of a call: strace shows nothing either */
	th->in_syscall = false;
	th->prev_nr = th->nr;
	if (!th->shown)
		return;
	if (t->o.count != TRC_COUNT_OFF)
		t->sink.count(t->sink.ctx, th->pers, th->nr, is_error(th->pers, ret),
			      t->o.count_wall ? ts_ns(&w->ts) - ts_ns(&th->entry_ts)
					      : w->stime_ns - th->entry_stime);
	if (t->o.count == TRC_COUNT_ONLY)
		return;
	buf_reset(&t->pre);
	buf_reset(&t->post);
	call_init(t, &c, w, th, &t->pre);
	c.exiting = true;
	c.ret = th->pers == TRC_PERS_32 ? (int32_t)ret : ret;
	c.failed = is_error(th->pers, ret);
	rv = th->rv;
	if (!(rv & RV_DECODED))
		rv = run_decoder(&c, th->nr);
	buf_puts(&t->pre, ") ");
	c.b = &t->post;
	print_retval(&c, rv);
	if (w->injected)
		buf_puts(c.b, " (INJECTED)");
	if (t->o.show_time)
		print_elapsed(&t->post, &th->entry_ts, &w->ts);
	trc_dump_io(&c, th->nr, &t->post);
	if (th->staging) {
		th->staging = false;
		if (!(c.failed ? t->o.only_fail : t->o.only_ok))
			return;
		/* shown: the whole line at once, as of its entry */
		t->sink.start(t->sink.ctx, th->tid, &th->entry_ts);
		out_text(t, &th->staged);
	} else {
		resume_line(t, th, &w->ts);
	}
	out_text(t, &t->pre);
	t->sink.tab(t->sink.ctx);
	out_text(t, &t->post);
	out_end(t);
}

/* The thread ends inside a syscall (exit_group, or killed): "= ?". */
static void end_in_syscall(struct trc *t, struct trc_thr *th, const struct timespec *ts)
{
	if (!th->in_syscall || !th->shown || t->o.count == TRC_COUNT_ONLY)
		return;
	th->in_syscall = false;
	if (th->staging) {
		th->staging = false;
		return;
	}
	resume_line(t, th, ts);
	if (!(th->rv & RV_DECODED))
		out_str(t, " <unfinished ...>");
	out_str(t, ") ");
	t->sink.tab(t->sink.ctx);
	out_str(t, "= ?");
	out_end(t);
}

void trc_signal(struct trc *t, const struct trc_who *w, const siginfo_t *si)
{
	struct trc_thr *th = thr_get(t, w->tid, true);
	const char *name = trc_signal_name(si->si_signo);
	struct trc_call c;

	if (t->o.count == TRC_COUNT_ONLY || !trc_set_has(&t->o.signals, (unsigned)si->si_signo))
		return;
	buf_reset(&t->pre);
	if (name)
		buf_printf(&t->pre, "--- %s ", name);
	else
		buf_printf(&t->pre, "--- %d ", si->si_signo);
	th->pers = w->pers;
	call_init(t, &c, w, th, &t->pre);
	tp_siginfo(&c, si);
	buf_puts(&t->pre, " ---");
	t->sink.start(t->sink.ctx, w->tid, &w->ts);
	out_text(t, &t->pre);
	out_end(t);
}

void trc_stopped(struct trc *t, const struct trc_who *w, int sig)
{
	const char *name = trc_signal_name(sig);

	if (t->o.count == TRC_COUNT_ONLY || !trc_set_has(&t->o.signals, (unsigned)sig))
		return;
	thr_get(t, w->tid, true);
	buf_reset(&t->pre);
	if (name)
		buf_printf(&t->pre, "--- stopped by %s ---", name);
	else
		buf_printf(&t->pre, "--- stopped by %d ---", sig);
	t->sink.start(t->sink.ctx, w->tid, &w->ts);
	out_text(t, &t->pre);
	out_end(t);
}

/* A line of its own: "+++ exited with 0 +++". */
static void note_line(struct trc *t, const struct trc_who *w)
{
	t->sink.start(t->sink.ctx, w->tid, &w->ts);
	out_text(t, &t->pre);
	out_end(t);
}

void trc_exiting(struct trc *t, const struct trc_who *w)
{
	struct trc_thr *th = thr_get(t, w->tid, false);

	if (th)
		end_in_syscall(t, th, &w->ts);
}

void trc_retid(struct trc *t, const struct trc_who *w, pid_t old)
{
	struct trc_thr *th = thr_get(t, old, false), *leader;

	if (!th || old == w->tid)
		return;
	leader = thr_get(t, w->tid, false);
	if (leader)
		end_in_syscall(t, leader, &w->ts);
	trc_forget(t, w->tid);
	if (t->sink.retid)
		t->sink.retid(t->sink.ctx, old, w->tid);
	th->tid = w->tid;
	if (t->o.count == TRC_COUNT_ONLY || (t->o.quiet & TRC_QUIET_THREAD_EXECVE))
		return;
	buf_reset(&t->pre);
	buf_printf(&t->pre, "+++ superseded by execve in pid %d +++", (int)old);
	note_line(t, w);
}

void trc_exited(struct trc *t, const struct trc_who *w, int status)
{
	struct trc_thr *th = thr_get(t, w->tid, true);

	end_in_syscall(t, th, &w->ts);
	if (t->o.count != TRC_COUNT_ONLY && !(t->o.quiet & TRC_QUIET_EXIT)) {
		buf_reset(&t->pre);
		buf_printf(&t->pre, "+++ exited with %d +++", status);
		note_line(t, w);
	}
	trc_forget(t, w->tid);
}

void trc_killed(struct trc *t, const struct trc_who *w, int sig, bool core)
{
	struct trc_thr *th = thr_get(t, w->tid, true);
	const char *name = trc_signal_name(sig);

	end_in_syscall(t, th, &w->ts);
	if (t->o.count != TRC_COUNT_ONLY && trc_set_has(&t->o.signals, (unsigned)sig)) {
		buf_reset(&t->pre);
		if (name)
			buf_printf(&t->pre, "+++ killed by %s %s+++", name,
				   core ? "(core dumped) " : "");
		else
			buf_printf(&t->pre, "+++ killed by %d %s+++", sig,
				   core ? "(core dumped) " : "");
		note_line(t, w);
	}
	trc_forget(t, w->tid);
}

void trc_summary(struct trc *t)
{
	if (t->own)
		trc_out_summary(t->own);
}
