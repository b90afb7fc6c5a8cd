/*
 * server.c: the daemon's event loop and gdbserver's connection rules.
 *
 * One epoll set holds the tracer (ptrace stops), the COMM listening
 * socket, the rendezvous sockets and every client connection.
 *
 * The COMM client follows gdbserver's rules: one at a time, and its
 * session outlives the connection, so a launched program stays stopped
 * under control when gdb goes away and the next client finds it as it was;
 * an attached program is detached when its client leaves (stopped first if
 * it was running, so it leaves cleanly).
 *
 * Clients that come through RUNDIR/<pid>.sock each get a session and an
 * engine of their own on that process; when they leave, by detach,
 * disconnect or death, their engine goes and the process runs on.
 */
#include "ep.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <unistd.h>

#define SERVER_STOP_TIMEOUT_MS 3000

struct server {
	struct ep_config *cfg;
	struct tracer *t;
	struct gdb_session primary; /* the COMM client's session */
	struct ep_conn *conns;
	struct ep_listen lis;
	struct ep_item lis_items[EP_MAX_LISTEN];
	struct ep_item tracer_item;
	struct ep_item sig_item; /* SIGTERM, SIGINT, SIGHUP */
	struct ep_rendezvous *rdv;
	struct ep_fuse *fuse; /* --mount */
	struct ep_ptys *ptys; /* --mount: the ptys behind DIR/<pid>/gdb */
	pid_t pid;	      /* the process of the command line */
	int epfd;
	bool quit;
	bool signalled; /* SIGTERM, SIGINT, SIGHUP: quit now, whatever is queued */
	int exit_code;
};

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

static struct ep_conn *primary_conn(struct server *sv)
{
	for (struct ep_conn *c = sv->conns; c; c = c->next)
		if (c->primary)
			return c;
	return NULL;
}

static struct ep_conn *conn_add(struct server *sv, int rfd, int wfd, struct gdb_session *s,
				bool primary)
{
	struct ep_conn *c = ep_conn_new(sv->epfd, rfd, wfd, s, primary);

	if (!c) {
		close(rfd);
		return NULL;
	}
	c->next = sv->conns;
	sv->conns = c;
	return c;
}

/* Clients that joined through a rendezvous socket and still debug. */
static bool joiners_left(struct server *sv)
{
	for (struct ep_conn *c = sv->conns; c; c = c->next)
		if (!c->primary && c->s->engine)
			return true;
	return false;
}

/*
 * No process left to serve and not --multi: gdbserver exits. Rendezvous
 * clients keep the daemon (and their process) alive whatever the COMM
 * client did; so does an extended-remote COMM client, who may `run` again.
 */
static bool nothing_left(struct server *sv)
{
	if (sv->primary.extended && primary_conn(sv))
		return false;
	return !sv->cfg->srv.multi && !sv->fuse && !sv->primary.engine && !joiners_left(sv);
}

/*
 * The COMM client's engine is one among others: when it leaves while
 * rendezvous clients are on the process, gdbserver's rules (keep a
 * launched program stopped for the next client, kill it with --once)
 * would cut them off, so it simply leaves; the last engine out detaches.
 */
static bool primary_leave_to_others(struct server *sv)
{
	struct gdb_session *s = &sv->primary;

	if (!s->engine || !joiners_left(sv))
		return false;
	gdb_session_leave(s, false);
	s->waiting = false;
	return true;
}

/*
 * The COMM client left without detaching. An attached process is let go;
 * a launched one stays, stopped, for the next client, unless --once.
 */
