/*
 * crash.c: a fault inside utraced leaves its targets whole.
 *
 * When a tracer dies the kernel detaches its tracees, but every int3 we
 * inserted stays in their text and kills them with SIGTRAP at the next
 * hit, and a thread that had just hit one is let go one byte past it. So
 * on SIGSEGV, SIGBUS, SIGILL, SIGFPE or SIGABRT a handler, on a stack of
 * its own, walks the tracer's processes: it puts every original byte back
 * first (threads still run), then stops each thread, rewinds one that hit
 * a trap meanwhile, clears the debug registers and detaches it with the
 * signal it was stopped for; then the signal kills us as it would have.
 * Only system calls and reads of our own lists happen there (no
 * allocation, no stdio: the heap may be what broke), each loop bounded in
 * case the lists are damaged, and the whole walk bounded in time.
 * SIGKILL cannot be caught: docs/reliability.md says what it leaves.
 *
 * A test build (-DUTRACED_CRASH_POINTS) crashes at named points on demand,
 * UTRACED_CRASH=POINT:N[:SIG] (the N-th time POINT is passed; SIG one of
 * segv, bus, ill, fpe, abort), so that tests can check all this. It also
 * sleeps at named points, UTRACED_DELAY=POINT:MS (each pass), to hold the
 * event loop while the targets run on: a race's window made wide.
 */
#include "engine_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CRASH_STACK    (64 * 1024)
#define CRASH_MAX_WALK 65536 /* list elements visited, at most */
#define CRASH_WAIT_MS  3000  /* for running threads to stop, in all (a loaded machine) */

static struct tracer *guarded;
static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};

static void say(const char *s)
{
	if (write(2, s, strlen(s)) < 0)
		return;
}

static void restore_traps(struct uproc *p)
{
	int n = 0;

	for (struct swbp *bp = p->bps; bp && n < CRASH_MAX_WALK; bp = bp->next, n++) {
		size_t len;

		patch_bytes(p, bp, &len); /* an int3, or a patch's jmp */
		if (bp->inserted && pwrite(p->memfd, bp->orig, len, (off_t)bp->addr) < 0)
			say("utraced: a breakpoint could not be restored\n");
	}
}

/* Wait for tid's stop until deadline; false if it exited or never stopped. */
static bool crash_wait_stop(pid_t tid, long long deadline, int *status)
{
	const struct timespec ms = {0, 1000000};

	for (;;) {
		pid_t got = waitpid(tid, status, __WALL | WNOHANG);

		if (got == tid)
			return WIFSTOPPED(*status);
		if (got < 0 && errno != EINTR)
			return false;
		if (tracer_now_ms() >= deadline)
			return false;
		nanosleep(&ms, NULL);
	}
}

/*
 * The stop of th, not known to be stopped: the one being handled when we
 * crashed (reaped already: no other comes, and waiting for one would
 * leave it to the kernel's detach, which delivers a trap's SIGTRAP), or
 * the one an interrupt brings.
 */
static bool crash_stop_of(struct uthread *th, long long deadline, int *status)
{
	const struct tracer *t = th->p->t;

	if (th->tid == t->inflight_tid && WIFSTOPPED(t->inflight_status)) {
		*status = t->inflight_status;
		return true;
	}
	if (!th->interrupting)
		ptrace(PTRACE_INTERRUPT, th->tid, 0L, 0L);
	return crash_wait_stop(th->tid, deadline, status);
}

/*
 * A trap that an interrupt's stop overtook, still queued: a step's, or an
 * int3's (one of ours, or a trampoline's that the thread was just rolled
 * out of). Taken here (its stop in *status) and, as every SIGTRAP stop of
 * a leaving thread, not passed (leaving_let_go, which rewinds it onto a
 * trap of ours): detached with it, the thread would die of it. False if
 * the thread is gone or stuck.
 */
static bool take_queued_trap(pid_t tid, long long deadline, int *status)
{
	if (!leaving_step_trap_queued(tid) && !leaving_trap_queued(tid, ARCH_TRAP_SI_CODE))
		return true;
	return ptrace(PTRACE_CONT, tid, 0L, 0L) == 0 && crash_wait_stop(tid, deadline, status);
}

