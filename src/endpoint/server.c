/*
 * server.c: the daemon's event loop and gdbserver's connection rules.
 *
 * One epoll set holds the tracer (ptrace stops), the listening sockets and
 * the client. Like gdbserver, one process is served over one connection at
 * a time: the session outlives the connection, so a launched program stays
 * stopped under control when gdb goes away and the next client finds it as
 * it was. An attached program is detached when its client leaves, and
 * never lost: a client that vanishes while the program runs gets it
 * stopped first, then let go.
 */
#include "ep.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>

enum { TAG_TRACER = -1, TAG_CLIENT = -2, TAG_SIGNAL = -3 };

struct server {
	struct ep_config *cfg;
	struct tracer *t;
	struct gdb_session s;
	struct ep_listen lis;
	int epfd;
	int sigfd;	 /* SIGTERM, SIGINT, SIGHUP */
	int rfd, wfd;	 /* current client, -1 if none */
	bool want_out;	 /* EPOLLOUT armed */
	bool quit;
	int exit_code;
};

static void ep_add(struct server *sv, int fd, uint32_t events, int tag)
{
	struct epoll_event ev = { .events = events, .data.u64 = (uint64_t)(int64_t)tag };

	if (tag >= 0)
		ev.data.u64 = (uint64_t)fd | (1ULL << 32);
	epoll_ctl(sv->epfd, EPOLL_CTL_ADD, fd, &ev);
}

static void on_exit_cb(struct gdb_session *s, const struct engine_stop *st)
{
	(void)s;
	if (st->kind == ENGINE_STOP_EXITED)
		fprintf(stderr, "\nChild exited with status %d\n", st->status);
	else
		fprintf(stderr, "\nChild terminated with signal = %d\n", st->sig);
}

static void on_detach_cb(struct gdb_session *s, pid_t pid)
{
	(void)s;
	fprintf(stderr, "Detaching from process %d\n", pid);
}

static void client_close(struct server *sv)
{
	if (sv->rfd < 0)
		return;
	epoll_ctl(sv->epfd, EPOLL_CTL_DEL, sv->rfd, NULL);
	if (sv->wfd != sv->rfd)
		epoll_ctl(sv->epfd, EPOLL_CTL_DEL, sv->wfd, NULL);
	if (sv->rfd > 2)
		close(sv->rfd);
	sv->rfd = sv->wfd = -1;
	sv->want_out = false;
}

