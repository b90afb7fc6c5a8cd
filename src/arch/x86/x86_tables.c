/*
 * x86 register tables: one row per gdb register number, for the amd64 and
 * i386 personalities, saying which raw regset holds it and where.
 *
 * Each list is an X-macro so that the public name/size array (arch_desc.regs),
 * the private location array and the 'g' packet size all come from the same
 * rows and cannot drift apart. The order is gdb's remote numbering, exactly
 * as gdbserver 13 numbers an amd64-linux (or i386-linux) target with AVX:
 * core, sse, linux (orig_rax), segments (amd64 only), avx. The tdesc XML is
 * generated from these rows too (x86_tdesc.c).
 *
 * i386 registers come from the 64-bit user_regs_struct that PTRACE_GETREGS
 * returns for a 32-bit tracee: eax is the low half of rax, and so on.
 */
#include <elf.h>
#include <errno.h>
#include <linux/audit.h>
#include <stddef.h>
#include <sys/ptrace.h>
#include <sys/user.h>

#include "x86.h"

#define GP(f) offsetof(struct user_regs_struct, f)

/* X(name, size in bytes, enum x86_src, offset, tdesc type, tdesc group, feature) */
#define AMD64_REGS(X)                                                                              \
	X("rax", 8, X86_GP, GP(rax), "int64", NULL, X86_F_CORE)                                    \
	X("rbx", 8, X86_GP, GP(rbx), "int64", NULL, X86_F_CORE)                                    \
	X("rcx", 8, X86_GP, GP(rcx), "int64", NULL, X86_F_CORE)                                    \
	X("rdx", 8, X86_GP, GP(rdx), "int64", NULL, X86_F_CORE)                                    \
	X("rsi", 8, X86_GP, GP(rsi), "int64", NULL, X86_F_CORE)                                    \
	X("rdi", 8, X86_GP, GP(rdi), "int64", NULL, X86_F_CORE)                                    \
	X("rbp", 8, X86_GP, GP(rbp), "data_ptr", NULL, X86_F_CORE)                                 \
	X("rsp", 8, X86_GP, GP(rsp), "data_ptr", NULL, X86_F_CORE)                                 \
	X("r8", 8, X86_GP, GP(r8), "int64", NULL, X86_F_CORE)                                      \
	X("r9", 8, X86_GP, GP(r9), "int64", NULL, X86_F_CORE)                                      \
	X("r10", 8, X86_GP, GP(r10), "int64", NULL, X86_F_CORE)                                    \
	X("r11", 8, X86_GP, GP(r11), "int64", NULL, X86_F_CORE)                                    \
	X("r12", 8, X86_GP, GP(r12), "int64", NULL, X86_F_CORE)                                    \
	X("r13", 8, X86_GP, GP(r13), "int64", NULL, X86_F_CORE)                                    \
	X("r14", 8, X86_GP, GP(r14), "int64", NULL, X86_F_CORE)                                    \
	X("r15", 8, X86_GP, GP(r15), "int64", NULL, X86_F_CORE)                                    \
	X("rip", 8, X86_GP, GP(rip), "code_ptr", NULL, X86_F_CORE)                                 \
	X("eflags", 4, X86_GP, GP(eflags), "i386_eflags", NULL, X86_F_CORE)                        \
	X("cs", 4, X86_GP, GP(cs), "int32", NULL, X86_F_CORE)                                      \
	X("ss", 4, X86_GP, GP(ss), "int32", NULL, X86_F_CORE)                                      \
	X("ds", 4, X86_GP, GP(ds), "int32", NULL, X86_F_CORE)                                      \
	X("es", 4, X86_GP, GP(es), "int32", NULL, X86_F_CORE)                                      \
	X("fs", 4, X86_GP, GP(fs), "int32", NULL, X86_F_CORE)                                      \
	X("gs", 4, X86_GP, GP(gs), "int32", NULL, X86_F_CORE)                                      \
	X("st0", 10, X86_ST, X86_FX_ST0 + 0, "i387_ext", NULL, X86_F_CORE)                         \
	X("st1", 10, X86_ST, X86_FX_ST0 + 16, "i387_ext", NULL, X86_F_CORE)                        \
	X("st2", 10, X86_ST, X86_FX_ST0 + 32, "i387_ext", NULL, X86_F_CORE)                        \
	X("st3", 10, X86_ST, X86_FX_ST0 + 48, "i387_ext", NULL, X86_F_CORE)                        \
	X("st4", 10, X86_ST, X86_FX_ST0 + 64, "i387_ext", NULL, X86_F_CORE)                        \
	X("st5", 10, X86_ST, X86_FX_ST0 + 80, "i387_ext", NULL, X86_F_CORE)                        \
	X("st6", 10, X86_ST, X86_FX_ST0 + 96, "i387_ext", NULL, X86_F_CORE)                        \
	X("st7", 10, X86_ST, X86_FX_ST0 + 112, "i387_ext", NULL, X86_F_CORE)                       \
	X("fctrl", 4, X86_FX16, X86_FX_FCW, "int", "float", X86_F_CORE)                            \
	X("fstat", 4, X86_FX16, X86_FX_FSW, "int", "float", X86_F_CORE)                            \
	X("ftag", 4, X86_FTAG, X86_FX_FTW, "int", "float", X86_F_CORE)                             \
	X("fiseg", 4, X86_FX16, X86_FX_FCS, "int", "float", X86_F_CORE)                            \
	X("fioff", 4, X86_FX32, X86_FX_FIP, "int", "float", X86_F_CORE)                            \
	X("foseg", 4, X86_FX16, X86_FX_FDS, "int", "float", X86_F_CORE)                            \
	X("fooff", 4, X86_FX32, X86_FX_FDP, "int", "float", X86_F_CORE)                            \
	X("fop", 4, X86_FOP, X86_FX_FOP, "int", "float", X86_F_CORE)                               \
	X("xmm0", 16, X86_XMM, X86_FX_XMM0 + 0, "vec128", NULL, X86_F_SSE)                         \
	X("xmm1", 16, X86_XMM, X86_FX_XMM0 + 16, "vec128", NULL, X86_F_SSE)                        \
	X("xmm2", 16, X86_XMM, X86_FX_XMM0 + 32, "vec128", NULL, X86_F_SSE)                        \
	X("xmm3", 16, X86_XMM, X86_FX_XMM0 + 48, "vec128", NULL, X86_F_SSE)                        \
	X("xmm4", 16, X86_XMM, X86_FX_XMM0 + 64, "vec128", NULL, X86_F_SSE)                        \
	X("xmm5", 16, X86_XMM, X86_FX_XMM0 + 80, "vec128", NULL, X86_F_SSE)                        \
	X("xmm6", 16, X86_XMM, X86_FX_XMM0 + 96, "vec128", NULL, X86_F_SSE)                        \
	X("xmm7", 16, X86_XMM, X86_FX_XMM0 + 112, "vec128", NULL, X86_F_SSE)                       \
	X("xmm8", 16, X86_XMM, X86_FX_XMM0 + 128, "vec128", NULL, X86_F_SSE)                       \
	X("xmm9", 16, X86_XMM, X86_FX_XMM0 + 144, "vec128", NULL, X86_F_SSE)                       \
	X("xmm10", 16, X86_XMM, X86_FX_XMM0 + 160, "vec128", NULL, X86_F_SSE)                      \
	X("xmm11", 16, X86_XMM, X86_FX_XMM0 + 176, "vec128", NULL, X86_F_SSE)                      \
	X("xmm12", 16, X86_XMM, X86_FX_XMM0 + 192, "vec128", NULL, X86_F_SSE)                      \
	X("xmm13", 16, X86_XMM, X86_FX_XMM0 + 208, "vec128", NULL, X86_F_SSE)                      \
	X("xmm14", 16, X86_XMM, X86_FX_XMM0 + 224, "vec128", NULL, X86_F_SSE)                      \
	X("xmm15", 16, X86_XMM, X86_FX_XMM0 + 240, "vec128", NULL, X86_F_SSE)                      \
	X("mxcsr", 4, X86_MXCSR, X86_FX_MXCSR, "i386_mxcsr", "vector", X86_F_SSE)                  \
	X("orig_rax", 8, X86_GP, GP(orig_rax), "int", NULL, X86_F_LINUX)                           \
	X("fs_base", 8, X86_GP, GP(fs_base), "int", NULL, X86_F_SEGMENTS)                          \
	X("gs_base", 8, X86_GP, GP(gs_base), "int", NULL, X86_F_SEGMENTS)                          \
	X("ymm0h", 16, X86_YMMH, X86_XS_YMMH0 + 0, "uint128", NULL, X86_F_AVX)                     \
	X("ymm1h", 16, X86_YMMH, X86_XS_YMMH0 + 16, "uint128", NULL, X86_F_AVX)                    \
	X("ymm2h", 16, X86_YMMH, X86_XS_YMMH0 + 32, "uint128", NULL, X86_F_AVX)                    \
	X("ymm3h", 16, X86_YMMH, X86_XS_YMMH0 + 48, "uint128", NULL, X86_F_AVX)                    \
	X("ymm4h", 16, X86_YMMH, X86_XS_YMMH0 + 64, "uint128", NULL, X86_F_AVX)                    \
	X("ymm5h", 16, X86_YMMH, X86_XS_YMMH0 + 80, "uint128", NULL, X86_F_AVX)                    \
	X("ymm6h", 16, X86_YMMH, X86_XS_YMMH0 + 96, "uint128", NULL, X86_F_AVX)                    \
	X("ymm7h", 16, X86_YMMH, X86_XS_YMMH0 + 112, "uint128", NULL, X86_F_AVX)                   \
	X("ymm8h", 16, X86_YMMH, X86_XS_YMMH0 + 128, "uint128", NULL, X86_F_AVX)                   \
	X("ymm9h", 16, X86_YMMH, X86_XS_YMMH0 + 144, "uint128", NULL, X86_F_AVX)                   \
	X("ymm10h", 16, X86_YMMH, X86_XS_YMMH0 + 160, "uint128", NULL, X86_F_AVX)                  \
	X("ymm11h", 16, X86_YMMH, X86_XS_YMMH0 + 176, "uint128", NULL, X86_F_AVX)                  \
	X("ymm12h", 16, X86_YMMH, X86_XS_YMMH0 + 192, "uint128", NULL, X86_F_AVX)                  \
	X("ymm13h", 16, X86_YMMH, X86_XS_YMMH0 + 208, "uint128", NULL, X86_F_AVX)                  \
	X("ymm14h", 16, X86_YMMH, X86_XS_YMMH0 + 224, "uint128", NULL, X86_F_AVX)                  \
	X("ymm15h", 16, X86_YMMH, X86_XS_YMMH0 + 240, "uint128", NULL, X86_F_AVX)

