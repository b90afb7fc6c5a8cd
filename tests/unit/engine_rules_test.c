/*
 * The engine arbitration rules (docs/engines.md) without real processes:
 * who runs, who hears which event, signal delivery and suppression,
 * breakpoint ownership, step-over, holds, ^C and detach.
 *
 * A fake kernel stands in for ptrace: this program defines ptrace(),
 * waitpid(), poll() and process_vm_readv(), which the engine objects linked from
 * libutraced.a then call instead of libc's. The fake keeps per-thread
 * registers, siginfo and debug registers, logs every request, and checks
 * that nothing is asked of a thread that is not in a ptrace-stop. The
 * tracee's memory is a sparse memfd standing in for /proc/PID/mem. Kernel
 * events are fed to uproc_handle_status() as wait statuses; reports reach
 * each engine's on_stop() through tracer_poll(), as in the daemon.
 *
 * Resume traffic is checked as a compact trace: "c2" is PTRACE_CONT of
 * thread 2, "c3:10" the same with signal 10, "s" single-step, "i"
 * PTRACE_INTERRUPT, "d" PTRACE_DETACH. Thread 1 is the leader.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/engine_int.h"
#include "tap.h"

/* Above PID_MAX_LIMIT: uproc_new() can never open a real /proc/PID/mem. */
#define PID	    5000000
#define NTHREADS    3
#define TID(i)	    (PID + (i)-1)
#define TEXT	    0x401000ull
#define TEXT_LEN    256
#define BP_X	    (TEXT + 0x10)
#define BP_Y	    (TEXT + 0x20)
#define NOT_A_BP    (TEXT + 0x30)
#define START_PC    (TEXT + 0x80)
#define DATA	    0x601000ull
#define DR6_BS	    0x4000ul
#define EVENT_STOP  (W_STOPCODE(SIGTRAP) | (PTRACE_EVENT_STOP << 16))
#define XSTATE_SIZE 1088

/* ---- the fake kernel ---- */

struct fthread {
	bool alive;
	bool running;
	bool intr;	   /* PTRACE_INTERRUPT pending */
	bool trap_pending; /* an int3's SIGTRAP not yet delivered (PTRACE_PEEKSIGINFO) */
	int queued;	   /* a signal on the thread's own queue (PTRACE_PEEKSIGINFO) ... */
	uint64_t blocked;  /* ... and its blocked mask (PTRACE_GETSIGMASK) */
	struct user_regs_struct regs;
	unsigned long dr[8];
	siginfo_t si;
};

static struct fthread kt[NTHREADS + 1]; /* kt[1] is the leader */
static int memfd = -1;
static char trace_buf[1024];
static size_t trace_len;
static int violations;
static int test_errors;

static int tidx(pid_t tid)
{
	int i = tid - PID + 1;

	return i >= 1 && i <= NTHREADS && kt[i].alive ? i : 0;
}

static void violation(const char *what, int req, pid_t tid)
{
	violations++;
	diag("fake kernel: %s (request %d, tid %d)", what, req, tid);
}

static void trace_add(char c, int i, long sig)
{
	int n;

	if (sig)
		n = snprintf(trace_buf + trace_len, sizeof(trace_buf) - trace_len, "%s%c%d:%ld",
			     trace_len ? " " : "", c, i, sig);
	else
		n = snprintf(trace_buf + trace_len, sizeof(trace_buf) - trace_len, "%s%c%d",
			     trace_len ? " " : "", c, i);
	if (n > 0 && (size_t)n < sizeof(trace_buf) - trace_len)
		trace_len += (size_t)n;
}

/* The resume traffic since the last call, and forget it. */
static const char *trace(void)
{
	static char out[sizeof(trace_buf)];

	memcpy(out, trace_buf, trace_len + 1);
	trace_len = 0;
	trace_buf[0] = '\0';
	return out;
}

static int dr_index(unsigned long off)
{
	unsigned long base = offsetof(struct user, u_debugreg);

	if (off < base || off >= base + 8 * sizeof(long) || (off - base) % sizeof(long))
		return -1;
	return (int)((off - base) / sizeof(long));
}

long ptrace(enum __ptrace_request req, ...)
{
	va_list ap;
	pid_t tid;
	unsigned long addr;
	void *data;
	struct fthread *k;
	struct iovec *iov;
	int i, dr;

	va_start(ap, req);
	tid = va_arg(ap, pid_t);
	addr = (unsigned long)va_arg(ap, void *);
	data = va_arg(ap, void *);
	va_end(ap);

	i = tidx(tid);
	if (!i) {
		violation("no such thread", req, tid);
		errno = ESRCH;
		return -1;
	}
	k = &kt[i];
	if (req == PTRACE_INTERRUPT) {
		trace_add('i', i, 0);
		if (k->running)
			k->intr = true;
		return 0;
	}
	if (k->running) {
		violation("thread is not in a ptrace-stop", req, tid);
		errno = ESRCH;
		return -1;
	}
	switch ((int)req) {
	case PTRACE_CONT:
	case PTRACE_SINGLESTEP:
		trace_add(req == PTRACE_CONT ? 'c' : 's', i, (long)data);
		k->running = true;
		return 0;
	case PTRACE_DETACH:
		trace_add('d', i, (long)data);
		k->alive = false;
		return 0;
	case PTRACE_GETREGS:
		memcpy(data, &k->regs, sizeof(k->regs));
		return 0;
	case PTRACE_SETREGS:
		memcpy(&k->regs, data, sizeof(k->regs));
		return 0;
	case PTRACE_GETSIGINFO:
		memcpy(data, &k->si, sizeof(k->si));
		return 0;
	case PTRACE_SETSIGINFO:
		memcpy(&k->si, data, sizeof(k->si));
		return 0;
	case PTRACE_PEEKUSER:
		dr = dr_index(addr);
		if (dr < 0)
			break;
		return (long)k->dr[dr];
	case PTRACE_POKEUSER:
		dr = dr_index(addr);
		if (dr < 0)
			break;
		k->dr[dr] = (unsigned long)data;
		return 0;
	case PTRACE_GETREGSET:
		iov = data;
		if (addr == NT_X86_XSTATE && iov->iov_len >= XSTATE_SIZE) {
			memset(iov->iov_base, 0, XSTATE_SIZE);
			iov->iov_len = XSTATE_SIZE;
			return 0;
		}
		if (addr == NT_PRSTATUS && iov->iov_len >= sizeof(k->regs)) {
			memcpy(iov->iov_base, &k->regs, sizeof(k->regs));
			iov->iov_len = sizeof(k->regs);
			return 0;
		}
		break;
	case PTRACE_SETREGSET:
		return 0;
	case PTRACE_GETEVENTMSG:
		*(unsigned long *)data = 0;
		return 0;
	case PTRACE_PEEKSIGINFO:
		if (!k->trap_pending && !k->queued)
			return 0;
		memset(data, 0, sizeof(siginfo_t));
		((siginfo_t *)data)->si_signo = k->trap_pending ? SIGTRAP : k->queued;
		((siginfo_t *)data)->si_code = k->trap_pending ? SI_KERNEL : SI_TKILL;
		return 1;
	case PTRACE_GETSIGMASK:
		if ((size_t)addr != sizeof(k->blocked))
			break;
		memcpy(data, &k->blocked, sizeof(k->blocked));
		return 0;
	default:
		break;
	}
	violation("unexpected request", req, tid);
	errno = EIO;
	return -1;
}

