/*
 * ustrace_run.c: ustrace's own private engine: launch or attach, observe,
 * feed the strace core, detach on ^C; and the processes utraced already
 * holds, joined through the daemon (ustrace_join.c), in the same loop.
 *
 * ustrace is an observer engine (engine_observe): the engine calls us
 * synchronously at each syscall-stop and signal, we decode while the
 * thread is stopped (reading its memory through the engine), and the
 * thread goes on when we return. The syscall filter of -e trace= is
 * handed to the engine, so untraced syscalls cost no stop at all (and
 * with --seccomp-bpf, not even a kernel round trip: seccomp.c). With -f
 * the engine hands us an engine of our own on each fork child, kept in
 * u->kids until the child exits.
 *
 * strace prints the launched program's execve as its first line; we
 * start the program stopped after the exec (engine_launch), so that line
 * is rebuilt from our own argv and environment, read through a reader of
 * our own memory: the same decoder prints it.
 *
 * Our strace core and every daemon stream (the records of
 * src/strace/trc_stream.c, one stream per joined process) feed one
 * trc_out: the lines of all of them interleave as strace's would
 * ("<unfinished ...>" / "<... resumed>", "[pid N]" while more than one
 * task is traced), and -c prints one table for all.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../engine/engine.h"
#include "../engine/engine_trc.h"
#include "../strace/trc_stream.h"
#include "../strace/trc_wire.h"
#include "../util/buf.h"
#include "ustrace.h"

extern char **environ;

struct ust;

struct ust_proc {
	struct ust *u;
	struct engine *e;	  /* our private engine, or NULL ... */
	struct ust_join *j;	  /* ... when utraced traces it for us */
	struct trc_stream_rx *rx; /* its records */
	pid_t pid;
	bool gone; /* its exit was reported */
};

struct ust {
	struct ust_opts *o;
	struct tracer *t;
	struct trc *trc;      /* our core */
	struct ust_out *out;  /* where its lines and the daemon's meet */
	struct trc_sink sink; /* out's */
	struct ust_proc procs[UST_MAX_PIDS];
	size_t nprocs;
	size_t alive;
	int status;		     /* the launched program's: exit code, or 0x100 | signal */
	int quit;		     /* the signal that made us leave (^C, SIGTERM...), or 0 */
	bool seccomp;		     /* --seccomp-bpf asked and possible (seccomp_wanted) */
	struct engine_kids kids;     /* -f: fork children (alive counts them) */
	struct ust_inject_state inj; /* -e inject=, -e fault= */
};

static void now(struct timespec *ts)
{
	clock_gettime(CLOCK_REALTIME, ts);
}

/* What the daemon streams for a joined process: records for our trc_out. */
static void join_out(void *ctx, const char *s, size_t n)
{
	struct ust_proc *up = ctx;

	trc_stream_feed(up->rx, s, n, &up->u->sink);
}

/*
 * A line for stderr, from the daemon or the adapter ("ustrace: Process N
 * attached"): our own name on it, as on our lines. One write, as before.
 */
static void stderr_msg(void *ctx, const char *s, size_t n)
{
	static const char daemon_pfx[] = "ustrace: ";
	size_t k = sizeof(daemon_pfx) - 1;

	(void)ctx;
	if (n >= k && !memcmp(s, daemon_pfx, k))
		fprintf(stderr, "%s: %.*s", ust_progname, (int)(n - k), s + k);
	else
		fwrite(s, 1, n, stderr);
}

static void proc_gone(struct ust_proc *up, bool killed, int code)
{
	if (up->gone)
		return;
	up->gone = true;
	up->u->alive--;
	if (up->u->o->argv)
		up->u->status = killed ? 0x100 | code : code;
}

static void ev_proc_gone(void *ctx, bool killed, int code)
{
	proc_gone(ctx, killed, code);
}

/* -f: a fork child, traced by an engine of our own that the engine made at the fork. */
static void kid_new(void *ctx, pid_t pid)
{
	struct ust_proc *up = ctx;

	(void)pid;
	up->u->alive++;
}

