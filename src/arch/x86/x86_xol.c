/*
 * x86_xol.c: one x86 instruction made to run somewhere else (out of line).
 *
 * The engine steps a thread over a breakpoint by running a copy of the
 * instruction under the trap in a slot of a scratch page (engine/xol.c).
 * Here the copy is made: decoded with Zydis (the raw offsets of the
 * displacement and immediates are what relocation needs), then
 *  - rip-relative operands re-based to the slot;
 *  - relative jumps, jcc, loop/jrcxz rewritten to rel32 forms aimed at
 *    the original targets;
 *  - calls turned into a push of the original return address and a jump;
 *  - everything else copied as it is;
 * followed by a jump back behind the original. What cannot run elsewhere
 * (system calls: the kernel and a fork child see the pc; traps; far and
 * 16-bit branches; transactions) is left to the in-place step, with a
 * reason. A thread stopped inside a slot is put back where the program
 * is (arch_xol_fixup): at the instruction if it has not taken effect,
 * where it leads if it has.
 */
#include "../arch.h"

#include <Zydis/Zydis.h>
#include <string.h>

struct xol_ctx {
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	const uint8_t *bytes;
	uint64_t addr; /* where the instruction lives */
	uint64_t slot; /* where its copy will */
	bool is64;
	struct arch_xol *x;
};

static int inplace(struct arch_xol *x, const char *why)
{
	x->kind = ARCH_XOL_INPLACE;
	x->why = why;
	return 0;
}

static bool put(struct arch_xol *x, const void *b, size_t n)
{
	if (x->code_len + n > ARCH_XOL_SLOT)
		return false;
	memcpy(x->code + x->code_len, b, n);
	x->code_len += n;
	return true;
}

/* The rel32 from the end of an instruction ending at code offset end to target. */
static bool rel32(const struct xol_ctx *c, size_t end, uint64_t target, int32_t *rel)
{
	int64_t d = (int64_t)(target - (c->slot + end));

	if (!c->is64) {
		*rel = (int32_t)(uint32_t)d;
		return true;
	}
	if (d < INT32_MIN || d > INT32_MAX)
		return false;
	*rel = (int32_t)d;
	return true;
}

/* op (one or two bytes) rel32, aimed at target. */
static bool put_branch(struct xol_ctx *c, const uint8_t *op, size_t oplen, uint64_t target)
{
	uint8_t b[6];
	int32_t rel;

	memcpy(b, op, oplen);
	if (!rel32(c, c->x->code_len + oplen + 4, target, &rel))
		return false;
	memcpy(b + oplen, &rel, 4);
	return put(c->x, b, oplen + 4);
}

static bool put_jmp(struct xol_ctx *c, uint64_t target)
{
	return put_branch(c, (const uint8_t *)"\xe9", 1, target);
}

static bool point(struct arch_xol *x, uint64_t pc, uint8_t undo)
{
	if (x->npoints >= ARCH_XOL_POINTS)
		return false;
	x->points[x->npoints++] =
		(struct arch_xol_point){.off = (uint8_t)x->code_len, .undo = undo, .pc = pc};
	return true;
}

static uint64_t next_pc(const struct xol_ctx *c)
{
	uint64_t pc = c->addr + c->in.length;

	return c->is64 ? pc : (uint32_t)pc;
}

static uint64_t branch_target(const struct xol_ctx *c)
{
	uint64_t t = next_pc(c) + (uint64_t)c->in.raw.imm[0].value.s;

	return c->is64 ? t : (uint32_t)t;
}

static const char *forbidden(const ZydisDecodedInstruction *in)
{
	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_SYSCALL:
	case ZYDIS_MNEMONIC_SYSENTER:
	case ZYDIS_MNEMONIC_INT:
		return "system call";
	case ZYDIS_MNEMONIC_INT1:
	case ZYDIS_MNEMONIC_INT3:
	case ZYDIS_MNEMONIC_INTO:
	case ZYDIS_MNEMONIC_UD0:
	case ZYDIS_MNEMONIC_UD1:
	case ZYDIS_MNEMONIC_UD2:
		return "trap";
	case ZYDIS_MNEMONIC_XBEGIN:
	case ZYDIS_MNEMONIC_XABORT:
	case ZYDIS_MNEMONIC_XEND:
		return "transaction";
	default:
		break;
	}
	if (in->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR)
		return "far branch";
	return NULL;
}

