/*
 * Patched breakpoints (src/arch/x86/x86_patch.c), run for real in a
 * traced child (x86_child.h) with the real in-process agent: every 64-bit
 * form of x86_xol_forms.h of 5 bytes or more is patched with a jmp to its
 * trampoline, whose condition reads a register and memory.
 *  - False: the run ends exactly as the instruction run in place ends:
 *    registers, flags, vectors, data, and the stack from the red zone up.
 *  - True: the child traps at the trampoline's int3 with every register
 *    as at A; resumed at the relocated instruction, it ends as in place.
 *  - Both single-stepped: at every stop in the trampoline or the agent,
 *    arch_patch_rollback gives the registers of A (or, in the relocated
 *    instruction, of after it), and the vector state is untouched.
 */
#include <Zydis/Zydis.h>

#include "agent/agent_inproc.h"
#include "x86_child.h"

#define TRAMP	(SLOTPG + 0x200)
#define AGENT	(SLOTPG + PAGE)
#define PROG	(SLOTPG + 3 * PAGE)
#define RED_OFF (SP0 - AGENT_INPROC_RED_ZONE - STACK) /* stack bytes compared: from here */

static struct snap in_place, patched;
static struct user_regs_struct before;

/* The condition: *(u64 *)rbx ^ rdi == want. */
static void write_prog(uint64_t want)
{
	static const uint8_t head[] = {0x26, 0, 1, 0x1a, 0x26, 0, 5, 0x11, 0x25};
	struct agent_inproc_prog *prog = (void *)mem(PROG);
	uint8_t *code = mem(PROG) + sizeof(*prog) + 4;
	uint32_t len = sizeof(head) + 8 + 2;

	prog->pc = A;
	prog->nconds = 1;
	prog->size = sizeof(*prog) + 4 + ((len + 3) & ~3u);
	memcpy(code - 4, &len, 4);
	memcpy(code, head, sizeof(head));
	for (int i = 0; i < 8; i++)
		code[sizeof(head) + i] = (uint8_t)(want >> (56 - 8 * i));
	code[sizeof(head) + 8] = 0x13; /* equal */
	code[sizeof(head) + 9] = 0x27; /* end */
}

static void load(const struct form *f, const struct arch_patch *pt)
{
	memset(mem(CODE), 0xcc, PAGE);
	memcpy(mem(A), f->bytes, f->len);
	memset(mem(SLOTPG), 0xcc, PAGE);
	if (!pt)
		return;
	memcpy(mem(A), pt->jump, pt->jump_len);
	memcpy(mem(TRAMP), pt->code, pt->code_len);
}

static int read_shared(void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void)ctx;
	if (addr < STACK || addr + len > STACK + 2 * PAGE)
		return -EFAULT;
	memcpy(buf, mem(addr), len);
	return 0;
}

static bool in_agent(uint64_t pc)
{
	return pc >= AGENT && pc < AGENT + agent_inproc_blob_len;
}

/* r as the user sees it: rolled back when in the trampoline or the agent. */
static enum arch_patch_where user_view(const struct arch_patch *pt, struct user_regs_struct *r)
{
	static struct arch_regs ar;
	enum arch_patch_where w;

	ar.gp = *r;
	w = arch_patch_rollback(pt, TRAMP, in_agent(r->rip), amd64, &ar, read_shared, NULL);
	*r = ar.gp;
	return w;
}

static bool same_end(const struct snap *a, const struct snap *b)
{
	bool same = a->sig == b->sig;

	if (!same)
		diag("    signal %d vs %d", a->sig, b->sig);
	same = same_regs(&a->r, &b->r, false) && same;
	same = same_xs(a->xs, b->xs) && same;
	same = same_mem(a, b, RED_OFF) && same;
	return same;
}

/* Run f patched with the condition true or false, to its end. */
static bool run(const struct form *f, const struct arch_patch *pt, bool cond)
{
	load(f, pt);
	if (!set_up(f, A))
		return false;
	write_prog(*(uint64_t *)mem(before.rbx) ^ before.rdi ^ !cond);
	if (!go(false, &patched))
		return false;
	if (cond) {
		if (patched.sig != SIGTRAP || user_view(pt, &patched.r) != ARCH_PATCH_HIT ||
		    !same_regs(&patched.r, &before, false)) {
			diag("    no true hit (signal %d, pc %#llx)", patched.sig, patched.r.rip);
			return false;
		}
		patched.r.rip = TRAMP + pt->go_off;
		if (ptrace(PTRACE_SETREGS, child, 0, &patched.r) < 0 || !go(false, &patched))
			return false;
	}
	if (user_view(pt, &patched.r) == ARCH_PATCH_LOST)
		return false;
	return same_end(&in_place, &patched);
}