#define I386_REGS(X)                                                                               \
	X("eax", 4, X86_GP_SX, GP(rax), "int32", NULL, X86_F_CORE)                                 \
	X("ecx", 4, X86_GP, GP(rcx), "int32", NULL, X86_F_CORE)                                    \
	X("edx", 4, X86_GP, GP(rdx), "int32", NULL, X86_F_CORE)                                    \
	X("ebx", 4, X86_GP, GP(rbx), "int32", NULL, X86_F_CORE)                                    \
	X("esp", 4, X86_GP, GP(rsp), "data_ptr", NULL, X86_F_CORE)                                 \
	X("ebp", 4, X86_GP, GP(rbp), "data_ptr", NULL, X86_F_CORE)                                 \
	X("esi", 4, X86_GP, GP(rsi), "int32", NULL, X86_F_CORE)                                    \
	X("edi", 4, X86_GP, GP(rdi), "int32", NULL, X86_F_CORE)                                    \
	X("eip", 4, X86_GP, GP(rip), "code_ptr", NULL, X86_F_CORE)                                 \
	X("eflags", 4, X86_GP, GP(eflags), "i386_eflags", NULL, X86_F_CORE)                        \
	X("cs", 4, X86_GP, GP(cs), "int32", NULL, X86_F_CORE)                                      \
	X("ss", 4, X86_GP, GP(ss), "int32", NULL, X86_F_CORE)                                      \
	X("ds", 4, X86_GP, GP(ds), "int32", NULL, X86_F_CORE)                                      \
	X("es", 4, X86_GP, GP(es), "int32", NULL, X86_F_CORE)                                      \
	X("fs", 4, X86_GP, GP(fs), "int32", NULL, X86_F_CORE)                                      \
	X("gs", 4, X86_GP, GP(gs), "int32", NULL, X86_F_CORE)                                      \
	X("st0", 10, X86_ST, X86_FX_ST0 + 0, "i387_ext", NULL, X86_F_CORE)                         \
	X("st1", 10, X86_ST, X86_FX_ST0 + 16, "i387_ext", NULL, X86_F_CORE)                        \
	X("st2", 10, X86_ST, X86_FX_ST0 + 32, "i387_ext", NULL, X86_F_CORE)                        \
	X("st3", 10, X86_ST, X86_FX_ST0 + 48, "i387_ext", NULL, X86_F_CORE)                        \
	X("st4", 10, X86_ST, X86_FX_ST0 + 64, "i387_ext", NULL, X86_F_CORE)                        \
	X("st5", 10, X86_ST, X86_FX_ST0 + 80, "i387_ext", NULL, X86_F_CORE)                        \
	X("st6", 10, X86_ST, X86_FX_ST0 + 96, "i387_ext", NULL, X86_F_CORE)                        \
	X("st7", 10, X86_ST, X86_FX_ST0 + 112, "i387_ext", NULL, X86_F_CORE)                       \
	X("fctrl", 4, X86_FX16, X86_FX_FCW, "int", "float", X86_F_CORE)                            \
	X("fstat", 4, X86_FX16, X86_FX_FSW, "int", "float", X86_F_CORE)                            \
	X("ftag", 4, X86_FTAG, X86_FX_FTW, "int", "float", X86_F_CORE)                             \
	X("fiseg", 4, X86_FX16, X86_FX_FCS, "int", "float", X86_F_CORE)                            \
	X("fioff", 4, X86_FX32, X86_FX_FIP, "int", "float", X86_F_CORE)                            \
	X("foseg", 4, X86_FX16, X86_FX_FDS, "int", "float", X86_F_CORE)                            \
	X("fooff", 4, X86_FX32, X86_FX_FDP, "int", "float", X86_F_CORE)                            \
	X("fop", 4, X86_FOP, X86_FX_FOP, "int", "float", X86_F_CORE)                               \
	X("xmm0", 16, X86_XMM, X86_FX_XMM0 + 0, "vec128", NULL, X86_F_SSE)                         \
	X("xmm1", 16, X86_XMM, X86_FX_XMM0 + 16, "vec128", NULL, X86_F_SSE)                        \
	X("xmm2", 16, X86_XMM, X86_FX_XMM0 + 32, "vec128", NULL, X86_F_SSE)                        \
	X("xmm3", 16, X86_XMM, X86_FX_XMM0 + 48, "vec128", NULL, X86_F_SSE)                        \
	X("xmm4", 16, X86_XMM, X86_FX_XMM0 + 64, "vec128", NULL, X86_F_SSE)                        \
	X("xmm5", 16, X86_XMM, X86_FX_XMM0 + 80, "vec128", NULL, X86_F_SSE)                        \
	X("xmm6", 16, X86_XMM, X86_FX_XMM0 + 96, "vec128", NULL, X86_F_SSE)                        \
	X("xmm7", 16, X86_XMM, X86_FX_XMM0 + 112, "vec128", NULL, X86_F_SSE)                       \
	X("mxcsr", 4, X86_MXCSR, X86_FX_MXCSR, "i386_mxcsr", "vector", X86_F_SSE)                  \
	X("orig_eax", 4, X86_GP_SX, GP(orig_rax), "int", NULL, X86_F_LINUX)                        \
	X("ymm0h", 16, X86_YMMH, X86_XS_YMMH0 + 0, "uint128", NULL, X86_F_AVX)                     \
	X("ymm1h", 16, X86_YMMH, X86_XS_YMMH0 + 16, "uint128", NULL, X86_F_AVX)                    \
	X("ymm2h", 16, X86_YMMH, X86_XS_YMMH0 + 32, "uint128", NULL, X86_F_AVX)                    \
	X("ymm3h", 16, X86_YMMH, X86_XS_YMMH0 + 48, "uint128", NULL, X86_F_AVX)                    \
	X("ymm4h", 16, X86_YMMH, X86_XS_YMMH0 + 64, "uint128", NULL, X86_F_AVX)                    \
	X("ymm5h", 16, X86_YMMH, X86_XS_YMMH0 + 80, "uint128", NULL, X86_F_AVX)                    \
	X("ymm6h", 16, X86_YMMH, X86_XS_YMMH0 + 96, "uint128", NULL, X86_F_AVX)                    \
	X("ymm7h", 16, X86_YMMH, X86_XS_YMMH0 + 112, "uint128", NULL, X86_F_AVX)

