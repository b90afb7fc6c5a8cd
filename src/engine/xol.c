/*
 * xol.c: stepping over a breakpoint out of line, as the kernel's uprobes do.
 *
 * A thread that must go on past one of our traps (nobody wants its hit)
 * runs a relocated copy of the original instruction in a slot of a
 * scratch page mapped into the process, which jumps back behind the
 * breakpoint: one ptrace stop per hit, no single-step, no other thread
 * stopped, and the trap never leaves memory. The page is mapped by a
 * syscall the thread itself makes (its registers set to an mmap at a
 * syscall instruction of the vDSO, run to its syscall-exit stop, then
 * madvise(MADV_DONTFORK) the same way, then put back); those stops are
 * reaped by the event loop like any other, nobody waits for them. Only a
 * thread stopped on its way to user mode can lend itself to a syscall.
 * A thread that stops inside its slot (a signal, an interrupt) has its pc
 * moved to where the program would be, so nobody ever sees a slot
 * address. What cannot run elsewhere falls back to the in-place step-over
 * of sched.c, counted in the process's stats. An engine's single-step of
 * a thread on a trap runs the same copy, single-stepped (xol_start_step).
 * The agent's regions are mapped the same way; its output region is a
 * memfd's shared memory that utraced maps too (memfd_made).
 */
#include "engine_int.h"
#include "../util/procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#define XOL_PAGE      4096ULL
#define XOL_SLOTS     (XOL_PAGE / ARCH_XOL_SLOT)
#define XOL_REACH     ((1ULL << 31) - (1ULL << 20)) /* rel32, with room for the slot */
#define MIN_MAP_ADDR  0x10000ULL
#define MAP_NOREPLACE 0x100000 /* MAP_FIXED_NOREPLACE, Linux 4.17 */

/* What a thread was doing before it was lent to an injected syscall. */
struct xol_inject {
	arch_gp_t regs;
	uint64_t hint; /* the page asked for */
	uint64_t near; /* the breakpoint it is for */
	uint64_t len;  /* of the mapping */
	long nr;
	bool entered;	   /* its syscall-entry stop was seen */
	unsigned long seq; /* p->xol_inj_seq when it began (fork.c) */
	uint64_t *region;  /* a region of its own (the agent's code, its output), not slots */
	int memfd;	   /* the region's memfd in the process (closed last), else -1 */
	int local;	   /* ... opened by utraced too, else -1 */
};

static bool is64(const struct uproc *p)
{
	return p->arch->ptr_size == 8;
}

static uint64_t distance(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

static bool reaches(const struct uproc *p, uint64_t page, uint64_t addr)
{
	return !is64(p) || distance(page, addr) + XOL_PAGE < XOL_REACH;
}

/* A syscall instruction (the vDSO's) to point an injected syscall at. */
static uint64_t find_sysinsn(struct uproc *p)
{
	const uint8_t *want = p->arch->sys_insn;
	size_t want_len = p->arch->sys_insn_len;
	char path[64], line[512];
	uint64_t lo = 0, hi = 0;
	uint8_t code[8192];
	FILE *f;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/maps", p->pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") && sscanf(line, "%" SCNx64 "-%" SCNx64, &lo, &hi) == 2)
			break;
	fclose(f);
	if (hi <= lo)
		return 0;
	n = mem_read_raw(p, lo, code, hi - lo < sizeof(code) ? hi - lo : sizeof(code));
	for (ssize_t i = 0; i + (ssize_t)want_len <= n; i++)
		if (!memcmp(code + i, want, want_len))
			return lo + (uint64_t)i;
	return 0;
}

