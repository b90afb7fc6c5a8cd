/*
 * trc_count.c: the -c summary table.
 *
 * Times are what strace 6.1 sums: by default the system CPU time the
 * process used between the syscall's entry and exit stops (wait4's
 * rusage at each stop, a whole-process figure as strace's is), with -w
 * the wall-clock time between the two stops. The caller measures; this
 * file only adds up and prints.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trc_count.h"
#include "trc_int.h"

struct trc_count_ent {
	unsigned long long calls, errors;
	long long ns;
};

struct trc_counts {
	struct trc_count_ent *ent[TRC_NPERS];
	long n[TRC_NPERS];
};

struct trc_counts *trc_counts_new(void)
{
	struct trc_counts *k = calloc(1, sizeof(*k));
	int p;

	if (!k)
		abort();
	for (p = 0; p < TRC_NPERS; p++) {
		k->n[p] = trc_syscall_max(p) + 1;
		k->ent[p] = calloc((size_t)k->n[p], sizeof(*k->ent[p]));
		if (!k->ent[p])
			abort();
	}
	return k;
}

void trc_counts_free(struct trc_counts *k)
{
	int p;

	if (!k)
		return;
	for (p = 0; p < TRC_NPERS; p++)
		free(k->ent[p]);
	free(k);
}

void trc_counts_add(struct trc_counts *k, enum trc_pers p, long nr, bool error, long long ns)
{
	struct trc_count_ent *e;

	if (nr < 0 || nr >= k->n[p])
		nr = k->n[p] - 1; /* the last slot collects unknown numbers */
	e = &k->ent[p][nr];
	e->calls++;
	e->errors += error;
	e->ns += ns > 0 ? ns : 0;
}

static const struct trc_count_ent *sort_ents;

/* By time spent, most first; ties in syscall number order. */
static int by_time(const void *a, const void *b)
{
	long ia = *(const long *)a, ib = *(const long *)b;
	long long ta = sort_ents[ia].ns, tb = sort_ents[ib].ns;

	if (ta != tb)
		return ta > tb ? -1 : 1;
	return ia < ib ? -1 : ia > ib;
}

static int width(const char *fmt, double v)
{
	char tmp[64];

	return snprintf(tmp, sizeof(tmp), fmt, v);
}

static void dashes(struct buf *b, const int *w, int ncol)
{
	int i, j;

	for (i = 0; i < ncol; i++) {
		if (i)
			buf_putc(b, ' ');
		for (j = 0; j < w[i]; j++)
			buf_putc(b, '-');
	}
	buf_putc(b, '\n');
}

static const char *ent_name(enum trc_pers p, long nr, char *tmp, size_t len)
{
	const char *name = trc_syscall_name(p, nr);

	if (name)
		return name;
	snprintf(tmp, len, "syscall_%#lx", (unsigned long)nr);
	return tmp;
}

static void print_pers(const struct trc_counts *k, enum trc_pers p, struct buf *b)
{
	const struct trc_count_ent *e = k->ent[p];
	unsigned long long calls = 0, errors = 0;
	long long ns = 0, avg_max = 0;
	long i, n = 0, *idx = calloc((size_t)k->n[p], sizeof(long));
	int w[7] = {6, 11, 11, 9, 9, 16};
	size_t name_max = 0;
	char tmp[32];

	if (!idx)
		abort();
	for (i = 0; i < k->n[p]; i++) {
		if (!e[i].calls)
			continue;
		idx[n++] = i;
		calls += e[i].calls;
		errors += e[i].errors;
		ns += e[i].ns;
		if (e[i].ns / (long long)e[i].calls > avg_max)
			avg_max = e[i].ns / (long long)e[i].calls;
		if (strlen(ent_name(p, i, tmp, sizeof(tmp))) > name_max)
			name_max = strlen(ent_name(p, i, tmp, sizeof(tmp)));
	}
	sort_ents = e;
	qsort(idx, (size_t)n, sizeof(long), by_time);
	if (width("%.6f", ns / 1e9) > w[1])
		w[1] = width("%.6f", ns / 1e9);
	if (width("%.0f", (double)(avg_max / 1000)) > w[2])
		w[2] = width("%.0f", (double)(avg_max / 1000));
	if (width("%.0f", (double)calls) > w[3])
		w[3] = width("%.0f", (double)calls);
	if (width("%.0f", (double)errors) > w[4])
		w[4] = width("%.0f", (double)errors);
	if ((int)name_max + 1 > w[5])
		w[5] = (int)name_max + 1;
	buf_printf(b, "%*s %*s %*s %*s %*s %s\n", w[0], "% time", w[1], "seconds", w[2],
		   "usecs/call", w[3], "calls", w[4], "errors", "syscall");
	dashes(b, w, 6);
	for (i = 0; i < n; i++) {
		const struct trc_count_ent *x = &e[idx[i]];
		double pct = ns ? 100.0 * (double)x->ns / (double)ns : 0.0;

		buf_printf(b, "%*.2f %*.6f %*llu %*llu %*.0llu %s\n", w[0], pct, w[1], x->ns / 1e9,
			   w[2], (unsigned long long)(x->ns / (long long)x->calls / 1000), w[3],
			   x->calls, w[4], x->errors, ent_name(p, idx[i], tmp, sizeof(tmp)));
	}
	dashes(b, w, 6);
	buf_printf(b, "%*.2f %*.6f %*llu %*llu %*.0llu %s\n", w[0], 100.0, w[1], ns / 1e9, w[2],
		   calls ? (unsigned long long)(ns / (long long)calls / 1000) : 0ull, w[3], calls,
		   w[4], errors, "total");
	free(idx);
}

static bool pers_used(const struct trc_counts *k, enum trc_pers p)
{
	long i;

	for (i = 0; i < k->n[p]; i++)
		if (k->ent[p][i].calls)
			return true;
	return false;
}

void trc_counts_print(const struct trc_counts *k, struct buf *b)
{
	if (pers_used(k, TRC_PERS_64))
		print_pers(k, TRC_PERS_64, b);
	if (pers_used(k, TRC_PERS_32)) {
		buf_puts(b, "System call usage summary for 32 bit mode:\n");
		print_pers(k, TRC_PERS_32, b);
	}
}
