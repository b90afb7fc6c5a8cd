/*
 * trc_core.c: the line discipline: who prints when, and what a line ends with.
 *
 * strace writes the entry half of a syscall line at once (so a blocked
 * read shows), and the rest at exit. When another thread's line comes in
 * between, the pending one is closed with " <unfinished ...>" and the exit
 * later starts a new line with "<... name resumed>". One pointer
 * (t->printing) says whose line is open at the end of the output; the
 * column count gives tabto() the padding before "= ". With -z/-Z a line is
 * kept back ("staged") until the return value says whether it is shown.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "trc_count.h"
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
	struct buf staged;
};

struct trc {
	struct trc_opts o;
	trc_write_fn write;
	void *wctx;
	struct trc_thr *threads;
	unsigned nthreads;
	struct trc_thr *printing; /* whose line is open at the end of the output */
	size_t col;		  /* characters on the output's current line */
	struct buf out;		  /* text not yet written */
	struct trc_counts *counts;
};

void trc_opts_init(struct trc_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->strsize = 32;
	o->acolumn = 40;
	memset(o->trace, 0xff, sizeof(o->trace));
	memset(&o->signals, 0xff, sizeof(o->signals));
}

struct trc *trc_new(const struct trc_opts *o, trc_write_fn write, void *ctx)
{
	struct trc *t = calloc(1, sizeof(*t));

	if (!t)
		abort();
	t->o = *o;
	t->write = write;
	t->wctx = ctx;
	buf_init(&t->out);
	if (o->count != TRC_COUNT_OFF)
		t->counts = trc_counts_new();
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
	buf_free(&t->out);
	trc_counts_free(t->counts);
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
	t->nthreads++;
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
		if (t->printing == th)
			t->printing = NULL;
		buf_free(&th->staged);
		free(th);
		t->nthreads--;
		return;
	}
}

/* Hand what is in t->out to the writer, keeping the column count. */
static void flush_out(struct trc *t)
{
	const char *nl;

	if (!t->out.len)
		return;
	nl = memrchr(t->out.data, '\n', t->out.len);
	t->col = nl ? t->out.len - (size_t)(nl + 1 - t->out.data) : t->col + t->out.len;
	t->write(t->wctx, t->out.data, t->out.len);
	buf_reset(&t->out);
}

/* Column of the end of b, where b continues the output's current line. */
static size_t col_after(struct trc *t, const struct buf *b, size_t start_col)
{
	const char *nl = memrchr(b->data, '\n', b->len);

	(void)t;
	return nl ? b->len - (size_t)(nl + 1 - b->data) : start_col + b->len;
}

static void print_time(struct trc *t, struct buf *b, const struct timespec *ts)
{
	struct tm tm;
	time_t sec = ts->tv_sec;
	char hms[16];

	if (t->o.tstamp == 3) {
		buf_printf(b, "%lld.%06ld ", (long long)sec, ts->tv_nsec / 1000);
		return;
	}
	if (!localtime_r(&sec, &tm)) {
		buf_printf(b, "%lld ", (long long)sec);
		return;
	}
	strftime(hms, sizeof(hms), "%T", &tm);
	if (t->o.tstamp == 2)
		buf_printf(b, "%s.%06ld ", hms, ts->tv_nsec / 1000);
	else
		buf_printf(b, "%s ", hms);
}

/* Start a line for th in b: the pid prefix and the time stamp. */
static void leader_text(struct trc *t, struct buf *b, struct trc_thr *th, const struct timespec *ts)
{
	if (t->o.pfx == TRC_PFX_PLAIN)
		buf_printf(b, "%-5u ", (unsigned)th->tid);
	else if (t->nthreads > 1)
		buf_printf(b, "[pid %5u] ", (unsigned)th->tid);
	if (t->o.tstamp)
		print_time(t, b, ts);
}

/* Close whatever line is open (" <unfinished ...>"): th's line comes next. */
static void take_line(struct trc *t, struct trc_thr *th)
{
	if (t->printing && t->col != 0)
		buf_puts(&t->out, " <unfinished ...>\n");
	t->printing = th;
	t->col = 0;
}

static void leader(struct trc *t, struct trc_thr *th, const struct timespec *ts)
{
	take_line(t, th);
	leader_text(t, &t->out, th, ts);
}

static void line_ended(struct trc *t)
{
	flush_out(t);
	t->printing = NULL;
	t->col = 0;
}

void trc_flush_pending(struct trc *t, const char *note)
{
	if (t->printing && t->col != 0) {
		buf_puts(&t->out, note);
		buf_putc(&t->out, '\n');
		flush_out(t);
	}
	t->printing = NULL;
	t->col = 0;
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

	if (sp && sp->dec && (c->pers == TRC_PERS_64 || sp->any_pers))
		return sp->dec(c);
	if (c->exiting)
		return RV_DEC;
	return decode_raw(c, sp ? sp->nargs : 6);
}

