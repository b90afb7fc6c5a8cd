/*
 * x86_xol.c: one x86 instruction relocated to run in a slot elsewhere in
 * the process (out of line), for the engine's step over a breakpoint.
 *
 * Zydis decodes it (never a decoder of our own): its raw offsets of the
 * displacement and of relative immediates are what relocation needs. The
 * copy, at offset 0 of the slot, is then
 *  - an ordinary instruction as it is, then a jmp rel32 back to A+len;
 *  - a rip-relative operand re-based to the slot (any encoding: the
 *    displacement is always a disp32 at a known offset);
 *  - jmp/jcc/loop/jrcxz rewritten to reach the original targets with rel32
 *    jumps (loop and jrcxz have no rel32 form: a rel8 over a jump back);
 *  - call: a push of the return address the original would push (A+len,
 *    never a slot address: a later ret, unwinding, gdb's bt need the real
 *    one) and a jmp of the same target;
 *  - ret and indirect jmp: as they are, they do not come back.
 * What cannot run elsewhere is left to the in-place step, with a reason.
 *
 * Each instruction boundary of the slot is recorded with the pc the user
 * sees there (A before the original took effect, where it leads after),
 * so that arch_xol_fixup puts a thread stopped in the slot back where the
 * program is.
 */
#include "../arch.h"

#include <Zydis/Zydis.h>
#include <errno.h>
#include <string.h>

/* One relocation in progress. */
struct xol {
	ZydisDecodedInstruction in;
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	const uint8_t *bytes;
	uint64_t addr; /* A: where the original lives */
	uint64_t slot; /* where code[] will */
	uint64_t fall; /* where falling through jumps to: A+len, or the next copy (x86_patch.c) */
	bool is64;
	struct arch_xol *x;
};

/* An address as the CPU computes it: 32-bit code wraps at 4 GiB. */
static uint64_t wrap(const struct xol *c, uint64_t a)
{
	return c->is64 ? a : (uint32_t)a;
}

/* A+len: where the original instruction falls through to. */
static uint64_t next_pc(const struct xol *c)
{
	return wrap(c, c->addr + c->in.length);
}

/* The target of a relative branch. */
static uint64_t rel_target(const struct xol *c)
{
	return wrap(c, next_pc(c) + (uint64_t)c->in.raw.imm[0].value.s);
}

static bool emit(struct xol *c, const void *b, size_t n)
{
	struct arch_xol *x = c->x;

	if (n > ARCH_XOL_SLOT - x->code_len)
		return false;
	memcpy(x->code + x->code_len, b, n);
	x->code_len += n;
	return true;
}

/* The current offset is a boundary at which the user sees pc (undo: bytes to pop). */
static bool mark(struct xol *c, uint64_t pc, uint8_t undo)
{
	struct arch_xol *x = c->x;

	if (x->npoints == ARCH_XOL_POINTS)
		return false;
	x->points[x->npoints++] = (struct arch_xol_point){
		.off = (uint8_t)x->code_len,
		.undo = undo,
		.pc = pc,
	};
	return true;
}

/*
 * opcode (1 or 2 bytes) and a rel32 to target, from the current offset.
 * 32-bit code reaches everything (rel32 wraps); 64-bit code within 2 GiB.
 */
static bool emit_rel32(struct xol *c, const uint8_t *opcode, size_t n, uint64_t target)
{
	uint64_t end = c->slot + c->x->code_len + n + 4;
	int64_t d = (int64_t)(target - end);
	uint8_t b[6];
	int32_t rel;

	if (c->is64 && (d < INT32_MIN || d > INT32_MAX))
		return false;
	rel = (int32_t)(uint32_t)d;
	memcpy(b, opcode, n);
	memcpy(b + n, &rel, 4);
	return emit(c, b, n + 4);
}

static bool emit_jmp(struct xol *c, uint64_t target)
{
	static const uint8_t jmp = 0xe9;

	return emit_rel32(c, &jmp, 1, target);
}

