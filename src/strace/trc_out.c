/*
 * trc_out.c: where trace events become strace's text: the line discipline
 * and the -c table.
 *
 * strace writes the entry half of a syscall line at once (so a blocked
 * read shows), and the rest at exit. When another task's line comes in
 * between, the open one is closed with " <unfinished ...>" and the exit
 * later starts a new line with "<... name resumed>". Which task's line is
 * open is a fact about the one output, not about one source of events:
 * ustrace's own core and every process the daemon traces for it
 * (trc_stream.c carries a core's output across) feed the same trc_out, so
 * their lines interleave as strace's would. The same goes for the
 * "[pid N]" prefix (more than one task known, wherever it is traced) and
 * for the -c table (one for all).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trc_count.h"
#include "trc_int.h"

struct trc_out {
	struct trc_opts o;
	trc_write_fn write;
	void *wctx;
	bool open;     /* a line is open at the end of the output ... */
	pid_t printer; /* ... and it is this task's */
	size_t col;    /* characters on the output's current line */
	unsigned long tasks;
	struct trc_rel own_rel, *rel; /* -r: its own clock, or a shared one */
	struct buf b;		      /* a leader or a resume being built */
	struct trc_counts *counts;
};

struct trc_out *trc_out_new(const struct trc_opts *o, trc_write_fn write, void *ctx)
{
	struct trc_out *out = calloc(1, sizeof(*out));

	if (!out)
		abort();
	out->o = *o;
	out->write = write;
	out->wctx = ctx;
	out->rel = &out->own_rel;
	buf_init(&out->b);
	if (o->count != TRC_COUNT_OFF)
		out->counts = trc_counts_new();
	return out;
}

void trc_out_share_rel(struct trc_out *out, struct trc_rel *rel)
{
	out->rel = rel;
}

void trc_out_free(struct trc_out *out)
{
	if (!out)
		return;
	buf_free(&out->b);
	trc_counts_free(out->counts);
	free(out);
}

static void emit(struct trc_out *out, const char *s, size_t n)
{
	const char *nl;

	if (!n)
		return;
	nl = memrchr(s, '\n', n);
	out->col = nl ? n - (size_t)(nl + 1 - s) : out->col + n;
	out->write(out->wctx, s, n);
}

static void print_time(struct trc_out *out, struct buf *b, const struct timespec *ts)
{
	struct tm tm;
	time_t sec = ts->tv_sec;
	char hms[16];

	if (out->o.tstamp == 3) {
		buf_printf(b, "%lld.%06ld ", (long long)sec, ts->tv_nsec / 1000);
		return;
	}
	if (!localtime_r(&sec, &tm)) {
		buf_printf(b, "%lld ", (long long)sec);
		return;
	}
	strftime(hms, sizeof(hms), "%T", &tm);
	if (out->o.tstamp == 2)
		buf_printf(b, "%s.%06ld ", hms, ts->tv_nsec / 1000);
	else
		buf_printf(b, "%s ", hms);
}

/* -r: the time since the previous line started, alone or after -t's "(+ ...)". */
static void print_relative(struct trc_out *out, struct buf *b, const struct timespec *ts)
{
	long long sec = 0;
	long nsec = 0;

	if (out->rel->have) {
		sec = (long long)ts->tv_sec - out->rel->prev.tv_sec;
		nsec = ts->tv_nsec - out->rel->prev.tv_nsec;
		if (nsec < 0) {
			nsec += 1000000000;
			sec--;
		}
		if (sec < 0) /* a daemon's records can come after later local lines */
			sec = nsec = 0;
	}
	out->rel->prev = *ts;
	out->rel->have = true;
	buf_printf(b, out->o.tstamp ? "(+%6lld.%06ld) " : "%6lld.%06ld ", sec, nsec / 1000);
}

/* Close whatever line is open (" <unfinished ...>"), start tid's: prefix, time. */
static void start(void *ctx, pid_t tid, const struct timespec *ts)
{
	struct trc_out *out = ctx;

	if (out->open && out->col != 0)
		emit(out, " <unfinished ...>\n", strlen(" <unfinished ...>\n"));
	out->open = true;
	out->printer = tid;
	out->col = 0;
	buf_reset(&out->b);
	if (out->o.pfx == TRC_PFX_PLAIN)
		buf_printf(&out->b, "%-5u ", (unsigned)tid);
	else if (out->tasks > 1) /* as strace: while more than one task is traced */
		buf_printf(&out->b, "[pid %5u] ", (unsigned)tid);
	if (out->o.tstamp)
		print_time(out, &out->b, ts);
	if (out->o.relative)
		print_relative(out, &out->b, ts);
	emit(out, out->b.data, out->b.len);
}

/* The exit half: on the open line if it is still tid's, else "<... name resumed>". */
static void resume(void *ctx, pid_t tid, const struct timespec *ts, enum trc_pers p, long nr)
{
	struct trc_out *out = ctx;
	const char *name = trc_syscall_name(p, nr);
	char text[64];
	int n;

	if (out->open && out->printer == tid)
		return;
	start(out, tid, ts);
	if (name)
		n = snprintf(text, sizeof(text), "<... %s resumed>", name);
	else
		n = snprintf(text, sizeof(text), "<... syscall_%#lx resumed>", (unsigned long)nr);
	emit(out, text, (size_t)n);
}

static void text(void *ctx, const char *s, size_t n)
{
	emit(ctx, s, n);
}

/* Spaces up to the "= " column. */
static void tab(void *ctx)
{
	struct trc_out *out = ctx;
	static const char spaces[] = "                                ";

	while (out->col < out->o.acolumn) {
		size_t n = out->o.acolumn - out->col;

		emit(out, spaces, n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1);
	}
}

static void end(void *ctx)
{
	struct trc_out *out = ctx;

	emit(out, "\n", 1);
	out->open = false;
	out->col = 0;
}

static void count(void *ctx, enum trc_pers p, long nr, bool error, int64_t ns)
{
	struct trc_out *out = ctx;

	if (out->counts && (p == TRC_PERS_64 || p == TRC_PERS_32))
		trc_counts_add(out->counts, p, nr, error, ns);
}

static void task(void *ctx, pid_t tid, bool alive)
{
	struct trc_out *out = ctx;

	(void)tid;
	if (alive)
		out->tasks++;
	else if (out->tasks)
		out->tasks--;
}

/* strace ends the exec'ing thread's open line so, before its pid changes. */
static void retid(void *ctx, pid_t old, pid_t tid)
{
	struct trc_out *out = ctx;
	char note[64];
	int n;

	if (!out->open || out->printer != old || out->col == 0)
		return;
	n = snprintf(note, sizeof(note), " <pid changed to %d ...>\n", (int)tid);
	emit(out, note, (size_t)n);
	out->open = false;
	out->col = 0;
}

struct trc_sink trc_out_sink(struct trc_out *out)
{
	return (struct trc_sink){out, start, resume, text, tab, end, count, task, retid};
}

void trc_out_flush_pending(struct trc_out *out, const char *note)
{
	if (out->open && out->col != 0) {
		emit(out, note, strlen(note));
		emit(out, "\n", 1);
	}
	out->open = false;
	out->col = 0;
}

void trc_out_summary(struct trc_out *out)
{
	struct buf b;

	if (!out->counts)
		return;
	trc_out_flush_pending(out, " <unfinished ...>");
	buf_init(&b);
	trc_counts_print(out->counts, &b);
	if (b.len)
		out->write(out->wctx, b.data, b.len);
	buf_free(&b);
}
