/*
 * x86_patch.c: a breakpoint whose condition the in-process agent
 * evaluates, as code: a 5-byte jmp at the breakpoint address A to a
 * trampoline of its own, which
 *
 *     lea -128(%rsp),%rsp          the red zone stays untouched
 *     pushfq; push r15..r8, rsp, rbp, rdi, rsi, rdx, rcx, rbx, rax
 *     mov %rsp,%r15                the frame (struct agent_inproc_frame)
 *     cld; and $-16,%rsp           what the SysV ABI wants at a call
 *     call agent(frame, prog)      src/agent/inproc: never touches r15
 *     mov %r15,%rsp; test %eax,%eax; jnz trap
 *     pop ...; popfq; lea 128(%rsp),%rsp
 *     <the instruction from A, relocated as x86_xol.c does; jmp A+len>
 *   trap:
 *     pop ...; popfq; lea 128(%rsp),%rsp
 *     int3                         a true hit: every register as at A
 *
 * Every instruction boundary is recorded with how the registers the
 * program had at A are found there (only rsp moved; in the frame below
 * rsp; in the frame r15 points to), so that a thread stopped anywhere in
 * the trampoline or the agent (a signal, ^C, a fault of a condition's
 * read) is put back at A as if it had not arrived yet: the evaluation has
 * no side effects, so it can be run again.
 *
 * A 32-bit process's trampoline is the same in i386 code, with no red
 * zone (the i386 ABI has none) and esi as the frame pointer:
 *
 *     pushfl; pushal; push $0; push $0   (struct agent_inproc_frame32: the
 *                                          mark zeroed, never a past hit's)
 *     mov %esp,%esi; cld; and $-16,%esp
 *     call agent(frame: eax, prog: edx)   regparm(2); never touches esi
 *     mov %esi,%esp; test %eax,%eax; jnz trap
 *     lea 8(%esp),%esp; popal; popfl
 *     <the instructions relocated; jmp A+len>
 *   trap:
 *     lea 8(%esp),%esp; popal; popfl; int3
 *
 * The jmp replaces the instruction at A, and the next ones when it is
 * shorter (the caller checks the function: arch_patch_check_func).
 */
#include "../arch.h"
#include "x86.h"
#include "../../agent/agent_inproc.h"

#include <Zydis/Zydis.h>

#include <cpuid.h>

#include <errno.h>
#include <stddef.h>
#include <string.h>

#define JMP_LEN	     5
#define FRAME_SIZE   sizeof(struct agent_inproc_frame)
#define FRAME32_SIZE AGENT_INPROC_FRAME32_SIZE /* (44: not its sizeof here, 48) */
#define REL32_MAX    0x7fffffffLL

/* One trampoline being written. */
struct tramp {
	struct arch_patch *pt;
	bool full;
};

static void emit(struct tramp *t, const void *b, size_t n)
{
	struct arch_patch *pt = t->pt;

	if (pt->code_len + n > sizeof(pt->code)) {
		t->full = true;
		return;
	}
	memcpy(pt->code + pt->code_len, b, n);
	pt->code_len += n;
}

/* The instruction starting here, and how A's registers are found at it. */
static void point(struct tramp *t, enum arch_patch_how how, uint16_t n)
{
	struct arch_patch *pt = t->pt;

	if (pt->npoints >= ARCH_PATCH_POINTS) {
		t->full = true;
		return;
	}
	pt->points[pt->npoints++] = (struct arch_patch_point){(uint16_t)pt->code_len, how, n};
}

static void insn_point(struct tramp *t, enum arch_patch_how how, uint16_t n, const void *b,
		       size_t len)
{
	point(t, how, n);
	emit(t, b, len);
}

static void emit_u32(struct tramp *t, uint32_t v)
{
	uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};

	emit(t, b, 4);
}

static void emit_u64(struct tramp *t, uint64_t v)
{
	emit_u32(t, (uint32_t)v);
	emit_u32(t, (uint32_t)(v >> 32));
}

/* push r15..r8 (REX.B), then rsp, rbp, rdi, rsi, rdx, rcx, rbx, rax */
static const uint8_t push_order[16] = {15, 14, 13, 12, 11, 10, 9, 8, 4, 5, 7, 6, 2, 1, 3, 0};