/* The explicit memory operand, if any (lea's included). */
static const ZydisDecodedOperand *mem_operand(const struct xol *c)
{
	for (unsigned int i = 0; i < c->in.operand_count_visible; i++)
		if (c->op[i].type == ZYDIS_OPERAND_TYPE_MEMORY)
			return &c->op[i];
	return NULL;
}

static bool is_ip(ZydisRegister r)
{
	return r == ZYDIS_REGISTER_RIP || r == ZYDIS_REGISTER_EIP;
}

static bool is_sp(ZydisRegister r)
{
	return r == ZYDIS_REGISTER_RSP || r == ZYDIS_REGISTER_ESP || r == ZYDIS_REGISTER_SP;
}

/*
 * Copy the instruction (b: its bytes, maybe edited) at the current offset,
 * its rip-relative displacement re-based so that it names the same address
 * from there. The instruction keeps its length, so the new displacement is
 * the old one plus the distance the instruction moved. eip-relative (67
 * prefix) addresses wrap at 4 GiB: any disp32 reaches.
 */
static const char *emit_copy(struct xol *c, const uint8_t *b)
{
	const ZydisDecodedOperand *m = mem_operand(c);
	size_t at = c->x->code_len;
	int64_t disp;
	int32_t d32;

	if (!emit(c, b, c->in.length))
		return "too long";
	if (!m || !is_ip(m->mem.base))
		return NULL;
	if (c->in.raw.disp.size != 32)
		return "odd rip-rel";
	disp = c->in.raw.disp.value + (int64_t)(c->addr - (c->slot + at));
	if (m->mem.base == ZYDIS_REGISTER_RIP && (disp < INT32_MIN || disp > INT32_MAX))
		return "rip-rel out of range";
	d32 = (int32_t)(uint32_t)disp;
	memcpy(c->x->code + at + c->in.raw.disp.offset, &d32, 4);
	return NULL;
}

/*
 * The jump back to A+len, a boundary where the original has taken effect.
 * (Room never runs out: the longest copy, a call through a 15-byte
 * operand, takes 6 + 15 + 8 bytes.)
 */
static const char *jump_back(struct xol *c)
{
	if (!mark(c, next_pc(c), 0) || !emit_jmp(c, c->fall ? c->fall : next_pc(c)))
		return "slot out of range";
	return NULL;
}

/* jmp rel8/rel32: a jmp rel32 to the same target. */
static const char *relocate_jmp(struct xol *c)
{
	return emit_jmp(c, rel_target(c)) ? NULL : "target out of range";
}

/* jcc rel8/rel32: jcc rel32 to the target, else the jump back. */
static const char *relocate_jcc(struct xol *c)
{
	uint8_t jcc[2] = {0x0f, (uint8_t)(0x80 | (c->in.opcode & 0x0f))};

	if (!emit_rel32(c, jcc, 2, rel_target(c)))
		return "target out of range";
	return jump_back(c);
}

/*
 * loop, loope, loopne, jcxz/jecxz/jrcxz have only a rel8 form: keep the
 * instruction (its 67 prefix picks ecx or cx) with a rel8 of 5, over the
 * jump back, onto a jump to the target.
 */
static const char *relocate_loop(struct xol *c)
{
	uint8_t b[ZYDIS_MAX_INSTRUCTION_LENGTH];
	size_t n = c->in.length;

	if (c->in.raw.imm[0].size != 8 || c->in.raw.imm[0].offset != n - 1)
		return "odd loop";
	memcpy(b, c->bytes, n);
	b[n - 1] = 5;
	if (!emit(c, b, n))
		return "too long";
	if (jump_back(c))
		return "slot out of range";
	if (!mark(c, rel_target(c), 0) || !emit_jmp(c, rel_target(c)))
		return "target out of range";
	return NULL;
}

