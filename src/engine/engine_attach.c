/*
 * engine_attach.c: how an engine comes and goes: launch, attach, join,
 * detach, kill.
 *
 * A launched child waits on a pipe until we have seized it, so it is
 * traced from its first instruction with PTRACE_SEIZE semantics (no
 * SIGSTOP, no PTRACE_TRACEME); its execve() then stops in
 * PTRACE_EVENT_EXEC. A second, close-on-exec pipe carries execve()'s errno
 * back if it fails. With --seccomp-bpf the child installs its filter
 * (seccomp.c) once seized, just before the exec.
 */
#include "engine_int.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/filter.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

struct engine *engine_new(struct uproc *p, const struct engine_client *c)
{
	struct engine *e;
	int slot;

	for (slot = 0; slot < UPROC_MAX_ENGINES; slot++)
		if (!(p->slots & (1ULL << slot)))
			break;
	if (slot == UPROC_MAX_ENGINES)
		return NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->p = p;
	e->slot = slot;
	e->client = *c;
	p->slots |= 1ULL << slot;
	e->next = p->engines;
	p->engines = e;
	return e;
}

static void engine_unlink(struct engine *e)
{
	struct uproc *p = e->p;

	for (struct engine **pp = &p->engines; *pp; pp = &(*pp)->next) {
		if (*pp == e) {
			*pp = e->next;
			break;
		}
	}
	p->slots &= ~ENGINE_BIT(e);
	fork_children_engine_gone(e);
	/* hardware breakpoints bp_engine_drop() left: their process exited */
	while (e->hw) {
		struct hwbp *h = e->hw;

		e->hw = h->next;
		free(h);
	}
	free(e->nsq);
	free(e->later);
	free(e);
	sys_update(p);
}

/* --seccomp-bpf: the filter, built before the fork (the child only installs it) */
static struct sock_filter sc_filter[BPF_MAXINSNS];
static int sc_len;

/*
 * The signal mask and the ignored signals this process started with: what
 * the user's shell gave utraced or ustrace, and so what a program they
 * launch should get (gdbserver and strace pass theirs on likewise). Taken
 * before main, since both block signals and ignore SIGPIPE for their own
 * sake afterwards.
 */
static sigset_t start_mask;
static sigset_t start_ignored;