/* Down to a complete frame: A's registers are all as they were, rsp aside. */
static void prologue(struct tramp *t)
{
	static const uint8_t lea_down[] = {0x48, 0x8d, 0x64, 0x24, 0x80};
	uint16_t down = AGENT_INPROC_RED_ZONE;

	insn_point(t, ARCH_PATCH_RSP_UP, 0, lea_down, sizeof(lea_down));
	insn_point(t, ARCH_PATCH_RSP_UP, down, "\x9c", 1); /* pushfq */
	down += 8;
	for (int i = 0; i < 16; i++) {
		uint8_t r = push_order[i], b[2] = {0x41, (uint8_t)(0x50 + (r & 7))};

		if (r >= 8)
			insn_point(t, ARCH_PATCH_RSP_UP, down, b, 2);
		else
			insn_point(t, ARCH_PATCH_RSP_UP, down, b + 1, 1);
		down += 8;
	}
}

/* The call; *jnz_rel: where the jnz's rel32 goes, patched once trap is known. */
static void call_agent(struct tramp *t, uint64_t entry, uint64_t prog, size_t *jnz_rel)
{
	static const uint8_t mov_r15[] = {0x49, 0x89, 0xe7}, cld = 0xfc,
			     and_rsp[] = {0x48, 0x83, 0xe4, 0xf0}, mov_rdi[] = {0x4c, 0x89, 0xff},
			     call_rax[] = {0xff, 0xd0}, back_rsp[] = {0x4c, 0x89, 0xfc},
			     test_eax[] = {0x85, 0xc0}, jnz[] = {0x0f, 0x85};

	insn_point(t, ARCH_PATCH_FRAME_BELOW_RSP, 0, mov_r15, sizeof(mov_r15));
	insn_point(t, ARCH_PATCH_FRAME_IN_REG, 0, &cld, 1);
	insn_point(t, ARCH_PATCH_FRAME_IN_REG, 0, and_rsp, sizeof(and_rsp));
	insn_point(t, ARCH_PATCH_FRAME_IN_REG, 0, mov_rdi, sizeof(mov_rdi));
	insn_point(t, ARCH_PATCH_FRAME_IN_REG, 0, "\x48\xbe", 2); /* movabs $prog,%rsi */
	emit_u64(t, prog);
	insn_point(t, ARCH_PATCH_FRAME_IN_REG, 0, "\x48\xb8", 2); /* movabs $entry,%rax */
	emit_u64(t, entry);
	insn_point(t, ARCH_PATCH_FRAME_IN_REG, 0, call_rax, sizeof(call_rax));
	insn_point(t, ARCH_PATCH_FRAME_IN_REG, 0, back_rsp, sizeof(back_rsp));
	insn_point(t, ARCH_PATCH_FRAME_IN_REG, 0, test_eax, sizeof(test_eax));
	insn_point(t, ARCH_PATCH_FRAME_IN_REG, 0, jnz, sizeof(jnz));
	*jnz_rel = t->pt->code_len;
	emit_u32(t, 0);
}

/* Back up to A's registers: the frame stays in memory below rsp meanwhile. */
static void epilogue(struct tramp *t)
{
	static const uint8_t skip_rsp[] = {0x48, 0x8d, 0x64, 0x24, 0x08},
			     lea_up[] = {0x48, 0x8d, 0xa4, 0x24, 0x80, 0x00, 0x00, 0x00};
	uint16_t up = 0;

	for (int i = 15; i >= 0; i--) {
		uint8_t r = push_order[i], b[2] = {0x41, (uint8_t)(0x58 + (r & 7))};

		if (r == 4)
			insn_point(t, ARCH_PATCH_FRAME_BELOW_RSP, up, skip_rsp, sizeof(skip_rsp));
		else if (r >= 8)
			insn_point(t, ARCH_PATCH_FRAME_BELOW_RSP, up, b, 2);
		else
			insn_point(t, ARCH_PATCH_FRAME_BELOW_RSP, up, b + 1, 1);
		up += 8;
	}
	insn_point(t, ARCH_PATCH_FRAME_BELOW_RSP, up, "\x9d", 1); /* popfq */
	up += 8;
	insn_point(t, ARCH_PATCH_FRAME_BELOW_RSP, up, lea_up, sizeof(lea_up));
}