/*
 * call *mem with the stack pointer in the address: the push of the return
 * address moves it, so the jmp that follows needs the displacement plus
 * the pushed size. A pointer below the stack pointer would be overwritten
 * by that push (the CPU reads it before pushing), and a form without a
 * displacement would need re-encoding: both in place. (A pointer just
 * below the stack reached through another register, e.g. a red-zone
 * slot by %rbp, would be overwritten too: no compiler calls through one.)
 */
static const char *sp_call_operand(struct xol *c, uint8_t *b, int pushed)
{
	const ZydisDecodedOperand *m = &c->op[0];
	int64_t disp = c->in.raw.disp.value + pushed;
	int8_t d8 = (int8_t)disp;
	int32_t d32 = (int32_t)disp;

	if (is_sp(m->mem.index))
		return "call via the stack pointer";
	if (!is_sp(m->mem.base))
		return NULL;
	if (c->in.raw.disp.size == 0 || c->in.raw.disp.value < 0)
		return "call via the stack pointer";
	if (c->in.raw.disp.size == 8 && disp > INT8_MAX)
		return "call via the stack pointer";
	if (c->in.raw.disp.size == 8)
		memcpy(b + c->in.raw.disp.offset, &d8, 1);
	else if (disp <= INT32_MAX)
		memcpy(b + c->in.raw.disp.offset, &d32, 4);
	else
		return "call via the stack pointer";
	return NULL;
}

/* The jump half of a call: rel32 to the target, or ff /2 made ff /4 (jmp, same operand). */
static const char *emit_call_jump(struct xol *c, int pushed)
{
	uint8_t b[ZYDIS_MAX_INSTRUCTION_LENGTH];
	const ZydisDecodedOperand *op = &c->op[0];
	const char *why;

	if (c->in.raw.imm[0].is_relative)
		return emit_jmp(c, rel_target(c)) ? NULL : "target out of range";
	if (op->type == ZYDIS_OPERAND_TYPE_REGISTER && is_sp(op->reg.value))
		return "call via the stack pointer";
	if (c->in.opcode != 0xff || !(c->in.attributes & ZYDIS_ATTRIB_HAS_MODRM))
		return "odd call";
	memcpy(b, c->bytes, c->in.length);
	b[c->in.raw.modrm.offset] = (uint8_t)((b[c->in.raw.modrm.offset] & ~0x38) | (4 << 3));
	if (op->type == ZYDIS_OPERAND_TYPE_MEMORY) {
		why = sp_call_operand(c, b, pushed);
		if (why)
			return why;
	}
	return emit_copy(c, b);
}

/*
 * call: push A+len, then jump where the call goes. 64-bit code has no
 * push of a 64-bit immediate: push qword [rip+lit], the literal after the
 * code. A stop between the push and the jump has not called yet: the
 * push is undone (undo).
 */
static const char *relocate_call(struct xol *c)
{
	static const uint8_t push_lit[6] = {0xff, 0x35}; /* push qword [rip+disp32] */
	uint32_t ret32 = (uint32_t)next_pc(c);
	uint64_t ret64 = next_pc(c);
	uint8_t push_imm[5] = {0x68}; /* push imm32 */
	int pushed = c->is64 ? 8 : 4;
	size_t lit_disp;
	int32_t disp;
	const char *why;

	memcpy(push_imm + 1, &ret32, 4);
	lit_disp = c->x->code_len + 2;
	if (c->is64 ? !emit(c, push_lit, sizeof(push_lit)) : !emit(c, push_imm, sizeof(push_imm)))
		return "too long";
	if (!mark(c, c->addr, (uint8_t)pushed))
		return "too long";
	c->x->pushes = true;
	why = emit_call_jump(c, pushed);
	if (why || !c->is64)
		return why;
	disp = (int32_t)(c->x->code_len - (lit_disp + 4));
	memcpy(c->x->code + lit_disp, &disp, 4);
	return emit(c, &ret64, 8) ? NULL : "too long";
}