static void let_thread_go(struct uthread *th, long long deadline)
{
	struct leaving l;
	int status, sig;

	sig = th->has_pending && th->pending.kind == UEV_SIGNAL ? th->pending.sig : th->deliver_sig;
	regs_sync(th);		  /* a hit's rewind onto its trap */
	if (th->stopped && sig) { /* a signal it was to get goes with it */
		if (patch_rollback_tid(th->p, th->tid) == 2 && (sig == SIGSEGV || sig == SIGBUS))
			sig = 0;
		if (th->p->dregs_used)
			bp_dregs_clear(th->tid);
		ptrace(PTRACE_DETACH, th->tid, 0L, (long)sig);
		return;
	}
	if (th->stopped)
		status = PTRACE_EVENT_STOP << 16 | SIGTRAP << 8 | 0x7f;
	else if (!crash_stop_of(th, deadline, &status))
		return; /* gone, or stuck: the kernel detaches it when we die */
	/*
	 * Out of a trampoline (stopped in the agent, it would go on to the
	 * trap of a true condition); a condition's fault in the agent is
	 * ours, not passed.
	 */
	if (patch_rollback_tid(th->p, th->tid) == 2 &&
	    (WSTOPSIG(status) == SIGSEGV || WSTOPSIG(status) == SIGBUS))
		status = PTRACE_EVENT_STOP << 16 | SIGTRAP << 8 | 0x7f;
	if ((unsigned)status >> 16 == PTRACE_EVENT_STOP &&
	    !take_queued_trap(th->tid, deadline, &status))
		return;
	leaving_init(&l, th->p, th->tid); /* (its trap bytes are back now) */
	leaving_let_go(&l, status);
}

static bool known_tid(const struct uproc *p, pid_t tid)
{
	int n = 0;

	for (struct uthread *th = p->threads; th && n < CRASH_MAX_WALK; th = th->next, n++)
		if (th->tid == tid)
			return true;
	return false;
}

/* An early status of tid (a new thread whose clone event we had not seen yet). */
static bool early_status(const struct tracer *t, pid_t tid, int *status)
{
	for (size_t i = 0; i < t->nearly; i++) {
		if (t->early[i].pid == tid) {
			*status = t->early[i].status;
			return true;
		}
	}
	return false;
}

/*
 * Tasks of p we did not know yet (a thread made just before the crash):
 * traced all the same (PTRACE_O_TRACECLONE), and one may have hit a trap
 * already. Let go as the others, or the kernel's detach delivers that
 * trap. Listed with getdents64 on /proc/PID/task: no allocation here.
 */
static void let_unknown_go(struct uproc *p, long long deadline)
{
	char path[64], buf[4096];
	struct leaving l;
	int fd, status;
	long n;

	snprintf(path, sizeof(path), "/proc/%d/task", p->pid);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);
			pid_t tid = (pid_t)atoi(d->d_name);

			off += d->d_reclen;
			if (tid <= 0 || known_tid(p, tid))
				continue;
			if (!early_status(p->t, tid, &status)) {
				ptrace(PTRACE_INTERRUPT, tid, 0L, 0L);
				if (!crash_wait_stop(tid, deadline, &status))
					continue;
			}
			leaving_init(&l, p, tid);
			leaving_let_go(&l, status);
		}
	}
	close(fd);
}

/*
 * A fork child not settled yet (fork_child.c): the traps it kept for its
 * followers out of its memory, its registers back if it was lent to an
 * munmap (run to the syscall's exit first), and let go. A page of ours
 * not unmapped yet stays in it.
 */