/* A fork child's process ended (its engine's on_stop, where leaving is allowed). */
static bool kid_gone(struct ust *u, pid_t pid)
{
	if (!engine_kids_drop(&u->kids, pid))
		return false;
	u->alive--;
	return true;
}

static void inject_entry(void *ctx, struct engine *e, pid_t tid, enum trc_pers p, long nr)
{
	struct ust *u = ((struct ust_proc *)ctx)->u;

	if (u->o->inject.nrules)
		ust_inject_entry(&u->o->inject, &u->inj, e, tid, p, nr);
}

static bool inject_exit(void *ctx, struct engine *e, pid_t tid, int64_t *ret)
{
	struct ust *u = ((struct ust_proc *)ctx)->u;

	return u->o->inject.nrules && ust_inject_exit(&u->inj, e, tid, ret);
}

static const struct engine_trc_ops ust_trc_ops = {
	.msg = stderr_msg,
	.kid_new = kid_new,
	.proc_gone = ev_proc_gone,
	.inject_entry = inject_entry,
	.inject_exit = inject_exit,
};

/* The strace core's host for up: the adapter of engine_trc.c does the rest. */
static struct engine_trc_host host_of(struct ust_proc *up)
{
	struct ust *u = up->u;

	return (struct engine_trc_host){
		.trc = u->trc,
		.e = up->e,
		.pid = up->pid,
		.follow = u->o->follow,
		.quiet = u->o->trc.quiet & TRC_QUIET_ATTACH,
		.kids = &u->kids,
		.ops = &ust_trc_ops,
		.ctx = up,
	};
}

static void on_event(void *ctx, const struct engine_event *ev)
{
	struct engine_trc_host h = host_of(ctx);

	engine_trc_event(&h, ev);
}

/* Exits come through on_event; on_stop only makes sure we notice the end. */
static void on_stop(void *ctx, const struct engine_stop *stop)
{
	struct ust_proc *up = ctx;

	if (stop->pid != up->pid &&
	    (stop->kind == ENGINE_STOP_EXITED || stop->kind == ENGINE_STOP_KILLED) &&
	    kid_gone(up->u, stop->pid))
		return;

	if (stop->kind == ENGINE_STOP_EXITED)
		proc_gone(up, false, stop->status);
	else if (stop->kind == ENGINE_STOP_KILLED)
		proc_gone(up, true, stop->sig);
}

/* Our own memory, for the execve line of a launched program. */
static ssize_t self_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void)ctx;
	memcpy(buf, (const void *)(uintptr_t)addr, len);
	return (ssize_t)len;
}

/* The file execvp runs for name (strace prints that path). */
static void find_prog(const char *name, char *out, size_t outlen)
{
	const char *path = getenv("PATH"), *p, *end;
	struct stat st;

	snprintf(out, outlen, "%s", name);
	if (strchr(name, '/'))
		return;
	for (p = path ? path : "/usr/local/bin:/usr/bin:/bin"; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		snprintf(out, outlen, "%.*s%s%s", (int)(end - p), p, end > p ? "/" : "", name);
		if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
			return;
	}
	snprintf(out, outlen, "%s", name);
}

static void print_execve(struct ust *u, pid_t pid, const struct arch_desc *arch)
{
	static char prog[4096];
	struct trc_reader rd = {NULL, self_read, NULL, NULL};
	struct trc_who w = {pid, TRC_PERS_64, &rd, {0, 0}, 0, false};
	uint64_t args[6] = {(uintptr_t)prog, (uintptr_t)u->o->argv, (uintptr_t)environ};
	long nr = trc_syscall_nr(TRC_PERS_64, "execve");

	(void)arch;
	find_prog(u->o->argv[0], prog, sizeof(prog));
	now(&w.ts);
	trc_syscall_entry(u->trc, &w, nr, args);
	trc_syscall_exit(u->trc, &w, 0);
}