__attribute__((constructor)) static void save_start_signals(void)
{
	struct sigaction sa;
	int sig;

	sigprocmask(SIG_SETMASK, NULL, &start_mask);
	sigemptyset(&start_ignored);
	for (sig = 1; sig < NSIG; sig++)
		if (sigaction(sig, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
			sigaddset(&start_ignored, sig);
}

/* In the child: our own dispositions and mask out, the starting ones back. */
static void restore_start_signals(void)
{
	struct sigaction sa;
	int sig;

	for (sig = 1; sig < NSIG; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP || sigaction(sig, NULL, &sa) < 0)
			continue;
		if (sigismember(&start_ignored, sig))
			signal(sig, SIG_IGN);
		else if (sa.sa_handler == SIG_IGN)
			signal(sig, SIG_DFL);
	}
	sigprocmask(SIG_SETMASK, &start_mask, NULL);
}

/* What the child says through its error pipe when it cannot exec. */
struct exec_fail {
	int err;      /* an errno */
	bool seccomp; /* err is the filter's install */
};

static _Noreturn void child_fail(int err_fd, int err, bool seccomp)
{
	struct exec_fail f = {err, seccomp};

	if (write(err_fd, &f, sizeof(f)) < 0)
		_exit(127);
	_exit(127);
}

static void child_exec(const struct engine_launch *l, int go[2], int err_fd)
{
	static const char redirected[] = "stdin/stdout redirected\n";
	char c;
	int e;

	/*
	 * Its own process group, as gdbserver does: a ^C typed at our terminal
	 * is ours (gdb's ^C arrives as a packet). It gets the terminal, so that
	 * it may still read it.
	 */
	setpgid(0, 0);
	if (!(l->flags & ENGINE_LAUNCH_STDIO) && isatty(0)) {
		signal(SIGTTOU, SIG_IGN);
		tcsetpgrp(0, getpid());
		signal(SIGTTOU, SIG_DFL);
	}
	restore_start_signals();
	if (l->flags & ENGINE_LAUNCH_NO_ASLR)
		personality(ADDR_NO_RANDOMIZE);
	if (l->flags & ENGINE_LAUNCH_STDIO) {
		int fd = open("/dev/null", O_RDONLY);

		dup2(fd, 0);
		dup2(2, 1);
		if (write(2, redirected, sizeof(redirected) - 1) < 0)
			_exit(127);
	}
	if (read(go[0], &c, 1) < 0)
		_exit(127);
	/* now traced: a SECCOMP_RET_TRACE without a tracer would fail the syscall */
	if (sc_len > 0 && (e = seccomp_install(sc_filter, (size_t)sc_len)) < 0)
		child_fail(err_fd, -e, true);
	if (l->cwd && chdir(l->cwd) < 0)
		child_fail(err_fd, errno, false);
	if (l->env)
		execvpe(l->argv[0], l->argv, l->env);
	else
		execvp(l->argv[0], l->argv);
	child_fail(err_fd, errno, false);
}

/*
 * Wait for the launched child's n-th exec stop: 0, or -1 with *why filled
 * if it never came; *reaped when the child is gone.
 */
static int wait_exec(pid_t pid, int err_fd, int n, bool *reaped, struct engine_launch_err *why)
{
	struct exec_fail f;
	int status;

	for (;;) {
		if (waitpid(pid, &status, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			why->err = -errno;
			return -1;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			*reaped = true;
			if (read(err_fd, &f, sizeof(f)) == sizeof(f)) {
				why->err = -f.err;
				why->seccomp = f.seccomp;
			} else {
				why->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
			}
			return -1;
		}
		if ((unsigned)status >> 16 == PTRACE_EVENT_EXEC && --n == 0)
			return 0;
		/* anything before exec (a signal sent to it): pass it on */
		ptrace(PTRACE_CONT, pid, 0L, (long)((unsigned)status >> 16 ? 0 : WSTOPSIG(status)));
	}
}

/*
 * The terminal's foreground group before a launched program took it. Given
 * back when utraced exits, as gdbserver does: else the terminal's hang-up
 * at our exit would reach a program that was detached and should run on.
 */
static pid_t old_foreground = -1;

static void restore_foreground(void)
{
	/* we are in the background now: without this the kernel stops us with SIGTTOU */
	signal(SIGTTOU, SIG_IGN);
	tcsetpgrp(0, old_foreground);
}

static void remember_foreground(const struct engine_launch *l)
{
	if (old_foreground != -1 || (l->flags & ENGINE_LAUNCH_STDIO) || !isatty(0))
		return;
	old_foreground = tcgetpgrp(0);
	if (old_foreground != -1)
		atexit(restore_foreground);
}

struct engine *engine_launch(struct tracer *t, const struct engine_launch *l,
			     const struct engine_client *c, struct engine_launch_err *why)
{
	int go[2], ep[2];
	long opts = UPROC_SEIZE_OPTIONS;
	struct sysset sets[2];
	bool reaped = false;
	struct uproc *p;
	struct engine *e;
	pid_t pid;
	int fail;

	*why = (struct engine_launch_err){.exit_code = -1};
	sc_len = 0;
	if (l->seccomp && seccomp_available()) {
		seccomp_sets(sets, l->seccomp);
		sc_len = seccomp_build(sets, sc_filter, BPF_MAXINSNS);
		if (sc_len > 0)
			opts |= PTRACE_O_TRACESECCOMP;
	}
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(ep, O_CLOEXEC) < 0) {
		why->err = -errno;
		return NULL;
	}
	remember_foreground(l);
	pid = fork();
	if (pid == 0) {
		close(go[1]); /* or the read below never sees EOF */
		close(ep[0]);
		child_exec(l, go, ep[1]);
	}
	close(go[0]);
	close(ep[1]);
	why->err = pid < 0 ? -errno : 0;
	if (pid > 0 && ptrace(PTRACE_SEIZE, pid, 0L, opts) < 0)
		why->err = -errno;
	if (why->err && pid > 0) /* not traced: it must not run on to its exec */
		kill(pid, SIGKILL);
	close(go[1]); /* go: exec now */
	fail = why->err;
	if (pid > 0 && !fail)
		fail = wait_exec(pid, ep[0], l->execs > 0 ? l->execs : 1, &reaped, why);
	close(ep[0]);
	if (fail) {
		if (pid > 0 && !reaped) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, __WALL);
		}
		return NULL;
	}
	p = uproc_new(t, pid, false);
	uthread_add(p, pid)->stopped = true;
	detect_arch(p, pid);
	if (sc_len > 0) {
		p->seccomp = true;
		memcpy(p->sc_set, sets, sizeof(sets));
	}
	e = engine_new(p, c);
	e->stopped = true;
	e->report = (struct engine_stop){
		.kind = ENGINE_STOP_ATTACHED, .pid = pid, .tid = pid, .sig = SIGTRAP};
	return e;
}