static void let_fork_go(struct fork_child *fc, long long deadline)
{
	int status = PTRACE_EVENT_STOP << 16 | SIGTRAP << 8 | 0x7f, fd, n = 0;
	bool entered = fc->entered;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/mem", fc->pid);
	fd = open(path, O_RDWR | O_CLOEXEC);
	for (struct swbp *bp = fc->traps; bp && fd >= 0 && n < CRASH_MAX_WALK; bp = bp->next, n++)
		if (pwrite(fd, bp->orig, fc->arch->trap_len, (off_t)bp->addr) < 0)
			say("utraced: a breakpoint could not be restored\n");
	if (fd >= 0)
		close(fd);
	for (int stops = 0; fc->injecting && stops < 3; stops++) {
		if (!crash_wait_stop(fc->pid, deadline, &status))
			return;
		if (WSTOPSIG(status) == (SIGTRAP | 0x80) && !entered &&
		    ptrace(PTRACE_SYSCALL, fc->pid, 0L, 0L) == 0) {
			entered = true; /* its munmap runs, then its exit stop */
			continue;
		}
		regs_gp_set(fc->arch, fc->pid, &fc->saved);
		break;
	}
	if (!fc->stopped && !crash_wait_stop(fc->pid, deadline, &status))
		return; /* not stopped yet: the kernel detaches it when we die */
	ptrace(PTRACE_DETACH, fc->pid, 0L, (long)fc->sig);
}

static void let_all_go(struct tracer *t)
{
	long long deadline = tracer_now_ms() + CRASH_WAIT_MS;
	struct uproc *p;
	int n = 0;

	for (p = t->procs; p && n < CRASH_MAX_WALK; p = p->next, n++)
		if (!p->exited && p->arch)
			restore_traps(p);
	n = 0;
	for (p = t->procs; p && n < CRASH_MAX_WALK; p = p->next) {
		if (p->exited || !p->arch)
			continue;
		for (struct uthread *th = p->threads; th && n < CRASH_MAX_WALK; th = th->next, n++)
			let_thread_go(th, deadline);
		let_unknown_go(p, deadline);
	}
	n = 0;
	for (struct fork_child *fc = t->forks; fc && n < CRASH_MAX_WALK; fc = fc->next, n++)
		let_fork_go(fc, deadline);
}

static void crash_handler(int sig)
{
	struct tracer *t = guarded;

	guarded = NULL; /* a fault in here: die at once the second time */
	say("utraced: fatal signal: restoring and detaching the traced processes\n");
	if (t)
		let_all_go(t);
	signal(sig, SIG_DFL);
	raise(sig); /* blocked until we return: then it kills us */
}

void tracer_crash_guard(struct tracer *t)
{
	stack_t ss = {.ss_size = CRASH_STACK};
	struct sigaction sa;

	ss.ss_sp =
		mmap(NULL, CRASH_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ss.ss_sp == MAP_FAILED || sigaltstack(&ss, NULL) < 0)
		return; /* no guard: as before */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = crash_handler;
	sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		sigaction(fatal_signals[i], &sa, NULL);
	guarded = t;
}

#ifdef UTRACED_CRASH_POINTS
static int *volatile nowhere; /* NULL, unknown to the compiler */

static void crash_now(const char *how)
{
	if (!strcmp(how, "abort"))
		abort();
	if (!strcmp(how, "bus"))
		raise(SIGBUS);
	if (!strcmp(how, "ill"))
		raise(SIGILL);
	if (!strcmp(how, "fpe"))
		raise(SIGFPE);
	*nowhere = 1; /* a real fault: segv */
}

void crash_point(const char *name)
{
	static long left = -1;
	static char point[32], how[16] = "segv";
	const char *env;
	size_t len;

	if (left == -1) {
		env = getenv("UTRACED_CRASH");
		left = 0;
		len = env ? strcspn(env, ":") : 0;
		if (!env || !len || len >= sizeof(point) || env[len] != ':')
			return;
		memcpy(point, env, len);
		left = strtol(env + len + 1, NULL, 10);
		env = strchr(env + len + 1, ':');
		if (env && strlen(env + 1) < sizeof(how))
			strcpy(how, env + 1);
	}
	if (left > 0 && !strcmp(point, name) && --left == 0)
		crash_now(how);
}

void test_delay(const char *name)
{
	const char *env = getenv("UTRACED_DELAY");
	size_t len = env ? strcspn(env, ":") : 0;
	long ms;

	if (!len || env[len] != ':' || strlen(name) != len || strncmp(env, name, len))
		return;
	ms = strtol(env + len + 1, NULL, 10);
	if (ms > 0 && ms < 10000)
		usleep((useconds_t)ms * 1000);
}
#endif
