/*
 * arm64_regs.c: gdb's aarch64 registers over the kernel's regsets.
 *
 * gdb numbers them as its aarch64-core and aarch64-fpu features list
 * them: x0-x30 (0-30), sp (31), pc (32), cpsr (33, the low half of
 * pstate), then v0-v31 (34-65, 128 bits), fpsr (66), fpcr (67), then
 * tpidr (68, its tls feature: tpidr_el0, the thread pointer). The core
 * ones live in NT_PRSTATUS (struct user_pt_regs), the vector ones in
 * NT_FPREGSET (struct user_fpsimd_state), tpidr in NT_ARM_TLS. The syscall number is x8 at a
 * syscall stop; the kernel keeps its own copy, which only
 * NT_ARM_SYSTEM_CALL changes (the sys field of struct arch_regs).
 */
#include <errno.h>
#include <string.h>

#include "arm64.h"

#define NR_EXIT 93 /* asm-generic/unistd.h: exit (one thread); 94 is exit_group */

/* The byte offset of regno in its regset, or -1. */
static int reg_off(int regno)
{
	if (regno >= 0 && regno < ARM64_R_CPSR)
		return regno * 8; /* regs[], sp, pc follow each other */
	if (regno == ARM64_R_CPSR)
		return (int)offsetof(arch_gp_t, pstate);
	if (regno >= ARM64_R_V0 && regno < ARM64_R_FPSR)
		return ARM64_FP_V0 + (regno - ARM64_R_V0) * 16;
	if (regno == ARM64_R_FPSR)
		return ARM64_FP_FPSR;
	if (regno == ARM64_R_FPCR)
		return ARM64_FP_FPCR;
	return -1;
}

unsigned arch_reg_set(const struct arch_desc *d, int regno)
{
	if (regno < 0 || regno >= d->nregs)
		return 0;
	if (regno == ARM64_R_TPIDR)
		return ARCH_RS_TLS;
	return regno <= ARM64_R_CPSR ? ARCH_RS_GP : ARCH_RS_EXT;
}

int arch_reg_read(const struct arch_desc *d, const struct arch_regs *r, int regno, uint8_t *out)
{
	unsigned set = arch_reg_set(d, regno);
	size_t size, off;

	if (!set)
		return -1;
	if (set == ARCH_RS_TLS) {
		memcpy(out, &r->tls, sizeof(r->tls));
		return 0;
	}
	size = d->regs[regno].size;
	off = (size_t)reg_off(regno);
	if (set == ARCH_RS_GP) {
		memcpy(out, (const uint8_t *)&r->gp + off, size); /* cpsr: pstate's low half */
		return 0;
	}
	if (r->ext_len < off + size) {
		memset(out, 0, size); /* not fetched: as after a reset */
		return 0;
	}
	memcpy(out, r->ext + off, size);
	return 0;
}

int arch_reg_write(const struct arch_desc *d, struct arch_regs *r, int regno, const uint8_t *in)
{
	unsigned set = arch_reg_set(d, regno);
	size_t size, off;

	if (!set)
		return -1;
	if (set == ARCH_RS_TLS) {
		memcpy(&r->tls, in, sizeof(r->tls));
		return ARCH_RS_TLS;
	}
	size = d->regs[regno].size;
	off = (size_t)reg_off(regno);
	if (set == ARCH_RS_GP) {
		memcpy((uint8_t *)&r->gp + off, in, size); /* cpsr: pstate's high half kept */
		return ARCH_RS_GP;
	}
	if (r->ext_len < off + size)
		return -1;
	memcpy(r->ext + off, in, size);
	return ARCH_RS_EXT;
}

uint64_t arch_pc(const struct arch_desc *d, const struct arch_regs *r)
{
	return arch_gp_pc(d, &r->gp);
}

uint64_t arch_gp_pc(const struct arch_desc *d, const arch_gp_t *gp)
{
	(void)d;
	return gp->pc;
}

void arch_set_pc(const struct arch_desc *d, struct arch_regs *r, uint64_t pc)
{
	(void)d;
	r->gp.pc = pc;
}

uint64_t arch_sp(const struct arch_desc *d, const struct arch_regs *r)
{
	(void)d;
	return r->gp.sp;
}

long arch_syscall_nr(const struct arch_desc *d, const struct arch_regs *r)
{
	(void)d;
	return (long)r->gp.regs[8];
}

bool arch_syscall_is_thread_exit(const struct arch_desc *d, long nr)
{
	(void)d;
	return nr == NR_EXIT;
}

/* The kernel reads its own copy of the number: x8 alone would not do. */
unsigned arch_syscall_skip(const struct arch_desc *d, struct arch_regs *r)
{
	(void)d;
	r->sys = -1;
	return ARCH_RS_SYS;
}

unsigned arch_set_syscall_ret(const struct arch_desc *d, struct arch_regs *r, int64_t ret)
{
	(void)d;
	r->gp.regs[0] = (uint64_t)ret;
	return ARCH_RS_GP;
}

void arch_syscall_setup(const struct arch_desc *d, arch_gp_t *gp, uint64_t pc, long nr,
			const uint64_t args[6])
{
	(void)d;
	gp->pc = pc;
	gp->regs[8] = (uint64_t)nr;
	for (int i = 0; i < 6; i++)
		gp->regs[i] = args[i];
}

uint64_t arch_syscall_result(const struct arch_desc *d, const arch_gp_t *gp)
{
	(void)d;
	return gp->regs[0];
}

/* svc #0, little-endian; instructions are 4-byte words */
bool arch_is_syscall_insn(const struct arch_desc *d, const uint8_t insn[ARCH_SYSCALL_INSN_MAX])
{
	return !memcmp(insn, d->sys_insn, d->sys_insn_len);
}

/*
 * tpidr (the thread pointer) is fetched, but qGetTLSAddr's arithmetic
 * (gdb_tls.c) is x86-64's TLS layout; arm64's is another: docs/arm64.md.
 */
int arch_thread_pointer(const struct arch_desc *d, const struct arch_regs *r, uint64_t *tp)
{
	(void)d, (void)r, (void)tp;
	return -EOPNOTSUPP;
}

void arch_gp_of_agent(arch_gp_t *gp, const uint64_t *v)
{
	memcpy(gp->regs, v, sizeof(gp->regs));
	gp->sp = v[31];
	gp->pc = v[32];
	gp->pstate = v[33];
}
