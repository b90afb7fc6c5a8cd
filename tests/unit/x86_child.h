/*
 * x86_child.h: a traced child that runs x86 code the test writes, for the
 * tests of code that runs somewhere else than where it was written
 * (x86_xol_test.c: an instruction relocated to a slot; x86_patch_test.c: a
 * breakpoint's trampoline). The child shares the pages the test maps
 * (MAP_SHARED before fork): the test writes code, stack and data directly,
 * and only registers go through ptrace. Every run starts from the same
 * registers (base), vector state, stack and data, and ends in a snapshot
 * of all of them. Header-only: each test is one program.
 */
#ifndef X86_CHILD_H
#define X86_CHILD_H

#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arch/arch.h"
#include "tap.h"
#include "x86_xol_forms.h"
#define PAGE	 4096
#define STACK	 (CODE + 0x2000) /* two pages */
#define SP0	 (STACK + 0x1000)
#define SLOTPG	 (CODE + 0x40000000ull) /* 1 GiB away: displacements do change */
#define SLOT	 (SLOTPG + 0x40)
#define XS_MAX	 8192
#define XS_BV	 512
#define XS_YMMH	 576
#define FLAGS_ON 0xcd5 /* CF PF AF ZF SF DF OF: what instructions compute */

static pid_t child;
static const struct arch_desc *amd64;
static struct user_regs_struct base; /* every register distinct */
static uint8_t base_xs[XS_MAX];	     /* xmm and ymm distinct */
static size_t xs_len;

/* What a run ends with. */
struct snap {
	struct user_regs_struct r;
	uint8_t xs[XS_MAX];
	uint8_t stack[2 * PAGE];
	uint8_t data[PAGE];
	int sig;
};

static uint8_t *mem(uint64_t addr)
{
	return (uint8_t *)(uintptr_t)addr;
}

static bool map_fixed(uint64_t addr, size_t len)
{
	void *p = mmap(mem(addr), len, PROT_READ | PROT_WRITE | PROT_EXEC,
		       MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	return p == mem(addr);
}

/* The child stops, traced, and only ever runs the pages it shares with us. */
static bool start_child(void)
{
	int st;

	child = fork();
	if (child < 0)
		return false;
	if (child == 0) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);
		_exit(0);
	}
	return waitpid(child, &st, 0) == child && WIFSTOPPED(st);
}

/* Wait for the child's next stop; a child lost in a loop is stopped after 10 s. */
static int wait_stop(void)
{
	struct timespec ms = {0, 1000000};
	int st;

	for (int i = 0; i < 10000; i++) {
		pid_t p = waitpid(child, &st, WNOHANG);

		if (p == child)
			return WIFSTOPPED(st) ? WSTOPSIG(st) : -1;
		if (p < 0)
			return -1;
		nanosleep(&ms, NULL);
	}
	diag("the child did not stop: stopping it");
	kill(child, SIGSTOP);
	if (waitpid(child, &st, 0) != child || !WIFSTOPPED(st))
		return -1;
	return 0;
}

static bool get_xs(uint8_t *xs)
{
	struct iovec iov = {xs, XS_MAX};

	if (ptrace(PTRACE_GETREGSET, child, NT_X86_XSTATE, &iov) < 0)
		return false;
	xs_len = iov.iov_len;
	return true;
}

static void fill(uint8_t *p, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 7 + seed);
}

/* Registers and vector state every run starts from (before a form's own changes). */
static bool make_base(void)
{
	uint64_t bv;

	if (ptrace(PTRACE_GETREGS, child, 0, &base) < 0 || !get_xs(base_xs))
		return false;
	base.orig_rax = -1; /* not in a syscall: no restart games */
	base.rax = 0x8877665544332211;
	base.rbx = DATA + 0x100;
	base.rcx = 3;
	base.rdx = CODE + 0x800;
	base.rsi = DATA + 0x200;
	base.rdi = 0x0123456789abcdef; /* not canonical: a fault if used as a pointer */
	base.rbp = STACK + 0x1100;
	base.rsp = SP0;
	base.r8 = 0x0808080808080808;
	base.r9 = CODE + 0x840;
	base.r10 = 0x1010101010101010;
	base.r11 = 0x1111222233334444;
	base.r12 = 0x1212121212121212;
	base.r13 = 0x1313131313131313;
	base.r14 = 0x1414141414141414;
	base.r15 = 0x1515151515151515;
	fill(base_xs + 160, 256, 1);
	fill(base_xs + XS_YMMH, 256, 5);
	memcpy(&bv, base_xs + XS_BV, 8);
	bv |= 7; /* x87, SSE, AVX: take our values */
	memcpy(base_xs + XS_BV, &bv, 8);
	return true;
}

