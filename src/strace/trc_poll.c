/*
 * trc_poll.c: decoders of poll, select and the epoll calls.
 *
 * What the kernel reports back (revents, the ready sets, the time left)
 * goes in parentheses after the return value, as strace prints it:
 * "= 1 ([{fd=3, revents=POLLIN}])", "= 0 (Timeout)".
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "trc_int.h"

static const struct xlat poll_events[] = {
	XV(POLLIN),	XV(POLLPRI),	XV(POLLOUT),	XV(POLLERR),
	XV(POLLHUP),	XV(POLLNVAL),	XV(POLLRDNORM), XV(POLLRDBAND),
	XV(POLLWRNORM), XV(POLLWRBAND), XV(POLLMSG),	{0x1000, "POLLREMOVE"},
	XV(POLLRDHUP),	XEND,
};

static const struct xlat epoll_events[] = {
	XV(EPOLLIN),
	XV(EPOLLPRI),
	XV(EPOLLOUT),
	XV(EPOLLERR),
	XV(EPOLLHUP),
	{0x20, "EPOLLNVAL"},
	XV(EPOLLRDNORM),
	XV(EPOLLRDBAND),
	XV(EPOLLWRNORM),
	XV(EPOLLWRBAND),
	XV(EPOLLMSG),
	XV(EPOLLRDHUP),
	XV(EPOLLEXCLUSIVE),
	XV(EPOLLWAKEUP),
	XV(EPOLLONESHOT),
	XV(EPOLLET),
	XEND,
};

#define POLL_MAX 1024 /* pollfds shown; strace cuts long arrays too */

int trc_dec_poll(struct trc_call *c)
{
	struct pollfd fds[64];
	uint64_t n = c->a[1], i, shown = 0;
	struct buf tmp, *line = c->b;

	if (!c->exiting) {
		for (i = 0; c->o->paths[0] && i < n && i < 1024; i++) { /* -P: every fd counts */
			struct pollfd one;

			if (tp_read(c, c->a[0] + i * sizeof(one), &one, sizeof(one)))
				break;
			tp_fd_match(c, one.fd);
		}
		if (n > 64 || (n && tp_read(c, c->a[0], fds, sizeof(fds[0])))) {
			tp_addr(c, c->a[0]);
		} else {
			buf_putc(c->b, '[');
			for (i = 0; i < n; i++) {
				uint64_t at = c->a[0] + i * sizeof(fds[0]);

				if (i)
					tp_sep(c);
				if (tp_read(c, at, &fds[i], sizeof(fds[i]))) {
					tp_str(c, "... /* "); /* as strace: the part that could be
								 read */
					tp_addr(c, at);
					tp_str(c, " */");
					break;
				}
				if (c->abbrev && i >= c->o->strsize) { /* -s cuts arrays too */
					tp_str(c, "...");
					break;
				}
				tp_str(c, "{fd=");
				tp_fd(c, (uint64_t)(int64_t)fds[i].fd); /* -y, and -P looks here */
				tp_str(c, ", events=");
				tp_flags(c, poll_events, (uint16_t)fds[i].events, "POLL???");
				buf_putc(c->b, '}');
			}
			buf_putc(c->b, ']');
		}
		tp_fmt(c, ", %u, %d", (unsigned)n, (int)c->a[2]);
		return 0;
	}
	if (c->failed)
		return RV_DEC;
	if (c->ret == 0) {
		c->auxstr = "Timeout";
		return RV_DEC | RV_STR;
	}
	if (n > 64 || tp_read(c, c->a[0], fds, n * sizeof(fds[0])))
		return RV_DEC;
	buf_init(&tmp);
	c->b = &tmp;
	buf_putc(c->b, '[');
	for (i = 0; i < n; i++) {
		if (!fds[i].revents)
			continue;
		if (shown++)
			tp_sep(c);
		if (c->abbrev && shown > c->o->strsize) {
			tp_str(c, "...");
			break;
		}
		tp_str(c, "{fd=");
		tp_fd(c, (uint64_t)(int64_t)fds[i].fd);
		tp_str(c, ", revents=");
		tp_flags(c, poll_events, (uint16_t)fds[i].revents, "POLL???");
		buf_putc(c->b, '}');
	}
	buf_putc(c->b, ']');
	c->b = line;
	snprintf(c->auxbuf, sizeof(c->auxbuf), "%s", tmp.data);
	c->auxstr = c->auxbuf;
	buf_free(&tmp);
	return RV_DEC | RV_STR;
}