/* Reads of the tracee's memory, from the file that plays /proc/PID/mem. */
ssize_t process_vm_readv(pid_t pid, const struct iovec *lvec, unsigned long liovcnt,
			 const struct iovec *rvec, unsigned long riovcnt, unsigned long flags)
{
	if (pid != PID || liovcnt != 1 || riovcnt != 1 || flags || lvec->iov_len != rvec->iov_len) {
		errno = EINVAL;
		return -1;
	}
	return pread(memfd, lvec->iov_base, lvec->iov_len, (off_t)(uintptr_t)rvec->iov_base);
}

/*
 * Only the engine's synchronous waits (tracer_wait_until(): poll() on
 * SIGCHLD, then waitpid(WNOHANG)) see statuses from the fake: an
 * interrupted thread reports its PTRACE_EVENT_STOP, a continued one with a
 * signal queued its signal-delivery-stop, or ECHILD when none is coming.
 * The event loop's polls (WNOHANG alone) see nothing: the tests feed every
 * other status themselves.
 */
static bool sigchld;

int poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	(void)fds, (void)nfds, (void)timeout;
	sigchld = true;
	return 1;
}

pid_t waitpid(pid_t pid, int *status, int options)
{
	(void)pid;
	if ((options & WNOHANG) && !sigchld)
		return 0;
	sigchld = false;
	for (int i = 1; i <= NTHREADS; i++) {
		if (kt[i].alive && kt[i].running && !kt[i].intr && kt[i].queued) {
			kt[i].running = false;
			memset(&kt[i].si, 0, sizeof(kt[i].si));
			kt[i].si.si_signo = kt[i].queued;
			kt[i].si.si_code = SI_TKILL;
			*status = W_STOPCODE(kt[i].queued);
			kt[i].queued = 0;
			return TID(i);
		}
		if (kt[i].alive && kt[i].running && kt[i].intr) {
			kt[i].running = false;
			kt[i].intr = false;
			*status = EVENT_STOP;
			return TID(i);
		}
	}
	errno = ECHILD;
	return -1;
}

/* ---- the world: one process, three threads, engines A and B ---- */

struct rec {
	int n;
	struct engine_stop st[16];
};

static struct tracer *tracer;
static struct uproc *p;
static struct engine *A, *B;
static struct rec ra, rb;

static void on_stop(void *ctx, const struct engine_stop *st)
{
	struct rec *r = ctx;

	if (r->n < (int)(sizeof(r->st) / sizeof(r->st[0])))
		r->st[r->n] = *st;
	r->n++;
}

/* What engine_new() (static in engine_attach.c) does. */
static struct engine *engine_make(struct rec *r, const char *name)
{
	struct engine *e = calloc(1, sizeof(*e));
	int slot = 0;

	while (p->slots & (1ull << slot))
		slot++;
	e->p = p;
	e->slot = slot;
	e->client = (struct engine_client){.ctx = r, .on_stop = on_stop, .name = name};
	p->slots |= 1ull << slot;
	e->next = p->engines;
	p->engines = e;
	memset(r, 0, sizeof(*r));
	return e;
}

static struct uthread *th(int i)
{
	return uproc_thread(p, TID(i));
}

static uint8_t text_byte(uint64_t addr)
{
	return (uint8_t)(addr - TEXT + 1);
}

static int raw_byte(uint64_t addr)
{
	uint8_t b;

	return pread(memfd, &b, 1, (off_t)addr) == 1 ? b : -1;
}

static int view_byte(struct engine *e, uint64_t addr)
{
	uint8_t b;

	return engine_mem_read(e, addr, &b, 1) == 1 ? b : -1;
}

/* Hand ready reports to the engines, as the daemon's event loop does. */
static void poll_reports(void)
{
	tracer_poll(tracer);
}

static const struct engine_stop *last(const struct rec *r)
{
	static const struct engine_stop none = {.kind = -1};

	return r->n ? &r->st[r->n - 1] : &none;
}

static void set_pass(struct engine *e, int sig, bool pass)
{
	bool v[NSIG];

	memcpy(v, e->pass, sizeof(v));
	v[sig] = pass;
	engine_set_pass_signals(e, v);
}

/* Two engines, three threads, all running, nothing held. */
static const char *setup(void)
{
	uint8_t text[TEXT_LEN];

	memset(kt, 0, sizeof(kt));
	trace();
	if (memfd >= 0)
		close(memfd);
	p = uproc_new(tracer, PID, true);
	if (p->memfd >= 0)
		close(p->memfd);
	memfd = memfd_create("fake-proc-mem", MFD_CLOEXEC);
	p->memfd = dup(memfd); /* uproc_free() closes it; we keep looking */
	for (int i = 0; i < TEXT_LEN; i++)
		text[i] = text_byte(TEXT + i);
	if (pwrite(memfd, text, sizeof(text), TEXT) != sizeof(text))
		abort();
	for (int i = 1; i <= NTHREADS; i++) {
		kt[i].alive = true;
		kt[i].regs.rip = START_PC;
		uthread_add(p, TID(i))->stopped = true;
	}
	A = engine_make(&ra, "A");
	B = engine_make(&rb, "B");
	sched_update(p);
	return trace();
}

/* Every engine leaves; the last one out releases the process. */
static void teardown(void)
{
	if (A)
		engine_detach(A);
	if (B)
		engine_detach(B);
	A = B = NULL;
	p = NULL;
	trace();
	ok(!tracer->procs && !violations && !test_errors,
	   "  (process released; the fake kernel saw no request for a running thread)");
	violations = test_errors = 0;
}

/* ---- kernel events ---- */

static void k_status(int i, int status)
{
	if (!kt[i].running) {
		diag("test error: thread %d reports a stop but is not running", i);
		test_errors++;
	}
	kt[i].running = false;
	kt[i].intr = false;
	uproc_handle_status(p, th(i), status);
}

static void set_si(int i, int sig, int code)
{
	memset(&kt[i].si, 0, sizeof(kt[i].si));
	kt[i].si.si_signo = sig;
	kt[i].si.si_code = code;
}