static struct engine_client client_for(struct ust_proc *up)
{
	struct engine_client c = {0};

	c.ctx = up;
	c.on_stop = on_stop;
	c.on_event = on_event;
	c.name = "ustrace";
	c.peer_pid = getpid();
	c.peer_uid = getuid();
	return c;
}

/*
 * --seccomp-bpf as strace 6.1 takes it, with its messages: only with -f
 * (a child the filter was given to, untraced, would get ENOSYS from the
 * filtered syscalls), only for a launched program, and only when some
 * syscalls are left out.
 */
static bool seccomp_wanted(const struct ust_opts *o)
{
	if (!o->seccomp)
		return false;
	if (o->npids && !o->argv)
		fprintf(stderr,
			"%s: --seccomp-bpf is not enabled for processes attached "
			"with -p\n",
			ust_progname);
	if (!o->follow) {
		fprintf(stderr,
			"%s: --seccomp-bpf cannot be used without -f/--follow-forks, "
			"disabling\n",
			ust_progname);
		return false;
	}
	if (trc_traces_all(&o->trc, TRC_PERS_64) && trc_traces_all(&o->trc, TRC_PERS_32)) {
		fprintf(stderr,
			"%s: Seccomp filter is requested but there are no syscalls "
			"to filter.  See -e trace to filter syscalls.\n",
			ust_progname);
		return false;
	}
	if (!seccomp_available()) {
		fprintf(stderr, "%s: seccomp filter is requested but unavailable\n", ust_progname);
		return false;
	}
	return o->argv != NULL;
}

static void redirect_std(void)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return;
	dup2(fd, 0);
	dup2(fd, 1);
	if (fd > 1)
		close(fd);
}

/* PROG, launched and observed: 0, or -errno (said on stderr). */
static int start_launch(struct ust *u)
{
	static long nrs64[TRC_SET_MAX], nrs32[TRC_SET_MAX];
	struct ust_proc *up = &u->procs[u->nprocs]; /* after the -p ones, if any */
	struct engine_client c = client_for(up);
	struct engine_launch l = {0};
	struct engine_seccomp sc = {0};
	struct engine_launch_err why;

	up->u = u;
	l.argv = u->o->argv;
	l.execs = 1;
	if (u->seccomp) {
		sc.nrs64 = nrs64;
		sc.n64 = trc_traced_nrs(&u->o->trc, TRC_PERS_64, nrs64, TRC_SET_MAX);
		sc.nrs32 = nrs32;
		sc.n32 = trc_traced_nrs(&u->o->trc, TRC_PERS_32, nrs32, TRC_SET_MAX);
		l.seccomp = &sc;
	}
	up->e = engine_launch(u->t, &l, &c, &why);
	if (!up->e) {
		if (why.seccomp) {
			fprintf(stderr, "%s: seccomp filter: %s\n", ust_progname,
				strerror(-why.err));
			return why.err;
		}
		if (why.exit_code >= 0) {
			fprintf(stderr, "%s: %s: exited before it started\n", ust_progname,
				u->o->argv[0]);
			return -ECHILD;
		}
		fprintf(stderr, "%s: Can't stat '%s': %s\n", ust_progname, u->o->argv[0],
			strerror(-why.err));
		return why.err;
	}
	up->pid = engine_pid(up->e);
	u->nprocs++;
	u->alive++;
	/* as strace: the tracer's own stdin and stdout are not the program's to keep open */
	redirect_std();
	trc_thread_new(u->trc, up->pid);
	print_execve(u, up->pid, engine_arch(up->e));
	return engine_trc_observe(up->e, &u->o->trc, u->o->follow);
}

static const struct ust_join_cb *join_cb(struct ust_proc *up)
{
	static struct ust_join_cb cb;

	cb = (struct ust_join_cb){up, join_out, stderr_msg};
	return &cb;
}

/*
 * pid is held by utraced (a gdb debugs it there): join through the daemon.
 * 1 joined, 0 not held (trace it ourselves), -errno held but refused.
 */
