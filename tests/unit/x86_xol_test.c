/*
 * Out-of-line relocation (src/arch/x86/x86_xol.c), tested differentially:
 * every 64-bit form of x86_xol_forms.h runs for real in a traced child,
 * once in place (pc = A, int3 after it and at every target) and once out
 * of line (pc = the slot, code[] from arch_xol_prepare, int3 at A as the
 * engine leaves it), from the same registers, stack and data; registers,
 * flags, SSE/AVX state, the stack and the data must come out the same.
 * Then the copy is single-stepped: at each stop inside the slot,
 * arch_xol_fixup must give the state before the instruction or after it,
 * never anything else. The i386 forms run the same way in a 32-bit child
 * (x86_xol_child32.S) where the kernel runs 32-bit programs (the guest of
 * `make check-vm`, which sets XOL32_REQUIRED: no skip there); they are
 * also checked by bytes, and random bytes must never make
 * arch_xol_prepare write past its slot.
 *
 * The child and its pages: x86_child.h.
 */
#include <Zydis/Zydis.h>

#include "x86_child.h"

#include <limits.h>
#include <regex.h>

/* The mode the forms run in: amd64, or i386 in the 32-bit child. */
static const struct arch_desc *mode;

/*
 * XOL_SKIP=REGEX: forms not to execute. QEMU 7.2's software emulation
 * reads iret's stack as the kernel would (SMAP fault), and the guest's
 * kernel oopses and kills the test (make check-vm sets '^iret' there).
 */
static regex_t skip_re;
static bool skipping;

/* Code page: int3 everywhere but the instruction at A (its first byte int3 for out of line). */
static void load_code(const struct form *f, bool ool, const struct arch_xol *x)
{
	memset(mem(CODE), 0xcc, PAGE);
	memcpy(mem(A), f->bytes, f->len);
	memset(mem(SLOTPG), 0xcc, PAGE);
	if (!ool)
		return;
	mem(A)[0] = 0xcc;
	memcpy(mem(SLOT), x->code, x->code_len);
}

/* A stop out of line, seen as the user would: arch_xol_fixup when the pc is in the slot. */
static bool user_view(const struct arch_xol *x, struct user_regs_struct *r)
{
	static struct arch_regs ar;

	if (r->rip < SLOT || r->rip >= SLOT + ARCH_XOL_SLOT)
		return true;
	ar.gp = *r;
	if (!arch_xol_fixup(x, SLOT, mode, &ar))
		return false;
	*r = ar.gp;
	return true;
}

static struct snap in_place, out_of_line;

/* Both runs to their trap (or fault): the same end. */
static void differential(const struct form *f, const struct arch_xol *x)
{
	struct snap *p = &in_place, *o = &out_of_line;
	bool same;

	load_code(f, false, x);
	if (!set_up(f, A) || !go(false, p))
		goto broken;
	load_code(f, true, x);
	if (!set_up(f, SLOT) || !go(false, o))
		goto broken;
	if (p->sig != o->sig)
		diag("    stopped by signal %d in place, %d out of line", p->sig, o->sig);
	same = p->sig == o->sig && user_view(x, &o->r);
	same = same_regs(&p->r, &o->r, false) && same;
	same = same_xs(p->xs, o->xs) && same;
	same = same_mem(p, o, 0) && same;
	ok(same, "%s: same registers, flags, vectors, stack and data (signal %d, pc %#llx)",
	   f->name, p->sig, p->r.rip);
	return;
broken:
	ok(0, "%s: runs (ptrace: %s)", f->name, strerror(errno));
}

/*
 * Single-step the copy: every stop inside the slot, fixed up, is the state
 * before the instruction (pc A) or after it (what one step in place gives,
 * or a rep string's last), or a rep string halfway at A; the first stop
 * outside the slot is the state after.
 */