/* Thread i executes the int3 at addr. */
static void k_int3(int i, uint64_t addr)
{
	kt[i].regs.rip = addr + 1;
	set_si(i, SIGTRAP, SI_KERNEL);
	k_status(i, W_STOPCODE(SIGTRAP));
}

/* Thread i finishes a single-step over a one-byte instruction. */
static void k_step(int i)
{
	kt[i].regs.rip++;
	kt[i].dr[6] |= DR6_BS;
	set_si(i, SIGTRAP, TRAP_TRACE);
	k_status(i, W_STOPCODE(SIGTRAP));
}

/* Signal-delivery-stop of thread i for sig, sent by kill(). */
static void k_signal(int i, int sig)
{
	set_si(i, sig, SI_USER);
	k_status(i, W_STOPCODE(sig));
}

/* Thread i stops for our PTRACE_INTERRUPT. */
static void k_intr(int i)
{
	if (!kt[i].intr) {
		diag("test error: thread %d was not interrupted", i);
		test_errors++;
	}
	k_status(i, EVENT_STOP);
}

/* Every interrupted thread stops. */
static void k_intr_all(void)
{
	for (int i = 1; i <= NTHREADS; i++)
		if (kt[i].running && kt[i].intr)
			k_intr(i);
}

/* Debug-register trap of thread i: dr6 bits B0..B3. */
static void k_watch(int i, unsigned long dr6)
{
	kt[i].dr[6] = dr6;
	set_si(i, SIGTRAP, TRAP_HWBKPT);
	k_status(i, W_STOPCODE(SIGTRAP));
}

/* Thread i is gone with this wait status (W_EXITCODE, or a signal number). */
static void k_die(int i, int status)
{
	kt[i].alive = false;
	kt[i].running = false;
	uproc_handle_status(p, th(i), status);
}

static bool is_stop(const struct rec *r, int n, enum engine_stop_kind kind, int i, int sig)
{
	const struct engine_stop *st = last(r);

	if (r->n == n && st->kind == kind && st->pid == PID && st->tid == TID(i) && st->sig == sig)
		return true;
	diag("    %d reports, last: kind %d tid %d sig %d addr %#llx", r->n, (int)st->kind,
	     st->tid - PID + 1, st->sig, (unsigned long long)st->addr);
	diag("    expected %d reports, last: kind %d tid %d sig %d", n, (int)kind, i, sig);
	return false;
}

static const struct engine_resume all_run = {.tid = -1, .action = ENGINE_RUN};

/* ---- the rules ---- */

static void test_who_runs(void)
{
	static const struct engine_resume a_acts[] = {
		{.tid = TID(2), .action = ENGINE_RUN},
		{.tid = TID(3), .action = ENGINE_STEP},
	};
	static const struct engine_resume mixed[] = {
		{.tid = TID(1), .action = ENGINE_HOLD},
		{.tid = TID(2), .action = ENGINE_STEP},
		{.tid = -1, .action = ENGINE_RUN},
	};

	diag("who runs; ^C");
	is_str(setup(), "c1 c2 c3", "nobody stopped, nothing held: every thread is continued");

	is_int(engine_interrupt(A), 0, "^C from A");
	is_str(trace(), "i1 i2 i3", "  interrupts every running thread");
	k_intr(1);
	k_intr(2);
	poll_reports();
	ok(!engine_stopped(A) && ra.n == 0, "  no report while a thread still runs");
	k_intr(3);
	poll_reports();
	ok(is_stop(&ra, 1, ENGINE_STOP_INTERRUPT, 1, SIGINT),
	   "  all stopped: A gets INTERRUPT (SIGINT)");
	is_int(rb.n, 0, "  B hears nothing of A's ^C");
	ok(engine_stopped(A) && !engine_stopped(B), "  the process is stopped for A only");

	is_int(engine_interrupt(B), 0, "^C from B while everything is stopped for A");
	poll_reports();
	ok(is_stop(&rb, 1, ENGINE_STOP_INTERRUPT, 1, SIGINT), "  B gets INTERRUPT at once");
	is_str(trace(), "", "  without any ptrace request");

	is_int(engine_resume(A, a_acts, 2), 0, "A: vCont;c:2;s:3 (T1 left out)");
	is_str(trace(), "", "  B is still stopped: nothing runs");
	is_int(th(1)->hold_mask, ENGINE_BIT(A), "  A holds T1");
	is_int(th(3)->step_mask, ENGINE_BIT(A), "  A wants T3 stepped");
	is_int(engine_resume(A, &all_run, 1), -EBUSY,
	       "  A cannot resume again before its next stop");

	is_int(engine_resume(B, &all_run, 1), 0, "B: vCont;c");
	is_str(trace(), "c2 s3",
	       "  T1 stays (A holds it), T3 is stepped (step beats run), T2 runs");

	k_step(3);
	is_str(trace(), "i2", "T3's step is done: the running T2 is interrupted for the report");
	k_intr(2);
	poll_reports();
	ok(is_stop(&ra, 2, ENGINE_STOP_STEP, 3, SIGTRAP), "  A, which asked for the step, gets it");
	is_int(rb.n, 1, "  B, which let T3 run, hears nothing");
	is_int(th(1)->hold_mask | th(3)->step_mask, 0, "  A's per-thread wishes are reset");

	is_int(engine_resume(A, mixed, 3), 0, "A: vCont;t:1;s:2;c");
	is_str(trace(), "s2 c3", "  T1 held, T2 stepped, T3 continued");
	k_step(2);
	is_str(trace(), "i3", "T2's step is done: T3 is interrupted");
	k_intr(3);
	poll_reports();
	ok(is_stop(&ra, 3, ENGINE_STOP_STEP, 2, SIGTRAP), "  A gets the step of T2");
	is_int(rb.n, 1, "  B nothing");
	teardown();
}

/* gdb sends ^C between a stop and its next vCont too: gdbserver's SIGINT ends that resume. */
static void test_interrupt_queued(void)
{
	diag("^C while stopped: the next resume stops at once");
	setup();
	engine_interrupt(A);
	trace();
	k_intr(1);
	k_intr(2);
	k_intr(3);
	poll_reports();
	is_int(engine_interrupt(A), 0, "^C from A while stopped");
	poll_reports();
	is_int(ra.n, 1, "  no report now");
	is_int(engine_resume(A, &all_run, 1), 0, "A: vCont;c");
	poll_reports();
	ok(is_stop(&ra, 2, ENGINE_STOP_INTERRUPT, 1, SIGINT), "  A is stopped again: INTERRUPT");
	is_str(trace(), "", "  and nothing ran");
	is_int(rb.n, 0, "  B hears nothing");
	teardown();
}