/*
 * One pass over /proc/PID/task: seize each thread that is not ours yet.
 * Returns how many such threads it met (seized, or gone before the
 * seize: a thread that exits right after a clone leaves an untraced child
 * behind, which only the next pass sees), or -errno when the leader
 * cannot be seized. A thread the kernel already attached to us (a clone
 * of a seized thread, its stop not read yet) refuses a second seize and
 * is not counted.
 */
static int seize_pass(struct uproc *p)
{
	char path[64];
	int met = 0;
	DIR *d;
	struct dirent *de;

	snprintf(path, sizeof(path), "/proc/%d/task", p->pid);
	d = opendir(path);
	if (!d)
		return -ESRCH;
	while ((de = readdir(d))) {
		pid_t tid = (pid_t)atoi(de->d_name);
		int err;

		if (tid <= 0 || uproc_thread(p, tid))
			continue;
		err = uproc_seize(p, tid);
		if (err && tid == p->pid) {
			closedir(d);
			return err;
		}
		met += !err || err == -ESRCH;
	}
	closedir(d);
	return met;
}

/*
 * Seize every thread of pid, including those created while we do it:
 * pass after pass until one meets no thread that is not ours (bounded:
 * a program could keep making short-lived threads faster than we look).
 * Returns how many threads it met, or -errno.
 */
static int seize_all(struct uproc *p)
{
	int total = 0;

	for (int pass = 0; pass < 10000; pass++) {
		int met = seize_pass(p);

		if (met < 0)
			return met;
		if (met == 0)
			break;
		total += met;
	}
	return total;
}

int attach_seize_new(struct uproc *p)
{
	return seize_all(p);
}

static bool is_leader(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d", pid, pid);
	return access(path, F_OK) == 0;
}

/*
 * A process being attached is a small state machine driven by the stops
 * the event loop reaps, so that a thread slow to stop (a vfork parent, a
 * thread in uninterruptible sleep) holds only its own client: each of its
 * stops brings sched_update() here, until every thread is seized and
 * stopped (looking again for threads cloned meanwhile), then once more
 * after the queued signals are taken. True when the process is an
 * ordinary one: its engines' attach stops are then reported as any stop.
 */
bool attach_settle(struct uproc *p)
{
	CRASH_POINT("attach");
	for (;;) {
		if (!sched_all_stopped(p))
			return false;
		if (p->attach_signals)
			break;
		if (seize_all(p) > 0)
			continue; /* new threads: not stopped yet, or gone */
		p->attach_signals = true;
		uproc_take_queued_signals(p);
	}
	p->attaching = false;
	p->frozen = false;
	detect_arch(p, p->pid);
	return true;
}

/*
 * Until a thread stops, registers cannot tell a 32-bit program: its
 * executable can (the target description may be asked before the stop).
 */
static void guess_arch(struct uproc *p)
{
	unsigned char ident[EI_NIDENT];
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/exe", p->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (read(fd, ident, sizeof(ident)) == sizeof(ident) && arch_of_elf_class(ident[EI_CLASS]))
		p->arch = arch_of_elf_class(ident[EI_CLASS]);
	close(fd);
}

/* Seize every thread of pid and ask each to stop; attach_settle() does the rest. */
static struct uproc *attach_new(struct tracer *t, pid_t pid, int *err)
{
	struct uproc *p;

	if (pid <= 0 || !is_leader(pid)) {
		*err = pid > 0 && kill(pid, 0) == 0 ? -EINVAL : -ESRCH;
		return NULL;
	}
	/*
	 * Let go of a moment ago, with threads that could not stop yet (a
	 * detach waits only briefly): still ours, not seizable until they stop.
	 */
	if (leaving_pid(t, pid)) {
		*err = -EAGAIN;
		return NULL;
	}
	p = uproc_new(t, pid, true);
	p->frozen = true;
	p->attaching = true;
	guess_arch(p);
	*err = seize_all(p);
	if (*err >= 0) {
		*err = 0;
		return p;
	}
	if (!p->exited)
		uproc_detach_all(p); /* also the seized threads not stopped yet */
	uproc_free(p);
	return NULL;
}