/* f single-stepped in place: the state after each of its first n instructions. */
static bool step_in_place(const struct form *f, struct user_regs_struct *after, unsigned n)
{
	struct snap s;

	load(f, NULL);
	if (!set_up(f, A))
		return false;
	for (unsigned i = 0; i < n; i++) {
		if (!go(true, &s))
			return false;
		after[i] = s.r;
	}
	return true;
}

static bool same_as_any(const struct user_regs_struct *r, const struct user_regs_struct *after,
			unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (same_regs(r, &after[i], true))
			return true;
	return false;
}

/*
 * Single-step the patched run: every stop inside is A's registers when
 * rolled back, or, in the relocated copies, the state after one of the
 * replaced instructions run in place. A thread put back between two
 * replaced instructions goes on from the copy of the next one
 * (arch_patch_resume_pc), as the engine resumes it.
 */
static bool steps(const struct form *f, const struct arch_patch *pt, bool cond, int *n)
{
	struct user_regs_struct after[ARCH_PATCH_INSNS], r;
	enum arch_patch_where w;
	uint64_t to;

	if (!step_in_place(f, after, pt->ninsns))
		return false;
	load(f, pt);
	if (!set_up(f, A))
		return false;
	write_prog(*(uint64_t *)mem(before.rbx) ^ before.rdi ^ !cond);
	for (*n = 0; *n < 20000; ++*n) {
		if (!go(true, &patched) || patched.sig != SIGTRAP)
			return patched.sig > 0; /* a fault of the form itself: checked by run() */
		r = patched.r;
		w = user_view(pt, &r);
		if (w == ARCH_PATCH_OUT && r.rip != TRAMP && r.rip != A)
			return true; /* out: run() compared the end */
		if (w == ARCH_PATCH_LOST ||
		    (w != ARCH_PATCH_RELOC && !same_xs(patched.xs, base_xs))) {
			diag("    step %d: pc %#llx lost", *n, patched.r.rip);
			return false;
		}
		if (w == ARCH_PATCH_HIT && same_regs(&r, &before, true)) {
			r.rip = TRAMP + pt->go_off; /* as the engine resumes a reported hit */
			if (ptrace(PTRACE_SETREGS, child, 0, &r) < 0)
				return false;
			continue;
		}
		if (w == ARCH_PATCH_OUT || same_regs(&r, &before, true))
			continue;
		if (w != ARCH_PATCH_RELOC || !same_as_any(&r, after, pt->ninsns)) {
			diag("    step %d: pc %#llx (%d) rolled back to something else", *n,
			     patched.r.rip, w);
			same_regs(&r, &before, false);
			return false;
		}
		to = arch_patch_resume_pc(pt, TRAMP, r.rip);
		if (to) { /* between two replaced instructions: on from the next copy */
			r.rip = to;
			if (ptrace(PTRACE_SETREGS, child, 0, &r) < 0)
				return false;
		}
	}
	return false;
}

static int patchable, multi;

static void test_patch(const struct form *f)
{
	struct arch_patch pt;
	bool good;
	int n = 0;

	if (arch_patch_prepare(amd64, f->bytes, f->len, A, TRAMP, AGENT, PROG, &pt) < 0 ||
	    !ok(!pt.why, "%s: patchable (%s)", f->name, pt.why ? pt.why : "yes"))
		return;
	patchable++;
	multi += pt.ninsns > 1;
	initial_regs(f, A, &before);
	load(f, NULL);
	if (!set_up(f, A) || !go(false, &in_place)) {
		ok(0, "%s: runs in place", f->name);
		return;
	}
	ok(run(f, &pt, false), "%s: condition false: ends as in place", f->name);
	ok(run(f, &pt, true), "%s: condition true: a hit at A, then ends as in place", f->name);
	good = steps(f, &pt, false, &n);
	ok(good, "%s: false, %d steps: each rolled back to A, or after", f->name, n);
	good = steps(f, &pt, true, &n);
	ok(good, "%s: true, %d steps: each rolled back to A, or after", f->name, n);
}