/* A memory operand, if the instruction has an explicit one. */
static const ZydisDecodedOperand *mem_operand(const struct xol_ctx *c)
{
	for (unsigned i = 0; i < c->in.operand_count_visible; i++)
		if (c->ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY &&
		    (c->ops[i].mem.type == ZYDIS_MEMOP_TYPE_MEM ||
		     c->ops[i].mem.type == ZYDIS_MEMOP_TYPE_AGEN)) /* lea */
			return &c->ops[i];
	return NULL;
}

/*
 * The instruction's bytes at code offset at, with a rip-relative
 * displacement re-based for that place. False if it does not reach.
 */
static bool put_rebased(struct xol_ctx *c, const uint8_t *bytes)
{
	const ZydisDecodedOperand *m = mem_operand(c);
	size_t at = c->x->code_len;
	int64_t disp;
	int32_t d32;

	if (!put(c->x, bytes, c->in.length))
		return false;
	if (!m || m->mem.base != ZYDIS_REGISTER_RIP)
		return true;
	/* the same target from the copy's end: disp + (old end - new end) */
	disp = c->in.raw.disp.value + (int64_t)(c->addr - (c->slot + at));
	if (c->in.raw.disp.size != 32 || disp < INT32_MIN || disp > INT32_MAX)
		return false;
	d32 = (int32_t)disp;
	memcpy(c->x->code + at + c->in.raw.disp.offset, &d32, 4);
	return true;
}

static bool uses_sp(ZydisRegister r)
{
	return r == ZYDIS_REGISTER_RSP || r == ZYDIS_REGISTER_ESP || r == ZYDIS_REGISTER_SP;
}

/*
 * A 66 prefix on a near branch: a 16-bit ip on some CPUs (AMD), ignored
 * on others (Intel) in 64-bit mode. Only the CPU can tell.
 */
static bool branch16(const struct xol_ctx *c)
{
	return c->in.operand_width == 16 || (c->in.attributes & ZYDIS_ATTRIB_HAS_OPERANDSIZE);
}

/* A copy of a relative-branch form aimed at the same target. */
static int relocate_relative(struct xol_ctx *c)
{
	uint64_t target = branch_target(c);
	struct arch_xol *x = c->x;
	uint8_t b[16];
	bool ok;

	if (branch16(c))
		return inplace(x, "16-bit branch");
	point(x, c->addr, 0);
	switch (c->in.mnemonic) {
	case ZYDIS_MNEMONIC_JMP:
		return put_jmp(c, target) ? 0 : inplace(x, "out of reach");
	case ZYDIS_MNEMONIC_LOOP:
	case ZYDIS_MNEMONIC_LOOPE:
	case ZYDIS_MNEMONIC_LOOPNE:
	case ZYDIS_MNEMONIC_JCXZ:
	case ZYDIS_MNEMONIC_JECXZ:
	case ZYDIS_MNEMONIC_JRCXZ:
		/* its prefixes and opcode, a rel8 over the jump back, then the taken jump */
		memcpy(b, c->bytes, c->in.length - 1);
		b[c->in.length - 1] = 5;
		ok = put(x, b, c->in.length) && point(x, next_pc(c), 0) && put_jmp(c, next_pc(c)) &&
		     point(x, target, 0) && put_jmp(c, target);
		return ok ? 0 : inplace(x, "out of reach");
	default:
		break;
	}
	if (c->in.meta.category != ZYDIS_CATEGORY_COND_BR)
		return inplace(x, "relative");
	b[0] = 0x0f;
	b[1] = 0x80 | (c->in.opcode & 0x0f);
	ok = put_branch(c, b, 2, target) && point(x, next_pc(c), 0) && put_jmp(c, next_pc(c));
	return ok ? 0 : inplace(x, "out of reach");
}

/* Push the return address the original call would have pushed. */
static bool put_push_return(struct xol_ctx *c, size_t *lit_fix)
{
	uint32_t ret32 = (uint32_t)next_pc(c);
	uint8_t b[6] = {0x68};

	if (!c->is64) {
		memcpy(b + 1, &ret32, 4);
		return put(c->x, b, 5);
	}
	/* push qword [rip + literal]: the literal goes after the code */
	b[0] = 0xff;
	b[1] = 0x35;
	*lit_fix = c->x->code_len + 2;
	return put(c->x, b, 6);
}

static bool put_literal(struct xol_ctx *c, size_t lit_fix)
{
	uint64_t ret = next_pc(c);
	int32_t disp = (int32_t)(c->x->code_len - (lit_fix + 4));

	if (!c->is64)
		return true;
	memcpy(c->x->code + lit_fix, &disp, 4);
	return put(c->x, &ret, 8);
}

