/*
 * The fake kernel and the world of the engine unit tests: see fake_kernel.h.
 * Linked into each tests/unit/engine_*_test before the libraries, so that
 * its ptrace(), waitpid(), poll() and process_vm_readv() win over libc's.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include <linux/audit.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <unistd.h>

#include "fake_kernel.h"
#include "tap.h"

struct fthread kt[NTHREADS + 1]; /* kt[1] is the leader */
int memfd = -1;
bool fake_kernel_quiet;
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
	if (!fake_kernel_quiet)
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
const char *trace(void)
{
	static char out[sizeof(trace_buf)];

	memcpy(out, trace_buf, trace_len + 1);
	trace_len = 0;
	trace_buf[0] = '\0';
	return out;
}

/* x86: DR0-DR7 are user-area words; DR6 (the status) is the seventh. */
static int dr_index(unsigned long off)
{
	long st = arch_dr_status_off();
	unsigned long base = (unsigned long)st - 6 * sizeof(long);

	if (st < 0 || off < base || off >= base + 8 * sizeof(long) || (off - base) % sizeof(long))
		return -1;
	return (int)((off - base) / sizeof(long));
}

/* The six argument registers of a syscall at its entry. */
static void syscall_args(const arch_gp_t *g, uint64_t a[6])
{
#if defined(__x86_64__)
	a[0] = g->rdi, a[1] = g->rsi, a[2] = g->rdx;
	a[3] = g->r10, a[4] = g->r8, a[5] = g->r9;
#elif defined(__aarch64__)
	for (int i = 0; i < 6; i++)
		a[i] = g->regs[i];
#endif
}

/*
 * A syscall-stop's PTRACE_GET_SYSCALL_INFO: the entry of the syscall (its
 * number and six arguments), or its exit with the return value.
 */
static long syscall_info(const struct fthread *k, size_t size, struct __ptrace_syscall_info *info)
{
	static struct arch_regs r;
	const struct arch_desc *d = arch_native();

	if (size < sizeof(*info))
		return -1;
	memset(info, 0, sizeof(*info));
	r.gp = k->regs;
	info->arch = arch_abis[0].audit_arch;
	info->instruction_pointer = arch_gp_pc(d, &k->regs);
	info->stack_pointer = arch_sp(d, &r);
	if (k->in_syscall) {
		info->op = PTRACE_SYSCALL_INFO_ENTRY;
		info->entry.nr = (uint64_t)arch_syscall_nr(d, &r);
		syscall_args(&k->regs, info->entry.args);
	} else {
		info->op = PTRACE_SYSCALL_INFO_EXIT;
		info->exit.rval = (int64_t)arch_syscall_result(d, &k->regs);
		info->exit.is_error = info->exit.rval < 0 && info->exit.rval >= -4095;
	}
	return (long)sizeof(*info);
}

/* arm64: NT_ARM_HW_BREAK (slots 0-3) and NT_ARM_HW_WATCH (4-7), struct user_hwdebug_state. */
static void hw_regset(struct fthread *k, unsigned long note, const struct iovec *iov)
{
	int lo = note == NT_ARM_HW_BREAK ? 0 : 4;

	for (size_t i = 0; i < 4 && 8 + (i + 1) * 16 <= iov->iov_len; i++) {
		memcpy(&k->hwa[lo + i], (const uint8_t *)iov->iov_base + 8 + i * 16, 8);
		memcpy(&k->hwc[lo + i], (const uint8_t *)iov->iov_base + 8 + i * 16 + 8, 4);
	}
}