#define X_PUB(name, size, src, off, type, group, feat)	{name, size},
#define X_INFO(name, size, src, off, type, group, feat) {src, feat, off, type, group},
#define X_SIZE(name, size, src, off, type, group, feat) +(size)

static const uint8_t x86_int3[] = {0xcc};
static const uint8_t x86_syscall[] = {0x0f, 0x05};
static const uint8_t x86_int80[] = {0xcd, 0x80};

static const struct arch_reg amd64_regs[] = {AMD64_REGS(X_PUB)};
static const struct x86_reg_info amd64_info[] = {AMD64_REGS(X_INFO)};
static const struct arch_reg i386_regs[] = {I386_REGS(X_PUB)};
static const struct x86_reg_info i386_info[] = {I386_REGS(X_INFO)};

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const struct x86_desc amd64_desc = {
	.pub.kind = ARCH_AMD64,
	.pub.nregs = NELEM(amd64_regs),
	.pub.regs = amd64_regs,
	.pub.pc_regno = 16, /* rip */
	.pub.sp_regno = 7,  /* rsp */
	.pub.fp_regno = 6,  /* rbp */
	.pub.g_size = 0 AMD64_REGS(X_SIZE),
	.pub.trap_insn = x86_int3,
	.pub.trap_len = sizeof(x86_int3),
	.pub.gp_get = PTRACE_GETREGS, /* NT_PRSTATUS would be the 32-bit layout for i386 */
	.pub.gp_set = PTRACE_SETREGS,
	.pub.ext_note = NT_X86_XSTATE,
	.pub.ptr_size = 8,
	.pub.xol = true,
	.pub.patch = true,
	.pub.sys_insn = x86_syscall,
	.pub.sys_insn_len = sizeof(x86_syscall),
	.pub.user_top = 0x7ffffffff000ULL,
	.pub.nr_mmap = 9,
	.pub.nr_munmap = 11,
	.pub.nr_madvise = 28,
	.pub.nr_memfd_create = 319,
	.pub.nr_close = 3,
	.info = amd64_info,
	.bfd_arch = "i386:x86-64",
};