/*
 * A call: the original return address pushed, then a jump where the
 * call goes (for an indirect call, the same operand: ff /2 becomes ff /4).
 * A stop between the two undoes the push: the call has not happened.
 */
static int relocate_call(struct xol_ctx *c)
{
	const ZydisDecodedOperand *op = &c->ops[0];
	uint8_t b[16];
	size_t lit_fix = 0;
	bool ok;

	if (branch16(c))
		return inplace(c->x, "16-bit branch");
	if (op->type == ZYDIS_OPERAND_TYPE_REGISTER && uses_sp(op->reg.value))
		return inplace(c->x, "call via the stack pointer");
	if (op->type == ZYDIS_OPERAND_TYPE_MEMORY &&
	    (uses_sp(op->mem.base) || uses_sp(op->mem.index)))
		return inplace(c->x, "call via the stack pointer");
	if (op->type == ZYDIS_OPERAND_TYPE_MEMORY && op->mem.base == ZYDIS_REGISTER_EIP)
		return inplace(c->x, "eip-relative");
	ok = point(c->x, c->addr, 0) && put_push_return(c, &lit_fix) &&
	     point(c->x, c->addr, c->is64 ? 8 : 4);
	if (ok && c->in.raw.imm[0].is_relative) {
		ok = put_jmp(c, branch_target(c));
	} else if (ok) {
		memcpy(b, c->bytes, c->in.length);
		b[c->in.raw.modrm.offset] = (uint8_t)((b[c->in.raw.modrm.offset] & ~0x38) | 0x20);
		ok = put_rebased(c, b);
	}
	ok = ok && put_literal(c, lit_fix);
	return ok ? 0 : inplace(c->x, "out of reach");
}

/* Anything else: the copy (re-based), then back behind the original. */
static int relocate_plain(struct xol_ctx *c)
{
	const ZydisDecodedOperand *m = mem_operand(c);
	bool leaves = c->in.meta.category == ZYDIS_CATEGORY_UNCOND_BR ||
		      c->in.meta.category == ZYDIS_CATEGORY_RET;

	if (m && m->mem.base == ZYDIS_REGISTER_EIP)
		return inplace(c->x, "eip-relative");
	if (!point(c->x, c->addr, 0) || !put_rebased(c, c->bytes))
		return inplace(c->x, "out of reach");
	if (leaves)
		return 0;
	if (!point(c->x, next_pc(c), 0) || !put_jmp(c, next_pc(c)))
		return inplace(c->x, "out of reach");
	return 0;
}

static bool decode(struct xol_ctx *c, size_t avail)
{
	ZydisDecoder dec;

	if (c->is64)
		ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	else
		ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LEGACY_32, ZYDIS_STACK_WIDTH_32);
	return ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, c->bytes, avail, &c->in, c->ops));
}

int arch_xol_prepare(const struct arch_desc *d, const uint8_t *insn, size_t avail, uint64_t addr,
		     uint64_t slot, struct arch_xol *out)
{
	struct xol_ctx c = {.bytes = insn, .addr = addr, .slot = slot, .x = out};
	const char *why;

	memset(out, 0, sizeof(*out));
	c.is64 = d->kind == ARCH_AMD64;
	if (!decode(&c, avail))
		return inplace(out, "undecodable");
	out->insn_len = c.in.length;
	why = forbidden(&c.in);
	if (why)
		return inplace(out, why);
	if (c.in.mnemonic == ZYDIS_MNEMONIC_CALL)
		return relocate_call(&c);
	if (c.in.raw.imm[0].is_relative)
		return relocate_relative(&c);
	return relocate_plain(&c);
}

bool arch_xol_fixup(const struct arch_xol *x, uint64_t slot, const struct arch_desc *d,
		    struct arch_regs *r)
{
	uint64_t pc = arch_pc(d, r);

	if (x->kind != ARCH_XOL_RUN || pc < slot || pc >= slot + x->code_len)
		return false;
	for (unsigned i = 0; i < x->npoints; i++) {
		if (x->points[i].off != pc - slot)
			continue;
		if (d->kind == ARCH_AMD64)
			r->gp.rsp += x->points[i].undo;
		else
			r->gp.rsp = (uint32_t)(r->gp.rsp + x->points[i].undo);
		arch_set_pc(d, r, x->points[i].pc);
		return true;
	}
	return false;
}
