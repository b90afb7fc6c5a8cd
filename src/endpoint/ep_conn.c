/*
 * ep_conn.c: one client connection: bytes in to its gdb session, queued
 * replies out, never blocking on a slow or hostile client (non-blocking
 * writes, EPOLLOUT for the rest).
 */
#include "ep.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

int ep_watch(int epfd, struct ep_item *item, uint32_t events)
{
	struct epoll_event ev = {.events = events, .data.ptr = item};

	return epoll_ctl(epfd, EPOLL_CTL_ADD, item->fd, &ev);
}

struct ep_conn *ep_conn_new(int epfd, int rfd, int wfd, struct gdb_session *s, bool primary)
{
	struct ep_conn *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->in.kind = EP_CONN;
	c->in.fd = rfd;
	c->wfd = wfd;
	c->s = s;
	c->primary = primary;
	ep_watch(epfd, &c->in, EPOLLIN);
	return c;
}

void ep_conn_close(int epfd, struct ep_conn *c)
{
	epoll_ctl(epfd, EPOLL_CTL_DEL, c->in.fd, NULL);
	if (c->want_out)
		epoll_ctl(epfd, EPOLL_CTL_DEL, c->wfd, NULL);
	if (c->in.fd > 2)
		close(c->in.fd);
	free(c);
}

void ep_conn_read(struct ep_conn *c)
{
	uint8_t data[65536];
	ssize_t n = read(c->in.fd, data, sizeof(data));

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		c->dead = true;
		return;
	}
	gdb_session_input(c->s, data, (size_t)n);
}

void ep_conn_flush(int epfd, struct ep_conn *c)
{
	struct buf *out = &c->s->rsp.out;
	struct epoll_event ev = {.events = EPOLLOUT, .data.ptr = &c->in};
	bool same = c->wfd == c->in.fd;

	gdb_trace_pump(c->s); /* a trace session's text into packets */
	while (out->len) {
		ssize_t n = write(c->wfd, out->data, out->len);

		if (n > 0) {
			buf_consume(out, (size_t)n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		buf_reset(out); /* the client is gone */
		c->dead = true;
		break;
	}
	gdb_trace_pump(c->s); /* ... and its held threads go once the client caught up */
	if (!!out->len == c->want_out)
		return;
	c->want_out = out->len != 0;
	if (same) {
		ev.events = EPOLLIN | (c->want_out ? EPOLLOUT : 0);
		epoll_ctl(epfd, EPOLL_CTL_MOD, c->in.fd, &ev);
	} else {
		epoll_ctl(epfd, c->want_out ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, c->wfd, &ev);
	}
}