static void primary_gone(struct server *sv)
{
	struct gdb_session *s = &sv->primary;
	bool stdio = sv->cfg->srv.stdio;

	gdb_attach_drop(s); /* a vAttach still waiting: not one of its processes yet */
	if (primary_leave_to_others(sv)) {
		/* nothing: the others go on */
	} else if (s->engine && (engine_was_attached(s->engine) || sv->cfg->srv.once || stdio)) {
		pid_t pid = engine_pid(s->engine);
		bool kill = !engine_was_attached(s->engine);

		if (!kill)
			fprintf(stderr, "Detaching from process %d\n", pid);
		gdb_session_leave(s, kill);
	} else if (s->engine && s->waiting) {
		engine_interrupt(s->engine); /* becomes the stop the next client sees */
	}
	if (nothing_left(sv) || ((sv->cfg->srv.once || stdio) && !joiners_left(sv))) {
		sv->quit = true;
		return;
	}
	if (sv->cfg->srv.once || stdio)
		return; /* no new COMM client; the others finish their work */
	fprintf(stderr, "Remote side has terminated connection.  GDBserver will reopen the "
			"connection.\n");
	fprintf(stderr, "Listening on port %d\n", sv->lis.port);
}

/* A new COMM client finds the process it left to the others, if still held. */
static void rejoin(struct server *sv)
{
	struct engine *e;
	int err;

	if (sv->primary.engine || !sv->pid || !joiners_left(sv))
		return;
	e = engine_attach_start(sv->t, sv->pid, &sv->primary.client, &err);
	if (e)
		gdb_session_join(&sv->primary, e);
}

static void accept_primary(struct server *sv, struct ep_item *item)
{
	struct gdb_session *s = &sv->primary;
	char peer[128];
	int fd = ep_accept(item->fd, peer, sizeof(peer));

	if (fd < 0)
		return;
	if (primary_conn(sv)) { /* one COMM client at a time, as gdbserver */
		close(fd);
		return;
	}
	rsp_conn_free(&s->rsp);
	rsp_conn_init(&s->rsp);
	s->multiprocess = false;
	s->extended = false;
	s->waiting = false;
	rejoin(sv);
	conn_add(sv, fd, fd, s, true);
	fprintf(stderr, "Remote debugging from host %s\n", peer);
}

/*
 * A client of its own engine on pid, talking on fd: it joins the process,
 * attaching it first if nobody holds it. Its connection, or NULL (fd
 * closed) if that failed.
 */
static struct ep_conn *join(struct server *sv, int fd, pid_t pid, const char *how,
			    const struct ep_client *who)
{
	struct gdb_session *s = malloc(sizeof(*s));
	struct engine *e = NULL;
	int err = -ENOMEM;

	if (s) {
		gdb_session_init_joined(s, sv->t, &sv->cfg->srv, how, &who->caller);
		e = engine_attach_start(sv->t, pid, &s->client, &err);
	}
	if (sv->cfg->srv.debug)
		fprintf(stderr, "%s: client %d joins %d: %s\n", how, who->caller.tgid, pid,
			e ? "ok" : strerror(-err));
	if (!e) {
		if (s)
			gdb_session_free(s);
		free(s);
		close(fd);
		return NULL;
	}
	gdb_session_join(s, e);
	return conn_add(sv, fd, fd, s, false);
}

/* A client joins a held process through its rendezvous socket. */
static void accept_joiner(struct server *sv, struct ep_item *item)
{
	struct ep_client who;
	int fd;

	if (ep_rendezvous_accept(item, &fd, &who) == 0)
		join(sv, fd, who.pid, "rendezvous", &who);
}

/* A client wrote its first bytes to the pty of DIR/<pid>/gdb. */
static void pty_talks(struct server *sv, struct ep_item *item)
{
	struct ep_client who;
	struct ep_conn *c;
	int master;

	if (!ep_ptys_take(sv->ptys, item, &who, &master))
		return;
	c = join(sv, master, who.pid, "fuse", &who);
	if (!c)
		ep_ptys_ended(sv->ptys, who.caller.uid);
	/* a pty's hang-up throws away what the client has not read yet */
	if (c)
		c->linger = true;
}