/* The free page nearest to addr that a rel32 from addr reaches; 0: none. */
static uint64_t free_page_near(struct uproc *p, uint64_t addr)
{
	uint64_t prev_end = MIN_MAP_ADDR, best = 0, lo, hi;
	uint64_t top = p->arch->user_top;
	char path[64], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", p->pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	for (bool more = true; more;) {
		more = fgets(line, sizeof(line), f) != NULL;
		if (!more || sscanf(line, "%" SCNx64 "-%" SCNx64, &lo, &hi) != 2)
			lo = hi = top;
		if (lo > prev_end && lo - prev_end >= XOL_PAGE) {
			uint64_t cand = addr < prev_end ? prev_end : lo - XOL_PAGE;

			if (reaches(p, cand, addr) &&
			    (!best || distance(cand, addr) < distance(best, addr)))
				best = cand;
		}
		if (hi > prev_end)
			prev_end = hi;
		if (lo >= top)
			break;
	}
	fclose(f);
	return best;
}

static void set_syscall_regs(struct uproc *p, arch_gp_t *r, long nr, const uint64_t a[6])
{
	arch_syscall_setup(p->arch, r, p->xol_sysinsn, nr, a);
}

bool xol_injecting_upto(const struct uproc *p, unsigned long seq)
{
	for_each_thread(p, th)
		if (th->xol_inj && th->xol_inj->seq <= seq)
			return true;
	return false;
}

/*
 * Lend th (stopped) to syscall nr: its registers saved, then set to the
 * syscall at a syscall instruction, and resumed with PTRACE_SYSCALL. Its
 * syscall-entry and -exit stops end it (xol_inject_stop). Not a
 * single-step: a step's trap is a signal, which an interrupt stop could
 * overtake and leave queued for the program. 0 or -errno (th untouched).
 */
static int inject_start(struct uthread *th, long nr, const uint64_t args[6], uint64_t near)
{
	struct xol_inject *inj;
	arch_gp_t r;
	int err;

	if (!th->user_stop)
		return -EAGAIN; /* inside a syscall: it would finish that one first */
	regs_sync(th);
	inj = calloc(1, sizeof(*inj));
	if (!inj)
		return -ENOMEM;
	if ((err = regs_gp_get(th->p->arch, th->tid, &inj->regs)) < 0)
		goto fail;
	r = inj->regs;
	set_syscall_regs(th->p, &r, nr, args);
	if ((err = regs_gp_set(th->p->arch, th->tid, &r)) < 0)
		goto fail;
	if (ptrace(PTRACE_SYSCALL, th->tid, 0L, 0L) < 0) {
		err = -errno;
		regs_gp_set(th->p->arch, th->tid, &inj->regs);
		goto fail;
	}
	inj->nr = nr;
	inj->hint = args[0];
	inj->len = args[1];
	inj->near = near;
	inj->memfd = inj->local = -1;
	inj->seq = ++th->p->xol_inj_seq;
	th->xol_inj = inj;
	th->stopped = false;
	regs_invalidate(th);
	return 0;
fail:
	free(inj);
	regs_invalidate(th);
	return err;
}

static void page_add(struct uproc *p, uint64_t addr, uint64_t len)
{
	struct xol_page *pg = calloc(1, sizeof(*pg));

	if (!pg) {
		p->xol_off = true; /* mapped but untracked: leave it be */
		return;
	}
	pg->addr = addr;
	pg->len = len;
	if (len != XOL_PAGE)
		pg->used = ~0ULL; /* no slots in it */
	pg->next = p->xol_pages;
	p->xol_pages = pg;
}

static void page_dontfork(struct uproc *p, uint64_t addr)
{
	for (struct xol_page *pg = p->xol_pages; pg; pg = pg->next)
		if (pg->addr == addr)
			pg->dontfork = true;
}

/* Its munmap ran (xol_release): the page is gone. */
static void page_forget(struct uproc *p, uint64_t addr)
{
	for (struct xol_page **pp = &p->xol_pages; *pp; pp = &(*pp)->next) {
		struct xol_page *pg = *pp;

		if (pg->addr != addr)
			continue;
		*pp = pg->next;
		free(pg);
		if (addr == p->agent_out)
			patch_out_view_drop(p);
		return;
	}
}