/* Write what the session has queued; arm EPOLLOUT for the rest. */
static void client_flush(struct server *sv)
{
	struct buf *out = &sv->s.rsp.out;
	struct epoll_event ev = { .events = EPOLLOUT, .data.u64 = (uint64_t)(int64_t)TAG_CLIENT };

	while (sv->wfd >= 0 && out->len) {
		ssize_t n = write(sv->wfd, out->data, out->len);

		if (n > 0) {
			buf_consume(out, (size_t)n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		buf_reset(out); /* the client is gone; the read side will notice */
		break;
	}
	if (sv->wfd < 0 || sv->wfd == sv->rfd)
		return;
	if (out->len && !sv->want_out)
		epoll_ctl(sv->epfd, EPOLL_CTL_ADD, sv->wfd, &ev);
	else if (!out->len && sv->want_out)
		epoll_ctl(sv->epfd, EPOLL_CTL_DEL, sv->wfd, NULL);
	sv->want_out = out->len != 0;
}

/* No process left to serve and not --multi: gdbserver exits. */
static bool nothing_left(struct server *sv)
{
	return !sv->cfg->srv.multi && !sv->s.engine;
}

/*
 * The client left without detaching. An attached process is let go (a
 * running one is stopped first so it leaves cleanly); a launched one
 * stays, stopped, for the next client, unless --once.
 */
static void client_gone(struct server *sv)
{
	struct gdb_session *s = &sv->s;
	bool stdio = sv->cfg->srv.stdio;

	client_close(sv);
	if (s->engine && (engine_was_attached(s->engine) || sv->cfg->srv.once || stdio)) {
		pid_t pid = engine_pid(s->engine);

		if (!engine_was_attached(s->engine))
			engine_kill(s->engine);
		else
			fprintf(stderr, "Detaching from process %d\n", pid);
		engine_detach(s->engine);
		s->engine = NULL;
	} else if (s->engine && s->waiting) {
		engine_interrupt(s->engine); /* becomes the stop the next client sees */
	}
	if (nothing_left(sv) || sv->cfg->srv.once || stdio) {
		sv->quit = true;
		return;
	}
	fprintf(stderr, "Remote side has terminated connection.  GDBserver will reopen the "
			"connection.\n");
	fprintf(stderr, "Listening on port %d\n", sv->lis.port);
}

static void client_open(struct server *sv, int fd, const char *peer)
{
	struct gdb_session *s = &sv->s;

	rsp_conn_free(&s->rsp);
	rsp_conn_init(&s->rsp);
	s->multiprocess = false;
	s->waiting = false;
	sv->rfd = sv->wfd = fd;
	ep_add(sv, fd, EPOLLIN, TAG_CLIENT);
	fprintf(stderr, "Remote debugging from host %s\n", peer);
}

static void client_read(struct server *sv)
{
	uint8_t data[65536];
	ssize_t n = read(sv->rfd, data, sizeof(data));

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		client_gone(sv);
		return;
	}
	gdb_session_input(&sv->s, data, (size_t)n);
}

static void accept_client(struct server *sv, int lfd)
{
	char peer[128];
	int fd = ep_accept(lfd, peer, sizeof(peer));

	if (fd < 0)
		return;
	if (sv->rfd >= 0) { /* one client at a time, as gdbserver */
		close(fd);
		return;
	}
	client_open(sv, fd, peer);
}

/* After any event: send what is queued, then apply the exit rules. */
static void settle(struct server *sv)
{
	client_flush(sv);
	if (sv->cfg->srv.exit_requested) { /* monitor exit */
		client_close(sv);
		sv->quit = true;
		return;
	}
	if (sv->rfd >= 0 && nothing_left(sv) && !sv->s.rsp.out.len) {
		client_close(sv);
		sv->quit = true;
	}
}

static void handle_event(struct server *sv, const struct epoll_event *ev)
{
	int64_t tag = (int64_t)ev->data.u64;

	if (ev->data.u64 >> 32 == 1) {
		accept_client(sv, (int)(ev->data.u64 & 0xffffffff));
	} else if (tag == TAG_SIGNAL) {
		sv->quit = true; /* SIGTERM/SIGINT/SIGHUP: leave cleanly */
	} else if (tag == TAG_TRACER) {
		tracer_poll(sv->t);
	} else if (tag == TAG_CLIENT) {
		if (ev->events & (EPOLLIN | EPOLLHUP | EPOLLERR))
			client_read(sv);
		else if (sv->rfd == sv->wfd && !(ev->events & EPOLLOUT))
			client_gone(sv);
	}
}

static struct engine *launch(struct server *sv)
{
	struct ep_config *cfg = sv->cfg;
	struct engine *e;
	int err;

	e = gdb_launch(&sv->s, cfg->argv, &err);
	if (e) {
		fprintf(stderr, "Process %s created; pid = %d\n", cfg->argv[0], engine_pid(e));
		return e;
	}
	if (err & 0x10000)
		fprintf(stderr, "During startup program exited with code %d.\n", err & 0xff);
	else
		fprintf(stderr,
			"utraced: Cannot exec %s\nutraced: Error: %s\n\n"
			"During startup program exited with code 127.\n",
			cfg->argv[0], strerror(-err));
	return NULL;
}

/*
 * Signals that would kill us are read from a signalfd instead, so that we
 * always leave through the exit path: traps removed, debug registers
 * cleared, the process detached (or killed, if we launched it).
 */
static int quit_signals(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

static int start_process(struct server *sv)
{
	struct ep_config *cfg = sv->cfg;
	struct engine *e;
	int err;

	if (cfg->argv) {
		e = launch(sv);
		if (!e)
			return -1;
	} else if (cfg->attach_pid) {
		e = engine_attach(sv->t, cfg->attach_pid, &sv->s.client, &err);
		if (!e) {
			fprintf(stderr, "Cannot attach to process %d: %s (%d)\n", cfg->attach_pid,
				strerror(-err), -err);
			return -1;
		}
		fprintf(stderr, "Attached; pid = %d\n", cfg->attach_pid);
	} else {
		return 0;
	}
	gdb_session_set_engine(&sv->s, e);
	return 0;
}

static int open_comm(struct server *sv)
{
	char err[256];

	if (sv->cfg->srv.stdio) {
		fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
		fcntl(1, F_SETFL, fcntl(1, F_GETFL) | O_NONBLOCK);
		sv->rfd = 0;
		sv->wfd = 1;
		ep_add(sv, 0, EPOLLIN, TAG_CLIENT);
		return 0;
	}
	if (ep_listen(sv->cfg->comm, &sv->lis, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	for (int i = 0; i < sv->lis.nfds; i++)
		ep_add(sv, sv->lis.fds[i], EPOLLIN, sv->lis.fds[i]);
	return 0;
}

/* After the program started, as gdbserver: scripts wait for this line. */
static void announce(struct server *sv)
{
	if (sv->cfg->srv.stdio)
		fprintf(stderr, "Remote debugging using stdio\n");
	else if (sv->lis.path[0])
		fprintf(stderr, "Listening on unix socket %s\n", sv->lis.path);
	else
		fprintf(stderr, "Listening on port %d\n", sv->lis.port);
}

static void loop(struct server *sv)
{
	struct epoll_event evs[16];

	while (!sv->quit) {
		int n = epoll_wait(sv->epfd, evs, 16, -1);

		if (n < 0 && errno == EINTR)
			continue;
		for (int i = 0; i < n && !sv->quit; i++) {
			handle_event(sv, &evs[i]);
			settle(sv);
		}
	}
}

int ep_server_run(struct ep_config *cfg)
{
	struct server sv = { .cfg = cfg, .rfd = -1, .wfd = -1, .sigfd = -1 };

	signal(SIGPIPE, SIG_IGN);
	cfg->srv.on_exit = on_exit_cb;
	cfg->srv.on_detach = on_detach_cb;
	sv.t = tracer_new();
	sv.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (!sv.t || sv.epfd < 0) {
		perror("utraced");
		return 1;
	}
	gdb_session_init(&sv.s, sv.t, &cfg->srv);
	/* bind first: a taken port must not leave a program started for nothing */
	if (open_comm(&sv) < 0 || start_process(&sv) < 0) {
		fprintf(stderr, "Exiting\n");
		sv.exit_code = 1;
		goto out;
	}
	announce(&sv);
	ep_add(&sv, tracer_fd(sv.t), EPOLLIN, TAG_TRACER);
	sv.sigfd = quit_signals();
	if (sv.sigfd >= 0)
		ep_add(&sv, sv.sigfd, EPOLLIN, TAG_SIGNAL);
	loop(&sv);
out:
	client_flush(&sv);
	/* a program we started dies with us; an attached one is let go */
	if (sv.s.engine && !engine_was_attached(sv.s.engine))
		engine_kill(sv.s.engine);
	gdb_session_free(&sv.s);
	tracer_free(sv.t);
	ep_listen_close(&sv.lis);
	close(sv.epfd);
	if (sv.sigfd >= 0)
		close(sv.sigfd);
	return sv.exit_code;
}
