/*
 * x86_xol_test: the out-of-line copy of an instruction does what the
 * instruction does, checked by running both for real.
 *
 * A traced child maps code, slot, data and stack pages at fixed places.
 * Each form of the table runs twice from the same registers, memory and
 * stack: in place (the instruction at A, int3 everywhere around it and at
 * every branch target) and out of line (arch_xol_prepare's code in the
 * slot, pc at the slot). Both must stop at the same int3 with the same
 * general registers, arithmetic flags, data and stack. Then a few slots
 * are single-stepped to an inner boundary to check arch_xol_fixup, the
 * 32-bit relocations are checked by their bytes (this kernel may run no
 * 32-bit code), and arch_xol_prepare is fed random bytes.
 */
#include "tap.h"
#include "arch/arch.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#define CODE	0x10000000ULL
#define A	(CODE + 0x100)
#define SLOT	0x10100000ULL
#define DATA	0x10200000ULL
#define STACK	0x10300000ULL
#define CODE_SZ 0x4000
#define SLOT_SZ 0x1000
#define DATA_SZ 0x1000
#define STK_SZ	0x4000
#define RSP0	(STACK + 0x2000)
#define T_NEAR	(CODE + 0x130) /* a rel8 branch target */
#define T_FAR	(CODE + 0x900) /* rel32 targets, rax, r11 */
#define T_PTR	(CODE + 0xa00) /* the target stored at DATA+0x80 and DATA+0x200 */

#define F_CF 0x001
#define F_ZF 0x040
#define F_SF 0x080
#define F_OF 0x800

/* the table below leaves trailing fields out: zero is the default */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

enum fix { NONE, RIP, REL8, REL32 };

struct form {
	const char *name;
	uint8_t b[15];
	uint8_t len;
	enum fix fix;	     /* what to patch at fix_at */
	uint8_t fix_at;	     /* disp32 (RIP) or rel (REL8, REL32) */
	uint64_t target;     /* where it points: RIP, DATA+0x40 unless given */
	uint64_t flags;	     /* set in eflags */
	uint64_t rcx;	     /* 0: the default, 3 */
	const char *inplace; /* expected reason, NULL: runs out of line */
	/*
	 * A call whose target faults: out of line, the return address is
	 * pushed before the jump faults (and the push is taken back), so the
	 * word below the stack pointer differs; the call would have written
	 * it had it gone anywhere.
	 */
	bool below_sp;
};

#define B(...) {__VA_ARGS__}, sizeof((uint8_t[]){__VA_ARGS__})
#define D      0, 0, 0, 0