/* i386: down to a complete struct agent_inproc_frame32, its mark zero. */
static void prologue32(struct tramp *t)
{
	insn_point(t, ARCH_PATCH_RSP_UP, 0, "\x9c", 1);	     /* pushfl */
	insn_point(t, ARCH_PATCH_RSP_UP, 4, "\x60", 1);	     /* pushal */
	insn_point(t, ARCH_PATCH_RSP_UP, 36, "\x6a\x00", 2); /* push $0 */
	insn_point(t, ARCH_PATCH_RSP_UP, 40, "\x6a\x00", 2);
}

static void call_agent32(struct tramp *t, uint64_t entry, uint64_t prog, size_t *jnz_rel)
{
	static const uint8_t mov_esi[] = {0x89, 0xe6}, cld = 0xfc, and_esp[] = {0x83, 0xe4, 0xf0},
			     mov_eax[] = {0x89, 0xf0}, call_ecx[] = {0xff, 0xd1},
			     back_esp[] = {0x89, 0xf4}, test_eax[] = {0x85, 0xc0},
			     jnz[] = {0x0f, 0x85};

	insn_point(t, ARCH_PATCH_FRAME_BELOW_RSP, 0, mov_esi, sizeof(mov_esi));
	insn_point(t, ARCH_PATCH_FRAME_IN_REG, 0, &cld, 1);
	insn_point(t, ARCH_PATCH_FRAME_IN_REG, 0, and_esp, sizeof(and_esp));
	insn_point(t, ARCH_PATCH_FRAME_IN_REG, 0, mov_eax, sizeof(mov_eax));
	insn_point(t, ARCH_PATCH_FRAME_IN_REG, 0, "\xba", 1); /* mov $prog,%edx */
	emit_u32(t, (uint32_t)prog);
	insn_point(t, ARCH_PATCH_FRAME_IN_REG, 0, "\xb9", 1); /* mov $entry,%ecx */
	emit_u32(t, (uint32_t)entry);
	insn_point(t, ARCH_PATCH_FRAME_IN_REG, 0, call_ecx, sizeof(call_ecx));
	insn_point(t, ARCH_PATCH_FRAME_IN_REG, 0, back_esp, sizeof(back_esp));
	insn_point(t, ARCH_PATCH_FRAME_IN_REG, 0, test_eax, sizeof(test_eax));
	insn_point(t, ARCH_PATCH_FRAME_IN_REG, 0, jnz, sizeof(jnz));
	*jnz_rel = t->pt->code_len;
	emit_u32(t, 0);
}

static void epilogue32(struct tramp *t)
{
	static const uint8_t skip_mark[] = {0x8d, 0x64, 0x24, 0x08};

	insn_point(t, ARCH_PATCH_FRAME_BELOW_RSP, 0, skip_mark, sizeof(skip_mark));
	insn_point(t, ARCH_PATCH_FRAME_BELOW_RSP, 8, "\x61", 1);  /* popal */
	insn_point(t, ARCH_PATCH_FRAME_BELOW_RSP, 40, "\x9d", 1); /* popfl */
}

static bool decoder(const struct arch_desc *d, ZydisDecoder *dec)
{
	if (d->kind == ARCH_I386)
		return ZYAN_SUCCESS(
			ZydisDecoderInit(dec, ZYDIS_MACHINE_MODE_LEGACY_32, ZYDIS_STACK_WIDTH_32));
	return d->kind == ARCH_AMD64 &&
	       ZYAN_SUCCESS(
		       ZydisDecoderInit(dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64));
}

/* What the instruction at b is to the patch: falls through, or must be the last replaced. */
static const char *insn_kind(const struct arch_desc *d, const uint8_t *b, size_t avail, size_t *len,
			     bool *last)
{
	ZydisDecodedInstruction in;
	ZydisDecoder dec;

	if (!decoder(d, &dec) ||
	    !ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&dec, NULL, b, avail, &in)))
		return "undecodable";
	*len = in.length;
	/* a call's return, a jmp's or ret's next instruction: reached from elsewhere */
	*last = in.meta.category == ZYDIS_CATEGORY_CALL ||
		in.meta.category == ZYDIS_CATEGORY_UNCOND_BR ||
		in.meta.category == ZYDIS_CATEGORY_RET;
	return NULL;
}