/* No page on its way: the threads that waited for one try again. */
static void mapping_over(struct uproc *p)
{
	p->xol_mapping = false;
	for_each_thread(p, th)
		th->xol_wait = false;
}

/* The injected mmap returned addr (or -errno): true if the page is ours to use. */
static bool mapped(struct uproc *p, const struct xol_inject *inj, uint64_t addr)
{
	if (addr >= (uint64_t)-4095 || (!is64(p) && addr >= (uint32_t)-4095)) {
		if (++p->xol_map_failures >= 3)
			p->xol_off = true;
		return false;
	}
	/* a fork child made since the mmap began may have it: whatever becomes of it here */
	fork_children_page(p, inj->seq, addr, inj->region ? inj->len : XOL_PAGE);
	if (inj->region) {
		page_add(p, addr, inj->len);
		*inj->region = addr;
		return true;
	}
	if (addr == inj->hint || reaches(p, addr, inj->near)) {
		page_add(p, addr, XOL_PAGE);
		return true;
	}
	/* a kernel without MAP_FIXED_NOREPLACE took the address as a hint */
	p->xol_unmap = addr;
	p->xol_off = true;
	return false;
}

/*
 * Right after the mmap, through the same thread: madvise(MADV_DONTFORK),
 * so that a fork child (which we may never trace) is not left with the
 * page. True if it is under way.
 */
static bool chain(struct uthread *th, struct xol_inject *inj, long nr, const uint64_t args[6])
{
	struct uproc *p = th->p;
	arch_gp_t r = inj->regs;

	set_syscall_regs(p, &r, nr, args);
	if (regs_gp_set(p->arch, th->tid, &r) < 0 || ptrace(PTRACE_SYSCALL, th->tid, 0L, 0L) < 0)
		return false;
	inj->nr = nr;
	inj->entered = false;
	th->stopped = false;
	return true;
}

static bool dontfork_start(struct uthread *th, struct xol_inject *inj, uint64_t addr)
{
	uint64_t args[6] = {addr, inj->len, MADV_DONTFORK};

	inj->hint = addr;
	return chain(th, inj, th->p->arch->nr_madvise, args);
}

/*
 * The output region as shared memory (xol_need_region with a name): the
 * memfd_create ran (fd, or -errno). utraced opens the same file through
 * /proc and sizes it; the mmap follows (MAP_SHARED of it, or, if any of
 * that failed, MAP_PRIVATE | MAP_ANONYMOUS as any region). Then the
 * madvise, then the process's fd is closed: utraced keeps its own
 * mapping, from which it drains the rings at an exec, when the process's
 * mapping has gone with its old address space.
 */
static bool memfd_made(struct uthread *th, struct xol_inject *inj, int64_t fd)
{
	struct uproc *p = th->p;
	uint64_t args[6] = {
		0, inj->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, (uint64_t)-1, 0};
	char path[64];

	if (fd >= 0 && fd < INT_MAX) {
		inj->memfd = (int)fd;
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)p->pid, (int)fd);
		inj->local = open(path, O_RDWR | O_CLOEXEC);
		if (inj->local >= 0 && ftruncate(inj->local, (off_t)inj->len) == 0) {
			args[3] = MAP_SHARED;
			args[4] = (uint64_t)fd;
		} else if (inj->local >= 0) {
			close(inj->local);
			inj->local = -1;
		}
	}
	inj->hint = 0;
	return chain(th, inj, p->arch->nr_mmap, args);
}

/* The process's memfd closed, last (its mapping keeps the memory). */
static bool memfd_close_start(struct uthread *th, struct xol_inject *inj)
{
	uint64_t args[6] = {(uint64_t)inj->memfd};

	inj->memfd = -1;
	return chain(th, inj, th->p->arch->nr_close, args);
}

/*
 * A stop of a thread lent to a syscall. Its syscall's entry: on to the
 * exit. The exit: the result is taken and the registers go back; that
 * was all (true). Anything else (a signal before the syscall ran, an
 * interrupt, the thread's death): the registers go back and the stop is
 * a real event, to be handled as usual (false).
 */