static const struct form forms[] = {
	{"nop", B(0x90)},
	{"mov %rax,%rbx", B(0x48, 0x89, 0xc3)},
	{"add $1,%rax", B(0x48, 0x83, 0xc0, 0x01)},
	{"push %rbx", B(0x53)},
	{"pop %rbx", B(0x5b)},
	{"push $imm32", B(0x68, 0x44, 0x33, 0x22, 0x11)},
	{"movabs $imm64,%rax", B(0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8)},
	{"test %eax,%eax", B(0x85, 0xc0)},
	{"leave", B(0xc9)},
	{"endbr64", B(0xf3, 0x0f, 0x1e, 0xfa)},
	{"rep stosb", B(0xf3, 0xaa)},
	{"lea x(%rip),%rax", B(0x48, 0x8d, 0x05, D), RIP, 3},
	{"mov x(%rip),%rax", B(0x48, 0x8b, 0x05, D), RIP, 3},
	{"mov %rax,x(%rip)", B(0x48, 0x89, 0x05, D), RIP, 3},
	{"movl $imm,x(%rip)", B(0xc7, 0x05, D, 0x78, 0x56, 0x34, 0x12), RIP, 2},
	{"cmpl $5,x(%rip)", B(0x83, 0x3d, D, 0x05), RIP, 2},
	{"addl $1,x(%rip)", B(0x83, 0x05, D, 0x01), RIP, 2},
	{"incq x(%rip)", B(0x48, 0xff, 0x05, D), RIP, 3},
	{"movzbl x(%rip),%eax", B(0x0f, 0xb6, 0x05, D), RIP, 3},
	{"movslq x(%rip),%rax", B(0x48, 0x63, 0x05, D), RIP, 3},
	{"xchg %rax,x(%rip)", B(0x48, 0x87, 0x05, D), RIP, 3},
	{"lock incl x(%rip)", B(0xf0, 0xff, 0x05, D), RIP, 3},
	{"lock cmpxchg %rcx,x(%rip)", B(0xf0, 0x48, 0x0f, 0xb1, 0x0d, D), RIP, 5},
	{"imul x(%rip),%rax", B(0x48, 0x0f, 0xaf, 0x05, D), RIP, 4},
	{"bt $3,x(%rip)", B(0x0f, 0xba, 0x25, D, 0x03), RIP, 3},
	{"setb x(%rip)", B(0x0f, 0x92, 0x05, D), RIP, 3, 0, F_CF},
	{"cmovz x(%rip),%rax", B(0x48, 0x0f, 0x44, 0x05, D), RIP, 4, 0, F_ZF},
	{"pushq x(%rip)", B(0xff, 0x35, D), RIP, 2},
	{"popq x(%rip)", B(0x8f, 0x05, D), RIP, 2},
	{"mov %ax,x(%rip) (66)", B(0x66, 0x89, 0x05, D), RIP, 3},
	{"addw $7,x(%rip) (66)", B(0x66, 0x83, 0x05, D, 0x07), RIP, 3},
	{"movw $imm16,x(%rip) (66)", B(0x66, 0xc7, 0x05, D, 0x34, 0x12), RIP, 3},
	{"movss %xmm0,x(%rip)", B(0xf3, 0x0f, 0x11, 0x05, D), RIP, 4},
	{"movaps x(%rip),%xmm1", B(0x0f, 0x28, 0x0d, D), RIP, 3},
	{"movups %xmm1,x(%rip)", B(0x0f, 0x11, 0x0d, D), RIP, 3},
	{"ucomisd x(%rip),%xmm0", B(0x66, 0x0f, 0x2e, 0x05, D), RIP, 4},
	{"vmovdqu %ymm0,x(%rip)", B(0xc5, 0xfe, 0x7f, 0x05, D), RIP, 4},
	{"vaddss x(%rip),%xmm0,%xmm0", B(0xc5, 0xfa, 0x58, 0x05, D), RIP, 4},
	{"call rel32", B(0xe8, D), REL32, 1, T_FAR},
	{"call *x(%rip)", B(0xff, 0x15, D), RIP, 2, DATA + 0x80},
	{"call *%rax", B(0xff, 0xd0)},
	{"call *%r11", B(0x41, 0xff, 0xd3)},
	{"call *(%rbx)", B(0xff, 0x13)},
	{"call *0x80(%rsi)", B(0xff, 0x96, 0x80, 0, 0, 0)},
	{"call *8(%rsp)", B(0xff, 0x54, 0x24, 0x08), NONE, 0, 0, 0, 0,
	 "call via the stack pointer"},
	{"jmp rel8", B(0xeb, 0), REL8, 1, T_NEAR},
	{"jmp rel32", B(0xe9, D), REL32, 1, T_FAR},
	{"jmp *%rax", B(0xff, 0xe0)},
	{"jmp *x(%rip)", B(0xff, 0x25, D), RIP, 2, DATA + 0x80},
	{"call *x(%rip) faulting", B(0xff, 0x15, D), RIP, 2, .below_sp = true},
	{"mov x(%rip),%rax faulting", B(0x48, 0x8b, 0x05, D), RIP, 3, 0x7f0000000000},
	{"je rel8 taken", B(0x74, 0), REL8, 1, T_NEAR, F_ZF},
	{"je rel8 not taken", B(0x74, 0), REL8, 1, T_NEAR},
	{"jne rel8 taken", B(0x75, 0), REL8, 1, T_NEAR},
	{"jb rel32 taken", B(0x0f, 0x82, D), REL32, 2, T_FAR, F_CF},
	{"jb rel32 not taken", B(0x0f, 0x82, D), REL32, 2, T_FAR},
	{"jg rel8 taken", B(0x7f, 0), REL8, 1, T_NEAR},
	{"jle rel8 not taken", B(0x7e, 0), REL8, 1, T_NEAR},
	{"jo rel8 taken", B(0x70, 0), REL8, 1, T_NEAR, F_OF},
	{"js rel32 taken", B(0x0f, 0x88, D), REL32, 2, T_FAR, F_SF},
	{"loop taken", B(0xe2, 0), REL8, 1, T_NEAR},
	{"loop not taken", B(0xe2, 0), REL8, 1, T_NEAR, 0, 1},
	{"loope taken", B(0xe1, 0), REL8, 1, T_NEAR, F_ZF},
	{"loopne not taken", B(0xe0, 0), REL8, 1, T_NEAR, F_ZF},
	{"jrcxz taken", B(0xe3, 0), REL8, 1, T_NEAR, 0, 1ULL << 32},
	{"jrcxz not taken", B(0xe3, 0), REL8, 1, T_NEAR},
	{"jecxz taken (67)", B(0x67, 0xe3, 0), REL8, 2, T_NEAR, 0, 1ULL << 32},
	{"loopl not taken (67)", B(0x67, 0xe2, 0), REL8, 2, T_NEAR, 0, (1ULL << 32) | 1},
	{"ret", B(0xc3)},
	{"ret $16", B(0xc2, 0x10, 0x00)},
	{"syscall", B(0x0f, 0x05), NONE, 0, 0, 0, 0, "system call"},
	{"int3", B(0xcc), NONE, 0, 0, 0, 0, "trap"},
	{"ud2", B(0x0f, 0x0b), NONE, 0, 0, 0, 0, "trap"},
	{"jmp rel16 (66)", B(0x66, 0xe9, 0, 0), NONE, 0, 0, 0, 0, "16-bit branch"},
	{"xbegin", B(0xc7, 0xf8, D), NONE, 0, 0, 0, 0, "transaction"},
	{"ljmp *x(%rip)", B(0xff, 0x2d, D), NONE, 0, 0, 0, 0, "far branch"},
};
#define NFORMS (sizeof(forms) / sizeof(forms[0]))