static void initial_regs(const struct form *f, uint64_t pc, struct user_regs_struct *r)
{
	*r = base;
	r->rip = pc;
	r->eflags = f->flags ? f->flags : 0x246;
	if (f->set.reg)
		((unsigned long long *)r)[f->set.reg - 1] = f->set.val;
}

/* Memory and registers as a run of f starts; the child then goes from pc. */
static bool set_up(const struct form *f, uint64_t pc)
{
	struct user_regs_struct r;
	struct iovec iov = {base_xs, xs_len};
	uint64_t v;

	for (unsigned int i = 0; i < 2 * PAGE / 8; i++) {
		v = CODE + 0x800 + (i % 32) * 8; /* a ret or pop yields a trap address */
		memcpy(mem(STACK) + i * 8, &v, 8);
	}
	fill(mem(DATA), PAGE, 3);
	v = CODE + 0x880;
	memcpy(mem(DATA + 0x100), &v, 8);
	if (f->poke.off)
		memcpy(mem(DATA + f->poke.off), &f->poke.val, 8);
	initial_regs(f, pc, &r);
	return ptrace(PTRACE_SETREGS, child, 0, &r) == 0 &&
	       ptrace(PTRACE_SETREGSET, child, NT_X86_XSTATE, &iov) == 0;
}

static bool go(bool step, struct snap *s)
{
	if (ptrace(step ? PTRACE_SINGLESTEP : PTRACE_CONT, child, 0, 0) < 0)
		return false;
	s->sig = wait_stop();
	if (s->sig <= 0 || ptrace(PTRACE_GETREGS, child, 0, &s->r) < 0 || !get_xs(s->xs))
		return false;
	memcpy(s->stack, mem(STACK), sizeof(s->stack));
	memcpy(s->data, mem(DATA), sizeof(s->data));
	return true;
}

static const struct {
	const char *name;
	size_t off;
} gp_names[] = {
#define GP(r)                                                                                      \
	{                                                                                          \
#r, offsetof(struct user_regs_struct, r)                                           \
	}
	GP(rax),      GP(rbx),	   GP(rcx),	GP(rdx), GP(rsi), GP(rdi), GP(rbp), GP(rsp), GP(r8),
	GP(r9),	      GP(r10),	   GP(r11),	GP(r12), GP(r13), GP(r14), GP(r15), GP(rip), GP(cs),
	GP(orig_rax), GP(fs_base), GP(gs_base), GP(ss),	 GP(ds),  GP(es),  GP(fs),  GP(gs),
#undef GP
};

static bool same_regs(const struct user_regs_struct *a, const struct user_regs_struct *b,
		      bool quiet)
{
	bool same = ((a->eflags ^ b->eflags) & FLAGS_ON) == 0;

	if (!same && !quiet)
		diag("    eflags %#llx vs %#llx", a->eflags, b->eflags);
	for (size_t i = 0; i < sizeof(gp_names) / sizeof(gp_names[0]); i++) {
		unsigned long long va, vb;

		memcpy(&va, (const char *)a + gp_names[i].off, 8);
		memcpy(&vb, (const char *)b + gp_names[i].off, 8);
		if (va == vb)
			continue;
		same = false;
		if (!quiet)
			diag("    %s %#llx vs %#llx", gp_names[i].name, va, vb);
	}
	return same;
}

/* x87 control/status and registers, MXCSR, xmm, ymm upper halves; not FIP/FDP (a slot's pc). */
static bool same_xs(const uint8_t *a, const uint8_t *b)
{
	static const struct {
		size_t off, len;
	} parts[] = {{0, 6}, {24, 4}, {32, 384}, {XS_YMMH, 256}};
	bool same = true;

	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		if (!memcmp(a + parts[i].off, b + parts[i].off, parts[i].len))
			continue;
		diag("    vector state differs in [%zu, %zu)", parts[i].off,
		     parts[i].off + parts[i].len);
		same = false;
	}
	return same;
}

/* Data, and the stack from byte stack_from of it up (below: scratch of the code tested). */
static bool same_mem(const struct snap *a, const struct snap *b, size_t stack_from)
{
	bool same = true;

	if (memcmp(a->stack + stack_from, b->stack + stack_from, sizeof(a->stack) - stack_from)) {
		diag("    stack differs");
		same = false;
	}
	if (memcmp(a->data, b->data, sizeof(a->data))) {
		diag("    data differs");
		same = false;
	}
	return same;
}

#endif