/* Anything else: the copy, then back behind the original unless it leaves on its own. */
static const char *relocate_plain(struct xol *c)
{
	ZydisInstructionCategory cat = c->in.meta.category;
	const char *why = emit_copy(c, c->bytes);

	/* ret, iret, jmp *x: they do not come back */
	if (why || cat == ZYDIS_CATEGORY_UNCOND_BR || cat == ZYDIS_CATEGORY_RET)
		return why;
	return jump_back(c);
}

static bool has_prefix(const struct xol *c, uint8_t value)
{
	for (unsigned int i = 0; i < c->in.raw.prefix_count; i++)
		if (c->in.raw.prefixes[i].value == value)
			return true;
	return false;
}

static bool is_branch(const struct xol *c)
{
	switch (c->in.meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
	case ZYDIS_CATEGORY_UNCOND_BR:
	case ZYDIS_CATEGORY_CALL:
	case ZYDIS_CATEGORY_RET:
		return true;
	default:
		return c->in.raw.imm[0].is_relative;
	}
}

/* Why the instruction must run where it is, or NULL. */
static const char *must_stay(const struct xol *c)
{
	switch (c->in.mnemonic) {
	/* the kernel sees the pc: restarts back up over the syscall, a fork child returns to it */
	case ZYDIS_MNEMONIC_SYSCALL:
	case ZYDIS_MNEMONIC_SYSENTER:
		return "syscall";
	case ZYDIS_MNEMONIC_INT:
		return c->in.raw.imm[0].value.u == 0x80 ? "syscall" : "trap";
	/* the signal reports the pc */
	case ZYDIS_MNEMONIC_INT1:
	case ZYDIS_MNEMONIC_INT3:
	case ZYDIS_MNEMONIC_INTO:
		return "trap";
	case ZYDIS_MNEMONIC_UD0:
	case ZYDIS_MNEMONIC_UD1:
	case ZYDIS_MNEMONIC_UD2:
		return "ud";
	/* an abort resumes at a relative address, and the trap aborted it anyway */
	case ZYDIS_MNEMONIC_XBEGIN:
		return "xbegin";
	default:
		break;
	}
	switch (c->in.meta.category) {
	case ZYDIS_CATEGORY_SYSCALL:
	case ZYDIS_CATEGORY_SYSRET:
		return "syscall";
	case ZYDIS_CATEGORY_INTERRUPT: /* int n, int1, int3, into: caught above, and any other */
		return "trap";
	case ZYDIS_CATEGORY_SGX: /* EENTER hands the enclave the address of the next instruction */
		return "sgx";
	default:
		break;
	}
	if (c->in.attributes & ZYDIS_ATTRIB_IS_PRIVILEGED)
		return "privileged"; /* faults anyway: let it fault where it is */
	/* a far call pushes cs:ip (the slot's); far jumps, for symmetry and rarity */
	if (c->in.meta.branch_type == ZYDIS_BRANCH_TYPE_FAR)
		return "far branch";
	/*
	 * 66 on a branch: AMD truncates the target to 16 bits and reads a
	 * rel16, Intel ignores it in 64-bit mode; the length itself differs.
	 */
	if (is_branch(c) && has_prefix(c, 0x66))
		return "16-bit branch";
	return NULL;
}