static void test_breakpoint_owners(void)
{
	diag("breakpoints: who hears an int3");
	setup();
	is_int(engine_bp_insert(A, ENGINE_BP_SW, BP_X, 1), 0, "A inserts a breakpoint at X");
	is_int(raw_byte(BP_X), 0xcc, "  int3 in memory");
	is_int(view_byte(B, BP_X), text_byte(BP_X), "  B reads the original byte there");
	is_int(view_byte(A, BP_X), text_byte(BP_X), "  so does A");

	k_int3(2, BP_X);
	is_int(kt[2].regs.rip, BP_X, "T2 hits X: its pc is rewound onto the breakpoint");
	is_str(trace(), "i1 i3", "  the other threads are stopped for the report");
	poll_reports();
	is_int(ra.n, 0, "  no report before they are");
	k_intr_all();
	poll_reports();
	ok(is_stop(&ra, 1, ENGINE_STOP_SWBREAK, 2, SIGTRAP) && last(&ra)->addr == BP_X,
	   "  A, the owner, gets SWBREAK at X");
	is_int(rb.n, 0, "  B, which has no breakpoint there, gets nothing");
	ok(engine_stopped(A) && !engine_stopped(B), "  stopped for A only");
	teardown();
	is_int(raw_byte(BP_X), text_byte(BP_X), "the owner's detach removed the trap");

	setup();
	is_int(engine_bp_insert(A, ENGINE_BP_SW, BP_X, 1), 0, "A and B both insert X");
	is_int(engine_bp_insert(B, ENGINE_BP_SW, BP_X, 1), 0, "  (B)");
	is_int(raw_byte(BP_X), 0xcc, "  one trap in memory");
	is_int(view_byte(B, BP_X), text_byte(BP_X), "  reads show the original byte");
	k_int3(3, BP_X);
	is_str(trace(), "i1 i2", "T3 hits X: the others are stopped");
	k_intr_all();
	poll_reports();
	ok(is_stop(&ra, 1, ENGINE_STOP_SWBREAK, 3, SIGTRAP), "  A gets SWBREAK");
	ok(is_stop(&rb, 1, ENGINE_STOP_SWBREAK, 3, SIGTRAP), "  B gets SWBREAK too");
	ok(engine_stopped(A) && engine_stopped(B), "  stopped for both");
	engine_resume(A, &all_run, 1);
	is_str(trace(), "", "A resumes: B still holds everything");
	engine_resume(B, &all_run, 1);
	is_str(trace(), "s3", "B resumes: T3 steps over X alone");
	is_int(raw_byte(BP_X), text_byte(BP_X), "  the original byte is in memory meanwhile");
	k_step(3);
	is_str(trace(), "c1 c2 c3", "  step done: everyone runs");
	is_int(raw_byte(BP_X), 0xcc, "  and the trap is back");
	poll_reports();
	ok(ra.n == 1 && rb.n == 1, "  the step over is reported to nobody");
	is_int(engine_bp_remove(A, ENGINE_BP_SW, BP_X, 1), 0, "A removes X");
	is_int(raw_byte(BP_X), 0xcc, "  B still owns it: the trap stays");
	is_int(engine_bp_remove(B, ENGINE_BP_SW, BP_X, 1), 0, "B removes X");
	is_int(raw_byte(BP_X), text_byte(BP_X), "  last owner gone: original byte back");
	is_int(engine_bp_remove(B, ENGINE_BP_SW, BP_X, 1), 0, "  removing it twice is fine");

	k_int3(2, BP_X);
	is_int(kt[2].regs.rip, BP_X, "T2 hits X just after its removal: pc rewound");
	is_str(trace(), "c2", "  the hit is swallowed: T2 continues, nobody is stopped");
	poll_reports();
	ok(ra.n == 1 && rb.n == 1, "  no report");

	k_int3(2, NOT_A_BP);
	is_int(kt[2].regs.rip, NOT_A_BP + 1,
	       "an int3 that is nobody's breakpoint: pc left after it");
	is_str(trace(), "i1 i3", "  it is a SIGTRAP: the others are stopped");
	k_intr_all();
	poll_reports();
	ok(is_stop(&ra, 2, ENGINE_STOP_SIGNAL, 2, SIGTRAP), "  A gets the SIGTRAP");
	ok(is_stop(&rb, 2, ENGINE_STOP_SIGNAL, 2, SIGTRAP), "  B gets the SIGTRAP");
	teardown();
}

/*
 * A PTRACE_INTERRUPT that lands between an int3 and its SIGTRAP: pc is
 * already past the trap. The engine lets the signal come first instead of
 * taking the interrupt stop as the thread's stop.
 */
static void test_interrupt_after_int3(void)
{
	diag("an interrupt between an int3 and its SIGTRAP");
	setup();
	is_int(engine_bp_insert(A, ENGINE_BP_SW, BP_X, 1), 0, "A inserts a breakpoint at X");
	k_int3(2, BP_X);
	is_str(trace(), "i1 i3", "T2 hits X: the others are interrupted");
	kt[3].regs.rip = BP_X + 1; /* T3 hit it too, its SIGTRAP still pending */
	kt[3].trap_pending = true;
	k_intr(3);
	is_str(trace(), "c3", "  T3's interrupt stop with a trap pending: continued at once");
	k_intr(1);
	poll_reports();
	is_int(ra.n, 0, "  no report while T3's trap is on its way");
	kt[3].trap_pending = false;
	k_int3(3, BP_X);
	is_int(kt[3].regs.rip, BP_X, "  its SIGTRAP comes: pc rewound onto X");
	poll_reports();
	ok(is_stop(&ra, 1, ENGINE_STOP_SWBREAK, 2, SIGTRAP), "  then the report (T2's hit)");
	teardown();
}

/*
 * Attach: every thread stopped by our interrupt. A signal waiting on a
 * thread's own queue, unblocked, would have come before a PTRACE_ATTACH's
 * SIGSTOP: that thread is continued so that the signal is its stop. Not
 * a blocked one, not a stop signal.
 */
