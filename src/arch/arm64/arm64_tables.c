/*
 * arm64_tables.c: the one arm64 personality (AArch64 Linux; 32-bit
 * AArch32 programs are not supported: a thread with another NT_PRSTATUS
 * size is left with the native description) and its syscall ABI.
 */
#include <elf.h>
#include <linux/audit.h>
#include <stddef.h>
#include <sys/ptrace.h>

#include "arm64.h"

#ifdef __aarch64__
#include <asm/ptrace.h>
_Static_assert(sizeof(arch_gp_t) == sizeof(struct user_pt_regs), "user_pt_regs layout");
_Static_assert(ARM64_FP_SIZE == sizeof(struct user_fpsimd_state), "user_fpsimd_state layout");
#endif
_Static_assert(sizeof(arch_gp_t) == 272, "NT_PRSTATUS of a 64-bit thread is 272 bytes");

static const uint8_t arm64_brk[] = {0x00, 0x00, 0x20, 0xd4}; /* brk #0 */
static const uint8_t arm64_svc[] = {0x01, 0x00, 0x00, 0xd4}; /* svc #0 */

#define R(name, size)                                                                              \
	{                                                                                          \
		name, size                                                                         \
	}
#define X(n) R("x" #n, 8)
#define V(n) R("v" #n, 16)
/* ten of them: t0 ... t9 (t empty: 0 ... 9) */
#define X10(t)                                                                                     \
	X(t##0), X(t##1), X(t##2), X(t##3), X(t##4), X(t##5), X(t##6), X(t##7), X(t##8), X(t##9)
#define V10(t)                                                                                     \
	V(t##0), V(t##1), V(t##2), V(t##3), V(t##4), V(t##5), V(t##6), V(t##7), V(t##8), V(t##9)

/* gdb's aarch64 numbering (arm64.h): the core, fpu and tls features in order */
static const struct arch_reg arm64_regs[ARM64_NREGS] = {
	X10(),	X10(1), X10(2), X(30), R("sp", 8),   R("pc", 8),   R("cpsr", 4),  V10(),
	V10(1), V10(2), V(30),	V(31), R("fpsr", 4), R("fpcr", 4), R("tpidr", 8),
};

static const struct arch_desc arm64_desc = {
	.kind = ARCH_ARM64,
	.nregs = ARM64_NREGS,
	.regs = arm64_regs,
	.pc_regno = ARM64_R_PC,
	.sp_regno = ARM64_R_SP,
	.fp_regno = ARM64_R_FP,
	.g_size = 31 * 8 + 8 + 8 + 4 + 32 * 16 + 4 + 4 + 8,
	.trap_insn = arm64_brk,
	.trap_len = sizeof(arm64_brk),
	.gp_get = PTRACE_GETREGSET,
	.gp_set = PTRACE_SETREGSET,
	.gp_note = NT_PRSTATUS,
	.ext_note = NT_FPREGSET,
	.sys_note = NT_ARM_SYSTEM_CALL,
	.tls_note = NT_ARM_TLS,
	.ptr_size = 8,
	.pers = 0,
	.xol = false,	/* no relocation of arm64 instructions yet: steps in place */
	.patch = false, /* no in-process agent for arm64 */
	.sys_insn = arm64_svc,
	.sys_insn_len = sizeof(arm64_svc),
	.user_top = 1ULL << 48,
	.nr_mmap = 222, /* asm-generic/unistd.h */
	.nr_munmap = 215,
	.nr_madvise = 233,
	.nr_memfd_create = 279,
	.nr_close = 57,
};

const struct arch_desc *arch_get(enum arch_kind kind)
{
	return kind == ARCH_ARM64 ? &arm64_desc : NULL;
}

const struct arch_desc *arch_native(void)
{
	return &arm64_desc;
}

const struct arch_desc *arch_of_prstatus(size_t len)
{
	return len == sizeof(arch_gp_t) ? &arm64_desc : NULL;
}

const struct arch_desc *arch_of_elf_class(int elf_class)
{
	return elf_class == ELFCLASS64 ? &arm64_desc : NULL;
}

/* AArch32 syscalls (AUDIT_ARCH_ARM) fall to the filter's last rule: they stop. */
const struct arch_abi arch_abis[] = {
	{AUDIT_ARCH_AARCH64, 0},
};
const unsigned arch_nabis = sizeof(arch_abis) / sizeof(arch_abis[0]);