bool xol_inject_stop(struct uthread *th, int status)
{
	struct xol_inject *inj = th->xol_inj;
	struct uproc *p = th->p;
	arch_gp_t r;
	int event = (unsigned)status >> 16;
	bool sysstop = WSTOPSIG(status) == (SIGTRAP | 0x80) && !event;
	bool ours;

	if ((event == PTRACE_EVENT_SECCOMP || (sysstop && !inj->entered)) &&
	    ptrace(PTRACE_SYSCALL, th->tid, 0L, 0L) == 0) {
		inj->entered = true;
		th->stopped = false;
		TEST_DELAY("xol-inject"); /* (tests: the syscall runs, and the program with it) */
		return true;
	}
	ours = sysstop && regs_gp_get(p->arch, th->tid, &r) == 0 &&
	       arch_gp_pc(p->arch, &r) == p->xol_sysinsn + p->arch->sys_insn_len;
	if (ours && inj->nr == p->arch->nr_memfd_create &&
	    memfd_made(th, inj, arch_syscall_result(p->arch, &r)))
		return true;
	if (ours && inj->nr == p->arch->nr_madvise && arch_syscall_result(p->arch, &r) == 0)
		page_dontfork(p, inj->hint);
	if (ours && inj->nr == p->arch->nr_munmap)
		page_forget(p, inj->hint);
	if (ours && inj->nr == p->arch->nr_mmap &&
	    mapped(p, inj, arch_syscall_result(p->arch, &r))) {
		if (inj->local >= 0 && arch_syscall_result(p->arch, &r) == p->agent_out)
			patch_out_view(p, inj->local, inj->len);
		if (dontfork_start(th, inj, arch_syscall_result(p->arch, &r)))
			return true;
	}
	if (ours && inj->memfd >= 0 && memfd_close_start(th, inj))
		return true;
	if (inj->local >= 0)
		close(inj->local);
	th->xol_inj = NULL;
	mapping_over(p);
	regs_gp_set(p->arch, th->tid, &inj->regs);
	if (sysstop) /* our syscall's exit: user mode next, as from the stop it was lent at */
		th->user_stop = true;
	th->sig_stop = !event;
	regs_invalidate(th);
	free(inj);
	return sysstop;
}

/* Start mapping a page within reach of addr, through th. */
static bool map_page_near(struct uthread *th, uint64_t addr)
{
	struct uproc *p = th->p;
	uint64_t args[6] = {0,
			    XOL_PAGE,
			    PROT_READ | PROT_EXEC,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NOREPLACE,
			    (uint64_t)-1,
			    0};

	if (!p->xol_sysinsn)
		p->xol_sysinsn = find_sysinsn(p);
	args[0] = free_page_near(p, addr);
	if (!p->xol_sysinsn || !args[0]) {
		p->xol_off = true;
		return false;
	}
	if (!is64(p))
		args[4] = (uint32_t)-1;
	return inject_start(th, p->arch->nr_mmap, args, addr) == 0;
}

static void slot_free(struct uthread *th)
{
	xol_give_back(th->p, th->xol_slot, 1);
	th->xol_slot = 0;
	th->xol_for = 0;
}

/* n free slots in a row in a page that reaches addr (any page: addr 0); 0 if none. */
uint64_t xol_take(struct uproc *p, uint64_t addr, unsigned n)
{
	uint64_t run = n >= 64 ? ~0ULL : (1ULL << n) - 1;

	for (struct xol_page *pg = p->xol_pages; pg && n <= XOL_SLOTS; pg = pg->next) {
		if ((addr && !reaches(p, pg->addr, addr)) || pg->used == ~0ULL)
			continue;
		for (unsigned i = 0; i + n <= XOL_SLOTS; i++) {
			if (pg->used & (run << i))
				continue;
			pg->used |= run << i;
			return pg->addr + i * ARCH_XOL_SLOT;
		}
	}
	return 0;
}