/* The instructions from addr that the jmp covers, relocated one after the other. */
static const char *relocate_insns(struct tramp *t, const uint8_t *insn, size_t avail,
				  const struct arch_desc *d, uint64_t tramp)
{
	struct arch_patch *pt = t->pt;
	const char *why;
	size_t off = 0, len;
	bool last;

	while (off < JMP_LEN) {
		unsigned k = pt->ninsns;
		uint64_t at = pt->addr + off, slot = tramp + pt->code_len;
		struct arch_xol *x = &pt->reloc[k];

		if (k == ARCH_PATCH_INSNS)
			return "too many instructions";
		why = insn_kind(d, insn + off, avail - off, &len, &last);
		if (why)
			return why;
		if (last && off + len < JMP_LEN)
			return off ? "call or jump inside" : "short instruction";
		/* a copy's length does not depend on where it falls through to */
		if (arch_xol_prepare(d, insn + off, avail - off, at, slot, x) < 0)
			return "undecodable";
		if (x->kind == ARCH_XOL_RUN && off + len < JMP_LEN)
			arch_xol_prepare_fall(d, insn + off, avail - off, at, slot,
					      slot + x->code_len, x);
		if (x->kind != ARCH_XOL_RUN)
			return x->why;
		pt->insn_addr[k] = at;
		pt->reloc_off[k] = pt->code_len;
		pt->ninsns++;
		emit(t, x->code, x->code_len);
		off += len;
	}
	pt->replaced = off;
	return NULL;
}

int arch_patch_prepare(const struct arch_desc *d, const uint8_t *insn, size_t avail, uint64_t addr,
		       uint64_t tramp, uint64_t entry, uint64_t prog, struct arch_patch *out)
{
	long long rel = (long long)(tramp - (addr + JMP_LEN));
	struct tramp t = {.pt = out};
	bool i386;
	size_t jnz;
	uint32_t rel32;

	if (!d || !insn || !out || (d->kind != ARCH_AMD64 && d->kind != ARCH_I386))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->addr = addr;
	i386 = d->kind == ARCH_I386; /* (its rel32 reaches all 4 GiB) */
	if (i386 &&
	    (addr > UINT32_MAX || tramp > UINT32_MAX || entry > UINT32_MAX || prog > UINT32_MAX))
		out->why = "above 4 GiB";
	else if (!i386 && (rel > REL32_MAX || rel < -REL32_MAX))
		out->why = "trampoline out of range";
	if (out->why)
		return 0;
	if (i386) {
		prologue32(&t);
		call_agent32(&t, entry, prog, &jnz);
		epilogue32(&t);
	} else {
		prologue(&t);
		call_agent(&t, entry, prog, &jnz);
		epilogue(&t);
	}
	out->mark_off = i386 ? offsetof(struct agent_inproc_frame32, mark)
			     : offsetof(struct agent_inproc_frame, gpr[AGENT_INPROC_RSP_SLOT]);
	out->go_off = out->code_len;
	out->why = relocate_insns(&t, insn, avail, d, tramp);
	if (out->why)
		return 0;
	rel32 = (uint32_t)(out->code_len - (jnz + 4));
	memcpy(out->code + jnz, &rel32, 4);
	if (i386)
		epilogue32(&t);
	else
		epilogue(&t);
	insn_point(&t, ARCH_PATCH_AT_A, 0, "\xcc", 1);
	out->hit_off = out->code_len;
	if (t.full) {
		out->why = "trampoline too long";
		return 0;
	}
	rel32 = (uint32_t)(tramp - (addr + JMP_LEN));
	out->jump[0] = 0xe9;
	memcpy(out->jump + 1, &rel32, 4);
	out->jump_len = JMP_LEN;
	return 0;
}

