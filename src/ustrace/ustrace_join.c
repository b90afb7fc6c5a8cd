/*
 * ustrace_join.c: `ustrace -p PID` when utraced already holds PID.
 *
 * ptrace allows one tracer, so a process utraced holds (a gdb debugs it
 * through the daemon) cannot be attached by ustrace's private engine.
 * Instead ustrace connects to the daemon's rendezvous socket
 * RUNDIR/<pid>.sock and asks, in one packet, for a trace with its options
 * (Qutraced.trace, see src/gdb/gdb_trace.c): the daemon runs the tracer
 * core itself, at the events, and streams the text back as notifications.
 * The packets go both ways through the client side of src/rsp's codec;
 * everything ustrace receives is trace records (src/strace/trc_stream.c,
 * laid out by ustrace_run.c), a line for stderr, or the end of the process.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "../rsp/rsp.h"
#include "../strace/trc_wire.h"
#include "../util/buf.h"
#include "../util/rundir.h"
#include "ustrace.h"

#define JOIN_TIMEOUT_MS 10000 /* for the daemon's replies */

struct ust_join {
	int fd;
	pid_t pid;
	/*
	 * No acks either way: the first packet asks the daemon to stop
	 * expecting them, and a broken packet ends the join anyway.
	 */
	struct rsp_conn rsp;
	struct buf reply; /* the last '$' reply */
	bool have_reply;
	bool ended; /* exit notification, EOF or a broken stream */
	int status; /* the process's end: code, 0x100 | signal, -1 unknown */
};

/*
 * The daemon's socket for pid: a system daemon's (its sockets belong to
 * each process's user), then one of our own (util/rundir.c: one directory
 * when $UTRACED_RUNDIR says where, or when we are root).
 */
static int connect_rendezvous(pid_t pid)
{
	int err = -ENOENT; /* no socket: no daemon holds pid */

	uid_t daemons[2] = {0, geteuid()};
	char prev[256] = "";

	for (size_t i = 0; i < 2; i++) {
		struct sockaddr_un un = {.sun_family = AF_UNIX};
		char dir[256];
		int fd;

		if (rundir_of(daemons[i], dir, sizeof(dir)) < 0 || !strcmp(dir, prev) ||
		    rundir_socket(dir, pid, un.sun_path, sizeof(un.sun_path)) < 0)
			continue;
		snprintf(prev, sizeof(prev), "%s", dir);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
		if (connect(fd, (struct sockaddr *)&un, sizeof(un)) == 0)
			return fd;
		err = -errno;
		close(fd);
	}
	return err;
}

static int send_packet(struct ust_join *j, const char *payload)
{
	struct buf *b = &j->rsp.out;
	int rc = 0;

	rsp_send(&j->rsp, payload, strlen(payload));
	for (size_t off = 0; off < b->len && rc == 0;) {
		ssize_t n = write(j->fd, b->data + off, b->len - off);

		if (n > 0)
			off += (size_t)n;
		else if (n < 0 && errno != EINTR)
			rc = -errno;
	}
	buf_reset(b);
	return rc;
}

static bool starts(const struct rsp_event *ev, const char *prefix, size_t *plen)
{
	*plen = strlen(prefix);
	return ev->len >= *plen && !memcmp(ev->data, prefix, *plen);
}

/* One event of the codec: a packet, a broken one; acks and the like are skipped. */
static void on_event(struct ust_join *j, const struct rsp_event *ev, const struct ust_join_cb *cb)
{
	size_t n;

	if (ev->kind == RSP_EV_BAD) {
		j->ended = true; /* a broken stream: nothing after it can be trusted */
		return;
	}
	if (ev->kind != RSP_EV_PACKET)
		return;
	if (!j->rsp.notify) {
		buf_reset(&j->reply);
		buf_append(&j->reply, ev->data, ev->len);
		j->have_reply = true;
	} else if (starts(ev, "utraced.out:", &n)) {
		cb->out(cb->ctx, ev->data + n, ev->len - n);
	} else if (starts(ev, "utraced.msg:", &n)) {
		cb->msg(cb->ctx, ev->data + n, ev->len - n);
	} else if (starts(ev, "utraced.exit:", &n) && ev->len > n) {
		unsigned v = (unsigned)strtoul(ev->data + n + 1, NULL, 16);

		j->status = ev->data[n] == 'X' ? (int)(0x100 | v) : (int)v;
		j->ended = true;
	}
}