static void boundaries(const struct form *f, const struct arch_xol *x)
{
	struct user_regs_struct before, after;
	struct snap *s = &out_of_line;
	int inside = 0, steps;
	bool good = true;

	initial_regs(f, A, &before);
	load_code(f, false, x);
	if (!set_up(f, A) || !go(true, s))
		goto broken;
	for (steps = 0; f->partial && s->r.rip == A && steps < 8; steps++)
		if (!go(true, s)) /* a rep string: one step per iteration */
			goto broken;
	after = s->r;
	load_code(f, true, x);
	if (!set_up(f, SLOT))
		goto broken;
	for (steps = 0; steps < 8 && good; steps++) {
		if (!go(true, s))
			goto broken;
		if (s->r.rip < SLOT || s->r.rip >= SLOT + ARCH_XOL_SLOT)
			break;
		inside++;
		good = user_view(x, &s->r) &&
		       (same_regs(&s->r, &before, true) || same_regs(&s->r, &after, true) ||
			(f->partial && s->r.rip == A));
		if (s->sig != SIGTRAP)
			break; /* a fault: it stays where it is */
	}
	if (good && s->sig == SIGTRAP && (s->r.rip < SLOT || s->r.rip >= SLOT + ARCH_XOL_SLOT))
		good = same_regs(&s->r, &after, false);
	else if (!good)
		same_regs(&s->r, &after, false);
	ok(good && steps < 8, "%s: %d stop(s) in the slot, each fixed up to before or after",
	   f->name, inside);
	return;
broken:
	ok(0, "%s: single-steps (ptrace: %s)", f->name, strerror(errno));
}

static int executed;

static void test_form(const struct form *f)
{
	struct arch_xol x;

	if (skipping && !regexec(&skip_re, f->name, 0, NULL, 0)) {
		ok(1, "%s # SKIP not executed here (XOL_SKIP)", f->name);
		return;
	}
	is_int(arch_xol_prepare(mode, f->bytes, f->len, A, SLOT, &x), 0, "%s: prepared", f->name);
	if (f->inplace) {
		ok(x.kind == ARCH_XOL_INPLACE && x.why && !strcmp(x.why, f->inplace),
		   "%s: in place (%s)", f->name, x.why ? x.why : "runs");
		return;
	}
	if (!ok(x.kind == ARCH_XOL_RUN, "%s: out of line, %zu bytes", f->name, x.code_len)) {
		diag("    in place: %s", x.why);
		return;
	}
	is_int(x.insn_len, f->len, "%s: length %zu", f->name, f->len);
	differential(f, &x);
	boundaries(f, &x);
	executed++;
}

static void test_executed(void)
{
	mode = amd64;
	for (size_t i = 0; i < sizeof(forms64) / sizeof(forms64[0]); i++)
		test_form(&forms64[i]);
	ok(executed >= 60, "%d forms executed both ways", executed);
}

/*
 * The pages again, now from a memfd: a 32-bit child cannot inherit the
 * 64-bit one's shared mappings across exec, so it maps the same file at
 * the same addresses (x86_xol_child32.S: CODE at offset 0, SLOTPG after).
 */
static int share_pages(void)
{
	int fd = memfd_create("xol32", 0);

	if (fd < 0 || ftruncate(fd, 5 * PAGE) < 0)
		return -1;
	if (mmap(mem(CODE), 4 * PAGE, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_SHARED | MAP_FIXED,
		 fd, 0) != mem(CODE) ||
	    mmap(mem(SLOTPG), PAGE, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_SHARED | MAP_FIXED, fd,
		 4 * PAGE) != mem(SLOTPG))
		return -1;
	return fd;
}

/* The 32-bit child, stopped at its int3 with the pages mapped; NULL, or why not. */
static const char *start_child32(void)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	char *slash;
	int fd, st;

	if (n <= 0)
		return "no /proc/self/exe";
	path[n] = 0;
	slash = strrchr(path, '/');
	strcpy(slash ? slash + 1 : path, "x86_xol_child32");
	if (access(path, X_OK))
		return "x86_xol_child32 not built";
	fd = share_pages();
	if (fd < 0)
		return "cannot share the pages (memfd)";
	child = fork();
	if (child < 0)
		return "fork failed";
	if (child == 0) {
		dup2(fd, 3);
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		execl(path, path, (char *)NULL);
		_exit(errno == ENOEXEC ? 126 : 127);
	}
	close(fd);
	if (waitpid(child, &st, 0) != child || WIFEXITED(st))
		return WIFEXITED(st) && WEXITSTATUS(st) == 126
			       ? "this kernel runs no 32-bit programs (ENOEXEC)"
			       : "exec failed";
	if (ptrace(PTRACE_CONT, child, 0, 0) < 0 || waitpid(child, &st, 0) != child ||
	    !WIFSTOPPED(st) || WSTOPSIG(st) != SIGTRAP)
		return "the 32-bit child did not map the pages";
	return NULL;
}