static void test_attach_queued_signal(void)
{
	diag("attach: a signal already queued on a thread comes first");
	memset(kt, 0, sizeof(kt));
	trace();
	p = uproc_new(tracer, PID, true);
	p->frozen = true;
	for (int i = 1; i <= NTHREADS; i++) {
		struct uthread *t = uthread_add(p, TID(i));

		kt[i].alive = true;
		kt[i].regs.rip = START_PC;
		t->stopped = true;
		t->attach_stop = true;
	}
	kt[1].queued = SIGTSTP;
	kt[2].queued = SIGUSR1;
	kt[3].queued = SIGUSR2;
	kt[3].blocked = 1ull << (SIGUSR2 - 1);
	uproc_take_queued_signals(p);
	is_str(trace(), "c2", "only T2 (SIGUSR1, unblocked) is continued");
	ok(th(2)->stopped && th(2)->has_pending && th(2)->pending.kind == UEV_SIGNAL &&
		   th(2)->pending.sig == SIGUSR1,
	   "  it stops for SIGUSR1 before running: a signal report waits on it");
	ok(!th(1)->has_pending && !th(3)->has_pending,
	   "  T1 (SIGTSTP, a stop signal) and T3 (SIGUSR2 blocked) keep the interrupt stop");
	ok(!th(1)->attach_stop && !th(2)->attach_stop && !th(3)->attach_stop,
	   "  looked at once: later stops are not attach stops");
	uproc_detach_all(p);
	uproc_free(p);
	p = NULL;
	is_str(trace(), "d1 d2:10 d3", "detached: T2 gets its SIGUSR1 back");
	ok(!violations && !test_errors, "  (the fake kernel saw no request for a running thread)");
	violations = test_errors = 0;
}

static void test_step_owner(void)
{
	static const struct engine_resume step2[] = {
		{.tid = TID(2), .action = ENGINE_STEP},
		{.tid = -1, .action = ENGINE_RUN},
	};

	diag("single-step: reported to who asked");
	setup();
	engine_interrupt(B);
	k_intr_all();
	poll_reports();
	trace();
	is_int(engine_resume(B, step2, 2), 0, "B: vCont;s:2;c");
	is_str(trace(), "c1 s2 c3", "  T2 stepped, the others continued");
	k_step(2);
	is_str(trace(), "i1 i3", "T2's step is done: the others are stopped");
	k_intr_all();
	poll_reports();
	ok(is_stop(&rb, 2, ENGINE_STOP_STEP, 2, SIGTRAP), "  B gets its step");
	is_int(ra.n, 0, "  A, which did not ask, hears nothing");
	ok(!engine_stopped(A), "  and is not stopped");

	engine_resume(B, step2, 2);
	is_str(trace(), "c1 s2 c3", "B steps T2 again");
	k_signal(2, SIGTRAP);
	is_str(trace(), "i1 i3", "a SIGTRAP sent with kill() during the step: others stopped");
	k_intr_all();
	poll_reports();
	ok(is_stop(&rb, 3, ENGINE_STOP_SIGNAL, 2, SIGTRAP), "  B gets a signal, not its step");
	ok(is_stop(&ra, 1, ENGINE_STOP_SIGNAL, 2, SIGTRAP), "  A gets the signal too");
	teardown();
}

static void test_signals(void)
{
	static const struct engine_resume pass3[] = {
		{.tid = TID(3), .action = ENGINE_RUN, .sig = SIGUSR1},
		{.tid = -1, .action = ENGINE_RUN},
	};
	static const struct engine_resume replace3[] = {
		{.tid = TID(3), .action = ENGINE_RUN, .sig = SIGUSR2},
		{.tid = -1, .action = ENGINE_RUN},
	};

	diag("signals: who stops, what is delivered");
	setup();
	k_signal(3, SIGUSR1);
	is_str(trace(), "i1 i2", "SIGUSR1 for T3, passed by nobody: the others are stopped");
	k_intr_all();
	poll_reports();
	ok(is_stop(&ra, 1, ENGINE_STOP_SIGNAL, 3, SIGUSR1), "  A gets it");
	ok(is_stop(&rb, 1, ENGINE_STOP_SIGNAL, 3, SIGUSR1), "  B gets it");
	engine_resume(B, pass3, 2);
	is_str(trace(), "", "B passes it on (C SIGUSR1): A still stopped, nothing runs");
	engine_resume(A, replace3, 2);
	is_str(trace(), "c1 c2 c3:12", "A replaces it (C SIGUSR2): T3 gets SIGUSR2");

	set_pass(B, SIGUSR1, true);
	k_signal(2, SIGUSR1);
	is_str(trace(), "i1 i3", "B passes SIGUSR1, A does not: the others are stopped");
	k_intr_all();
	poll_reports();
	ok(is_stop(&ra, 2, ENGINE_STOP_SIGNAL, 2, SIGUSR1), "  A gets it");
	is_int(rb.n, 1, "  B does not");
	ok(!engine_stopped(B), "  and is not stopped");
	engine_resume(A, &all_run, 1);
	is_str(trace(), "c1 c2 c3", "A resumes with c: the signal is suppressed");

	set_pass(A, SIGUSR1, true);
	k_signal(2, SIGUSR1);
	is_str(trace(), "c2:10", "passed by every engine: delivered at once, nobody stopped");
	poll_reports();
	ok(ra.n == 2 && rb.n == 1, "  no report");

	engine_interrupt(A);
	is_str(trace(), "i1 i2 i3", "^C from A");
	k_signal(3, SIGUSR1);
	k_intr(1);
	k_intr(2);
	poll_reports();
	ok(is_stop(&ra, 3, ENGINE_STOP_INTERRUPT, 3, SIGINT),
	   "  T3 stopped with a passed SIGUSR1 instead: A gets its ^C (at T3, the last event)");
	is_int(th(3)->deliver_sig, SIGUSR1, "  the signal waits on T3");
	engine_resume(A, &all_run, 1);
	is_str(trace(), "c1 c2 c3:10", "  A's c does not suppress a signal it did not see");
	teardown();

	setup();
	k_signal(3, SIGUSR1);
	k_intr_all();
	poll_reports();
	engine_resume(B, pass3, 2);
	engine_resume(A, &all_run, 1);
	is_str(trace(), "i1 i2 c1 c2 c3",
	       "both stop for SIGUSR1; B passes it, then A suppresses it");

	k_signal(3, SIGUSR1);
	k_intr_all();
	poll_reports();
	ok(ra.n == 2 && rb.n == 2, "both stop for SIGUSR1 again");
	trace();
	engine_resume(A, &all_run, 1);
	engine_resume(B, pass3, 2);
	is_str(trace(), "c1 c2 c3", "  A suppresses it, then B passes it: still suppressed");

	k_signal(3, SIGUSR1);
	k_intr_all();
	poll_reports();
	ok(ra.n == 3 && rb.n == 3, "both stop for SIGUSR1 again");
	trace();
	engine_resume(A, replace3, 2);
	engine_resume(B, pass3, 2);
	is_str(trace(), "c1 c2 c3:12",
	       "  A replaces it by SIGUSR2, then B passes SIGUSR1: still SIGUSR2");
	teardown();

	setup();
	set_pass(B, SIGUSR1, true);
	k_signal(3, SIGUSR1);
	k_intr_all();
	poll_reports();
	ok(is_stop(&ra, 1, ENGINE_STOP_SIGNAL, 3, SIGUSR1) && rb.n == 0,
	   "SIGUSR1 passed by B: A alone stops for it");
	engine_interrupt(B);
	poll_reports();
	ok(is_stop(&rb, 1, ENGINE_STOP_INTERRUPT, 3, SIGINT), "  ^C from B: B stops too");
	trace();
	engine_resume(B, replace3, 2);
	engine_resume(A, pass3, 2);
	is_str(trace(), "c1 c2 c3:10", "  B, which did not see SIGUSR1, cannot replace it");
	teardown();
}