/* As the kernel and strace: nfds is an int, negative is none, and at most 2^20 bits. */
static int clamp_nfds(uint64_t arg)
{
	int nfds = (int)arg;

	return nfds < 0 ? 0 : nfds > 1 << 20 ? 1 << 20 : nfds;
}

/* The fd_set of nfds bits at addr, in words; NULL when it cannot be read (or nfds is 0). */
static uint8_t *read_fdset(struct trc_call *c, uint64_t addr, int nfds)
{
	size_t ws = tp_wordsize(c), len = (((size_t)nfds + 7) / 8 + ws - 1) / ws * ws;
	uint8_t *bits;

	if (!addr || !len)
		return NULL;
	bits = malloc(len);
	if (bits && tp_read(c, addr, bits, len)) {
		free(bits);
		bits = NULL;
	}
	return bits;
}

/* An fd_set of nfds bits at addr: [3 4], or NULL. */
static void print_fdset(struct trc_call *c, uint64_t addr, int nfds)
{
	uint8_t *bits;
	char sep = '[';

	if (!addr) {
		tp_str(c, "NULL");
		return;
	}
	bits = read_fdset(c, addr, nfds);
	if (!bits) {
		tp_addr(c, addr);
		return;
	}
	for (int i = 0; i < nfds; i++) {
		if (!(bits[i / 8] >> (i % 8) & 1))
			continue;
		buf_putc(c->b, sep);
		sep = ' ';
		tp_fd(c, (uint64_t)i);
	}
	free(bits);
	if (sep == '[')
		buf_putc(c->b, '[');
	buf_putc(c->b, ']');
}

/* Whether the fd_set at addr has no fd below nfds (or cannot be read): not shown at exit. */
static bool fdset_empty(struct trc_call *c, uint64_t addr, int nfds)
{
	uint8_t *bits = read_fdset(c, addr, nfds);
	bool empty = true;

	for (int i = 0; bits && i < nfds && empty; i++)
		empty = !(bits[i / 8] >> (i % 8) & 1);
	free(bits);
	return empty;
}

static void print_timeout(struct trc_call *c, uint64_t addr, bool ts)
{
	if (!addr)
		tp_str(c, "NULL");
	else if (ts)
		tp_timespec_at(c, addr);
	else
		tp_timeval_at(c, addr);
}

/* pselect6's last argument: {sigmask, size}. */
static void print_sigmask_arg(struct trc_call *c, uint64_t addr)
{
	uint64_t d[2];

	if (!addr) {
		tp_str(c, "NULL");
		return;
	}
	if (c->pers == TRC_PERS_32 || tp_read_or_addr(c, addr, d, sizeof(d))) {
		if (c->pers == TRC_PERS_32)
			tp_addr(c, addr);
		return;
	}
	buf_putc(c->b, '{');
	tp_sigset_at(c, d[0], d[1]);
	tp_fmt(c, ", %llu}", (unsigned long long)d[1]);
}