const char *arch_patch_check_func(const struct arch_desc *d, const uint8_t *code, size_t len,
				  uint64_t func, uint64_t addr, size_t replaced)
{
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction in;
	bool at_boundary = false;
	ZydisDecoder dec;

	if (!decoder(d, &dec))
		return "no decoder";
	for (size_t off = 0; off < len; off += in.length) {
		uint64_t pc = func + off, target;

		if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, code + off, len - off, &in, op)))
			return "function undecodable";
		at_boundary |= pc == addr;
		if (in.meta.category == ZYDIS_CATEGORY_UNCOND_BR &&
		    op[0].type != ZYDIS_OPERAND_TYPE_IMMEDIATE)
			return "indirect jump in the function";
		if (!in.raw.imm[0].is_relative)
			continue;
		target = pc + in.length + (uint64_t)in.raw.imm[0].value.s;
		if (d->kind == ARCH_I386)
			target = (uint32_t)target; /* (32-bit code wraps) */
		if (target > addr && target < addr + replaced)
			return "a jump into the patch";
	}
	return at_boundary ? NULL : "not an instruction start";
}

uint64_t arch_patch_resume_pc(const struct arch_patch *pt, uint64_t tramp, uint64_t pc)
{
	for (unsigned k = 1; k < pt->ninsns; k++)
		if (pt->insn_addr[k] == pc)
			return tramp + pt->reloc_off[k];
	return 0;
}

/* i386: A's registers from the struct agent_inproc_frame32 at fa. */
static bool from_frame32(struct arch_regs *r, uint64_t fa, arch_read_fn read, void *ctx)
{
	struct agent_inproc_frame32 f;

	if (read(ctx, fa, &f, FRAME32_SIZE) < 0)
		return false;
	/* pushal[7 - i]: eax, ecx, edx, ebx, (esp), ebp, esi, edi */
	r->gp.rax = f.pushal[7];
	r->gp.rcx = f.pushal[6];
	r->gp.rdx = f.pushal[5];
	r->gp.rbx = f.pushal[4];
	r->gp.rbp = f.pushal[2];
	r->gp.rsi = f.pushal[1];
	r->gp.rdi = f.pushal[0];
	r->gp.rsp = (uint32_t)(fa + FRAME32_SIZE);
	r->gp.eflags = f.eflags;
	return true;
}

/* A's registers from the frame at fa; false if it cannot be read. */
static bool from_frame(const struct arch_desc *d, struct arch_regs *r, uint64_t fa,
		       arch_read_fn read, void *ctx)
{
#define GP(reg) offsetof(struct user_regs_struct, reg)
	/* frame slot i is gdb's amd64 register i */
	static const size_t slot_to_user[16] = {
		GP(rax), GP(rbx), GP(rcx), GP(rdx), GP(rsi), GP(rdi), GP(rbp), GP(rsp),
		GP(r8),	 GP(r9),  GP(r10), GP(r11), GP(r12), GP(r13), GP(r14), GP(r15),
	};
#undef GP
	struct agent_inproc_frame f;

	if (d->kind == ARCH_I386)
		return from_frame32(r, fa, read, ctx);
	if (read(ctx, fa, &f, sizeof(f)) < 0)
		return false;
	for (int i = 0; i < 16; i++)
		memcpy((char *)&r->gp + slot_to_user[i], &f.gpr[i], 8);
	r->gp.rsp =
		fa + FRAME_SIZE + AGENT_INPROC_RED_ZONE; /* (its slot: after the first pushes) */
	r->gp.eflags = f.eflags;
	return true;
}

/* In the relocated copies: where the program is (the instruction's address, or past it). */
static enum arch_patch_where reloc_fixup(const struct arch_patch *pt, uint64_t tramp, uint64_t off,
					 const struct arch_desc *d, struct arch_regs *r)
{
	for (unsigned k = pt->ninsns; k-- > 0;)
		if (off >= pt->reloc_off[k])
			return arch_xol_fixup(&pt->reloc[k], tramp + pt->reloc_off[k], d, r)
				       ? ARCH_PATCH_RELOC
				       : ARCH_PATCH_LOST;
	return ARCH_PATCH_LOST;
}

/* The trampoline's frame pointer: r15, never touched by the agent; i386's esi. */
static uint64_t frame_reg(const struct arch_desc *d, const struct arch_regs *r)
{
	return d->kind == ARCH_I386 ? (uint32_t)r->gp.rsi : r->gp.r15;
}