static const char *relocate(struct xol *c)
{
	switch (c->in.mnemonic) {
	case ZYDIS_MNEMONIC_CALL:
		return relocate_call(c);
	case ZYDIS_MNEMONIC_LOOP:
	case ZYDIS_MNEMONIC_LOOPE:
	case ZYDIS_MNEMONIC_LOOPNE:
	case ZYDIS_MNEMONIC_JCXZ:
	case ZYDIS_MNEMONIC_JECXZ:
	case ZYDIS_MNEMONIC_JRCXZ:
		return relocate_loop(c);
	default:
		break;
	}
	/* ZYDIS_ATTRIB_IS_RELATIVE also means rip-relative memory: not that */
	if (!c->in.raw.imm[0].is_relative)
		return relocate_plain(c);
	if (c->in.mnemonic == ZYDIS_MNEMONIC_JMP)
		return relocate_jmp(c);
	if (c->in.meta.category == ZYDIS_CATEGORY_COND_BR)
		return relocate_jcc(c);
	return "relative"; /* a relative form nothing above knows */
}

static bool decode(struct xol *c, size_t avail)
{
	ZydisDecoder dec;
	ZyanStatus st;

	if (c->is64)
		st = ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	else
		st = ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LEGACY_32, ZYDIS_STACK_WIDTH_32);
	if (!ZYAN_SUCCESS(st))
		return false;
	return ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, c->bytes, avail, &c->in, c->op));
}

static int inplace(struct arch_xol *x, const char *why)
{
	x->kind = ARCH_XOL_INPLACE;
	x->why = why;
	x->code_len = 0;
	x->npoints = 0;
	return 0;
}

int arch_xol_prepare(const struct arch_desc *d, const uint8_t *insn, size_t avail, uint64_t addr,
		     uint64_t slot, struct arch_xol *out)
{
	return arch_xol_prepare_fall(d, insn, avail, addr, slot, 0, out);
}

int arch_xol_prepare_fall(const struct arch_desc *d, const uint8_t *insn, size_t avail,
			  uint64_t addr, uint64_t slot, uint64_t fall, struct arch_xol *out)
{
	struct xol c = {.bytes = insn, .addr = addr, .slot = slot, .fall = fall, .x = out};
	const char *why;

	if (!d || !out || (!insn && avail))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	c.is64 = d->kind == ARCH_AMD64;
	if (!c.is64) {
		c.addr = (uint32_t)addr;
		c.slot = (uint32_t)slot;
	}
	if (!avail || !decode(&c, avail))
		return inplace(out, "undecodable");
	out->insn_len = c.in.length;
	why = must_stay(&c);
	if (why)
		return inplace(out, why);
	mark(&c, c.addr, 0); /* offset 0: nothing done yet */
	why = relocate(&c);
	if (why)
		return inplace(out, why);
	out->kind = ARCH_XOL_RUN;
	return 0;
}

bool arch_xol_fixup(const struct arch_xol *x, uint64_t slot, const struct arch_desc *d,
		    struct arch_regs *r)
{
	uint64_t pc = arch_pc(d, r);
	const struct arch_xol_point *p;

	if (x->kind != ARCH_XOL_RUN || pc < slot || pc - slot >= x->code_len)
		return false;
	for (p = x->points; p < x->points + x->npoints; p++) {
		if (p->off != pc - slot)
			continue;
		r->gp.rsp += p->undo;
		if (d->kind == ARCH_I386)
			r->gp.rsp = (uint32_t)r->gp.rsp;
		arch_set_pc(d, r, p->pc);
		return true;
	}
	return false;
}

/* The line "x86_Thread_features:" (Linux 6.6+) lists "shstk" when it is on. */
bool arch_shadow_stack_on(const struct arch_desc *d, const char *status)
{
	static const char key[] = "\nx86_Thread_features:";
	const char *line, *end;

	if (!d || !status || (d->kind != ARCH_AMD64 && d->kind != ARCH_I386))
		return false;
	line = strstr(status, key);
	if (!line)
		return false;
	line += sizeof(key) - 1;
	end = strchr(line, '\n');
	if (!end)
		end = line + strlen(line);
	while (line < end) {
		size_t n;

		line += strspn(line, " \t");
		n = strcspn(line, " \t\n");
		if (n == 5 && line + n <= end && !memcmp(line, "shstk", 5))
			return true;
		line += n ? n : 1;
	}
	return false;
}