long ptrace(enum __ptrace_request req, ...)
{
	va_list ap;
	pid_t tid;
	unsigned long addr;
	void *data;
	struct fthread *k;
	struct iovec *iov;
	const struct arch_desc *d;
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
	d = arch_native();
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
	/* a CPU whose general registers have requests of their own (x86's GETREGS) */
	if (!d->gp_note && (long)req == d->gp_get) {
		memcpy(data, &k->regs, sizeof(k->regs));
		return 0;
	}
	if (!d->gp_note && (long)req == d->gp_set) {
		memcpy(&k->regs, data, sizeof(k->regs));
		return 0;
	}
	switch ((int)req) {
	case PTRACE_CONT:
	case PTRACE_SYSCALL: /* 'y': runs to its next syscall-stop (gdb's catch syscall) */
	case PTRACE_SINGLESTEP:
		trace_add(req == PTRACE_CONT	  ? 'c'
			  : req == PTRACE_SYSCALL ? 'y'
						  : 's',
			  i, (long)data);
		k->running = true;
		return 0;
	case PTRACE_DETACH:
		trace_add('d', i, (long)data);
		k->alive = false;
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
		if (d->tls_note && addr == d->tls_note && iov->iov_len >= 8) {
			memset(iov->iov_base, 0, 8); /* the thread pointer: not set up */
			iov->iov_len = 8;
			return 0;
		}
		if (addr == d->ext_note && iov->iov_len >= EXT_SIZE) {
			memset(iov->iov_base, 0, EXT_SIZE);
			iov->iov_len = EXT_SIZE;
			return 0;
		}
		if (addr == NT_PRSTATUS && iov->iov_len >= sizeof(k->regs)) {
			memcpy(iov->iov_base, &k->regs, sizeof(k->regs));
			iov->iov_len = sizeof(k->regs);
			return 0;
		}
		break;
	case PTRACE_SETREGSET:
		iov = data;
		if (addr == NT_PRSTATUS && iov->iov_len == sizeof(k->regs))
			memcpy(&k->regs, iov->iov_base, sizeof(k->regs));
		if (addr == NT_ARM_HW_BREAK || addr == NT_ARM_HW_WATCH)
			hw_regset(k, addr, iov);
		return 0;
	case PTRACE_GETEVENTMSG:
		*(unsigned long *)data = 0;
		return 0;
	case PTRACE_PEEKSIGINFO:
		if (!k->trap_pending && !k->queued)
			return 0;
		memset(data, 0, sizeof(siginfo_t));
		((siginfo_t *)data)->si_signo = k->trap_pending ? SIGTRAP : k->queued;
		((siginfo_t *)data)->si_code = k->trap_pending ? ARCH_TRAP_SI_CODE : SI_TKILL;
		return 1;
	case PTRACE_GETSIGMASK:
		if ((size_t)addr != sizeof(k->blocked))
			break;
		memcpy(data, &k->blocked, sizeof(k->blocked));
		return 0;
	case PTRACE_GET_SYSCALL_INFO:
		return syscall_info(k, (size_t)addr, data);
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

struct tracer *tracer;
struct uproc *p;
struct engine *A, *B;
struct rec ra, rb;

static void on_stop(void *ctx, const struct engine_stop *st)
{
	struct rec *r = ctx;

	if (r->n < (int)(sizeof(r->st) / sizeof(r->st[0])))
		r->st[r->n] = *st;
	r->n++;
}

/* What engine_new() (static in engine_attach.c) does. */
struct engine *engine_make(struct rec *r, const char *name)
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

struct uthread *th(int i)
{
	return uproc_thread(p, TID(i));
}

uint8_t text_byte(uint64_t addr)
{
	return (uint8_t)(addr - TEXT + 1);
}

int raw_byte(uint64_t addr)
{
	uint8_t b;

	return pread(memfd, &b, 1, (off_t)addr) == 1 ? b : -1;
}

bool raw_trap(uint64_t addr)
{
	const struct arch_desc *d = arch_native();
	uint8_t b[16];

	return pread(memfd, b, d->trap_len, (off_t)addr) == (ssize_t)d->trap_len &&
	       !memcmp(b, d->trap_insn, d->trap_len);
}

bool have_debug_regs(void)
{
	struct arch_dregs dr = {0};

	return arch_dr_insert(&dr, ARCH_DR_WRITE, DATA, 8) == 0;
}

uint64_t k_pc(int i)
{
	return arch_gp_pc(arch_native(), &kt[i].regs);
}

void k_set_pc(int i, uint64_t pc)
{
	static struct arch_regs r;

	r.gp = kt[i].regs;
	arch_set_pc(arch_native(), &r, pc);
	kt[i].regs = r.gp;
}

void k_set_syscall_nr(int i, long nr)
{
#if defined(__x86_64__)
	kt[i].regs.orig_rax = (uint64_t)nr;
#elif defined(__aarch64__)
	kt[i].regs.regs[8] = (uint64_t)nr;
#endif
}

uint64_t k_reg(int i, int regno)
{
	static struct arch_regs r;
	uint64_t v = 0;

	r.gp = kt[i].regs;
	if (arch_native()->regs[regno].size <= sizeof(v))
		arch_reg_read(arch_native(), &r, regno, (uint8_t *)&v);
	return v;
}

int view_byte(struct engine *e, uint64_t addr)
{
	uint8_t b;

	return engine_mem_read(e, addr, &b, 1) == 1 ? b : -1;
}

/* Hand ready reports to the engines, as the daemon's event loop does. */
void poll_reports(void)
{
	tracer_poll(tracer);
}

const struct engine_stop *last(const struct rec *r)
{
	static const struct engine_stop none = {.kind = -1};

	return r->n ? &r->st[r->n - 1] : &none;
}

void set_pass(struct engine *e, int sig, bool pass)
{
	bool v[NSIG];

	memcpy(v, e->pass, sizeof(v));
	v[sig] = pass;
	engine_set_pass_signals(e, v);
}

/* Two engines, three threads, all running, nothing held. */
const char *setup(void)
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
		k_set_pc(i, START_PC);
		uthread_add(p, TID(i))->stopped = true;
	}
	A = engine_make(&ra, "A");
	B = engine_make(&rb, "B");
	sched_update(p);
	return trace();
}

/* The tracer of every test; false, and a TAP bail-out, without one. */
bool world_init(void)
{
	tracer = tracer_new();
	if (tracer)
		return true;
	printf("Bail out! tracer_new() failed\n");
	return false;
}