void xol_give_back(struct uproc *p, uint64_t addr, unsigned n)
{
	uint64_t run = n >= 64 ? ~0ULL : (1ULL << n) - 1;

	for (struct xol_page *pg = p->xol_pages; pg; pg = pg->next)
		if (pg->len == XOL_PAGE && addr >= pg->addr && addr < pg->addr + XOL_PAGE)
			pg->used &= ~(run << ((addr - pg->addr) / ARCH_XOL_SLOT));
}

static uint64_t slot_take(struct uproc *p, uint64_t addr)
{
	return xol_take(p, addr, 1);
}

bool xol_shadow_stack(struct uproc *p, pid_t tid)
{
	char status[4096];

	return proc_task_status(p->pid, tid, status, sizeof(status)) > 0 &&
	       arch_shadow_stack_on(p->arch, status);
}

/* th's slot holds the relocated instruction at addr (written only when it changes). */
static int slot_fill(struct uthread *th, uint64_t addr, struct swbp *bp)
{
	struct uproc *p = th->p;
	uint8_t insn[16];
	ssize_t n;

	if (th->xol_for == addr && th->xol_gen == bp->gen && th->xol) {
		bp->insn_len = (uint8_t)th->xol->insn_len;
		return th->xol->kind == ARCH_XOL_RUN ? 0 : -EINVAL;
	}
	if (!th->xol && !(th->xol = malloc(sizeof(*th->xol))))
		return -ENOMEM;
	n = mem_read_raw(p, addr, insn, sizeof(insn));
	if (n < (ssize_t)p->arch->trap_len)
		return -EIO;
	memcpy(insn, bp->orig, p->arch->trap_len); /* under our trap */
	th->xol_for = 0;
	if (arch_xol_prepare(p->arch, insn, (size_t)n, addr, th->xol_slot, th->xol) < 0)
		return -EINVAL;
	th->xol_for = addr;
	th->xol_gen = bp->gen;
	bp->insn_len = (uint8_t)th->xol->insn_len; /* (event.c: no siginfo needed at its hits) */
	if (th->xol->kind == ARCH_XOL_RUN && th->xol->pushes && xol_shadow_stack(p, th->tid)) {
		th->xol->kind = ARCH_XOL_INPLACE;
		th->xol->why = "call under a shadow stack";
	}
	if (th->xol->kind != ARCH_XOL_RUN)
		return -EINVAL;
	if (mem_write_raw(p, th->xol_slot, th->xol->code, th->xol->code_len) !=
	    (ssize_t)th->xol->code_len) {
		th->xol_for = 0;
		return -EIO;
	}
	return 0;
}

enum xol_result xol_need_page(struct uthread *th, uint64_t addr)
{
	struct uproc *p = th->p;

	if (p->xol_mapping) { /* one page at a time: the same hole would be asked for twice */
		th->xol_wait = true;
		return XOL_MAPPING;
	}
	if (!map_page_near(th, addr))
		return XOL_NO;
	p->xol_mapping = true;
	return XOL_MAPPING;
}

enum xol_result xol_need_region(struct uthread *th, uint64_t len, bool exec, uint64_t name,
				uint64_t *where)
{
	struct uproc *p = th->p;
	uint64_t args[6] = {0,
			    (len + XOL_PAGE - 1) & ~(XOL_PAGE - 1),
			    PROT_READ | (exec ? PROT_EXEC : PROT_WRITE),
			    MAP_PRIVATE | MAP_ANONYMOUS,
			    (uint64_t)-1,
			    0};
	uint64_t memfd[6] = {name, MFD_CLOEXEC};

	if (p->xol_mapping) {
		th->xol_wait = true;
		return XOL_MAPPING;
	}
	if (!p->xol_sysinsn)
		p->xol_sysinsn = find_sysinsn(p);
	if (!p->xol_sysinsn)
		return XOL_NO;
	if (!is64(p))
		args[4] = (uint32_t)-1; /* (a 32-bit process's mmap2: below 4 GiB) */
	if (name && !exec && is64(p) && p->arch->nr_memfd_create &&
	    inject_start(th, p->arch->nr_memfd_create, memfd, 0) == 0)
		th->xol_inj->len = args[1]; /* (the mmap follows: memfd_made) */
	else if (inject_start(th, p->arch->nr_mmap, args, 0) < 0)
		return XOL_NO;
	th->xol_inj->region = where;
	p->xol_mapping = true;
	return XOL_MAPPING;
}