void trc_syscall_entry(struct trc *t, const struct trc_who *w, long nr, const uint64_t args[6])
{
	struct trc_thr *th = thr_get(t, w->tid, true);
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
	if (!th->shown || t->o.count == TRC_COUNT_ONLY)
		return;
	th->staging = t->o.only_ok || t->o.only_fail;
	if (th->staging) {
		b = &th->staged;
		buf_reset(b);
		leader_text(t, b, th, &w->ts);
	} else {
		leader(t, th, &w->ts);
		b = &t->out;
	}
	print_name(b, w->pers, nr);
	buf_putc(b, '(');
	call_init(t, &c, w, th, b);
	th->rv = run_decoder(&c, nr);
	th->aux = c.aux;
	if (!th->staging)
		flush_out(t);
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

/* Spaces up to the "= " column. */
static void tabto(struct trc *t, struct buf *b, size_t start_col)
{
	size_t col = col_after(t, b, start_col);

	while (col++ < t->o.acolumn)
		buf_putc(b, ' ');
}

static void print_elapsed(struct buf *b, const struct timespec *from, const struct timespec *to)
{
	long long ns = (to->tv_sec - from->tv_sec) * 1000000000ll + (to->tv_nsec - from->tv_nsec);

	if (ns < 0)
		ns = 0;
	buf_printf(b, " <%lld.%06lld>", ns / 1000000000ll, ns % 1000000000ll / 1000);
}

/* Start the exit half: on the open line, or "<... name resumed>" on a new one. */
static struct buf *resume_line(struct trc *t, struct trc_thr *th, const struct timespec *ts,
			       size_t *start_col)
{
	if (th->staging) {
		*start_col = 0;
		return &th->staged;
	}
	if (t->printing != th) {
		leader(t, th, ts);
		buf_puts(&t->out, "<... ");
		print_name(&t->out, th->pers, th->nr);
		buf_puts(&t->out, " resumed>");
	}
	*start_col = t->col;
	return &t->out;
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
	size_t col;
	int rv;

	if (!th->in_syscall)
		return; /* attached in the middle of a call: strace shows nothing either */
	th->in_syscall = false;
	th->prev_nr = th->nr;
	if (!th->shown)
		return;
	if (t->counts)
		trc_counts_add(t->counts, th->pers, th->nr, is_error(th->pers, ret),
			       t->o.count_wall ? ts_ns(&w->ts) - ts_ns(&th->entry_ts)
					       : w->stime_ns - th->entry_stime);
	if (t->o.count == TRC_COUNT_ONLY)
		return;
	call_init(t, &c, w, th, resume_line(t, th, &w->ts, &col));
	c.exiting = true;
	c.ret = th->pers == TRC_PERS_32 ? (int32_t)ret : ret;
	c.failed = is_error(th->pers, ret);
	rv = th->rv;
	if (!(rv & RV_DECODED))
		rv = run_decoder(&c, th->nr);
	buf_puts(c.b, ") ");
	tabto(t, c.b, col);
	print_retval(&c, rv);
	if (t->o.show_time)
		print_elapsed(c.b, &th->entry_ts, &w->ts);
	buf_putc(c.b, '\n');
	if (th->staging) {
		th->staging = false;
		if (c.failed ? t->o.only_fail : t->o.only_ok) {
			take_line(t, th);
			buf_append(&t->out, th->staged.data, th->staged.len);
		}
		buf_reset(&th->staged);
	}
	line_ended(t);
}

/* The thread ends inside a syscall (exit_group, or killed): "= ?". */
static void end_in_syscall(struct trc *t, struct trc_thr *th, const struct timespec *ts)
{
	size_t col;
	struct buf *b;

	if (!th->in_syscall || !th->shown || t->o.count == TRC_COUNT_ONLY)
		return;
	th->in_syscall = false;
	if (th->staging) {
		th->staging = false;
		buf_reset(&th->staged);
		return;
	}
	b = resume_line(t, th, ts, &col);
	if (!(th->rv & RV_DECODED))
		buf_puts(b, " <unfinished ...>");
	buf_puts(b, ") ");
	tabto(t, b, col);
	buf_puts(b, "= ?\n");
	line_ended(t);
}

void trc_signal(struct trc *t, const struct trc_who *w, const siginfo_t *si)
{
	struct trc_thr *th = thr_get(t, w->tid, true);
	const char *name = trc_signal_name(si->si_signo);
	struct trc_call c;

	if (t->o.count == TRC_COUNT_ONLY || !trc_set_has(&t->o.signals, (unsigned)si->si_signo))
		return;
	leader(t, th, &w->ts);
	if (name)
		buf_printf(&t->out, "--- %s ", name);
	else
		buf_printf(&t->out, "--- %d ", si->si_signo);
	th->pers = w->pers;
	call_init(t, &c, w, th, &t->out);
	tp_siginfo(&c, si);
	buf_puts(&t->out, " ---\n");
	line_ended(t);
}

void trc_exited(struct trc *t, const struct trc_who *w, int status)
{
	struct trc_thr *th = thr_get(t, w->tid, true);

	end_in_syscall(t, th, &w->ts);
	if (t->o.count != TRC_COUNT_ONLY && t->o.quiet < 2) {
		leader(t, th, &w->ts);
		buf_printf(&t->out, "+++ exited with %d +++\n", status);
		line_ended(t);
	}
	trc_forget(t, w->tid);
}

void trc_killed(struct trc *t, const struct trc_who *w, int sig, bool core)
{
	struct trc_thr *th = thr_get(t, w->tid, true);
	const char *name = trc_signal_name(sig);

	end_in_syscall(t, th, &w->ts);
	if (t->o.count != TRC_COUNT_ONLY && trc_set_has(&t->o.signals, (unsigned)sig)) {
		leader(t, th, &w->ts);
		if (name)
			buf_printf(&t->out, "+++ killed by %s %s+++\n", name,
				   core ? "(core dumped) " : "");
		else
			buf_printf(&t->out, "+++ killed by %d %s+++\n", sig,
				   core ? "(core dumped) " : "");
		line_ended(t);
	}
	trc_forget(t, w->tid);
}

void trc_summary(struct trc *t)
{
	struct buf b;

	if (!t->counts)
		return;
	trc_flush_pending(t, " <unfinished ...>");
	buf_init(&b);
	trc_counts_print(t->counts, &b);
	if (b.len)
		t->write(t->wctx, b.data, b.len);
	buf_free(&b);
}