/* The i386 forms, executed both ways in the 32-bit child. */
static void test_executed32(void)
{
	const char *why = start_child32();
	int before = executed;

	if (!why && !make_base())
		why = "ptrace refused the 32-bit child's registers";
	if (why) {
		if (getenv("XOL32_REQUIRED"))
			ok(0, "i386 forms executed: %s", why);
		else
			ok(1, "i386 forms executed # SKIP %s", why);
		goto out;
	}
	/* 32-bit values where make_base gave 64-bit ones (the rest fit) */
	base.rax = 0x44332211;
	base.rdi = 0x01234567; /* unmapped: a fault if used as a pointer */
	mode = arch_get(ARCH_I386);
	for (size_t i = 0; i < sizeof(forms32x) / sizeof(forms32x[0]); i++)
		test_form(&forms32x[i]);
	ok(executed - before >= 60, "i386: %d forms executed both ways", executed - before);
out:
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
}

/* Reach: a 64-bit copy must name the same addresses from the slot, or stay in place. */
static void test_reach(void)
{
	static const uint8_t load[] = {0x48, 0x8b, 0x05, 0x00, 0x10, 0x00, 0x00};
	static const uint8_t eip[] = {0x67, 0x8b, 0x05, 0x00, 0x10, 0x00, 0x00};
	static const uint8_t jmp[] = {0xe9, 0x00, 0x01, 0x00, 0x00};
	static const uint8_t call[] = {0xe8, 0x00, 0x01, 0x00, 0x00};
	uint64_t far = A + 0xc0000000ull, near = A - 0x7fff0000ull;
	struct arch_xol x;
	int32_t d;

	arch_xol_prepare(amd64, load, sizeof(load), A, far, &x);
	is_str(x.why, "rip-rel out of range", "rip-relative load 3 GiB from its slot: in place");
	arch_xol_prepare(amd64, load, sizeof(load), A, near, &x);
	memcpy(&d, x.code + 3, 4);
	ok(x.kind == ARCH_XOL_RUN && near + 7 + d == A + 7 + 0x1000,
	   "rip-relative load 2 GiB below: runs, same address");
	arch_xol_prepare(amd64, eip, sizeof(eip), 0xf0000000, 0x100001000, &x);
	memcpy(&d, x.code + 3, 4);
	ok(x.kind == ARCH_XOL_RUN && (uint32_t)(0x100001000 + 7 + d) == 0xf0000007 + 0x1000,
	   "eip-relative load (67), its slot above 4 GiB: runs, same 32-bit address");
	arch_xol_prepare(amd64, eip, sizeof(eip), A, far, &x);
	is_str(x.why, "slot out of range", "any instruction 3 GiB from its slot: in place");
	arch_xol_prepare(amd64, jmp, sizeof(jmp), A, far, &x);
	is_str(x.why, "target out of range", "jmp rel32 3 GiB from its slot: in place");
	arch_xol_prepare(amd64, call, sizeof(call), A, far, &x);
	is_str(x.why, "target out of range", "call rel32 3 GiB from its slot: in place");
	arch_xol_prepare(amd64, call, 3, A, SLOT, &x);
	is_str(x.why, "undecodable", "call rel32 cut short (3 bytes readable): undecodable");
	arch_xol_prepare(amd64, call, 0, A, SLOT, &x);
	is_str(x.why, "undecodable", "nothing readable: undecodable");
	is_int(arch_xol_prepare(amd64, NULL, 5, A, SLOT, &x), -EINVAL, "no bytes: -EINVAL");
	is_int(arch_xol_prepare(NULL, call, 5, A, SLOT, &x), -EINVAL, "no arch: -EINVAL");
}

static bool fixup_at(const struct arch_desc *d, const struct arch_xol *x, uint64_t slot,
		     uint64_t pc, uint64_t sp, struct arch_regs *r)
{
	memset(&r->gp, 0, sizeof(r->gp));
	r->gp.rip = pc;
	r->gp.rsp = sp;
	return arch_xol_fixup(x, slot, d, r);
}