static enum xol_result to_slot(struct uthread *th, uint64_t addr, struct swbp *bp);

static enum xol_result fallback(struct uproc *p, const char *why)
{
	p->xol_stats.inplace++;
	p->xol_stats.last_why = why;
	return XOL_NO;
}

/*
 * th (stopped at its breakpoint addr, to be resumed, not stepped) goes
 * on out of line: XOL_GO, its pc now in its slot, resume it as usual;
 * XOL_MAPPING, it is lent to the mmap of a page and will be back at
 * addr; XOL_NO, step it over in place.
 */
enum xol_result xol_start(struct uthread *th, uint64_t addr)
{
	struct uproc *p = th->p;
	struct swbp *bp = bp_find(p, addr);

	if (!p->t->xol || p->xol_off)
		return fallback(p, "off");
	if (!p->arch->xol)
		return fallback(p, "arch"); /* no relocation for this CPU yet: in place */
	if (!bp || bp_is_moribund(p, addr))
		return XOL_NO;
	if (bp->patch && bp->patch->applied)
		return patch_go_on(th, bp);
	if (patch_wanted(p, bp) && patch_prepare(th, bp) == XOL_MAPPING)
		return XOL_MAPPING;
	return to_slot(th, addr, bp);
}

/*
 * th, stopped at the breakpoint addr, is to be single-stepped by an
 * engine (the breakpoint is another's, or gdb did not lift its own): the
 * step runs the slot's copy, no other thread stopped (xol_stopped steps
 * on through the copy's sequence and puts the pc back). XOL_GO: step it;
 * XOL_NO: in place, with every thread held. With debug registers in use
 * a watchpoint hit inside the copy's sequence would be lost: in place.
 */
enum xol_result xol_start_step(struct uthread *th, uint64_t addr)
{
	struct uproc *p = th->p;
	struct swbp *bp = bp_find(p, addr);
	enum xol_result r;

	if (!p->t->xol || p->xol_off)
		return fallback(p, "off");
	if (!bp || bp_is_moribund(p, addr) || bp->patch)
		return XOL_NO;
	if (p->dregs_used)
		return fallback(p, "step with debug registers");
	r = to_slot(th, addr, bp);
	th->xol_step = r == XOL_GO;
	return r;
}

/* The step's trap (not a signal, nor a debug register's)? */
static bool step_trap(struct uthread *th, int status)
{
	siginfo_t si;

	return WIFSTOPPED(status) && WSTOPSIG(status) == SIGTRAP && !((unsigned)status >> 16) &&
	       ptrace(PTRACE_GETSIGINFO, th->tid, 0L, &si) == 0 && si.si_code == TRAP_TRACE;
}

/*
 * th's step through its slot trapped at pc (in the slot). Where the
 * copy's sequence has made the instruction's effect (the jump back, a
 * branch's target), the step is done: the pc goes there and the stop is
 * the step's (false). Inside a sequence not done yet (a relocated call
 * after its push): one more step (true, th running).
 */
