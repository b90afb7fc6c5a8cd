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

#define X(n)                                                                                       \
	{                                                                                          \
		"x" #n, 8                                                                          \
	}
#define V(n)                                                                                       \
	{                                                                                          \
		"v" #n, 16                                                                         \
	}
#define X8(n) X(n), X(n##1), X(n##2), X(n##3), X(n##4), X(n##5), X(n##6), X(n##7)

static const struct arch_reg arm64_regs[ARM64_NREGS] = {
	X(0),  X(1),  X(2),  X(3),	  X(4),	       X(5),	  X(6),	       X(7),  X(8),
	X(9),  X(10), X(11), X(12),	  X(13),       X(14),	  X(15),       X(16), X(17),
	X(18), X(19), X(20), X(21),	  X(22),       X(23),	  X(24),       X(25), X(26),
	X(27), X(28), X(29), X(30),	  {"sp", 8},   {"pc", 8}, {"cpsr", 4}, V(0),  V(1),
	V(2),  V(3),  V(4),  V(5),	  V(6),	       V(7),	  V(8),	       V(9),  V(10),
	V(11), V(12), V(13), V(14),	  V(15),       V(16),	  V(17),       V(18), V(19),
	V(20), V(21), V(22), V(23),	  V(24),       V(25),	  V(26),       V(27), V(28),
	V(29), V(30), V(31), {"fpsr", 4}, {"fpcr", 4},
};

static const struct arch_desc arm64_desc = {
	.kind = ARCH_ARM64,
	.nregs = ARM64_NREGS,
	.regs = arm64_regs,
	.pc_regno = ARM64_R_PC,
	.sp_regno = ARM64_R_SP,
	.fp_regno = ARM64_R_FP,
	.g_size = 31 * 8 + 8 + 8 + 4 + 32 * 16 + 4 + 4,
	.trap_insn = arm64_brk,
	.trap_len = sizeof(arm64_brk),
	.gp_get = PTRACE_GETREGSET,
	.gp_set = PTRACE_SETREGSET,
	.gp_note = NT_PRSTATUS,
	.ext_note = NT_FPREGSET,
	.sys_note = NT_ARM_SYSTEM_CALL,
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