static void test_busy(void)
{
	static const struct engine_resume step2[] = {
		{.tid = TID(2), .action = ENGINE_STEP},
		{.tid = -1, .action = ENGINE_RUN},
	};
	static const struct engine_resume pass3[] = {
		{.tid = TID(3), .action = ENGINE_RUN, .sig = SIGUSR1},
		{.tid = -1, .action = ENGINE_RUN},
	};

	diag("events for a busy engine: parked or dropped");
	setup();
	engine_bp_insert(A, ENGINE_BP_SW, BP_X, 1);
	k_int3(1, BP_X);
	is_str(trace(), "i2 i3", "T1 hits A's X: the others are being stopped");
	k_signal(3, SIGUSR1);
	ok(th(3)->has_pending, "T3 stops with SIGUSR1 meanwhile: parked, A is busy");
	ok(!B->has_report, "  B, which wants it too, does not get it ahead of A");
	k_intr(2);
	poll_reports();
	ok(is_stop(&ra, 1, ENGINE_STOP_SWBREAK, 1, SIGTRAP), "  A gets its breakpoint");
	is_int(rb.n, 0, "  B nothing yet");
	engine_resume(A, &all_run, 1);
	is_str(trace(), "", "A resumes: the parked signal is handed out first, nothing runs");
	poll_reports();
	ok(is_stop(&ra, 2, ENGINE_STOP_SIGNAL, 3, SIGUSR1), "  A gets the parked signal");
	ok(is_stop(&rb, 1, ENGINE_STOP_SIGNAL, 3, SIGUSR1), "  B gets it at the same time");
	engine_resume(A, pass3, 2);
	engine_resume(B, pass3, 2);
	is_str(trace(), "s1", "both pass it on: T1 first steps over X alone");
	k_step(1);
	is_str(trace(), "c1 c2 c3:10", "  then everyone runs, T3 with its signal");

	k_int3(1, BP_X);
	is_str(trace(), "i2 i3", "T1 hits X again: the others are being stopped");
	k_int3(3, BP_X);
	is_int(kt[3].regs.rip, BP_X, "T3 hits X too, A is busy: T3's pc is rewound");
	ok(!th(3)->has_pending, "  and the hit dropped");
	k_intr(2);
	poll_reports();
	ok(is_stop(&ra, 3, ENGINE_STOP_SWBREAK, 1, SIGTRAP), "  A hears of T1's hit only");
	is_int(rb.n, 1, "  B nothing");
	engine_resume(A, &all_run, 1);
	is_str(trace(), "s1", "A resumes: T1 steps over X");
	k_step(1);
	is_str(trace(), "c1 c2 c3", "  T3 is continued onto the trap, not stepped over it");
	k_int3(3, BP_X);
	k_intr_all();
	poll_reports();
	ok(is_stop(&ra, 4, ENGINE_STOP_SWBREAK, 3, SIGTRAP), "  T3 hits X again: now reported");
	teardown();

	setup();
	engine_bp_insert(A, ENGINE_BP_SW, BP_X, 1);
	engine_interrupt(A);
	k_intr_all();
	poll_reports();
	trace();
	engine_resume(A, step2, 2);
	is_str(trace(), "c1 s2 c3", "A: vCont;s:2;c");
	k_int3(1, BP_X);
	is_str(trace(), "i2 i3", "T1 hits X: the others are being stopped");
	k_step(2);
	ok(th(2)->has_pending && th(2)->pending.kind == UEV_STEP,
	   "  T2's step ends meanwhile: parked, A is busy");
	k_intr(3);
	poll_reports();
	ok(is_stop(&ra, 2, ENGINE_STOP_SWBREAK, 1, SIGTRAP), "  A hears of T1's hit");
	engine_resume(A, &all_run, 1);
	is_str(trace(), "s1", "A continues: the stale step is dropped, T1 steps over X");
	k_step(1);
	is_str(trace(), "c1 c2 c3", "  then everyone runs");
	poll_reports();
	is_int(ra.n, 2, "  no STEP report: A no longer asks for one");

	k_int3(1, BP_X);
	k_intr_all();
	poll_reports();
	engine_resume(A, step2, 2);
	k_step(1);
	is_str(trace(), "i2 i3 s1 c1 s2 c3", "T1 hits X again; A: vCont;s:2;c once more");
	k_int3(1, BP_X);
	k_step(2);
	k_intr(3);
	poll_reports();
	ok(is_stop(&ra, 4, ENGINE_STOP_SWBREAK, 1, SIGTRAP) && th(2)->has_pending,
	   "  T1 hits X while T2's step ends: A hears of T1, T2's step is parked");
	trace();
	engine_resume(A, step2, 2);
	is_str(trace(), "s1",
	       "A steps T2 again: T1 first steps over X, T2 is not reported as stepped");
	poll_reports();
	ok(ra.n == 4, "  no STEP report before T2 has stepped again");
	teardown();
}

