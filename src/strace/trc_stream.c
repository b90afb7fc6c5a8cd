/*
 * trc_stream.c: a core's output (struct trc_sink calls) as bytes, and back.
 *
 * The daemon decodes the syscalls of a process it holds, but the lines
 * must be laid out where every traced process's lines meet: in ustrace,
 * which may trace other processes at the same time (its own engine, other
 * daemon streams). So the daemon's core writes into this encoder rather
 * than into text, and ustrace replays the calls into its one trc_out.
 *
 * Records, one letter each, numbers in decimal ending with ',' or ';':
 *   S tid,sec,nsec;          start a line
 *   R tid,sec,nsec,pers,nr;  resume tid's line (syscall nr of pers)
 *   s tid;  r tid,pers,nr;   the same without the time (no -t: it is
 *                            never printed, and the stream is what the
 *                            daemon's back-pressure counts)
 *   T len;BYTES              text
 *   A                        pad to the "= " column
 *   E                        end the line
 *   C pers,nr,err,ns;        a call for -c
 *   N tid;  G tid;           a task is traced / is gone
 *   P old,tid;               task old exec'd and is tid now
 * The decoder takes any split of the bytes, and refuses (for good) what
 * does not parse: the stream comes from another process.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trc_stream.h"

#define MAX_TEXT  (1u << 20) /* a T record longer than this is an error */
#define MAX_HEAD  96	     /* a record's letter and numbers */
#define MAX_TASKS 65536	     /* tasks one stream may announce */
#define MAX_NUMS  5

/* ---- encoding: a sink whose ctx is a struct buf */

static void enc_start(void *ctx, pid_t tid, const struct timespec *ts)
{
	buf_printf(ctx, "S%d,%lld,%ld;", (int)tid, (long long)ts->tv_sec, ts->tv_nsec);
}

static void enc_resume(void *ctx, pid_t tid, const struct timespec *ts, enum trc_pers p, long nr)
{
	buf_printf(ctx, "R%d,%lld,%ld,%d,%ld;", (int)tid, (long long)ts->tv_sec, ts->tv_nsec,
		   (int)p, nr);
}

static void enc_start_nt(void *ctx, pid_t tid, const struct timespec *ts)
{
	(void)ts;
	buf_printf(ctx, "s%d;", (int)tid);
}

static void enc_resume_nt(void *ctx, pid_t tid, const struct timespec *ts, enum trc_pers p, long nr)
{
	(void)ts;
	buf_printf(ctx, "r%d,%d,%ld;", (int)tid, (int)p, nr);
}

static void enc_text(void *ctx, const char *s, size_t n)
{
	buf_printf(ctx, "T%zu;", n);
	buf_append(ctx, s, n);
}

static void enc_tab(void *ctx)
{
	buf_putc(ctx, 'A');
}

static void enc_end(void *ctx)
{
	buf_putc(ctx, 'E');
}

static void enc_count(void *ctx, enum trc_pers p, long nr, bool error, int64_t ns)
{
	buf_printf(ctx, "C%d,%ld,%d,%lld;", (int)p, nr, (int)error, (long long)ns);
}

static void enc_task(void *ctx, pid_t tid, bool alive)
{
	buf_printf(ctx, "%c%d;", alive ? 'N' : 'G', (int)tid);
}

static void enc_retid(void *ctx, pid_t old, pid_t tid)
{
	buf_printf(ctx, "P%d,%d;", (int)old, (int)tid);
}

struct trc_sink trc_stream_sink(struct buf *b, bool times)
{
	struct trc_sink k = {b,	      enc_start, enc_resume, enc_text, enc_tab,
			     enc_end, enc_count, enc_task,   enc_retid};

	if (!times) {
		k.start = enc_start_nt;
		k.resume = enc_resume_nt;
	}
	return k;
}

/* ---- decoding */

struct trc_stream_rx {
	struct buf in; /* bytes not yet a whole record */
	bool broken;
	pid_t *tasks; /* announced and not gone: let go at the end */
	size_t ntasks, cap;
};

struct trc_stream_rx *trc_stream_rx_new(void)
{
	struct trc_stream_rx *rx = calloc(1, sizeof(*rx));

	if (!rx)
		abort();
	buf_init(&rx->in);
	return rx;
}

void trc_stream_rx_free(struct trc_stream_rx *rx)
{
	if (!rx)
		return;
	buf_free(&rx->in);
	free(rx->tasks);
	free(rx);
}

/* A task announced (N) or gone (G): only the stream's own, each once. */
static int rx_task(struct trc_stream_rx *rx, pid_t tid, bool alive, const struct trc_sink *to)
{
	size_t i;

	for (i = 0; i < rx->ntasks && rx->tasks[i] != tid; i++)
		;
	if (alive == (i < rx->ntasks))
		return 0; /* already known, or not known: nothing changes */
	if (!alive) {
		rx->tasks[i] = rx->tasks[--rx->ntasks];
	} else {
		if (rx->ntasks == MAX_TASKS)
			return -1;
		if (rx->ntasks == rx->cap) {
			size_t cap = rx->cap ? 2 * rx->cap : 16;
			pid_t *t = realloc(rx->tasks, cap * sizeof(*t));

			if (!t)
				return -1;
			rx->tasks = t;
			rx->cap = cap;
		}
		rx->tasks[rx->ntasks++] = tid;
	}
	to->task(to->ctx, tid, alive);
	return 0;
}