static bool step_on(struct uthread *th, uint64_t pc)
{
	const struct arch_xol *x = th->xol;

	for (unsigned i = 0; i < x->npoints; i++) {
		if (x->points[i].off != pc - th->xol_slot)
			continue;
		if (x->points[i].pc != th->xol_for || pc == th->xol_slot ||
		    ptrace(PTRACE_SINGLESTEP, th->tid, 0L, 0L) < 0)
			return false;
		th->stopped = false;
		th->xol_busy = true;
		th->xol_step = true;
		regs_invalidate(th);
		return true;
	}
	return false;
}

static enum xol_result to_slot(struct uthread *th, uint64_t addr, struct swbp *bp)
{
	struct uproc *p = th->p;
	int err;

	if (th->xol_slot && !reaches(p, th->xol_slot, addr))
		slot_free(th);
	if (!th->xol_slot && !(th->xol_slot = slot_take(p, addr)))
		return xol_need_page(th, addr) == XOL_NO ? fallback(p, "no page") : XOL_MAPPING;
	err = slot_fill(th, addr, bp);
	if (err)
		return fallback(p, th->xol && th->xol_for == addr ? th->xol->why : "unreadable");
	if (regs_fetch(th, false) < 0)
		return fallback(p, "registers");
	arch_set_pc(p->arch, &th->regs, th->xol_slot);
	if (regs_store(th, ARCH_RS_GP) < 0)
		return fallback(p, "registers");
	th->xol_busy = true;
	p->xol_stats.runs++;
	return XOL_GO;
}

/*
 * th stopped (status: its wait status, 0 if unknown): if it stopped inside
 * its slot, it is put where the program would be. True if the stop was
 * taken here (a step through the slot goes on).
 */
bool xol_stopped(struct uthread *th, int status)
{
	struct uproc *p = th->p;
	bool step = th->xol_step;
	uint64_t pc;

	if (!th->xol_busy)
		return false;
	th->xol_busy = false;
	th->xol_step = false;
	if (regs_fetch(th, false) < 0)
		return false;
	pc = arch_pc(p->arch, &th->regs);
	if (pc < th->xol_slot || pc >= th->xol_slot + ARCH_XOL_SLOT)
		return false;
	if (step && step_trap(th, status) && step_on(th, pc))
		return true;
	if (!arch_xol_fixup(th->xol, th->xol_slot, p->arch, &th->regs))
		arch_set_pc(p->arch, &th->regs, th->xol_for); /* cannot be: not a boundary */
	if (arch_pc(p->arch, &th->regs) == th->xol_for) {
		/* its hit is done (a dprintf printed): it steps over again, not hit again */
		th->at_bp = true;
		th->bp_pc = th->xol_for;
	}
	regs_store(th, ARCH_RS_GP);
	p->xol_stats.caught++;
	return false;
}

void xol_thread_gone(struct uthread *th)
{
	if (th->xol_inj)
		mapping_over(th->p);
	if (th->xol_slot)
		slot_free(th);
	free(th->xol);
	if (th->xol_inj && th->xol_inj->local >= 0)
		close(th->xol_inj->local);
	free(th->xol_inj);
	th->xol = NULL;
	th->xol_inj = NULL;
}

/* After an exec: the pages went with the old address space. */
void xol_exec(struct uproc *p)
{
	for_each_thread(p, th) {
		th->xol_busy = false;
		th->xol_slot = 0;
		th->xol_for = 0;
	}
	while (p->xol_pages) {
		struct xol_page *pg = p->xol_pages;

		p->xol_pages = pg->next;
		free(pg);
	}
	p->xol_sysinsn = 0;
	p->xol_unmap = 0;
	p->agent_at = 0;
	p->agent_map = 0;
	patch_out_view_drop(p); /* (drained from it first: patch_drain_exec) */
	p->agent_out = 0;
	memset(&p->xol_stats, 0, sizeof(p->xol_stats)); /* a new program: its own numbers */
}

/*
 * The daemon's exit waits this long in all for the let-go's munmaps of a
 * process: something outside it that holds the process's memory map (a
 * read of /proc/PID/mem stuck on a hung FUSE or NFS file, a userfaultfd
 * reader) can hold a munmap for ever.
 */