static const struct arch_patch_point *point_at(const struct arch_patch *pt, size_t off)
{
	for (unsigned i = 0; i < pt->npoints; i++)
		if (pt->points[i].off == off)
			return &pt->points[i];
	return NULL;
}

enum arch_patch_where arch_patch_rollback(const struct arch_patch *pt, uint64_t tramp,
					  bool in_agent, const struct arch_desc *d,
					  struct arch_regs *r, arch_read_fn read, void *ctx)
{
	uint64_t pc = arch_pc(d, r), off = pc - tramp;
	const struct arch_patch_point *p;
	bool ok = true;

	if (in_agent)
		ok = from_frame(d, r, frame_reg(d, r), read, ctx);
	else if (pc >= tramp && off == pt->hit_off)
		ok = true; /* after the int3: A's registers already */
	else if (pc < tramp || off >= pt->code_len)
		return ARCH_PATCH_OUT;
	else if (off >= pt->go_off &&
		 off < pt->reloc_off[pt->ninsns - 1] + pt->reloc[pt->ninsns - 1].code_len)
		return reloc_fixup(pt, tramp, off, d, r);
	else if (!(p = point_at(pt, off)))
		return ARCH_PATCH_LOST; /* not a boundary: cannot be */
	else if (p->how == ARCH_PATCH_RSP_UP)
		r->gp.rsp += p->n;
	else if (p->how == ARCH_PATCH_FRAME_BELOW_RSP)
		ok = from_frame(d, r, r->gp.rsp - p->n, read, ctx);
	else if (p->how == ARCH_PATCH_FRAME_IN_REG)
		ok = from_frame(d, r, frame_reg(d, r), read, ctx);
	if (!ok)
		return ARCH_PATCH_LOST;
	arch_set_pc(d, r, pt->addr);
	return off == pt->hit_off && !in_agent ? ARCH_PATCH_HIT : ARCH_PATCH_BACK;
}

uint64_t arch_patch_frame(const struct arch_patch *pt, uint64_t tramp, bool in_agent,
			  const struct arch_desc *d, const struct arch_regs *r)
{
	uint64_t pc = arch_pc(d, r), off = pc - tramp;
	const struct arch_patch_point *p;

	if (in_agent)
		return frame_reg(d, r);
	if (pc < tramp || off >= pt->go_off || !(p = point_at(pt, off)))
		return 0;
	if (p->how == ARCH_PATCH_FRAME_BELOW_RSP)
		return r->gp.rsp - p->n;
	return p->how == ARCH_PATCH_FRAME_IN_REG ? frame_reg(d, r) : 0;
}

/* the trampoline's call left its return address below the frame r15 (esi) points to, aligned */
uint64_t arch_patch_agent_ret_slot(const struct arch_desc *d, const struct arch_regs *r)
{
	return (frame_reg(d, r) & ~15ULL) - d->ptr_size;
}

/*
 * The agent runs on this CPU, as utraced does: xsave of the components a
 * 'g' block has (x87, SSE, AVX: the same standard layout as the kernel's
 * NT_X86_XSTATE), those the kernel enabled (XCR0); fxsave without xsave.
 */
int arch_agent_fpstate(const struct arch_desc *d, uint32_t *mask, uint32_t *len)
{
	unsigned a, b, c, dx;
	uint32_t lo, hi;

	if (d->ptr_size != 8 || !__get_cpuid(1, &a, &b, &c, &dx))
		return -EOPNOTSUPP;
	if (!(c & bit_OSXSAVE)) {
		*mask = 0;
		*len = 512;
		return 0;
	}
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	*mask = lo & (X86_XSTATE_X87 | X86_XSTATE_SSE | X86_XSTATE_AVX);
	if (*mask & X86_XSTATE_AVX) { /* (its place: fixed in the standard format) */
		__cpuid_count(0xd, 2, a, b, c, dx);
		if (a != 16 * 16 || b != X86_XS_YMMH0)
			*mask &= ~X86_XSTATE_AVX;
	}
	*len = *mask & X86_XSTATE_AVX ? X86_XS_AVX_END : X86_XS_HDR_END;
	return 0;
}