static void test_step_over(void)
{
	static const struct engine_resume step2[] = {
		{.tid = TID(2), .action = ENGINE_STEP},
		{.tid = -1, .action = ENGINE_RUN},
	};
	struct arch_regs *r;

	diag("step over a breakpoint");
	setup();
	engine_bp_insert(A, ENGINE_BP_SW, BP_X, 1);
	k_int3(2, BP_X);
	k_intr_all();
	poll_reports();
	trace();
	engine_resume(A, &all_run, 1);
	is_str(trace(), "s2", "A continues from X: T2 alone is single-stepped");
	ok(p->step_over == th(2), "  as the step over");
	is_int(raw_byte(BP_X), text_byte(BP_X), "  with the original byte in memory");
	is_int(view_byte(B, BP_X), text_byte(BP_X), "  which is also what reads show");
	k_step(2);
	is_int(raw_byte(BP_X), 0xcc, "step done: the trap is back");
	is_str(trace(), "c1 c2 c3", "  and everyone runs");
	ok(!p->step_over, "  step over finished");
	poll_reports();
	ok(ra.n == 1 && rb.n == 0, "  nobody hears of it");

	k_int3(2, BP_X);
	k_intr_all();
	poll_reports();
	trace();
	engine_resume(A, step2, 2);
	is_str(trace(), "s2", "A steps T2 from X: it steps over X alone first");
	k_step(2);
	is_str(trace(), "", "  done: nobody else ran");
	poll_reports();
	ok(is_stop(&ra, 3, ENGINE_STOP_STEP, 2, SIGTRAP), "  A gets its step");
	is_int(raw_byte(BP_X), 0xcc, "  trap back");

	engine_bp_insert(A, ENGINE_BP_SW, BP_Y, 1);
	is_int(engine_regs(A, TID(2), &r), 0, "A reads T2's registers");
	r->gp.rip = BP_Y;
	is_int(engine_regs_store(A, TID(2), ARCH_RS_GP), 0, "A moves T2 from X to its Y (jump)");
	is_int(kt[2].regs.rip, BP_Y, "  the write reached the thread");
	engine_resume(A, &all_run, 1);
	is_str(trace(), "c1 c2 c3", "  no step over Y: everyone runs");
	k_int3(2, BP_Y);
	k_intr_all();
	poll_reports();
	ok(is_stop(&ra, 4, ENGINE_STOP_SWBREAK, 2, SIGTRAP) && last(&ra)->addr == BP_Y,
	   "  T2 hits Y at once, and A hears it");
	trace();

	is_int(engine_regs(A, TID(2), &r), 0, "A reads T2's registers at Y");
	r->gp.rax = 42;
	is_int(engine_regs_store(A, TID(2), ARCH_RS_GP), 0, "A writes rax, pc unchanged");
	is_int(kt[2].regs.rax, 42, "  the write reached the thread");
	engine_resume(A, &all_run, 1);
	is_str(trace(), "s2", "  A continues: T2 steps over Y");
	if (p->step_over == th(2)) {
		k_step(2);
	} else {
		k_int3(2, BP_Y);
		k_intr_all();
	}
	poll_reports();
	ok(ra.n == 4, "  A does not hear Y a second time");
	teardown();

	setup();
	engine_bp_insert(A, ENGINE_BP_SW, BP_X, 1);
	k_int3(2, BP_X);
	k_intr_all();
	poll_reports();
	trace();
	engine_resume(A, &all_run, 1);
	is_str(trace(), "s2", "T2 steps over X");
	engine_interrupt(B);
	is_str(trace(), "i2", "^C from B during the step over: T2 is interrupted");
	k_intr(2); /* before the step: pc still on X */
	is_int(raw_byte(BP_X), 0xcc, "  T2 stops before stepping: trap back");
	poll_reports();
	ok(is_stop(&rb, 1, ENGINE_STOP_INTERRUPT, 2, SIGINT), "  B gets its ^C (at T2)");
	engine_resume(B, &all_run, 1);
	is_str(trace(), "s2", "B continues: T2, still on X, steps over it again");
	if (p->step_over == th(2)) {
		k_step(2);
	} else {
		k_int3(2, BP_X);
		k_intr_all();
	}
	poll_reports();
	ok(ra.n == 1, "  A does not hear X a second time");
	teardown();
}

static void test_detach(void)
{
	static const struct engine_resume hold2[] = {
		{.tid = TID(2), .action = ENGINE_HOLD},
		{.tid = -1, .action = ENGINE_RUN},
	};

	diag("detach");
	setup();
	engine_bp_insert(A, ENGINE_BP_SW, BP_X, 1);
	engine_bp_insert(A, ENGINE_BP_SW, BP_Y, 1);
	engine_bp_insert(B, ENGINE_BP_SW, BP_Y, 1);
	engine_interrupt(A);
	k_intr_all();
	poll_reports();
	trace();
	engine_resume(A, hold2, 2);
	is_str(trace(), "c1 c3", "A holds T2, lets the others run");
	engine_detach(A);
	A = NULL;
	is_int(raw_byte(BP_X), text_byte(BP_X), "A detaches: its own breakpoint is removed");
	is_int(raw_byte(BP_Y), 0xcc, "  the one B shares stays");
	is_str(trace(), "c2", "  its hold goes with it: T2 runs on for B");
	poll_reports();
	is_int(rb.n, 0, "  B notices nothing");
	engine_detach(B);
	B = NULL;
	is_str(trace(), "i1 i2 i3 d1 d2 d3",
	       "the last engine out stops every thread, then detaches each");
	is_int(raw_byte(BP_Y), text_byte(BP_Y), "  no trap is left in memory");
	teardown();

	setup();
	engine_interrupt(A);
	k_intr_all();
	poll_reports();
	trace();
	engine_detach(A);
	A = NULL;
	is_str(trace(), "c1 c2 c3", "a stopped engine detaches: the process runs on for B");
	k_signal(3, SIGUSR1);
	k_intr_all();
	poll_reports();
	ok(is_stop(&rb, 1, ENGINE_STOP_SIGNAL, 3, SIGUSR1), "B stops for SIGUSR1");
	trace();
	engine_detach(B);
	B = NULL;
	is_str(trace(), "d1 d2 d3:10", "  B leaves: T3 is detached with the signal it was to get");
	teardown();

	setup();
	engine_detach(B);
	B = NULL;
	is_str(trace(), "", "B leaves a running process A still has: no ptrace request");
	engine_bp_insert(A, ENGINE_BP_SW, BP_X, 1);
	k_int3(1, BP_X);
	k_signal(3, SIGUSR1);
	ok(th(3)->has_pending, "T1 hits X, T3 gets SIGUSR1 meanwhile: parked");
	k_intr_all();
	poll_reports();
	trace();
	engine_detach(A);
	A = NULL;
	is_str(trace(), "d1 d2 d3:10", "  A leaves: the parked signal goes with T3's detach");
	is_int(kt[1].regs.rip, BP_X, "  T1 left on X");
	is_int(raw_byte(BP_X), text_byte(BP_X), "  with the original byte there");
	teardown();

	setup();
	engine_bp_insert(A, ENGINE_BP_SW, BP_X, 1);
	engine_bp_insert(B, ENGINE_BP_SW, BP_X, 1);
	engine_bp_insert(B, ENGINE_BP_SW, BP_Y, 1);
	k_int3(2, BP_X);
	k_intr_all();
	poll_reports();
	ok(ra.n == 1 && rb.n == 1, "T2 hits X of A and B: both stop");
	trace();
	engine_resume(B, &all_run, 1);
	engine_resume(A, hold2, 2);
	is_str(trace(), "c1 c3", "B continues, A holds T2 on X");
	engine_detach(A);
	A = NULL;
	is_int(raw_byte(BP_X), 0xcc, "A leaves: X stays, B owns it too");
	is_str(trace(), "i1 i3", "  T2 is free to step over X: the others are stopped first");
	k_int3(3, BP_Y);
	is_str(trace(), "", "T3 hits B's Y instead of stopping");
	k_intr(1);
	poll_reports();
	ok(is_stop(&rb, 2, ENGINE_STOP_SWBREAK, 3, SIGTRAP) && last(&rb)->addr == BP_Y,
	   "  B gets it");
	engine_resume(B, &all_run, 1);
	is_str(trace(), "s2", "B continues: T2 steps over X first, alone");
	ok(raw_byte(BP_X) == text_byte(BP_X) && raw_byte(BP_Y) == 0xcc, "  only X is out");
	k_step(2);
	is_str(trace(), "s3", "  then T3 over Y, alone");
	ok(raw_byte(BP_X) == 0xcc && raw_byte(BP_Y) == text_byte(BP_Y), "  only Y is out");
	k_step(3);
	is_str(trace(), "c1 c2 c3", "  then everyone runs");
	ok(raw_byte(BP_X) == 0xcc && raw_byte(BP_Y) == 0xcc, "  both traps in");
	poll_reports();
	is_int(rb.n, 2, "  no report for the step overs");
	teardown();
}