static int join(struct ust *u, struct ust_proc *up)
{
	struct trc_wire w = {u->o->trc, u->o->follow};
	char err[256];
	int rc = ust_join_open(&up->j, up->pid, &w, join_cb(up), err, sizeof(err));

	if (rc < 0)
		fprintf(stderr, "%s: attach: pid %d: %s\n", ust_progname, (int)up->pid, err);
	return rc;
}

static void print_signal(struct ust_proc *up, pid_t tid)
{
	siginfo_t si;
	struct engine_event ev = {.kind = ENGINE_EV_SIGNAL, .si = &si};

	if (engine_siginfo_get(up->e, tid, &si) < 0)
		return;
	ev.pid = up->pid;
	ev.tid = tid;
	ev.arch = engine_arch(up->e);
	ev.engine = up->e;
	on_event(up, &ev);
}

/* A thread the attach found in a group-stop: "--- stopped by SIGSTOP ---", as strace. */
static void print_group_stop(struct ust_proc *up, const struct engine_stop *st)
{
	struct engine_event ev = {.kind = ENGINE_EV_STOPPED, .status = st->sig};

	ev.pid = up->pid;
	ev.tid = st->tid;
	ev.arch = engine_arch(up->e);
	ev.engine = up->e;
	on_event(up, &ev);
}

/*
 * The signals the attach met (the engine's first stop): strace prints them
 * first; then the group-stops it found, which it prints at its first wait.
 */
static void attach_signals(struct ust_proc *up)
{
	struct engine_stop st, more[64];
	size_t n;

	if (engine_stop_report(up->e, &st) && st.kind == ENGINE_STOP_SIGNAL) {
		print_signal(up, st.tid);
		n = engine_stop_signals(up->e, more, 64);
		for (size_t i = 0; i < n && i < 64; i++)
			print_signal(up, more[i].tid);
	}
	n = engine_group_stops(up->e, more, 64);
	for (size_t i = 0; i < n && i < 64; i++)
		print_group_stop(up, &more[i]);
}

/* Each -p PID, joined or attached: 0 if one at least, or -errno (said on stderr). */
static int start_attach(struct ust *u)
{
	size_t i;
	int err = 0, rc;

	for (i = 0; i < u->o->npids; i++) {
		struct ust_proc *up = &u->procs[u->nprocs];
		struct engine_client c = client_for(up);
		struct engine_trc_host h;
		int joined;

		up->u = u;
		up->pid = u->o->pids[i];
		up->rx = trc_stream_rx_new();
		joined = join(u, up);
		if (!joined && !(up->e = engine_attach(u->t, up->pid, &c, &err)))
			fprintf(stderr, "%s: attach: pid %d: %s\n", ust_progname, (int)up->pid,
				strerror(-err));
		if (joined < 0 || (!joined && !up->e)) {
			trc_stream_rx_free(up->rx); /* the slot is the next -p's */
			up->rx = NULL;
			continue;
		}
		if (up->e)
			trc_thread_new(u->trc, up->pid);
		u->nprocs++;
		u->alive++;
		h = host_of(up);
		engine_trc_attached(&h, up->pid);
		if (up->e)
			attach_signals(up);
		rc = up->e ? engine_trc_observe(up->e, &u->o->trc, u->o->follow) : 0;
		if (rc < 0) {
			fprintf(stderr, "%s: cannot observe pid %d\n", ust_progname, (int)up->pid);
			return rc;
		}
	}
	return u->nprocs ? 0 : -ESRCH;
}

/* A joined process's stream ended: it exited, or the daemon went away. */
static void join_gone(struct ust_proc *up)
{
	int st = ust_join_status(up->j);

	trc_stream_end(up->rx, &up->u->sink);
	if (st < 0 && !up->gone && !(up->u->o->trc.quiet & TRC_QUIET_ATTACH))
		fprintf(stderr, "%s: Process %d detached (utraced went away)\n", ust_progname,
			(int)up->pid);
	proc_gone(up, st >= 0 && (st & 0x100), st < 0 ? 0 : st & 0xff);
}