/* Forms of 5 bytes or more alone; shorter ones with a mov after them. */
static void test_form(const struct form *f)
{
	static const uint8_t mov[] = {0x48, 0x89, 0xd8}; /* mov %rbx,%rax: 3 bytes */
	static uint8_t bytes[32];
	static char name[128];
	struct form two = *f;
	struct arch_patch pt;

	if (f->inplace || f->partial)
		return;
	if (f->len >= 5) {
		test_patch(f);
		return;
	}
	memcpy(bytes, f->bytes, f->len);
	memcpy(bytes + f->len, mov, sizeof(mov));
	memcpy(bytes + f->len + sizeof(mov), mov, sizeof(mov));
	two.bytes = bytes;
	two.len = f->len + 2 * sizeof(mov);
	snprintf(name, sizeof(name), "%s; mov %%rbx,%%rax (x2)", f->name);
	two.name = name;
	arch_patch_prepare(amd64, two.bytes, two.len, A, TRAMP, AGENT, PROG, &pt);
	if (pt.why &&
	    (!strcmp(pt.why, "call or jump inside") || !strcmp(pt.why, "short instruction")))
		return; /* a call, jmp or ret first: its next instruction is reached from elsewhere
			 */
	test_patch(&two);
}

static void test_unpatchable(void)
{
	static const uint8_t ret[] = {0xc3}, nop3_ret[] = {0x0f, 0x1f, 0x00, 0xc3},
			     syscall5[] = {0x0f, 0x05, 0x90, 0x90, 0x90};
	const struct arch_desc *i386 = arch_get(ARCH_I386);
	struct arch_patch pt;

	arch_patch_prepare(amd64, ret, sizeof(ret), A, TRAMP, AGENT, PROG, &pt);
	ok(pt.why && !strcmp(pt.why, "short instruction"), "ret: not patched (%s)", pt.why);
	arch_patch_prepare(amd64, nop3_ret, sizeof(nop3_ret), A, TRAMP, AGENT, PROG, &pt);
	ok(pt.why && !strcmp(pt.why, "call or jump inside"), "nop3; ret: not patched (%s)", pt.why);
	arch_patch_prepare(amd64, syscall5, sizeof(syscall5), A, TRAMP, AGENT, PROG, &pt);
	ok(pt.why && !strcmp(pt.why, "syscall"), "syscall: not patched (%s)", pt.why);
	arch_patch_prepare(amd64, (const uint8_t *)"\xb8\1\2\3\4", 5, A, A + (3ull << 30), AGENT,
			   PROG, &pt);
	ok(pt.why && !strcmp(pt.why, "trampoline out of range"), "3 GiB away: not patched (%s)",
	   pt.why);
	arch_patch_prepare(i386, (const uint8_t *)"\xb8\1\2\3\4", 5, 0x08049000, 1ull << 32,
			   0x10000, 0x20000, &pt);
	ok(pt.why && !strcmp(pt.why, "above 4 GiB"), "i386, above 4 GiB: not patched (%s)", pt.why);
}

/* i386's frame as the trampoline pushes it (A's registers r), in a fake stack at FRAME32. */
#define ESP32	0x7000f000ull
#define FRAME32 (ESP32 - 44) /* (the i386 frame's size there: not its sizeof here) */
static uint8_t stack32[64];

static int read_stack32(void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void)ctx;
	if (addr < FRAME32 || addr + len > FRAME32 + sizeof(stack32))
		return -EFAULT;
	memcpy(buf, stack32 + (addr - FRAME32), len);
	return 0;
}

static bool same32(const struct user_regs_struct *a, const struct user_regs_struct *b)
{
	return a->rax == b->rax && a->rbx == b->rbx && a->rcx == b->rcx && a->rdx == b->rdx &&
	       a->rsi == b->rsi && a->rdi == b->rdi && a->rbp == b->rbp && a->rsp == b->rsp &&
	       a->rip == b->rip && a->eflags == b->eflags;
}