bool ust_join_read(struct ust_join *j, const struct ust_join_cb *cb)
{
	uint8_t data[65536];
	ssize_t n;

	if (j->ended)
		return false;
	n = read(j->fd, data, sizeof(data));
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n <= 0) {
		j->ended = true;
		return false;
	}
	for (size_t off = 0; off < (size_t)n && !j->ended;) {
		struct rsp_event ev;

		off += rsp_feed(&j->rsp, data + off, (size_t)n - off, &ev);
		on_event(j, &ev, cb);
	}
	return !j->ended;
}

/*
 * Read until a '$' reply came (its payload in j->reply): 0, or -ETIMEDOUT,
 * or -ECONNRESET when the connection ended first.
 */
static int wait_reply(struct ust_join *j, const struct ust_join_cb *cb)
{
	struct pollfd pfd = {j->fd, POLLIN, 0};

	j->have_reply = false;
	while (!j->have_reply) {
		int rc = poll(&pfd, 1, JOIN_TIMEOUT_MS);

		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0)
			return -errno;
		if (rc == 0)
			return -ETIMEDOUT;
		if (!ust_join_read(j, cb) && !j->have_reply)
			return -ECONNRESET;
	}
	return 0;
}

static bool reply_is(const struct ust_join *j, const char *s)
{
	return j->reply.len == strlen(s) && !memcmp(j->reply.data, s, j->reply.len);
}

void ust_join_free(struct ust_join *j)
{
	if (!j)
		return;
	if (j->fd >= 0)
		close(j->fd);
	rsp_conn_free(&j->rsp);
	buf_free(&j->reply);
	free(j);
}

int ust_join_open(struct ust_join **out, pid_t pid, const struct trc_wire *w,
		  const struct ust_join_cb *cb, char *err, size_t errlen)
{
	char opts[TRC_WIRE_MAX], pkt[TRC_WIRE_MAX + 32];
	struct ust_join *j;
	int fd = connect_rendezvous(pid);

	*out = NULL;
	if (fd < 0)
		return 0; /* no daemon holds pid */
	j = calloc(1, sizeof(*j));
	if (!j) {
		close(fd);
		return 0;
	}
	j->fd = fd;
	j->pid = pid;
	j->status = -1;
	rsp_client_init(&j->rsp);
	j->rsp.noack = true;
	buf_init(&j->reply);
	if (send_packet(j, "QStartNoAckMode") < 0 || wait_reply(j, cb) < 0) {
		ust_join_free(j); /* it would not have us (another user): try ptrace */
		return 0;
	}
	if (trc_wire_encode(w, opts, sizeof(opts)) < 0) {
		snprintf(err, errlen, "options too long for utraced");
		ust_join_free(j);
		return -E2BIG;
	}
	snprintf(pkt, sizeof(pkt), "Qutraced.trace:%s", opts);
	if (send_packet(j, pkt) < 0 || wait_reply(j, cb) < 0 || !reply_is(j, "OK")) {
		int rc = -EPROTO;

		if (j->have_reply && !j->reply.len) {
			snprintf(err, errlen, "utraced holds it and cannot trace (too old?)");
			rc = -EOPNOTSUPP;
		} else if (j->have_reply && j->reply.len == 3 && j->reply.data[0] == 'E') {
			rc = -(int)strtol(j->reply.data + 1, NULL, 16);
			snprintf(err, errlen, "utraced holds it and would not trace it: %s",
				 strerror(-rc));
		} else {
			snprintf(err, errlen, "utraced holds it; no answer from it");
		}
		ust_join_free(j);
		return rc < 0 ? rc : -EPROTO; /* (an "E00" is no errno) */
	}
	*out = j;
	return 1;
}

int ust_join_fd(const struct ust_join *j)
{
	return j->fd;
}

int ust_join_status(const struct ust_join *j)
{
	return j->status;
}

bool ust_join_ended(const struct ust_join *j)
{
	return j->ended;
}

void ust_join_leave(struct ust_join *j, const struct ust_join_cb *cb)
{
	if (j->ended)
		return;
	/* the daemon answers after the last text: " <detached ...>", the -c table */
	if (send_packet(j, "Qutraced.detach") == 0)
		wait_reply(j, cb);
	j->ended = true;
}