/* Close c; a COMM client that left (gone) gets gdbserver's treatment. */
static void conn_drop(struct server *sv, struct ep_conn *c, bool gone)
{
	struct gdb_session *s = c->s;
	bool primary = c->primary;

	if (c->linger) /* a session of a pty of DIR/<pid>/gdb */
		ep_ptys_ended(sv->ptys, s->peer.uid);

	for (struct ep_conn **cp = &sv->conns; *cp; cp = &(*cp)->next) {
		if (*cp == c) {
			*cp = c->next;
			break;
		}
	}
	ep_conn_close(sv->epfd, c);
	if (primary) {
		if (gone)
			primary_gone(sv);
		return;
	}
	gdb_session_free(s); /* its engine leaves; the process runs on for the others */
	free(s);
}

/* Joined clients that still have queued output (a trace's last lines). */
static bool output_owed(struct server *sv)
{
	for (struct ep_conn *c = sv->conns; c; c = c->next)
		if (!c->primary && !c->dead && c->s->rsp.out.len)
			return true;
	return false;
}

/*
 * After any event: send what is queued, close the connections that are
 * done, apply the exit rules, and keep the rendezvous sockets in step with
 * the processes held.
 */
static void settle(struct server *sv)
{
	struct ep_conn *c, *next;

	for (c = sv->conns; c; c = c->next)
		ep_conn_flush(sv->epfd, c);
	if (sv->cfg->srv.exit_requested) { /* monitor exit */
		sv->quit = true;
		return;
	}
	for (c = sv->conns; c; c = next) {
		bool primary = c->primary, dead = c->dead;
		/*
		 * In non-stop, gdb drains the exit with vStopped and may still talk
		 * to us about it: it closes the connection itself, as with gdbserver.
		 */
		bool done = !c->s->rsp.out.len && !c->s->nonstop &&
			    (primary ? nothing_left(sv) : !c->s->engine);

		next = c->next;
		if (!dead && (!done || c->linger) && !c->s->closing)
			continue;
		if (primary && !dead && !nothing_left(sv))
			continue; /* detached: it waits for the others to finish */
		conn_drop(sv, c, dead);
		if (primary && !dead)
			sv->quit = true; /* the process is gone: so are we */
	}
	if (!primary_conn(sv) && !sv->primary.engine && sv->pid && nothing_left(sv) &&
	    !sv->cfg->srv.multi)
		sv->quit = true; /* the last rendezvous client left after the COMM one */
	if (sv->quit && !sv->signalled && output_owed(sv))
		sv->quit =
			false; /* not before they have it all; then they are done, and so are we */
	ep_rendezvous_sync(&sv->rdv, sv->epfd, sv->t);
}

/* A daemon that goes away says why (a SIGHUP from a closed terminal is easy to miss). */
static void said_by_signal(struct server *sv, int fd)
{
	struct signalfd_siginfo si;

	if (sv->cfg->mount && read(fd, &si, sizeof(si)) == sizeof(si))
		fprintf(stderr, "utraced: %s from process %u: detaching and leaving\n",
			strsignal((int)si.ssi_signo), si.ssi_pid);
}

static void handle_event(struct server *sv, const struct epoll_event *ev)
{
	struct ep_item *item = ev->data.ptr;

	switch (item->kind) {
	case EP_LISTEN:
		accept_primary(sv, item);
		break;
	case EP_RENDEZVOUS:
		accept_joiner(sv, item);
		break;
	case EP_CONN:
		if (ev->events & (EPOLLIN | EPOLLHUP | EPOLLERR))
			ep_conn_read((struct ep_conn *)item);
		break;
	case EP_TRACER:
		tracer_poll(sv->t);
		break;
	case EP_SIGNAL:
		said_by_signal(sv, item->fd);
		sv->quit = sv->signalled = true; /* leave cleanly */
		break;
	case EP_PTY:
		pty_talks(sv, item);
		break;
	case EP_FUSE:
		if (!ep_fuse_read(sv->fuse)) {
			fprintf(stderr, "utraced: %s was unmounted\n", sv->cfg->mount);
			sv->quit = true;
		}
		break;
	}
}

