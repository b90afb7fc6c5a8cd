/*
 * waitloop.c: the daemon-wide ptrace owner (struct tracer) and its wait loop.
 *
 * ptrace stops of our tracees are announced with SIGCHLD; we block the
 * signal and read it from a signalfd, then reap the waitable statuses with
 * waitpid(WNOHANG | __WALL) (signals coalesce, so one SIGCHLD may stand for
 * many stops), a batch per turn of the event loop. An eventfd wakes the
 * loop when statuses are left, and when a stop report is ready to be
 * handed to a client outside the call that produced it.
 */
#include "engine_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/ptrace.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int epoll_add(int epfd, int fd)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
}

struct tracer *tracer_new(void)
{
	struct tracer *t = calloc(1, sizeof(*t));
	sigset_t set;

	if (!t)
		return NULL;
	t->xol = true;
	t->agent = true;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	t->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	t->evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	t->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (t->sigfd < 0 || t->evfd < 0 || t->epfd < 0 || epoll_add(t->epfd, t->sigfd) ||
	    epoll_add(t->epfd, t->evfd)) {
		tracer_free(t);
		return NULL;
	}
	return t;
}

void tracer_free(struct tracer *t)
{
	if (!t)
		return;
	/* every engine has left (engine_detach_all): each process is being let go, or has none */
	while (t->procs) {
		struct uproc *p = t->procs;

		if (p->let_go_by) /* being let go: the rest now */
			leaving_proc_finish_sync(p);
		else
			uproc_free(p);
	}
	fork_children_free(t);
	leaving_drain(t);
	if (t->sigfd >= 0)
		close(t->sigfd);
	if (t->evfd >= 0)
		close(t->evfd);
	if (t->epfd >= 0)
		close(t->epfd);
	leaving_free(t);
	free(t->early);
	free(t);
}

int tracer_fd(struct tracer *t)
{
	return t->epfd;
}

bool tracer_busy(struct tracer *t)
{
	return t->procs != NULL;
}

size_t tracer_pids(struct tracer *t, pid_t *pids, size_t max)
{
	size_t n = 0;

	for (struct uproc *p = t->procs; p; p = p->next) {
		if (p->exited || p->let_go_by)
			continue;
		if (n < max)
			pids[n] = p->pid;
		n++;
	}
	return n;
}

unsigned long tracer_stops(const struct tracer *t)
{
	return t->nstops;
}

/* (notify_pending: the eventfd was written and not read since, it is still readable) */
void tracer_wake(struct tracer *t)
{
	uint64_t one = 1;

	if (t->notify_pending)
		return;
	t->notify_pending = true;
	if (write(t->evfd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		perror("utraced: eventfd");
}

struct uthread *tracer_find_thread(struct tracer *t, pid_t tid)
{
	for (struct uproc *p = t->procs; p; p = p->next) {
		struct uthread *th = uproc_thread(p, tid);

		if (th)
			return th;
	}
	return NULL;
}

/* A "Name: N" field of /proc/TID/status (fmt "Name: %d"); 0 if unknown. */
static pid_t status_field(pid_t tid, const char *fmt)
{
	char path[64], line[128];
	pid_t val = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, fmt, &val) == 1)
			break;
	fclose(f);
	return val;
}

/* The thread group of tid, from /proc; 0 if unknown. */
pid_t tracer_tgid_of(pid_t tid)
{
	return status_field(tid, "Tgid: %d");
}

/* Is pid a live process of ours? */
static bool traced_pid(struct tracer *t, pid_t pid)
{
	for (struct uproc *p = t->procs; p; p = p->next)
		if (p->pid == pid && !p->exited)
			return true;
	return false;
}

/*
 * A stop of a task no process of ours owns: a thread or fork child the
 * kernel attached to us while its process was being let go. Left there,
 * it would stay stopped for ever, and its process could never end (its
 * parent's waitpid would not return). It goes, with its signal if the
 * stop was one.
 */
