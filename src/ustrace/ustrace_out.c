/*
 * ustrace_out.c: where ustrace's lines go: stderr, -o FILE, or with -ff
 * and -o a file FILE.TID for each task (src/strace/trc_split.c), as
 * strace. Every line is written when it ends (line buffering, as strace
 * flushes), so that a `tail -f` of the output sees it at once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ustrace.h"

struct ust_out {
	FILE *f;		 /* stderr or -o FILE; NULL with -ff */
	struct trc_out *out;	 /* ... its lines and the -c table */
	struct trc_split *split; /* -ff: FILE.TID */
	struct trc_split_io io;
	const char *prefix;
	const char *path; /* -o FILE, for the message when writing it failed */
};

static void file_write(void *ctx, const char *s, size_t n)
{
	fwrite(s, 1, n, ctx);
}

/* An output file, line-buffered; NULL (said on stderr, as strace) if it cannot be. */
static FILE *out_file(const char *path, const char *mode)
{
	FILE *f = fopen(path, mode);

	if (!f) {
		fprintf(stderr, "%s: Can't fopen '%s': %s\n", ust_progname, path, strerror(errno));
		return NULL;
	}
	setvbuf(f, NULL, _IOLBF, 0);
	return f;
}

static void *task_open(void *ctx, pid_t tid, bool again)
{
	struct ust_out *uo = ctx;
	char path[4096];

	snprintf(path, sizeof(path), "%s.%d", uo->prefix, (int)tid);
	return out_file(path, again ? "ae" : "we");
}

static void task_close(void *ctx, void *wctx)
{
	(void)ctx;
	fclose(wctx);
}

struct ust_out *ust_out_open(const struct ust_opts *o)
{
	struct ust_out *uo = calloc(1, sizeof(*uo));

	if (!uo)
		abort();
	if (o->split && o->outfile) {
		uo->prefix = o->outfile;
		uo->io = (struct trc_split_io){uo, task_open, file_write, task_close};
		uo->split = trc_split_new(&o->trc, &uo->io);
		return uo;
	}
	uo->f = o->outfile ? out_file(o->outfile, "we") : stderr;
	uo->path = o->outfile;
	if (!uo->f) {
		free(uo);
		return NULL;
	}
	if (uo->f == stderr)
		setvbuf(stderr, NULL, _IOLBF, 0); /* a line at a time there too, as strace */
	uo->out = trc_out_new(&o->trc, file_write, uo->f);
	return uo;
}

struct trc_sink ust_out_sink(struct ust_out *uo)
{
	return uo->split ? trc_split_sink(uo->split) : trc_out_sink(uo->out);
}

void ust_out_flush_pending(struct ust_out *uo, const char *note)
{
	if (uo->split)
		trc_split_flush_pending(uo->split, note);
	else
		trc_out_flush_pending(uo->out, note);
}

void ust_out_close(struct ust_out *uo)
{
	if (uo->split) {
		trc_split_free(uo->split);
	} else {
		trc_out_summary(uo->out);
		trc_out_free(uo->out);
		if (uo->f != stderr && (fflush(uo->f) || ferror(uo->f)))
			/* as strace: said, and not an error of the trace's exit status */
			fprintf(stderr, "%s: %s: %s\n", ust_progname, uo->path, strerror(errno));
		if (uo->f != stderr)
			fclose(uo->f);
		else
			fflush(stderr);
	}
	free(uo);
}