/*
 * ^C, SIGTERM...: leave every process running, as it was found. Except
 * those with our seccomp filter: untraced, every syscall the filter
 * stops at would fail with ENOSYS, so they get the signal that ended us,
 * as strace gives it to the program it started.
 */
static void detach_all(struct ust *u, int sig)
{
	size_t i;

	/* the daemon's last records first: the open line may be one of theirs */
	for (i = 0; i < u->nprocs; i++)
		if (u->procs[i].j && !u->procs[i].gone)
			ust_join_leave(u->procs[i].j, join_cb(&u->procs[i]));
	ust_out_flush_pending(u->out, " <detached ...>");
	for (i = 0; i < u->nprocs; i++) {
		struct ust_proc *up = &u->procs[i];

		if (up->e && !up->gone && engine_seccomp(up->e))
			kill(up->pid, sig);
		if (!up->gone && !(u->o->trc.quiet & TRC_QUIET_ATTACH))
			fprintf(stderr, "%s: Process %d detached\n", ust_progname, (int)up->pid);
		if (up->e)
			engine_detach(up->e);
		up->e = NULL;
		up->gone = true;
	}
	for (i = 0; i < u->kids.n; i++) {
		if (engine_seccomp(u->kids.v[i].e))
			kill(u->kids.v[i].pid, sig);
		if (!(u->o->trc.quiet & TRC_QUIET_ATTACH))
			fprintf(stderr, "%s: Process %d detached\n", ust_progname,
				(int)u->kids.v[i].pid);
	}
	engine_kids_leave(&u->kids);
	u->alive = 0;
	u->quit = sig;
}

/* A process our own engine traces is alive: it waits for us at each event. */
static bool private_alive(const struct ust *u)
{
	if (u->kids.n)
		return true;
	for (size_t i = 0; i < u->nprocs; i++)
		if (u->procs[i].e && !u->procs[i].gone)
			return true;
	return false;
}

/*
 * While only daemon streams flow, we read at most about every JOIN_BATCH:
 * the daemon writes a few lines at a time, and waking for each write costs
 * more CPU (ours and the kernel's) than the copying itself. Nothing waits
 * for us meanwhile: the daemon queues, and holds threads only when far
 * behind (src/gdb/gdb_trace.c).
 */
#define JOIN_BATCH_NS 1000000

/* A quit signal, while our engine alone is waited for (the only time it is let in). */
static volatile sig_atomic_t quit_sig;

static void on_quit(int sig)
{
	quit_sig = sig;
}

/* What a joined process's stream brought; false once it ended. */
static bool join_read(struct ust_proc *up)
{
	if (!ust_join_read(up->j, join_cb(up)))
		return false;
	if (!trc_stream_feed(up->rx, "", 0, &up->u->sink))
		return true;
	/* nothing more can be trusted: the daemon's engine leaves, the process runs on */
	fprintf(stderr, "%s: pid %d: malformed trace from utraced\n", ust_progname, (int)up->pid);
	ust_join_leave(up->j, join_cb(up));
	return false;
}

static bool joined_alive(const struct ust *u)
{
	for (size_t i = 0; i < u->nprocs; i++)
		if (u->procs[i].j && !u->procs[i].gone)
			return true;
	return false;
}