static void test_watchpoints(void)
{
	bool all = true;

	diag("watchpoints");
	setup();
	engine_interrupt(A);
	k_intr_all();
	poll_reports();
	trace();
	is_int(engine_bp_insert(A, ENGINE_BP_WRITE, DATA, 4), 0, "A: write watchpoint");
	for (int i = 1; i <= NTHREADS; i++)
		all = all && kt[i].dr[0] == DATA && kt[i].dr[7];
	ok(all, "  in every thread's debug registers");
	is_int(engine_bp_insert(A, ENGINE_BP_WRITE, DATA + 8, 8), 0, "A: 3 more");
	is_int(engine_bp_insert(A, ENGINE_BP_WRITE, DATA + 16, 8), 0, "  ...");
	is_int(engine_bp_insert(A, ENGINE_BP_WRITE, DATA + 24, 8), 0, "  ...");
	is_int(engine_bp_insert(B, ENGINE_BP_ACCESS, DATA + 64, 4), -ENOSPC,
	       "B: no debug register left: -ENOSPC");
	is_int(engine_bp_remove(A, ENGINE_BP_WRITE, DATA + 8, 8), 0, "A removes the 3");
	engine_bp_remove(A, ENGINE_BP_WRITE, DATA + 16, 8);
	engine_bp_remove(A, ENGINE_BP_WRITE, DATA + 24, 8);
	is_int(engine_bp_insert(B, ENGINE_BP_ACCESS, DATA + 64, 4), 0, "  now B gets one");
	engine_resume(A, &all_run, 1);
	is_str(trace(), "c1 c2 c3", "A continues");
	k_watch(2, 0x1);
	is_str(trace(), "i1 i3", "T2 writes A's watched word: the others are stopped");
	k_intr_all();
	poll_reports();
	ok(is_stop(&ra, 2, ENGINE_STOP_WATCH, 2, SIGTRAP) && last(&ra)->addr == DATA &&
		   last(&ra)->watch == ARCH_DR_WRITE,
	   "  A gets WATCH write at the address");
	is_int(rb.n, 0, "  B, watching elsewhere, gets nothing");
	is_int(kt[2].dr[6] & 0xf, 0, "  DR6 hit bits cleared");
	engine_resume(A, &all_run, 1);
	k_watch(3, 0x2);
	k_intr_all();
	poll_reports();
	ok(is_stop(&rb, 1, ENGINE_STOP_WATCH, 3, SIGTRAP) && last(&rb)->watch == ARCH_DR_ACCESS,
	   "T3 touches B's word: B gets WATCH access");
	is_int(ra.n, 2, "  A nothing");
	engine_detach(A);
	engine_detach(B);
	A = B = NULL;
	all = true;
	for (int i = 1; i <= NTHREADS; i++)
		all = all && !kt[i].dr[7] && !kt[i].dr[0] && !kt[i].dr[1];
	ok(all, "after the last detach every thread's debug registers are clear");
	teardown();
}

static void test_exit(void)
{
	diag("exit and death");
	setup();
	engine_bp_insert(A, ENGINE_BP_SW, BP_X, 1);
	k_int3(1, BP_X);
	is_str(trace(), "i2 i3", "T1 hits X: the others are being stopped");
	k_die(3, W_EXITCODE(0, 0));
	poll_reports();
	is_int(ra.n, 0, "T3 exits meanwhile: still waiting for T2");
	k_intr(2);
	poll_reports();
	ok(is_stop(&ra, 1, ENGINE_STOP_SWBREAK, 1, SIGTRAP), "  then A gets its report");
	is_int(engine_threads(A, NULL, 0), 2, "  two threads left");
	engine_resume(A, &all_run, 1);
	is_str(trace(), "s1", "A continues: T1 steps over X");
	k_step(1);
	is_str(trace(), "c1 c2", "  then both threads run");
	k_die(2, W_EXITCODE(0, 0));
	k_die(1, W_EXITCODE(7, 0));
	poll_reports();
	ok(is_stop(&ra, 2, ENGINE_STOP_EXITED, 1, 0) && last(&ra)->status == 7,
	   "the process exits with 7: A gets EXITED 7");
	ok(is_stop(&rb, 1, ENGINE_STOP_EXITED, 1, 0) && last(&rb)->status == 7, "  so does B");
	ok(!engine_alive(A) && !engine_alive(B), "  both engines are dead");
	is_int(engine_resume(A, &all_run, 1), -ESRCH, "  a dead engine cannot resume");
	engine_detach(A);
	engine_detach(B);
	A = B = NULL;
	is_str(trace(), "", "leaving a dead process asks nothing of ptrace");
	teardown();

	setup();
	k_die(2, SIGKILL);
	k_die(3, SIGKILL);
	k_die(1, SIGKILL);
	poll_reports();
	ok(is_stop(&ra, 1, ENGINE_STOP_KILLED, 1, SIGKILL), "killed: A gets KILLED 9");
	ok(is_stop(&rb, 1, ENGINE_STOP_KILLED, 1, SIGKILL), "  so does B");
	teardown();
}

int main(void)
{
	tracer = tracer_new();
	if (!tracer) {
		printf("Bail out! tracer_new() failed\n");
		return 1;
	}
	test_who_runs();
	test_interrupt_queued();
	test_breakpoint_owners();
	test_interrupt_after_int3();
	test_attach_queued_signal();
	test_step_owner();
	test_signals();
	test_busy();
	test_step_over();
	test_detach();
	test_watchpoints();
	test_exit();
	tracer_free(tracer);
	close(memfd);
	return done_testing();
}
