/*
 * trc_split.c: strace's -ff, each task's lines in an output of its own
 * (ustrace opens FILE.TID for it).
 *
 * A trc_sink in front of one trc_out per task: every event goes to the
 * out of the task it names, and the text, tab and end that follow go to
 * the task whose line was started or resumed last. Since each out sees a
 * single task, no line of another comes in between: no " <unfinished
 * ...>", no "[pid N]" prefix, as in strace's files. A task's output is
 * closed when the task is gone; should the same tid come back (an event
 * after its forgetting, or tid reuse) it is opened again to append.
 */
#include <stdlib.h>

#include "trc_int.h"

struct split_task {
	pid_t tid;
	void *wctx; /* the opener's; NULL: the output could not be opened */
	struct trc_out *out;
	struct trc_sink sink;
};

struct trc_split {
	struct trc_opts o;
	const struct trc_split_io *io;
	struct split_task *tasks;
	size_t ntasks, cap;
	pid_t *seen; /* every tid ever opened, to append rather than truncate */
	size_t nseen, seen_cap;
	struct split_task *cur;
	struct trc_rel rel; /* -r: from the last line of any task, as strace */
};

static void *grow(void *p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? 2 * *cap : 16;
	p = realloc(p, *cap * size);
	if (!p)
		abort();
	return p;
}

static bool seen_before(struct trc_split *s, pid_t tid)
{
	for (size_t i = 0; i < s->nseen; i++)
		if (s->seen[i] == tid)
			return true;
	s->seen = grow(s->seen, &s->seen_cap, s->nseen, sizeof(*s->seen));
	s->seen[s->nseen++] = tid;
	return false;
}

static void discard(void *ctx, const char *str, size_t n)
{
	(void)ctx, (void)str, (void)n;
}

static struct split_task *task_find(struct trc_split *s, pid_t tid)
{
	for (size_t i = 0; i < s->ntasks; i++)
		if (s->tasks[i].tid == tid)
			return &s->tasks[i];
	return NULL;
}

static struct split_task *task_get(struct trc_split *s, pid_t tid)
{
	struct split_task *t = task_find(s, tid);
	bool again;

	if (t)
		return t;
	s->tasks = grow(s->tasks, &s->cap, s->ntasks, sizeof(*s->tasks));
	s->cur = NULL; /* the array may have moved */
	t = &s->tasks[s->ntasks++];
	again = seen_before(s, tid);
	t->tid = tid;
	t->wctx = s->io->open(s->io->ctx, tid, again);
	t->out = trc_out_new(&s->o, t->wctx ? s->io->write : discard, t->wctx);
	trc_out_share_rel(t->out, &s->rel);
	t->sink = trc_out_sink(t->out);
	return t;
}

static void task_close(struct trc_split *s, struct split_task *t)
{
	trc_out_flush_pending(t->out, " <unfinished ...>");
	trc_out_free(t->out);
	if (t->wctx)
		s->io->close(s->io->ctx, t->wctx);
	*t = s->tasks[--s->ntasks];
	s->cur = NULL;
}

static void split_start(void *ctx, pid_t tid, const struct timespec *ts)
{
	struct trc_split *s = ctx;

	s->cur = task_get(s, tid);
	s->cur->sink.start(s->cur->sink.ctx, tid, ts);
}

static void split_resume(void *ctx, pid_t tid, const struct timespec *ts, enum trc_pers p, long nr)
{
	struct trc_split *s = ctx;

	s->cur = task_get(s, tid);
	s->cur->sink.resume(s->cur->sink.ctx, tid, ts, p, nr);
}

static void split_text(void *ctx, const char *str, size_t n)
{
	struct trc_split *s = ctx;

	if (s->cur)
		s->cur->sink.text(s->cur->sink.ctx, str, n);
}

static void split_tab(void *ctx)
{
	struct trc_split *s = ctx;

	if (s->cur)
		s->cur->sink.tab(s->cur->sink.ctx);
}

static void split_end(void *ctx)
{
	struct trc_split *s = ctx;

	if (s->cur)
		s->cur->sink.end(s->cur->sink.ctx);
}

/* -c is refused with -ff, as strace does: nothing to count here. */
static void split_count(void *ctx, enum trc_pers p, long nr, bool error, int64_t ns)
{
	(void)ctx, (void)p, (void)nr, (void)error, (void)ns;
}

static void split_task(void *ctx, pid_t tid, bool alive)
{
	struct trc_split *s = ctx;
	struct split_task *t = alive ? task_get(s, tid) : task_find(s, tid);

	if (!alive && t)
		task_close(s, t);
}

/* As strace -ff: the exec'ing thread's file goes on as the new leader's. */
static void split_retid(void *ctx, pid_t old, pid_t tid)
{
	struct trc_split *s = ctx;
	struct split_task *t = task_find(s, old), *gone = task_find(s, tid);

	if (!t)
		return;
	if (gone) {
		task_close(s, gone);
		t = task_find(s, old); /* (the array moved under it) */
	}
	t->sink.retid(t->sink.ctx, old, tid);
	t->tid = tid;
}

struct trc_split *trc_split_new(const struct trc_opts *o, const struct trc_split_io *io)
{
	struct trc_split *s = calloc(1, sizeof(*s));

	if (!s)
		abort();
	s->o = *o;
	s->o.pfx = TRC_PFX_AUTO; /* one task per output: never a prefix */
	s->o.count = TRC_COUNT_OFF;
	s->io = io;
	return s;
}

struct trc_sink trc_split_sink(struct trc_split *s)
{
	return (struct trc_sink){
		.ctx = s,
		.start = split_start,
		.resume = split_resume,
		.text = split_text,
		.tab = split_tab,
		.end = split_end,
		.count = split_count,
		.task = split_task,
		.retid = split_retid,
	};
}

void trc_split_flush_pending(struct trc_split *s, const char *note)
{
	for (size_t i = 0; i < s->ntasks; i++)
		trc_out_flush_pending(s->tasks[i].out, note);
}

void trc_split_free(struct trc_split *s)
{
	if (!s)
		return;
	while (s->ntasks)
		task_close(s, &s->tasks[s->ntasks - 1]);
	free(s->tasks);
	free(s->seen);
	free(s);
}