static struct engine *launch(struct server *sv)
{
	struct ep_config *cfg = sv->cfg;
	struct engine_launch_err why;
	struct engine *e;

	e = gdb_launch(&sv->primary, cfg->argv, &why);
	if (e) {
		fprintf(stderr, "Process %s created; pid = %d\n", cfg->argv[0], engine_pid(e));
		return e;
	}
	if (why.exit_code >= 0)
		fprintf(stderr, "During startup program exited with code %d.\n", why.exit_code);
	else
		fprintf(stderr,
			"utraced: Cannot exec %s\nutraced: Error: %s\n\n"
			"During startup program exited with code 127.\n",
			cfg->argv[0], strerror(-why.err));
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

/*
 * Every session of the FUSE tree holds a descriptor, and every /proc
 * question takes one: as many as we are allowed (the soft limit is often
 * 1024, the hard one far more).
 */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
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
		/*
		 * Nobody is served yet: wait for every thread as long as it takes, as
		 * gdbserver (a vfork parent stops when its child execs or exits). A
		 * SIGTERM meanwhile ends us, and the kernel lets the threads go: no
		 * trap is in yet.
		 */
		tracer_set_stop_timeout(sv->t, 0);
		e = engine_attach(sv->t, cfg->attach_pid, &sv->primary.client, &err);
		tracer_set_stop_timeout(sv->t, SERVER_STOP_TIMEOUT_MS);
		if (!e) {
			fprintf(stderr, "Cannot attach to process %d: %s (%d)\n", cfg->attach_pid,
				strerror(-err), -err);
			return -1;
		}
		fprintf(stderr, "Attached; pid = %d\n", cfg->attach_pid);
	} else {
		return 0;
	}
	gdb_session_set_engine(&sv->primary, e);
	sv->pid = engine_pid(e);
	return 0;
}