static pid_t child;
static const struct arch_desc *amd64, *i386d;
static struct user_regs_struct base;

static void child_main(void)
{
	mmap((void *)CODE, CODE_SZ, PROT_READ | PROT_WRITE | PROT_EXEC,
	     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	mmap((void *)SLOT, SLOT_SZ, PROT_READ | PROT_WRITE | PROT_EXEC,
	     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	mmap((void *)DATA, DATA_SZ, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
	     -1, 0);
	mmap((void *)STACK, STK_SZ, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
	     -1, 0);
	ptrace(PTRACE_TRACEME, 0, 0, 0);
	raise(SIGSTOP);
	_exit(0);
}

static int start_child(void)
{
	int st;

	child = fork();
	if (child == 0)
		child_main();
	if (child < 0 || waitpid(child, &st, 0) != child || !WIFSTOPPED(st))
		return -1;
	return ptrace(PTRACE_GETREGS, child, 0, &base);
}

static void poke(uint64_t addr, const void *buf, size_t len)
{
	struct iovec l = {(void *)buf, len}, r = {(void *)addr, len};

	if (process_vm_writev(child, &l, 1, &r, 1, 0) != (ssize_t)len)
		diag("write at %#lx failed: %s", (unsigned long)addr, strerror(errno));
}

static void peek(uint64_t addr, void *buf, size_t len)
{
	struct iovec l = {buf, len}, r = {(void *)addr, len};

	if (process_vm_readv(child, &l, 1, &r, 1, 0) != (ssize_t)len)
		memset(buf, 0xee, len);
}

/* The form's bytes at A, displacement and branch offsets filled in. */
static void form_bytes(const struct form *f, uint8_t *out)
{
	int32_t v;

	memcpy(out, f->b, f->len);
	if (f->fix == RIP) {
		v = (int32_t)((f->target ? f->target : DATA + 0x40) - (A + f->len));
		memcpy(out + f->fix_at, &v, 4);
	} else if (f->fix == REL32) {
		v = (int32_t)(f->target - (A + f->len));
		memcpy(out + f->fix_at, &v, 4);
	} else if (f->fix == REL8) {
		out[f->fix_at] = (uint8_t)(int8_t)(f->target - (A + f->len));
	}
}

struct outcome {
	int sig;
	uint64_t trap;
	struct user_regs_struct r;
	uint8_t data[DATA_SZ];
	uint8_t stack[STK_SZ];
};

static void setup_memory(void)
{
	static uint8_t fill[CODE_SZ], pat[STK_SZ];
	uint64_t ptr = T_PTR, ret = CODE + 0x800;

	memset(fill, 0xcc, sizeof(fill));
	poke(CODE, fill, CODE_SZ);
	poke(SLOT, fill, SLOT_SZ);
	for (size_t i = 0; i < sizeof(pat); i++)
		pat[i] = (uint8_t)(i * 7 + 3);
	poke(DATA, pat, DATA_SZ);
	poke(STACK, pat, STK_SZ);
	poke(DATA + 0x80, &ptr, 8);
	poke(DATA + 0x200, &ptr, 8);
	poke(RSP0, &ret, 8);
	poke(STACK + 0x3000, &ret, 8); /* leave pops rbp from here */
}

static void setup_regs(const struct form *f, uint64_t pc, struct user_regs_struct *r)
{
	*r = base;
	r->rax = T_FAR;
	r->rbx = DATA + 0x200;
	r->rcx = f->rcx ? f->rcx : 3;
	r->rdx = 0x1111;
	r->rsi = DATA + 0x200 - 0x80; /* call *0x80(%rsi) */
	r->rdi = DATA + 0x400;
	r->rbp = STACK + 0x3000;
	r->rsp = RSP0;
	r->r8 = 8, r->r9 = 9, r->r10 = 10, r->r11 = T_FAR, r->r12 = 12;
	r->r13 = 13, r->r14 = 14, r->r15 = 15;
	r->eflags = 0x202 | f->flags;
	r->rip = pc;
	r->orig_rax = (uint64_t)-1;
}

/*
 * Run from pc (code already in place) to the next trap. A thread stopped
 * inside the slot (a fault) is put where the program is, as the engine
 * does: that is the outcome to compare.
 */
static void run(const struct form *f, uint64_t pc, int req, const struct arch_xol *x,
		struct outcome *o)
{
	struct arch_regs ar;
	struct user_regs_struct r;
	int st;

	setup_regs(f, pc, &r);
	ptrace(PTRACE_SETREGS, child, 0, &r);
	ptrace(req, child, 0, 0);
	if (waitpid(child, &st, 0) != child || !WIFSTOPPED(st)) {
		o->sig = -1;
		return;
	}
	o->sig = WSTOPSIG(st);
	ptrace(PTRACE_GETREGS, child, 0, &o->r);
	ar.gp = o->r;
	if (x && o->sig != SIGTRAP && arch_xol_fixup(x, SLOT, amd64, &ar))
		o->r = ar.gp;
	o->trap = o->r.rip - (o->sig == SIGTRAP && req == PTRACE_CONT ? 1 : 0);
	peek(DATA, o->data, DATA_SZ);
	peek(STACK, o->stack, STK_SZ);
}

static bool same_regs(const struct user_regs_struct *a, const struct user_regs_struct *b)
{
	const uint64_t flags = F_CF | 0x004 | 0x010 | F_ZF | F_SF | F_OF | 0x400;

	return a->rax == b->rax && a->rbx == b->rbx && a->rcx == b->rcx && a->rdx == b->rdx &&
	       a->rsi == b->rsi && a->rdi == b->rdi && a->rbp == b->rbp && a->rsp == b->rsp &&
	       a->r8 == b->r8 && a->r9 == b->r9 && a->r10 == b->r10 && a->r11 == b->r11 &&
	       a->r12 == b->r12 && a->r13 == b->r13 && a->r14 == b->r14 && a->r15 == b->r15 &&
	       (a->eflags & flags) == (b->eflags & flags);
}

static void diag_outcome(const char *what, const struct outcome *o)
{
	diag("%s: signal %d, trap at %#llx, rax %#llx rcx %#llx rsp %#llx flags %#llx", what,
	     o->sig, (unsigned long long)o->trap, o->r.rax, o->r.rcx, o->r.rsp, o->r.eflags);
}

static void check_form(const struct form *f)
{
	static struct outcome in, out;
	struct arch_xol x;
	uint8_t bytes[16] = {0};

	form_bytes(f, bytes);
	if (arch_xol_prepare(amd64, bytes, sizeof(bytes), A, SLOT, &x) < 0) {
		ok(0, "%s: prepared", f->name);
		return;
	}
	if (f->inplace) {
		ok(x.kind == ARCH_XOL_INPLACE && x.why && !strcmp(x.why, f->inplace),
		   "%s: left in place (%s)", f->name, x.why ? x.why : "runs out of line");
		return;
	}
	if (!ok(x.kind == ARCH_XOL_RUN, "%s: runs out of line", f->name)) {
		diag("why: %s", x.why);
		return;
	}
	setup_memory();
	poke(A, bytes, f->len);
	run(f, A, PTRACE_CONT, NULL, &in);
	setup_memory();
	poke(SLOT, x.code, x.code_len);
	run(f, SLOT, PTRACE_CONT, &x, &out);
	if (f->below_sp)
		memcpy(out.stack + (RSP0 - 8 - STACK), in.stack + (RSP0 - 8 - STACK), 8);
	if (!ok(in.sig == out.sig && in.trap == out.trap && same_regs(&in.r, &out.r) &&
			!memcmp(in.data, out.data, DATA_SZ) && !memcmp(in.stack, out.stack, STK_SZ),
		"%s: same registers, flags, memory and stack in place and out of line", f->name)) {
		diag_outcome("in place", &in);
		diag_outcome("out of line", &out);
	}
}

/* One step into the slot: the thread is where the program would be. */
static void check_fixup(const char *name, uint64_t want_pc, int64_t rsp_delta)
{
	const struct form *f = NULL;
	static struct outcome o;
	struct arch_regs r = {0};
	struct arch_xol x;
	uint8_t bytes[16] = {0};

	for (size_t i = 0; i < NFORMS; i++)
		if (!strcmp(forms[i].name, name))
			f = &forms[i];
	form_bytes(f, bytes);
	arch_xol_prepare(amd64, bytes, sizeof(bytes), A, SLOT, &x);
	setup_memory();
	poke(SLOT, x.code, x.code_len);
	run(f, SLOT, PTRACE_SINGLESTEP, NULL, &o);
	r.gp = o.r;
	ok(o.r.rip != SLOT && arch_xol_fixup(&x, SLOT, amd64, &r) && r.gp.rip == want_pc &&
		   r.gp.rsp == RSP0 + (uint64_t)rsp_delta,
	   "%s: stopped after one step (%#llx), put at %#llx", name, o.r.rip,
	   (unsigned long long)want_pc);
	r.gp.rip = SLOT;
	ok(arch_xol_fixup(&x, SLOT, amd64, &r) && r.gp.rip == A, "%s: at the slot: the instruction",
	   name);
}

static int32_t rd32(const uint8_t *p)
{
	int32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* i386: the relocations by their bytes (this kernel may run no 32-bit code). */
static void check_i386(void)
{
	const uint32_t a = 0x08049000, slot = 0xf7f00000;
	const uint8_t call[] = {0xe8, 0x10, 0x00, 0x00, 0x00}, jcc[] = {0x74, 0x20},
		      loop[] = {0xe2, 0xf0}, lea[] = {0x8d, 0x05, 0x00, 0x10, 0x00, 0x00};
	struct arch_xol x;

	arch_xol_prepare(i386d, call, sizeof(call), a, slot, &x);
	ok(x.kind == ARCH_XOL_RUN && x.code_len == 10 && x.code[0] == 0x68 &&
		   (uint32_t)rd32(x.code + 1) == a + 5 && x.code[5] == 0xe9 &&
		   (uint32_t)(slot + 10 + (uint32_t)rd32(x.code + 6)) == a + 5 + 0x10,
	   "i386 call rel32: push of the return address, jmp to the target");
	arch_xol_prepare(i386d, jcc, sizeof(jcc), a, slot, &x);
	ok(x.kind == ARCH_XOL_RUN && x.code[0] == 0x0f && x.code[1] == 0x84 &&
		   (uint32_t)(slot + 6 + (uint32_t)rd32(x.code + 2)) == a + 2 + 0x20 &&
		   x.code[6] == 0xe9 && (uint32_t)(slot + 11 + (uint32_t)rd32(x.code + 7)) == a + 2,
	   "i386 je rel8: je rel32 to the target, jmp back");
	arch_xol_prepare(i386d, loop, sizeof(loop), a, slot, &x);
	ok(x.kind == ARCH_XOL_RUN && x.code[0] == 0xe2 && x.code[1] == 5 &&
		   (uint32_t)(slot + 7 + (uint32_t)rd32(x.code + 3)) == a + 2 &&
		   (uint32_t)(slot + 12 + (uint32_t)rd32(x.code + 8)) == a + 2 - 0x10,
	   "i386 loop: over the jump back to the taken jump");
	arch_xol_prepare(i386d, lea, sizeof(lea), a, slot, &x);
	ok(x.kind == ARCH_XOL_RUN && !memcmp(x.code, lea, sizeof(lea)),
	   "i386 absolute operands are copied as they are");
}

/* Random bytes: never past code[] nor points[], never a crash. */
static void check_random(void)
{
	unsigned bad = 0, n = 20000;
	struct arch_xol x;
	uint8_t b[15];

	srand(42);
	for (unsigned i = 0; i < n; i++) {
		for (size_t j = 0; j < sizeof(b); j++)
			b[j] = (uint8_t)rand();
		arch_xol_prepare(i & 1 ? amd64 : i386d, b, sizeof(b), A, SLOT, &x);
		if (x.code_len > ARCH_XOL_SLOT || x.npoints > ARCH_XOL_POINTS)
			bad++;
		for (unsigned k = 0; k < x.npoints; k++)
			if (x.points[k].off >= x.code_len && x.kind == ARCH_XOL_RUN)
				bad++;
	}
	is_int(bad, 0, "%u random instructions: code and points within bounds", n);
}

int main(void)
{
	amd64 = arch_get(ARCH_AMD64);
	i386d = arch_get(ARCH_I386);
	if (start_child() < 0) {
		printf("1..0 # SKIP cannot trace a child here\n");
		return 0;
	}
	for (size_t i = 0; i < NFORMS; i++)
		check_form(&forms[i]);
	check_fixup("je rel8 not taken", A + 2, 0);
	check_fixup("call rel32", A, 0);
	check_fixup("loop not taken", A + 2, 0);
	check_fixup("mov %rax,x(%rip)", A + 7, 0);
	check_i386();
	check_random();
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	return done_testing();
}