/* The registers of a thread at trampoline point p (its other registers the agent's junk). */
static void at_point32(const struct arch_patch_point *p, const struct user_regs_struct *a,
		       struct user_regs_struct *r)
{
	*r = *a;
	if (p->how == ARCH_PATCH_RSP_UP) {
		r->rsp = ESP32 - p->n;
		return;
	}
	if (p->how == ARCH_PATCH_AT_A)
		return;
	r->rax = 0xdead0001, r->rcx = 0xdead0002, r->rdx = 0xdead0003, r->eflags = 0x202;
	if (p->how == ARCH_PATCH_FRAME_BELOW_RSP) { /* the pops: some back already */
		r->rsp = FRAME32 + p->n;
		return;
	}
	r->rsi = FRAME32;
	r->rsp = (FRAME32 & ~15ull) - 16;
}

/*
 * The i386 trampoline: its code is i386 instructions, each point on one's
 * start; a thread at any point (or in the agent, esi its frame) rolled
 * back to exactly A's registers; the int3's trap is a hit. (Executed for
 * real against 32-bit programs by tests/e2e/agent_cond.t and others in
 * make check's 32-bit set.)
 */
static void test_i386(void)
{
	static const uint8_t mov_eax[] = {0xb8, 1, 2, 3, 4},
			     head[] = {0x9c, 0x60, 0x6a, 0, 0x6a, 0};
	const struct arch_desc *i386 = arch_get(ARCH_I386);
	const uint64_t a32 = 0x08049000, tramp = 0x10000200, agent = 0x10001000;
	struct user_regs_struct a = {.rax = 0x11,
				     .rbx = 0x22,
				     .rcx = 0x33,
				     .rdx = 0x44,
				     .rsi = 0x55,
				     .rdi = 0x66,
				     .rbp = 0x77,
				     .rsp = ESP32,
				     .rip = a32,
				     .eflags = 0x8d7};
	struct agent_inproc_frame32 f = {.mark = 0, .eflags = 0x8d7};
	unsigned bad = 0, n = 0;
	struct arch_patch pt;
	struct arch_regs ar;
	ZydisDecoder dec;
	ZydisDecodedInstruction in;
	uint32_t rel;

	f.pushal[7] = 0x11, f.pushal[6] = 0x33, f.pushal[5] = 0x44, f.pushal[4] = 0x22;
	f.pushal[3] = (uint32_t)ESP32 - 4, f.pushal[2] = 0x77, f.pushal[1] = 0x55;
	f.pushal[0] = 0x66;
	memcpy(stack32, &f, 44);
	arch_patch_prepare(i386, mov_eax, sizeof(mov_eax), a32, tramp, agent, 0x10002000, &pt);
	ok(!pt.why, "i386: patched (%s)", pt.why ? pt.why : "yes");
	memcpy(&rel, pt.jump + 1, 4);
	ok(pt.jump_len == 5 && pt.jump[0] == 0xe9 && a32 + 5 + rel == tramp,
	   "i386: a jmp rel32 to the trampoline");
	ok(!memcmp(pt.code, head, sizeof(head)) && pt.mark_off == 0 &&
		   pt.code[pt.hit_off - 1] == 0xcc,
	   "i386: pushfl, pushal, a zero mark; the mark at the frame's start; int3 at the end");
	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LEGACY_32, ZYDIS_STACK_WIDTH_32);
	for (size_t off = 0; off < pt.code_len; off += in.length) {
		bool boundary = false;

		if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&dec, NULL, pt.code + off,
								pt.code_len - off, &in)))
			break;
		for (unsigned i = 0; i < pt.npoints; i++)
			boundary |= pt.points[i].off == off;
		bad += !boundary &&
		       (off < pt.go_off || off >= pt.reloc_off[0] + pt.reloc[0].code_len);
		n++;
	}
	ok(!bad && n > 20, "i386: every instruction of the trampoline a point (%u, %u bad)", n,
	   bad);
	bad = 0;
	for (unsigned i = 0; i < pt.npoints; i++) {
		enum arch_patch_where w;

		at_point32(&pt.points[i], &a, &ar.gp);
		ar.gp.rip = tramp + pt.points[i].off;
		if (pt.points[i].how == ARCH_PATCH_FRAME_IN_REG &&
		    arch_patch_frame(&pt, tramp, false, i386, &ar) != FRAME32)
			bad++;
		w = arch_patch_rollback(&pt, tramp, false, i386, &ar, read_stack32, NULL);
		if (w != ARCH_PATCH_BACK || !same32(&ar.gp, &a)) {
			diag("    point %u (+%u, how %u): where %d, esp %#llx", i, pt.points[i].off,
			     pt.points[i].how, w, ar.gp.rsp);
			bad++;
		}
	}
	ok(!bad, "i386: each of %u points rolled back to A's registers", pt.npoints);
	at_point32(&(struct arch_patch_point){.how = ARCH_PATCH_FRAME_IN_REG}, &a, &ar.gp);
	ar.gp.rip = agent + 0x123;
	ok(arch_patch_frame(&pt, tramp, true, i386, &ar) == FRAME32 &&
		   arch_patch_agent_ret_slot(i386, &ar) == (FRAME32 & ~15ull) - 4 &&
		   arch_patch_rollback(&pt, tramp, true, i386, &ar, read_stack32, NULL) ==
			   ARCH_PATCH_BACK &&
		   same32(&ar.gp, &a),
	   "i386: in the agent: the frame by esi, the return address below it, back at A");
	ar.gp = a;
	ar.gp.rip = tramp + pt.hit_off;
	ok(arch_patch_rollback(&pt, tramp, false, i386, &ar, read_stack32, NULL) ==
			   ARCH_PATCH_HIT &&
		   same32(&ar.gp, &a),
	   "i386: after the int3: a hit at A");
}