static void loop(struct ust *u, int sigfd, const sigset_t *quit)
{
	const struct timespec batch = {0, JOIN_BATCH_NS};
	struct pollfd pfd[2 + UST_MAX_PIDS];
	struct ust_proc *src[2 + UST_MAX_PIDS];
	struct signalfd_siginfo ssi;

	while (u->alive) {
		nfds_t n = 2;
		int rc;

		if (!joined_alive(u)) {
			/*
			 * Our engine only: wait for it alone, ^C let in to end
			 * the wait (strace's way: no syscall per stop for it).
			 */
			rc = 0;
			sigprocmask(SIG_UNBLOCK, quit, NULL);
			while (u->alive && !quit_sig && (rc == 0 || rc == -EINTR))
				rc = tracer_wait(u->t, &quit_sig);
			sigprocmask(SIG_BLOCK, quit, NULL);
			if (quit_sig)
				detach_all(u, quit_sig);
			break; /* all gone, ^C, or nothing left to wait for */
		}

		pfd[0] = (struct pollfd){tracer_fd(u->t), POLLIN, 0};
		pfd[1] = (struct pollfd){sigfd, POLLIN, 0};
		for (size_t i = 0; i < u->nprocs; i++) {
			if (!u->procs[i].j || u->procs[i].gone)
				continue;
			src[n] = &u->procs[i];
			pfd[n++] = (struct pollfd){ust_join_fd(u->procs[i].j), POLLIN, 0};
		}
		if (poll(pfd, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[1].revents & POLLIN) {
			if (read(sigfd, &ssi, sizeof(ssi)) < 0)
				continue;
			detach_all(u, (int)ssi.ssi_signo);
			break;
		}
		if (pfd[0].revents)
			tracer_poll(u->t);
		for (nfds_t i = 2; i < n; i++)
			if (pfd[i].revents && !join_read(src[i]))
				join_gone(src[i]);
		if (n > 2 && !private_alive(u))
			nanosleep(&batch, NULL); /* see above */
	}
}

/* Whatever our caller blocked or ignored: sig's default action, now. */
static int die_of(int sig)
{
	sigset_t one;

	signal(sig, SIG_DFL);
	sigemptyset(&one);
	sigaddset(&one, sig);
	raise(sig);
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	return 128 + sig;
}

static int finish(struct ust *u)
{
	size_t i;
	int st = u->status;

	engine_kids_leave(&u->kids); /* only after an error: they end before we do */
	for (i = 0; i < u->nprocs; i++) {
		if (u->procs[i].e)
			engine_detach(u->procs[i].e);
		ust_join_free(u->procs[i].j);
		trc_stream_rx_free(u->procs[i].rx);
	}
	trc_free(u->trc);
	ust_out_close(u->out);
	/* a debugging aid, and the tests' evidence of what --seccomp-bpf saves */
	if (getenv("USTRACE_STATS"))
		fprintf(stderr, "%s: %lu ptrace stops\n", ust_progname, tracer_stops(u->t));
	engine_detach_all(u->t);
	tracer_free(u->t);
	/* left at a signal, or the program was killed: die of it, as strace does */
	if (u->quit)
		return die_of(u->quit);
	if (st & 0x100)
		return die_of(st & 0xff);
	return st;
}

int ust_run(struct ust_opts *o)
{
	struct ust u = {0};
	sigset_t quit;
	int sigfd, rc;

	u.o = o;
	u.out = ust_out_open(o);
	if (!u.out)
		return 1;
	sigemptyset(&quit);
	sigaddset(&quit, SIGINT);
	sigaddset(&quit, SIGTERM);
	sigaddset(&quit, SIGHUP);
	sigaddset(&quit, SIGQUIT);
	sigprocmask(SIG_BLOCK, &quit, NULL);
	for (int sig = 1; sig < NSIG; sig++) /* no SA_RESTART: they end tracer_wait()'s wait4 */
		if (sigismember(&quit, sig) == 1)
			sigaction(sig, &(struct sigaction){.sa_handler = on_quit}, NULL);
	sigfd = signalfd(-1, &quit, SFD_CLOEXEC);
	u.seccomp = seccomp_wanted(o);
	u.t = tracer_new();
	u.sink = ust_out_sink(u.out);
	u.trc = trc_new_sink(&o->trc, &u.sink);
	/* -p PID... and PROG may come together: the processes first, as strace */
	rc = o->npids ? start_attach(&u) : 0;
	if (rc == 0 && o->argv)
		rc = start_launch(&u);
	if (rc == 0)
		loop(&u, sigfd, &quit);
	else if (!u.status)
		u.status = 1;
	close(sigfd);
	return finish(&u);
}