static const struct x86_desc i386_desc = {
	.pub.kind = ARCH_I386,
	.pub.nregs = NELEM(i386_regs),
	.pub.regs = i386_regs,
	.pub.pc_regno = 8, /* eip */
	.pub.sp_regno = 4, /* esp */
	.pub.fp_regno = 5, /* ebp */
	.pub.g_size = 0 I386_REGS(X_SIZE),
	.pub.trap_insn = x86_int3,
	.pub.trap_len = sizeof(x86_int3),
	.pub.gp_get = PTRACE_GETREGS, /* NT_PRSTATUS would be the 32-bit layout for i386 */
	.pub.gp_set = PTRACE_SETREGS,
	.pub.ext_note = NT_X86_XSTATE,
	.pub.ptr_size = 4,
	.pub.pers = 1,
	.pub.xol = true,
	.pub.patch = true,
	.pub.sys_insn = x86_int80,
	.pub.sys_insn_len = sizeof(x86_int80),
	.pub.user_top = 0xffffe000ULL,
	.pub.nr_mmap = 192, /* mmap2 */
	.pub.nr_munmap = 91,
	.pub.nr_madvise = 219,
	.pub.nr_memfd_create = 356,
	.pub.nr_close = 6,
	.info = i386_info,
	.bfd_arch = "i386",
};