static int open_comm(struct server *sv)
{
	char err[256];

	if (!sv->cfg->comm) /* --mount alone */
		return 0;
	if (sv->cfg->srv.stdio) {
		fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
		fcntl(1, F_SETFL, fcntl(1, F_GETFL) | O_NONBLOCK);
		conn_add(sv, 0, 1, &sv->primary, true);
		return 0;
	}
	if (ep_listen(sv->cfg->comm, &sv->lis, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	for (int i = 0; i < sv->lis.nfds; i++) {
		sv->lis_items[i] = (struct ep_item){EP_LISTEN, sv->lis.fds[i]};
		ep_watch(sv->epfd, &sv->lis_items[i], EPOLLIN);
	}
	return 0;
}

/* After the program started, as gdbserver: scripts wait for this line. */
static void announce(struct server *sv)
{
	if (!sv->cfg->comm)
		return;
	if (sv->cfg->srv.stdio)
		fprintf(stderr, "Remote debugging using stdio\n");
	else if (sv->lis.path[0])
		fprintf(stderr, "Listening on unix socket %s\n", sv->lis.path);
	else
		fprintf(stderr, "Listening on port %d\n", sv->lis.port);
}

static int soonest(int a, int b)
{
	return a < 0 ? b : b < 0 ? a : a < b ? a : b;
}

static int attach_expire(struct gdb_session *s, bool *gave_up)
{
	bool was = s->attaching != NULL, joining = gdb_trace_joining(s);
	int left = soonest(gdb_attach_expire(s), gdb_trace_join_expire(s));

	/* (or a keep-alive byte to send) */
	*gave_up |= (was && !s->attaching) || (joining && !gdb_trace_joining(s)) || s->rsp.out.len;
	return left;
}

/* Attaches that are over, or whose client must hear from us; ms until the next. */
static int attaches_expire(struct server *sv)
{
	bool gave_up = false;
	int next = attach_expire(&sv->primary, &gave_up);

	for (struct ep_conn *c = sv->conns; c; c = c->next)
		if (!c->primary)
			next = soonest(next, attach_expire(c->s, &gave_up));
	if (gave_up)
		settle(sv); /* replies to send, connections to close */
	return next;
}

static void loop(struct server *sv)
{
	struct epoll_event evs[16];

	while (!sv->quit) {
		/* ptys resolved but never opened go after a while */
		int wait = sv->ptys ? ep_ptys_expire(sv->ptys) : -1;
		int n;

		wait = soonest(wait, attaches_expire(sv));
		wait = soonest(wait, tracer_tick(sv->t));
		gdb_tp_settle_all();
		n = epoll_wait(sv->epfd, evs, 16, wait);
		if (n < 0 && errno == EINTR)
			continue;
		for (int i = 0; i < n && !sv->quit; i++) {
			handle_event(sv, &evs[i]);
			settle(sv);
		}
	}
}

static void shutdown_all(struct server *sv)
{
	/*
	 * The mount first: that fails whatever request of ours a process may
	 * be blocked in, so the detaches below (which stop every thread)
	 * cannot wait on one.
	 */
	ep_fuse_close(sv->fuse, sv->epfd);
	ep_ptys_free(sv->ptys);
	for (struct ep_conn *c = sv->conns; c; c = c->next)
		ep_conn_flush(sv->epfd, c);
	while (sv->conns) {
		struct ep_conn *c = sv->conns;

		sv->conns = c->next;
		if (!c->primary) {
			gdb_session_free(c->s);
			free(c->s);
		}
		ep_conn_close(sv->epfd, c);
	}
	/* a program we started dies with us; an attached one is let go */
	gdb_session_leave(&sv->primary,
			  sv->primary.engine && !engine_was_attached(sv->primary.engine));
	gdb_session_free(&sv->primary);
	ep_rendezvous_free(&sv->rdv, sv->epfd);
	engine_detach_all(sv->t);
	tracer_free(sv->t);
	ep_listen_close(&sv->lis);
}

int ep_server_run(struct ep_config *cfg)
{
	struct server sv = {.cfg = cfg};

	signal(SIGPIPE, SIG_IGN);
	cfg->srv.on_exit = on_exit_cb;
	cfg->srv.on_detach = on_detach_cb;
	sv.t = tracer_new();
	tracer_crash_guard(sv.t);
	sv.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (!sv.t || sv.epfd < 0) {
		perror("utraced");
		return 1;
	}
	/* one loop serves every client: none may hold it for a thread that cannot stop */
	tracer_set_stop_timeout(sv.t, SERVER_STOP_TIMEOUT_MS);
	tracer_set_xol(sv.t, !cfg->in_place);
	tracer_set_agent(sv.t, !cfg->no_agent);
	if (cfg->mount)
		raise_fd_limit();
	gdb_session_init(&sv.primary, sv.t, &cfg->srv);
	/* bind first: a taken port must not leave a program started for nothing */
	if (open_comm(&sv) < 0 || (cfg->mount && !(sv.ptys = ep_ptys_new(sv.epfd))) ||
	    (cfg->mount && !(sv.fuse = ep_fuse_open(cfg->mount, sv.t, sv.ptys, sv.epfd))) ||
	    start_process(&sv) < 0) {
		fprintf(stderr, "Exiting\n");
		sv.exit_code = 1;
		goto out;
	}
	announce(&sv);
	sv.tracer_item = (struct ep_item){EP_TRACER, tracer_fd(sv.t)};
	ep_watch(sv.epfd, &sv.tracer_item, EPOLLIN);
	sv.sig_item = (struct ep_item){EP_SIGNAL, quit_signals()};
	if (sv.sig_item.fd >= 0)
		ep_watch(sv.epfd, &sv.sig_item, EPOLLIN);
	ep_rendezvous_sync(&sv.rdv, sv.epfd, sv.t);
	loop(&sv);
out:
	shutdown_all(&sv);
	close(sv.epfd);
	if (sv.sig_item.fd > 0)
		close(sv.sig_item.fd);
	return sv.exit_code;
}