struct engine *engine_attach_start(struct tracer *t, pid_t pid, const struct engine_client *c,
				   int *err)
{
	struct uproc *p;
	struct engine *e;

	leaving_procs_advance(t); /* (one of pid that exited meanwhile is gone then) */
	for (p = t->procs; p && p->pid != pid; p = p->next)
		;
	if (p && p->xol_releasing) { /* its pages half gone: a moment */
		*err = -EAGAIN;
		return NULL;
	}
	if (p && p->let_go_by) { /* being let go: taken back as it is */
		p->let_go_by = 0;
		p->frozen = false;
	}
	if (!p) {
		p = attach_new(t, pid, err);
		if (!p)
			return NULL;
	}
	e = engine_new(p, c);
	if (!e) {
		*err = -EUSERS;
		if (!p->engines)
			uproc_let_go(p);
		return NULL;
	}
	*err = 0;
	e->attaching = true;
	e->attach_expires = tracer_deadline(t);
	e->attach_started = tracer_now_ms();
	e->interrupt_req = true;
	sched_update(p);
	if (!e->attaching)
		e->notify = false; /* stopped already: the caller sees it, no on_stop() */
	return e;
}

size_t engine_group_stops(const struct engine *e, struct engine_stop *out, size_t max)
{
	size_t n = 0;

	for_each_thread(e->p, th) {
		if (!th->group_stop)
			continue;
		if (n < max)
			out[n] = (struct engine_stop){.kind = ENGINE_STOP_SIGNAL,
						      .pid = e->p->pid,
						      .tid = th->tid,
						      .sig = th->group_stop};
		n++;
	}
	return n;
}

bool engine_attaching(const struct engine *e)
{
	return e->attaching && !e->dead;
}

int engine_attach_time_left(const struct engine *e)
{
	long long left;

	if (!engine_attaching(e) || e->attach_expires == LLONG_MAX)
		return -1;
	left = e->attach_expires - tracer_now_ms();
	return left <= 0 ? 0 : left > INT_MAX ? INT_MAX : (int)left;
}

struct engine *engine_attach(struct tracer *t, pid_t pid, const struct engine_client *c, int *err)
{
	struct engine *e = engine_attach_start(t, pid, c, err);
	long long deadline = tracer_deadline(t);

	while (e && engine_attaching(e)) {
		*err = tracer_wait_until(t, deadline);
		if (*err < 0)
			break;
	}
	if (!e)
		return NULL;
	e->notify = false;	       /* the caller knows: no on_stop() for this one */
	if (e->dead || e->attaching) { /* gone, or the wait gave up */
		*err = !e->dead && *err == -ETIMEDOUT ? -ETIMEDOUT : -ESRCH;
		engine_detach(e);
		return NULL;
	}
	*err = 0;
	return e;
}

void engine_detach(struct engine *e)
{
	struct uproc *p = e->p;

	while (e->nchildren) /* fork children it never took */
		engine_detach(e->children[--e->nchildren]);
	if (!p->exited)
		bp_engine_drop(e);
	CRASH_POINT("detach");
	for_each_thread(p, th) {
		th->hold_mask &= ~ENGINE_BIT(e);
		th->step_mask &= ~ENGINE_BIT(e);
		th->sig_owners &= ~ENGINE_BIT(e);
		th->stop_req &= ~ENGINE_BIT(e);
		th->ctrlc_req &= ~ENGINE_BIT(e);
	}
	engine_unlink(e);
	if (p->engines) {
		sched_update(p);
		return;
	}
	uproc_let_go(p);
}

/*
 * SIGKILL, and no waiting for the death: a thread in uninterruptible sleep
 * (a hung NFS or FUSE request) can hold it off for ever, and the loop
 * must not wait for that. The loop reaps the exit like any other; an
 * engine that detaches meanwhile puts the dying threads on the leaving
 * list (uproc_detach_all), which lets each go at its exit stop.
 */
int engine_kill(struct engine *e)
{
	struct uproc *p = e->p;

	if (p->exited)
		return 0;
	return kill(p->pid, SIGKILL) < 0 ? -errno : 0;
}