const struct arch_desc *arch_get(enum arch_kind kind)
{
	switch (kind) {
	case ARCH_AMD64:
		return &amd64_desc.pub;
	case ARCH_I386:
		return &i386_desc.pub;
	}
	return NULL;
}

const struct arch_desc *arch_native(void)
{
	return &amd64_desc.pub;
}

/* A 32-bit thread has a 68-byte NT_PRSTATUS regset, a 64-bit one 216. */
const struct arch_desc *arch_of_prstatus(size_t len)
{
	if (len == sizeof(struct user_regs_struct))
		return &amd64_desc.pub;
	return len && len < sizeof(struct user_regs_struct) ? &i386_desc.pub : NULL;
}

const struct arch_desc *arch_of_elf_class(int elf_class)
{
	if (elf_class == ELFCLASS64)
		return &amd64_desc.pub;
	return elf_class == ELFCLASS32 ? &i386_desc.pub : NULL;
}

/* x86-64: fs_base. An i386 program's is a GDT entry behind gs, not read here. */
int arch_thread_pointer(const struct arch_desc *d, const struct arch_regs *r, uint64_t *tp)
{
	if (d->kind != ARCH_AMD64)
		return -EOPNOTSUPP;
	*tp = r->gp.fs_base;
	return 0;
}

/* x32 syscalls come as x86-64 ones with bit 30 set in the number. */
const struct arch_abi arch_abis[] = {
	{AUDIT_ARCH_X86_64, 0x40000000u},
	{AUDIT_ARCH_I386, 0},
};
const unsigned arch_nabis = sizeof(arch_abis) / sizeof(arch_abis[0]);