/* arch_xol_fixup by itself: boundaries, undone pushes, 32-bit wrap, refusals. */
static void test_fixup_pure(void)
{
	static const uint8_t call_rdx[] = {0xff, 0xd2};
	static const uint8_t loop[] = {0xe2, 0x10};
	static const uint8_t call32[] = {0xe8, 0x00, 0x01, 0x00, 0x00};
	const struct arch_desc *i386 = arch_get(ARCH_I386);
	static struct arch_regs r;
	struct arch_xol x;

	arch_xol_prepare(amd64, call_rdx, sizeof(call_rdx), A, SLOT, &x);
	ok(fixup_at(amd64, &x, SLOT, SLOT, SP0, &r) && r.gp.rip == A && r.gp.rsp == SP0,
	   "call *%%rdx, stopped at offset 0: at A, stack as it was");
	ok(fixup_at(amd64, &x, SLOT, SLOT + 6, SP0 - 8, &r) && r.gp.rip == A && r.gp.rsp == SP0,
	   "call *%%rdx, stopped after the push: at A, the push undone");
	ok(!fixup_at(amd64, &x, SLOT, SLOT + 1, SP0, &r) && r.gp.rip == SLOT + 1,
	   "inside an instruction of the slot: false, untouched");
	ok(!fixup_at(amd64, &x, SLOT, A, SP0, &r) && !fixup_at(amd64, &x, SLOT, SLOT - 1, SP0, &r),
	   "outside the slot: false");
	ok(!fixup_at(amd64, &x, SLOT, SLOT + x.code_len, SP0, &r), "past the code: false");

	arch_xol_prepare(amd64, loop, sizeof(loop), A, SLOT, &x);
	ok(fixup_at(amd64, &x, SLOT, SLOT + 2, SP0, &r) && r.gp.rip == A + 2,
	   "loop, at the jump back: not taken, A+2");
	ok(fixup_at(amd64, &x, SLOT, SLOT + 7, SP0, &r) && r.gp.rip == A + 0x12,
	   "loop, at the jump to the target: taken, A+0x12");

	arch_xol_prepare(i386, call32, sizeof(call32), A32, 0xfffff000, &x);
	ok(fixup_at(i386, &x, 0xfffff000, 0xfffff005, 0xfffffffc, &r) && r.gp.rip == A32 &&
		   r.gp.rsp == 0,
	   "i386 call, stopped after the push: at A, esp wraps back to 0");

	x.kind = ARCH_XOL_INPLACE;
	ok(!fixup_at(amd64, &x, SLOT, SLOT, SP0, &r), "an in-place preparation: false");
}

/* The exits of a 32-bit copy (branch targets outside the slot) and its push imm32. */
static int exits32(const struct arch_xol *x, uint64_t slot, uint64_t *exits, uint64_t *push)
{
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction in;
	ZydisDecoder dec;
	size_t off = 0;
	int n = 0;

	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LEGACY_32, ZYDIS_STACK_WIDTH_32);
	while (off < x->code_len) {
		uint64_t t;

		if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, x->code + off, x->code_len - off,
							 &in, ops)))
			return -1;
		t = (uint32_t)(slot + off + in.length + (uint64_t)in.raw.imm[0].value.s);
		if (in.raw.imm[0].is_relative && (t < slot || t >= slot + x->code_len))
			exits[n < 3 ? n++ : n] = t;
		if (in.mnemonic == ZYDIS_MNEMONIC_PUSH &&
		    ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE)
			*push = (uint32_t)ops[0].imm.value.u;
		off += in.length;
	}
	return n;
}

static void test_form32(const struct form32 *f, uint64_t slot)
{
	const struct arch_desc *i386 = arch_get(ARCH_I386);
	uint64_t exits[3] = {0}, push = 0;
	struct arch_xol x;
	int n, want = 0;

	arch_xol_prepare(i386, f->bytes, f->len, A32, slot, &x);
	if (f->inplace) {
		is_str(x.why, f->inplace, "i386 %s: in place", f->name);
		return;
	}
	if (!ok(x.kind == ARCH_XOL_RUN, "i386 %s: out of line", f->name)) {
		diag("    in place: %s", x.why);
		return;
	}
	n = exits32(&x, slot, exits, &push);
	while (want < 3 && f->exits[want])
		want++;
	ok(n == want && !memcmp(exits, f->exits, sizeof(exits)) && push == f->push &&
		   (!f->starts.n ||
		    (x.code_len >= f->starts.n && !memcmp(x.code, f->starts.b, f->starts.n))),
	   "i386 %s: decodes back to the expected exits, push and opening", f->name);
	if (n != want || push != f->push)
		diag("    %d exits, first %#llx; push %#llx", n, (unsigned long long)exits[0],
		     (unsigned long long)push);
}