static void stray_detach(pid_t tid, int status)
{
	int sig = WSTOPSIG(status);

	if ((unsigned)status >> 16 || sig == (SIGTRAP | 0x80))
		sig = 0;
	ptrace(PTRACE_DETACH, tid, 0L, (long)sig);
}

/*
 * A status for a tid we do not know yet: a new thread whose first stop
 * overtook its creator's PTRACE_EVENT_CLONE. Adopt it into its process.
 */
static struct uthread *adopt_thread(struct tracer *t, pid_t tid)
{
	pid_t tgid = tracer_tgid_of(tid);

	for (struct uproc *p = t->procs; p; p = p->next) {
		if (p->pid != tgid)
			continue;
		/* its clone event will find it known */
		return thread_born(p, tid);
	}
	return NULL;
}

/*
 * A child (of a fork, or of a clone that makes a process) may stop before
 * its parent reports it: handle_status kept that status for the event.
 */
int tracer_take_early(struct tracer *t, pid_t pid, int *status)
{
	for (unsigned i = 0; i < t->nearly; i++) {
		if (t->early[i].pid != pid)
			continue;
		*status = t->early[i].status;
		t->early[i] = t->early[--t->nearly];
		return 0;
	}
	return -ENOENT;
}

static void handle_status(struct tracer *t, pid_t tid, int status, const struct rusage *ru)
{
	struct uthread *th = tracer_find_thread(t, tid);

	t->nstops += WIFSTOPPED(status);
	if (!th && fork_child_status(t, tid, status))
		return;
	if (!th && leaving_status(t, tid, status))
		return;
	if (!th && WIFSTOPPED(status))
		th = adopt_thread(t, tid);
	if (!th && WIFSTOPPED(status) && tracer_tgid_of(tid) == tid &&
	    traced_pid(t, status_field(tid, "PPid: %d"))) {
		/* a fork child whose parent has not reported the fork yet */
		t->early = array_grow(t->early, t->nearly, &t->early_cap, sizeof(*t->early));
		t->early[t->nearly++] = (struct early_status){tid, status};
		return;
	}
	if (!th && WIFSTOPPED(status)) {
		stray_detach(tid, status);
		return;
	}
	if (!th && (WIFEXITED(status) || WIFSIGNALED(status))) {
		/* the end of a process whose leader exited first (thread_events.c) */
		for (struct uproc *p = t->procs; p; p = p->next) {
			if (p->pid == tid && p->leader_gone) {
				uproc_exited(p, status);
				return;
			}
		}
	}
	if (!th)
		return; /* a process we already let go of */
	if (ru)
		th->stime_ns =
			(int64_t)ru->ru_stime.tv_sec * 1000000000 + ru->ru_stime.tv_usec * 1000;
	/* reaped, not handled yet: what a crash meanwhile must know (crash.c) */
	t->inflight_tid = tid;
	t->inflight_status = status;
	uproc_handle_status(th->p, th, status);
	t->inflight_tid = 0;
	if (t->forks) /* one may have waited for what this status ended (fork_child.c) */
		fork_children_advance(t);
}

/*
 * Wait for one status (waitpid flags) and handle it: the tid, 0 (WNOHANG,
 * none), or -1 with errno. waitpid, or wait4 with the process's rusage
 * when an observer wants system times (the kernel sums every thread's
 * then: not free).
 */
static pid_t reap_one(struct tracer *t, int flags)
{
	struct rusage ru;
	int status;
	pid_t tid;

	if (t->rusage)
		tid = wait4(-1, &status, __WALL | flags, &ru);
	else
		tid = waitpid(-1, &status, __WALL | flags);
	if (tid > 0)
		handle_status(t, tid, status, t->rusage ? &ru : NULL);
	return tid;
}

int tracer_wait_one(struct tracer *t)
{
	pid_t tid;

	do
		tid = reap_one(t, 0);
	while (tid < 0 && errno == EINTR);
	return tid < 0 ? -errno : 0;
}

void tracer_set_xol(struct tracer *t, bool on)
{
	t->xol = on;
}