#define INJECT_SYNC_MS 1000

/*
 * A syscall through stopped th, waited for here until deadline (the
 * daemon exits). False if it had not returned by then: th is still in
 * it, with our registers (see xol_release).
 */
static bool inject_sync(struct uthread *th, long nr, const uint64_t args[6], long long deadline)
{
	int status, event;
	pid_t got;

	if (inject_start(th, nr, args, 0) < 0)
		return true;
	while (th->xol_inj) {
		got = waitpid(th->tid, &status, __WALL | WNOHANG);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return true;
		if (got == 0) {
			if (tracer_now_ms() >= deadline)
				return false;
			usleep(1000); /* (nothing else is served any more) */
			continue;
		}
		th->stopped = true;
		if (WIFEXITED(status) || WIFSIGNALED(status))
			return true; /* killed: its exit is all there is left */
		event = (unsigned)status >> 16;
		if (!xol_inject_stop(th, status) && !event)
			th->deliver_sig =
				WSTOPSIG(status); /* a signal met first: given at the detach */
	}
	return true;
}

static bool in_a_page(struct uthread *th)
{
	uint64_t pc;

	if (regs_fetch(th, false) < 0)
		return false;
	pc = arch_pc(th->p->arch, &th->regs);
	for (struct xol_page *pg = th->p->xol_pages; pg; pg = pg->next)
		if (pc >= pg->addr && pc < pg->addr + pg->len)
			return true;
	return false;
}

/*
 * The last engine leaves, every thread it could stop stopped: threads in
 * their slots are put back, and the pages go unless a thread still
 * running (leaving later) might be in one. One munmap at a time, through
 * a stopped thread: waited for here when sync (the daemon's exit); else
 * only started, its stops reaped by the loop like any other, and true
 * says to call again once every thread has stopped (also while another
 * injected syscall is still on its way).
 */
bool xol_release(struct uproc *p, bool sync)
{
	long long by = tracer_now_ms() + INJECT_SYNC_MS; /* (the daemon's exit) */
	struct uthread *via = NULL;

	for_each_thread(p, th)
		if (th->xol_inj && !sync)
			return true;
	patch_drain(p);
	for_each_thread(p, th) {
		if (!th->stopped)
			return false;
		xol_stopped(th, 0);
		if (in_a_page(th))
			return false; /* on past a dprintf, in its trampoline: the pages stay */
		if (!th->xol_inj && th->user_stop && !th->deliver_sig && !via)
			via = th;
	}
	if (p->xol_unmap)
		page_add(p, p->xol_unmap, XOL_PAGE);
	p->xol_unmap = 0;
	/* (bounded: an interrupt of before can end an munmap before it runs) */
	for (int tries = 0; via && p->xol_pages && tries < 16; tries++) {
		struct xol_page *pg = p->xol_pages;
		uint64_t args[6] = {pg->addr, pg->len};

		p->xol_releasing = true; /* (no attach takes it back now: engine_attach_start) */
		/* the page leaves the list when its munmap has run (xol_inject_stop), else again */
		if (!sync) {
			if (inject_start(via, p->arch->nr_munmap, args, 0) == 0)
				return true;
			break; /* the pages stay */
		}
		if (!inject_sync(via, p->arch->nr_munmap, args, by)) {
			fprintf(stderr,
				"utraced: exiting: thread %d of %d still in our munmap of %#" PRIx64
				" after %d ms: left to it, the other scratch pages stay mapped\n",
				via->tid, p->pid, pg->addr, INJECT_SYNC_MS);
			break;
		}
		if (via->deliver_sig || !via->stopped || !via->user_stop)
			break; /* it met a signal, or it is gone: the rest stay */
	}
	return false;
}

void xol_free(struct uproc *p)
{
	patch_out_view_drop(p);
	while (p->xol_pages) {
		struct xol_page *pg = p->xol_pages;

		p->xol_pages = pg->next;
		free(pg);
	}
}