void world_exit(void)
{
	engine_detach_all(tracer);
	tracer_free(tracer);
	close(memfd);
}

/* Every engine leaves; the last one out releases the process. True when
 * it was released and the fake kernel saw nothing wrong. */
bool world_release(void)
{
	if (A)
		engine_detach(A);
	if (B)
		engine_detach(B);
	A = B = NULL;
	p = NULL;
	trace();
	return fake_kernel_clean() && !tracer->procs;
}

/* No request for a running thread, no test error since the last call. */
bool fake_kernel_clean(void)
{
	bool clean = !violations && !test_errors;

	violations = test_errors = 0;
	return clean;
}

/* ---- kernel events ---- */

void k_status(int i, int status)
{
	if (!kt[i].running) {
		diag("test error: thread %d reports a stop but is not running", i);
		test_errors++;
	}
	kt[i].running = false;
	kt[i].intr = false;
	if (status == W_STOPCODE(SIGTRAP | 0x80)) /* syscall-stops alternate: entry, exit */
		kt[i].in_syscall = !kt[i].in_syscall;
	uproc_handle_status(p, th(i), status);
}

void set_si(int i, int sig, int code)
{
	memset(&kt[i].si, 0, sizeof(kt[i].si));
	kt[i].si.si_signo = sig;
	kt[i].si.si_code = code;
}

/* Thread i executes the int3 at addr. */
void k_int3(int i, uint64_t addr)
{
	k_set_pc(i, addr + ARCH_TRAP_PC_ADV);
	set_si(i, SIGTRAP, ARCH_TRAP_SI_CODE);
	k_status(i, W_STOPCODE(SIGTRAP));
}

/* Thread i finishes a single-step over a one-byte instruction. */
void k_step(int i)
{
	k_set_pc(i, k_pc(i) + arch_native()->trap_len);
	kt[i].dr[6] |= DR6_BS;
	set_si(i, SIGTRAP, TRAP_TRACE);
	k_status(i, W_STOPCODE(SIGTRAP));
}

/* Signal-delivery-stop of thread i for sig, sent by kill(). */
void k_signal(int i, int sig)
{
	set_si(i, sig, SI_USER);
	k_status(i, W_STOPCODE(sig));
}

/* Thread i stops for our PTRACE_INTERRUPT. */
void k_intr(int i)
{
	if (!kt[i].intr) {
		diag("test error: thread %d was not interrupted", i);
		test_errors++;
	}
	k_status(i, EVENT_STOP);
}

/* Every interrupted thread stops. */
void k_intr_all(void)
{
	for (int i = 1; i <= NTHREADS; i++)
		if (kt[i].running && kt[i].intr)
			k_intr(i);
}

/* Debug-register trap of thread i: dr6 bits B0..B3. */
void k_watch(int i, unsigned long dr6)
{
	int slot = __builtin_ctzl(dr6 | 0x100) & 7;

	set_si(i, SIGTRAP, TRAP_HWBKPT);
	if (arch_dr_status_off() >= 0) {
		kt[i].dr[6] = dr6;
	} else if (slot < 4) { /* arm64: the first byte the watchpoint's slot watches */
		uint32_t bas = (kt[i].hwc[4 + slot] >> 5) & 0xff;

		kt[i].si.si_addr =
			(void *)(uintptr_t)(kt[i].hwa[4 + slot] + __builtin_ctz(bas | 0x100));
	}
	k_status(i, W_STOPCODE(SIGTRAP));
}

bool k_dr_watching(int i, int slot, uint64_t addr)
{
	if (arch_dr_status_off() >= 0)
		return kt[i].dr[slot] == addr && (kt[i].dr[7] & (1ul << (2 * slot)));
	return (kt[i].hwc[4 + slot] & 1) && kt[i].hwa[4 + slot] == (addr & ~7ull);
}

bool k_dr_clear(int i)
{
	bool clear = !kt[i].dr[7] && !kt[i].dr[0] && !kt[i].dr[1];

	for (int s = 0; s < 8; s++)
		clear = clear && !(kt[i].hwc[s] & 1);
	return clear;
}

bool k_dr_status_clear(int i)
{
	return !(kt[i].dr[6] & 0xf);
}

/* Thread i is gone with this wait status (W_EXITCODE, or a signal number). */
void k_die(int i, int status)
{
	kt[i].alive = false;
	kt[i].running = false;
	uproc_handle_status(p, th(i), status);
}

bool is_stop(const struct rec *r, int n, enum engine_stop_kind kind, int i, int sig)
{
	const struct engine_stop *st = last(r);

	if (r->n == n && st->kind == kind && st->pid == PID && st->tid == TID(i) && st->sig == sig)
		return true;
	diag("    %d reports, last: kind %d tid %d sig %d addr %#llx", r->n, (int)st->kind,
	     st->tid - PID + 1, st->sig, (unsigned long long)st->addr);
	diag("    expected %d reports, last: kind %d tid %d sig %d", n, (int)kind, i, sig);
	return false;
}

const struct engine_resume all_run = {.tid = -1, .action = ENGINE_RUN};