/*
 * The function around a patch of two instructions at +4 (mov -0x4(%rbp),%eax;
 * cltq: 5 bytes): jumps elsewhere, or to the patch's first byte, are fine;
 * one to the second instruction is not, nor an indirect jump.
 */
static void test_check_func(void)
{
	static const uint8_t fn[] = {
		0x55,		  /* +0 push %rbp */
		0x48, 0x89, 0xe5, /* +1 mov %rsp,%rbp */
		0x8b, 0x45, 0xfc, /* +4 mov -0x4(%rbp),%eax  <- patch */
		0x48, 0x98,	  /* +7 cltq */
		0x75, 0xf9,	  /* +9 jne +4 */
		0x74, 0x00,	  /* +11 je +13 */
		0x5d,		  /* +13 pop %rbp */
		0xc3,		  /* +14 ret */
	};
	uint8_t code[sizeof(fn)];
	const char *why;

	memcpy(code, fn, sizeof(fn));
	why = arch_patch_check_func(amd64, code, sizeof(code), 0x1000, 0x1004, 5);
	ok(!why, "jumps to the patch's start and beyond it: fine (%s)", why ? why : "yes");
	code[10] = 0xfc; /* jne +7: into the patch */
	why = arch_patch_check_func(amd64, code, sizeof(code), 0x1000, 0x1004, 5);
	ok(why && !strcmp(why, "a jump into the patch"), "a jump to its second instruction: %s",
	   why);
	why = arch_patch_check_func(amd64, fn, sizeof(fn), 0x1000, 0x1005, 5);
	ok(why && !strcmp(why, "not an instruction start"), "in an instruction's middle: %s", why);
	memcpy(code, fn, sizeof(fn));
	code[11] = 0xff; /* jmp *%rax */
	code[12] = 0xe0;
	why = arch_patch_check_func(amd64, code, sizeof(code), 0x1000, 0x1004, 5);
	ok(why && !strcmp(why, "indirect jump in the function"), "an indirect jump: %s", why);
}

int main(void)
{
	amd64 = arch_get(ARCH_AMD64);
	if (!map_fixed(CODE, 4 * PAGE) || !map_fixed(SLOTPG, 4 * PAGE)) {
		printf("1..0 # SKIP cannot map the test pages at %#llx\n", CODE);
		return 0;
	}
	memcpy(mem(AGENT), agent_inproc_blob, agent_inproc_blob_len);
	if (!start_child() || !make_base()) {
		printf("1..0 # SKIP cannot trace a child (%s)\n", strerror(errno));
		return 0;
	}
	for (size_t i = 0; i < sizeof(forms64) / sizeof(forms64[0]); i++)
		test_form(&forms64[i]);
	ok(patchable >= 60 && multi >= 20,
	   "%d forms patched, %d of them with the next instructions", patchable, multi);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	test_unpatchable();
	test_check_func();
	test_i386();
	return done_testing();
}