/* 32-bit forms: by bytes, from a slot below and above A (rel32 wraps at 4 GiB). */
static void test_forms32(void)
{
	static const uint8_t wrap[] = {0xe9, 0xfb, 0x1f, 0x00, 0x00}; /* jmp .+0x2000 */
	const struct arch_desc *i386 = arch_get(ARCH_I386);
	uint64_t exits[3] = {0}, push = 0;
	struct arch_xol x;

	for (size_t i = 0; i < sizeof(forms32) / sizeof(forms32[0]); i++) {
		test_form32(&forms32[i], 0xb7f00000);
		test_form32(&forms32[i], 0x00100000);
	}
	arch_xol_prepare(i386, wrap, sizeof(wrap), 0xfffff000, 0x00100000, &x);
	ok(x.kind == ARCH_XOL_RUN && exits32(&x, 0x00100000, exits, &push) == 1 &&
		   exits[0] == 0x1000,
	   "i386 jmp across 4 GiB (0xfffff000 -> 0x1000): the copy goes to 0x1000");
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Random bytes, or a table form with a byte or two changed. */
static size_t fuzz_bytes(uint64_t *s, int i, uint8_t *b)
{
	const struct form *f = &forms64[rnd(s) % (sizeof(forms64) / sizeof(forms64[0]))];

	for (int j = 0; j < 16; j++)
		b[j] = (uint8_t)rnd(s);
	if (i % 2)
		return 1 + rnd(s) % 16;
	memcpy(b, f->bytes, f->len);
	b[rnd(s) % f->len] = (uint8_t)rnd(s);
	if (rnd(s) % 2)
		b[rnd(s) % 16] = (uint8_t)rnd(s);
	return rnd(s) % 2 ? 16 : f->len;
}

static bool sane(const struct arch_xol *x, size_t avail, const uint8_t *guard, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (guard[i] != 0xa5)
			return false;
	if (x->code_len > ARCH_XOL_SLOT || x->npoints > ARCH_XOL_POINTS || x->insn_len > avail)
		return false;
	for (unsigned int i = 0; i < x->npoints; i++)
		if (x->points[i].off >= x->code_len)
			return false;
	if (x->kind == ARCH_XOL_INPLACE)
		return x->why && x->code_len == 0;
	return x->kind == ARCH_XOL_RUN && !x->why && x->code_len > 0 && x->npoints > 0;
}

static void test_fuzz(void)
{
	static struct {
		struct arch_xol x;
		uint8_t guard[256];
	} box;
	const struct arch_desc *i386 = arch_get(ARCH_I386);
	uint64_t s = 0x9e3779b97f4a7c15ull;
	int bad = 0, runs = 0, n = 20000;
	uint8_t b[16];

	for (int i = 0; i < n; i++) {
		size_t avail = fuzz_bytes(&s, i, b);
		uint64_t addr = (rnd(&s) & 0x00007fffffffffffull);
		uint64_t slot = rnd(&s) % 4 ? addr + (int32_t)rnd(&s) : rnd(&s);

		memset(&box, 0xa5, sizeof(box));
		if (arch_xol_prepare(i % 3 ? amd64 : i386, b, avail, addr, slot, &box.x) != 0 ||
		    !sane(&box.x, avail, box.guard, sizeof(box.guard))) {
			if (bad++ < 5)
				diag("    iteration %d: %s", i, box.x.why ? box.x.why : "runs");
			continue;
		}
		runs += box.x.kind == ARCH_XOL_RUN;
	}
	ok(bad == 0, "%d random instructions: nothing written past the slot, %d out of line", n,
	   runs);
}

int main(void)
{
	amd64 = arch_get(ARCH_AMD64);
	if (getenv("XOL_SKIP") && *getenv("XOL_SKIP"))
		skipping = !regcomp(&skip_re, getenv("XOL_SKIP"), REG_EXTENDED | REG_NOSUB);
	if (!map_fixed(CODE, 4 * PAGE) || !map_fixed(SLOTPG, PAGE)) {
		printf("1..0 # SKIP cannot map the test pages at %#llx\n", CODE);
		return 0;
	}
	if (!start_child() || !make_base()) {
		printf("1..0 # SKIP cannot trace a child (%s)\n", strerror(errno));
		return 0;
	}
	test_executed();
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	test_executed32();
	test_reach();
	test_fixup_pure();
	test_forms32();
	test_fuzz();
	return done_testing();
}