/* P: one of the stream's tasks goes by another tid from now on. */
static int rx_retid(struct trc_stream_rx *rx, pid_t old, pid_t tid, const struct trc_sink *to)
{
	size_t i;

	for (i = 0; i < rx->ntasks && rx->tasks[i] != old; i++)
		;
	if (i == rx->ntasks || old == tid)
		return -1;
	for (size_t j = 0; j < rx->ntasks; j++)
		if (rx->tasks[j] == tid)
			return -1; /* the leader it replaced is gone first (G) */
	rx->tasks[i] = tid;
	if (to->retid)
		to->retid(to->ctx, old, tid);
	return 0;
}

/*
 * n numbers of the record at p (after its letter), up to its ';'. Returns
 * the bytes used, 0 if the record is not all there yet, -1 if malformed.
 */
static long get_nums(const char *p, size_t len, long long *v, int n)
{
	size_t i = 0;

	for (int k = 0; k < n; k++) {
		unsigned long long mag = 0; /* up to 2^63: LLONG_MIN is a syscall number too */
		bool neg = false;
		size_t digits = 0;

		if (i < len && p[i] == '-') {
			neg = true;
			i++;
		}
		for (; i < len && p[i] >= '0' && p[i] <= '9'; i++) {
			if (++digits > 19)
				return -1;
			mag = mag * 10 + (unsigned long long)(p[i] - '0');
		}
		if (i == len)
			return len >= MAX_HEAD ? -1 : 0;
		if (!digits || p[i] != (k == n - 1 ? ';' : ',') ||
		    mag > (neg ? 1ull << 63 : LLONG_MAX))
			return -1;
		v[k] = neg ? (long long)(0 - mag) : (long long)mag;
		i++;
	}
	return (long)i;
}

static bool good_tid(long long v)
{
	return v > 0 && v <= 0x7fffffff;
}

/* One record at p; the bytes it took, 0 if incomplete, -1 if malformed. */
static long rx_record(struct trc_stream_rx *rx, const char *p, size_t len,
		      const struct trc_sink *to)
{
	static const int nnums[128] = {['S'] = 3, ['R'] = 5, ['s'] = 1, ['r'] = 3, ['T'] = 1,
				       ['C'] = 4, ['N'] = 1, ['G'] = 1, ['P'] = 2};
	long long v[MAX_NUMS];
	unsigned char tag = (unsigned char)p[0];
	struct timespec ts = {0, 0};
	long used;

	if (tag == 'A' || tag == 'E') {
		(tag == 'A' ? to->tab : to->end)(to->ctx);
		return 1;
	}
	if (tag >= 128 || !nnums[tag])
		return -1;
	used = get_nums(p + 1, len - 1, v, nnums[tag]);
	if (used <= 0)
		return used;
	used++;
	switch (tag) {
	case 's': /* as S and R, at time 0 */
	case 'r':
		if (tag == 'r') {
			v[4] = v[2];
			v[3] = v[1];
		}
		v[1] = v[2] = 0;
		tag = tag == 's' ? 'S' : 'R';
		/* fall through */
	case 'S':
	case 'R':
		if (!good_tid(v[0]) || v[2] < 0 || v[2] >= 1000000000)
			return -1;
		ts.tv_sec = (time_t)v[1];
		ts.tv_nsec = (long)v[2];
		if (tag == 'S') {
			to->start(to->ctx, (pid_t)v[0], &ts);
		} else {
			if (v[3] != TRC_PERS_64 && v[3] != TRC_PERS_32)
				return -1;
			to->resume(to->ctx, (pid_t)v[0], &ts, (enum trc_pers)v[3], (long)v[4]);
		}
		return used;
	case 'T':
		if (v[0] < 0 || v[0] > MAX_TEXT)
			return -1;
		if ((size_t)used + (size_t)v[0] > len)
			return 0;
		to->text(to->ctx, p + used, (size_t)v[0]);
		return used + (long)v[0];
	case 'C':
		if ((v[0] != TRC_PERS_64 && v[0] != TRC_PERS_32) || (v[2] != 0 && v[2] != 1))
			return -1;
		to->count(to->ctx, (enum trc_pers)v[0], (long)v[1], v[2], v[3]);
		return used;
	case 'P':
		if (!good_tid(v[0]) || !good_tid(v[1]))
			return -1;
		return rx_retid(rx, (pid_t)v[0], (pid_t)v[1], to) < 0 ? -1 : used;
	default: /* N, G */
		if (!good_tid(v[0]))
			return -1;
		return rx_task(rx, (pid_t)v[0], tag == 'N', to) < 0 ? -1 : used;
	}
}

int trc_stream_feed(struct trc_stream_rx *rx, const char *s, size_t n, const struct trc_sink *to)
{
	size_t off = 0;

	if (rx->broken)
		return -1;
	buf_append(&rx->in, s, n);
	while (off < rx->in.len) {
		long used = rx_record(rx, rx->in.data + off, rx->in.len - off, to);

		if (used < 0) {
			rx->broken = true;
			buf_reset(&rx->in);
			return -1;
		}
		if (used == 0)
			break;
		off += (size_t)used;
	}
	buf_consume(&rx->in, off);
	return 0;
}

void trc_stream_end(struct trc_stream_rx *rx, const struct trc_sink *to)
{
	while (rx->ntasks)
		to->task(to->ctx, rx->tasks[--rx->ntasks], false);
	buf_reset(&rx->in);
}
