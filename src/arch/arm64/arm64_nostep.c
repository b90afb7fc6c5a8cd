/*
 * arm64_nostep.c: what arm64 does not have yet, answered as such.
 *
 * No relocation of arm64 instructions (the out-of-line step-over and the
 * patched jmp of the in-process agent): the descriptor says so (xol,
 * patch false), so the engine steps over a breakpoint in place (counted
 * as a fallback, "arch") and leaves conditions to gdb. docs/arm64.md says
 * what remains.
 */
#include <errno.h>
#include <string.h>

#include "arm64.h"

static const char *const why_not = "arm64: no instruction relocation";

int arch_xol_prepare(const struct arch_desc *d, const uint8_t *insn, size_t avail, uint64_t addr,
		     uint64_t slot, struct arch_xol *out)
{
	(void)slot;
	if (!d || !insn || !avail || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->kind = ARCH_XOL_INPLACE;
	out->why = why_not;
	out->insn_len = avail >= 4 && !(addr & 3) ? 4 : 0;
	return 0;
}

int arch_xol_prepare_fall(const struct arch_desc *d, const uint8_t *insn, size_t avail,
			  uint64_t addr, uint64_t slot, uint64_t fall, struct arch_xol *out)
{
	(void)fall;
	return arch_xol_prepare(d, insn, avail, addr, slot, out);
}

bool arch_xol_fixup(const struct arch_xol *x, uint64_t slot, const struct arch_desc *d,
		    struct arch_regs *r)
{
	(void)x, (void)slot, (void)d, (void)r;
	return false; /* nothing ever runs in a slot */
}

bool arch_shadow_stack_on(const struct arch_desc *d, const char *status)
{
	(void)d, (void)status;
	return false;
}

int arch_agent_fpstate(const struct arch_desc *d, uint32_t *mask, uint32_t *len)
{
	(void)d, (void)mask, (void)len;
	return -EOPNOTSUPP; /* (no agent here yet) */
}

int arch_patch_prepare(const struct arch_desc *d, const uint8_t *insn, size_t avail, uint64_t addr,
		       uint64_t tramp, uint64_t entry, uint64_t prog, struct arch_patch *out)
{
	(void)tramp, (void)entry, (void)prog;
	if (!d || !insn || !avail || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->addr = addr;
	out->why = why_not;
	return 0;
}

const char *arch_patch_check_func(const struct arch_desc *d, const uint8_t *code, size_t len,
				  uint64_t func, uint64_t addr, size_t replaced)
{
	(void)d, (void)code, (void)len, (void)func, (void)addr, (void)replaced;
	return why_not;
}

uint64_t arch_patch_resume_pc(const struct arch_patch *pt, uint64_t tramp, uint64_t pc)
{
	(void)pt, (void)tramp, (void)pc;
	return 0;
}

enum arch_patch_where arch_patch_rollback(const struct arch_patch *pt, uint64_t tramp,
					  bool in_agent, const struct arch_desc *d,
					  struct arch_regs *r, arch_read_fn read, void *ctx)
{
	(void)pt, (void)tramp, (void)in_agent, (void)d, (void)r, (void)read, (void)ctx;
	return ARCH_PATCH_OUT; /* no trampoline is ever written */
}

uint64_t arch_patch_frame(const struct arch_patch *pt, uint64_t tramp, bool in_agent,
			  const struct arch_desc *d, const struct arch_regs *r)
{
	(void)pt, (void)tramp, (void)in_agent, (void)d, (void)r;
	return 0;
}

uint64_t arch_patch_agent_ret_slot(const struct arch_desc *d, const struct arch_regs *r)
{
	(void)d, (void)r;
	return 0;
}