/* select and pselect6 (ts: a timespec timeout, and a sigmask argument). */
static int decode_select(struct trc_call *c, bool ts)
{
	int nfds = clamp_nfds(c->a[0]), i;
	static const char *const names[] = {"in", "out", "except"};
	struct buf tmp, *line = c->b;
	bool any = false;

	if (!c->exiting) {
		tp_int(c, c->a[0]);
		for (i = 1; i <= 3; i++) {
			tp_sep(c);
			print_fdset(c, c->a[i], nfds);
		}
		tp_sep(c);
		print_timeout(c, c->a[4], ts);
		if (ts) {
			tp_sep(c);
			print_sigmask_arg(c, c->a[5]);
		}
		return 0;
	}
	if (c->failed)
		return RV_DEC;
	if (c->ret == 0) {
		c->auxstr = "Timeout";
		return RV_DEC | RV_STR;
	}
	buf_init(&tmp);
	c->b = &tmp;
	for (i = 1; i <= 3; i++) {
		if (fdset_empty(c, c->a[i], nfds))
			continue;
		tp_fmt(c, "%s%s ", any ? ", " : "", names[i - 1]);
		print_fdset(c, c->a[i], nfds);
		any = true;
	}
	if (c->a[4]) {
		tp_fmt(c, "%sleft ", any ? ", " : "");
		print_timeout(c, c->a[4], ts);
	}
	c->b = line;
	snprintf(c->auxbuf, sizeof(c->auxbuf), "%s", tmp.data ? tmp.data : "");
	c->auxstr = c->auxbuf;
	buf_free(&tmp);
	return RV_DEC | RV_STR;
}

int trc_dec_select(struct trc_call *c)
{
	return decode_select(c, false);
}

int trc_dec_pselect6(struct trc_call *c)
{
	return decode_select(c, true);
}

int trc_dec_epoll_create(struct trc_call *c)
{
	tp_int(c, c->a[0]);
	return RV_DECODED | RV_FD;
}

int trc_dec_epoll_create1(struct trc_call *c)
{
	static const struct xlat flags[] = {XV(EPOLL_CLOEXEC), XEND};

	tp_flags(c, flags, (uint32_t)c->a[0], "EPOLL_???");
	return RV_DECODED | RV_FD;
}

static void print_epoll_event(struct trc_call *c, const struct epoll_event *ev)
{
	tp_str(c, "{events=");
	tp_flags(c, epoll_events, ev->events, "EPOLL???");
	tp_fmt(c, ", data={u32=%u, u64=%llu}}", (uint32_t)ev->data.u64,
	       (unsigned long long)ev->data.u64);
}

int trc_dec_epoll_ctl(struct trc_call *c)
{
	static const struct xlat ops[] = {
		XV(EPOLL_CTL_ADD),
		XV(EPOLL_CTL_DEL),
		XV(EPOLL_CTL_MOD),
		XEND,
	};
	struct epoll_event ev;

	tp_fd(c, c->a[0]);
	tp_sep(c);
	tp_xval(c, ops, (uint32_t)c->a[1], "EPOLL_CTL_???");
	tp_sep(c);
	tp_fd(c, c->a[2]);
	tp_sep(c);
	if (!c->a[3] || (uint32_t)c->a[1] == EPOLL_CTL_DEL) /* DEL: the kernel ignores it */
		tp_addr(c, c->a[3]);
	else if (tp_read_or_addr(c, c->a[3], &ev, sizeof(ev)) == 0)
		print_epoll_event(c, &ev);
	return RV_DECODED;
}

int trc_dec_epoll_wait(struct trc_call *c)
{
	struct epoll_event ev;
	int64_t i;

	if (!c->exiting) {
		tp_fd(c, c->a[0]);
		tp_sep(c);
		return 0;
	}
	if (c->failed) {
		tp_addr(c, c->a[1]);
	} else {
		buf_putc(c->b, '[');
		for (i = 0; i < c->ret; i++) {
			if (i)
				tp_sep(c);
			if (i >= (int64_t)c->o->strsize) {
				tp_str(c, "...");
				break;
			}
			if (tp_read(c, c->a[1] + (uint64_t)i * sizeof(ev), &ev, sizeof(ev))) {
				tp_str(c, "...");
				break;
			}
			print_epoll_event(c, &ev);
		}
		buf_putc(c->b, ']');
	}
	tp_fmt(c, ", %d, %d", (int)c->a[2], (int)c->a[3]);
	return RV_DEC;
}