void tracer_set_agent(struct tracer *t, bool on)
{
	t->agent = on;
}

void tracer_set_stop_timeout(struct tracer *t, int ms)
{
	t->stop_timeout_ms = ms > 0 ? ms : 0;
}

long long tracer_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

long long tracer_deadline(struct tracer *t)
{
	return t->stop_timeout_ms ? tracer_now_ms() + t->stop_timeout_ms : LLONG_MAX;
}

/*
 * Before a detach the threads are stopped only to let them go at once
 * with their pending signals: one that is slow to stop is let go at its
 * next stop instead (leaving.c), so the daemon waits a short while only.
 */
#define DETACH_WAIT_MS 100

long long tracer_detach_deadline(struct tracer *t)
{
	int ms = t->stop_timeout_ms < DETACH_WAIT_MS ? t->stop_timeout_ms : DETACH_WAIT_MS;

	return ms ? tracer_now_ms() + ms : LLONG_MAX;
}

/*
 * The signalfd holds SIGCHLD only, a standard signal: pending once at
 * most, so one read empties it (a syscall per stop saved on the hot path).
 */
static void sigfd_drain(struct tracer *t)
{
	struct signalfd_siginfo si;

	if (read(t->sigfd, &si, sizeof(si)) < 0 && errno != EAGAIN)
		perror("utraced: signalfd");
}

/*
 * SIGCHLD is slept on through our signalfd, read empty before each look
 * so that no status can come unnoticed between the look and the sleep.
 * The event loop, which watches the same signalfd, is woken afterwards
 * for the statuses left.
 */
int tracer_wait_until(struct tracer *t, long long deadline)
{
	struct pollfd pfd = {.fd = t->sigfd, .events = POLLIN};
	int err = 0;

	for (;;) {
		long long left;
		pid_t tid;

		sigfd_drain(t);
		tid = reap_one(t, WNOHANG);
		if (tid > 0)
			break;
		if (tid < 0 && errno != EINTR) {
			err = -errno;
			break;
		}
		left = deadline == LLONG_MAX ? -1 : deadline - tracer_now_ms();
		if (deadline != LLONG_MAX && left <= 0) {
			err = -ETIMEDOUT;
			break;
		}
		poll(&pfd, 1, left > 60000 ? 60000 : (int)left);
	}
	tracer_wake(t);
	return err;
}

/*
 * Statuses handled per turn of the event loop. Threads that hit a
 * breakpoint nobody reports come back as fast as they are let go: with
 * "reap until none is left", 20 of them kept the loop here and a client's
 * packet waited seconds for its answer (gdb.threads/interrupt-while-step-
 * over.exp). With more left, the loop is woken to come back after it has
 * served what else is ready.
 */
#define REAP_BATCH 64

static bool reap_some(struct tracer *t)
{
	sigfd_drain(t);
	for (int n = 0; n < REAP_BATCH; n++)
		if (reap_one(t, WNOHANG) <= 0)
			return false;
	return true;
}

int tracer_tick(struct tracer *t)
{
	int drain, let_go;

	if (t->forks) /* (one whose parent went: nothing else would move it on) */
		fork_children_advance(t);
	drain = patch_out_tick(t);
	let_go = leaving_procs_advance(t);

	if (drain < 0 || (let_go >= 0 && let_go < drain))
		return let_go;
	return drain;
}

void tracer_poll(struct tracer *t)
{
	bool more = reap_some(t);

	report_notify_all(t);
	if (more)
		tracer_wake(t);
}

int tracer_wait(struct tracer *t, volatile sig_atomic_t *stop)
{
	if (t->notify_pending) { /* reports made outside a status: hand them out first */
		report_notify_all(t);
		return 0;
	}
	if (*stop)
		return -EINTR;
	/* one status per call: the next wait4 returns at once if more are there */
	if (reap_one(t, 0) < 0)
		return -errno;
	leaving_procs_advance(t);
	if (t->notify_pending)
		report_notify_all(t);
	return 0;
}
