/*
 * arm64 registers, pure (src/arch/arm64/): gdb's numbering over the
 * kernel's regsets (x0-x30, sp, pc, cpsr in NT_PRSTATUS; v0-v31, fpsr,
 * fpcr in NT_FPREGSET), the 'g' size, the syscall number and result, the
 * syscall skipped through NT_ARM_SYSTEM_CALL, brk, svc, the personality
 * of a regset size, siginfo. Built with -DUTRACED_ARCH_ARM64 on x86-64,
 * natively (or under qemu-aarch64) for make check-cross.
 */
#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "arch/arch.h"
#include "tap.h"

static uint64_t get64(const uint8_t *b)
{
	uint64_t v;

	memcpy(&v, b, 8);
	return v;
}

static int regno_of(const struct arch_desc *d, const char *name)
{
	for (int i = 0; i < d->nregs; i++)
		if (!strcmp(d->regs[i].name, name))
			return i;
	return -1;
}

static void test_numbering(const struct arch_desc *d)
{
	size_t g = 0;

	is_int(d->nregs, 69, "69 registers: x0-x30 sp pc cpsr v0-v31 fpsr fpcr tpidr");
	is_int(regno_of(d, "x0"), 0, "x0 is 0");
	is_int(regno_of(d, "x30"), 30, "x30 is 30");
	is_int(regno_of(d, "sp"), 31, "sp is 31");
	is_int(regno_of(d, "pc"), 32, "pc is 32");
	is_int(regno_of(d, "cpsr"), 33, "cpsr is 33");
	is_int(regno_of(d, "v0"), 34, "v0 is 34");
	is_int(regno_of(d, "v31"), 65, "v31 is 65");
	is_int(regno_of(d, "fpsr"), 66, "fpsr is 66");
	is_int(regno_of(d, "fpcr"), 67, "fpcr is 67");
	is_int(regno_of(d, "tpidr"), 68, "tpidr is 68");
	for (int i = 0; i < d->nregs; i++)
		g += d->regs[i].size;
	is_int(d->g_size, g, "g_size is the sum of the sizes");
	is_int(d->g_size, 796, "  796 bytes");
	is_int(d->pc_regno, 32, "pc_regno");
	is_int(d->sp_regno, 31, "sp_regno");
	is_int(d->fp_regno, 29, "fp_regno (x29)");
	is_int(arch_reg_set(d, 33), ARCH_RS_GP, "cpsr lives in NT_PRSTATUS");
	is_int(arch_reg_set(d, 34), ARCH_RS_EXT, "v0 lives in NT_FPREGSET");
	is_int(arch_reg_set(d, 68), ARCH_RS_TLS, "tpidr lives in NT_ARM_TLS");
	is_int(arch_reg_set(d, 69), 0, "69: no such register");
	is_int(arch_reg_set(d, -1), 0, "-1: no such register");
}

static void test_gp(const struct arch_desc *d)
{
	struct arch_regs r;
	uint8_t v[16], in[8];
	bool all = true;

	memset(&r, 0, sizeof(r));
	for (int i = 0; i < 31; i++)
		r.gp.regs[i] = 0x1111111111111111ULL * (uint64_t)(i % 15 + 1) + (uint64_t)i;
	r.gp.sp = 0x0000fffffffff000ULL;
	r.gp.pc = 0x0000aaaaaaab0000ULL;
	r.gp.pstate = 0x0000000580001000ULL;
	for (int i = 0; i < 31; i++)
		all &= arch_reg_read(d, &r, i, v) == 0 && get64(v) == r.gp.regs[i];
	ok(all, "x0-x30 read from regs[]");
	ok(arch_reg_read(d, &r, 31, v) == 0 && get64(v) == r.gp.sp, "sp");
	ok(arch_reg_read(d, &r, 32, v) == 0 && get64(v) == r.gp.pc, "pc");
	is_int(arch_pc(d, &r), r.gp.pc, "arch_pc");
	is_int(arch_gp_pc(d, &r.gp), r.gp.pc, "arch_gp_pc");
	is_int(arch_sp(d, &r), r.gp.sp, "arch_sp");
	memset(v, 0xee, sizeof(v));
	ok(arch_reg_read(d, &r, 33, v) == 0 && !memcmp(v, "\x00\x10\x00\x80\xee", 5),
	   "cpsr: pstate's low 32 bits, 4 bytes");
	memcpy(in, "\x01\x00\x00\x60", 4);
	is_int(arch_reg_write(d, &r, 33, in), ARCH_RS_GP, "cpsr written: NT_PRSTATUS");
	is_int(r.gp.pstate, 0x0000000560000001ULL, "  pstate's high half kept");
	memcpy(in, "\x08\x07\x06\x05\x04\x03\x02\x01", 8);
	is_int(arch_reg_write(d, &r, 8, in), ARCH_RS_GP, "x8 written");
	is_int(r.gp.regs[8], 0x0102030405060708ULL, "  little-endian");
	is_int(r.gp.regs[7], 0x1111111111111111ULL * 8 + 7, "  x7 untouched");
	is_int(r.gp.regs[9], 0x1111111111111111ULL * 10 + 9, "  x9 untouched");
	arch_set_pc(d, &r, 0x400100);
	is_int(r.gp.pc, 0x400100, "arch_set_pc");
	is_int(arch_reg_write(d, &r, 69, in), -1, "write 69: bad regno");
	r.tls = 0x0000ffffb7ff0720ULL;
	ok(arch_reg_read(d, &r, 68, v) == 0 && get64(v) == r.tls, "tpidr read from tls");
	is_int(arch_reg_write(d, &r, 68, in), ARCH_RS_TLS, "tpidr written: NT_ARM_TLS");
	is_int(r.tls, 0x0102030405060708ULL, "  into tls");
	is_int(arch_reg_read(d, &r, -1, v), -1, "read -1: bad regno");
}

static void test_fpsimd(const struct arch_desc *d)
{
	struct arch_regs r;
	uint8_t v[16], want[16];

	memset(&r, 0, sizeof(r));
	memset(v, 0x5a, sizeof(v));
	ok(arch_reg_read(d, &r, 34, v) == 0 && !memcmp(v, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16),
	   "v0 not fetched: zeros");
	is_int(arch_reg_write(d, &r, 34, v), -1, "v0 not fetched: not written");
	r.ext_len = 528;
	for (int i = 0; i < 512; i++)
		r.ext[i] = (uint8_t)i;
	memcpy(r.ext + 512, "\x10\x00\x00\x08", 4);
	memcpy(r.ext + 516, "\x00\x00\xc0\x03", 4);
	for (int i = 0; i < 16; i++)
		want[i] = (uint8_t)(31 * 16 + i);
	ok(arch_reg_read(d, &r, 65, v) == 0 && !memcmp(v, want, 16), "v31: bytes 496-511");
	ok(arch_reg_read(d, &r, 66, v) == 0 && !memcmp(v, "\x10\x00\x00\x08", 4), "fpsr at 512");
	ok(arch_reg_read(d, &r, 67, v) == 0 && !memcmp(v, "\x00\x00\xc0\x03", 4), "fpcr at 516");
	memset(want, 0xa5, sizeof(want));
	is_int(arch_reg_write(d, &r, 35, want), ARCH_RS_EXT, "v1 written: NT_FPREGSET");
	ok(!memcmp(r.ext + 16, want, 16) && r.ext[15] == 15 && r.ext[32] == 32,
	   "  bytes 16-31 only");
}

static void test_syscalls(const struct arch_desc *d)
{
	struct arch_regs r;
	const uint64_t args[6] = {1, 2, 3, 4, 5, 6};
	const uint8_t svc[4] = {0x01, 0x00, 0x00, 0xd4}, brk[4] = {0x00, 0x00, 0x20, 0xd4};

	memset(&r, 0, sizeof(r));
	r.gp.regs[8] = 64; /* write */
	r.gp.regs[0] = 1;
	is_int(arch_syscall_nr(d, &r), 64, "syscall number from x8");
	ok(arch_syscall_is_thread_exit(d, 93), "93 (exit) ends one thread");
	ok(!arch_syscall_is_thread_exit(d, 94), "94 (exit_group) does not");
	is_int(arch_syscall_skip(d, &r), ARCH_RS_SYS, "skip: NT_ARM_SYSTEM_CALL to store");
	is_int(r.sys, -1, "  the number made -1");
	is_int(r.gp.regs[8], 64, "  x8 as it was");
	is_int(arch_set_syscall_ret(d, &r, -ENOENT), ARCH_RS_GP, "return value: NT_PRSTATUS");
	is_int((int64_t)r.gp.regs[0], -ENOENT, "  in x0");
	is_int(arch_syscall_result(d, &r.gp), (uint64_t)-ENOENT, "arch_syscall_result: x0");
	arch_syscall_setup(d, &r.gp, 0xffff00001000ULL, 222, args);
	ok(r.gp.pc == 0xffff00001000ULL && r.gp.regs[8] == 222 && r.gp.regs[0] == 1 &&
		   r.gp.regs[5] == 6 && r.gp.regs[6] == 0,
	   "syscall setup: pc, x8, x0-x5");
	ok(arch_is_syscall_insn(d, svc), "svc #0 is a syscall instruction");
	ok(!arch_is_syscall_insn(d, brk), "brk #0 is not");
	is_mem(d->trap_insn, d->trap_len, brk, 4, "the breakpoint is brk #0, 4 bytes");
	is_mem(d->sys_insn, d->sys_insn_len, svc, 4, "the injected syscall runs at svc #0");
	is_int(ARCH_TRAP_PC_ADV, 0, "brk leaves the pc on itself");
	is_int(ARCH_TRAP_SI_CODE, TRAP_BRKPT, "brk's SIGTRAP says TRAP_BRKPT");
	is_int(d->nr_mmap, 222, "mmap is 222 in the generic table");
}

static void test_personality(const struct arch_desc *d)
{
	uint64_t tp;
	struct arch_regs r;

	memset(&r, 0, sizeof(r));
	ok(arch_native() == d, "native personality");
	ok(arch_of_prstatus(272) == d, "a 272-byte NT_PRSTATUS is arm64");
	ok(arch_of_prstatus(72) == NULL, "an AArch32 one (72 bytes) is not known");
	ok(arch_of_elf_class(ELFCLASS64) == d, "ELFCLASS64 is arm64");
	ok(arch_of_elf_class(ELFCLASS32) == NULL, "ELFCLASS32 is not known");
	is_int(d->ptr_size, 8, "8-byte pointers");
	is_int(d->pers, 0, "the native syscall table");
	ok(!d->xol && !d->patch, "no out-of-line step, no agent: in place");
	is_int(d->gp_note, NT_PRSTATUS, "gp through NT_PRSTATUS");
	is_int(d->ext_note, NT_FPREGSET, "ext through NT_FPREGSET");
	is_int(d->sys_note, NT_ARM_SYSTEM_CALL, "sys through NT_ARM_SYSTEM_CALL");
	is_int(d->tls_note, NT_ARM_TLS, "tls through NT_ARM_TLS");
	is_int(arch_nabis, 1, "one seccomp ABI");
	is_int(arch_abis[0].audit_arch, 0xc00000b7u, "  AUDIT_ARCH_AARCH64");
	is_int(arch_thread_pointer(d, &r, &tp), -EOPNOTSUPP,
	       "thread pointer: not yet (NT_ARM_TLS)");
}

static void test_siginfo(const struct arch_desc *d)
{
	siginfo_t si = {.si_signo = SIGSEGV, .si_code = SEGV_MAPERR}, back;
	uint8_t out[ARCH_SIGINFO_SIZE];

	si.si_addr = (void *)0x123456789abcULL;
	arch_siginfo_out(d, &si, out);
	is_mem(out, sizeof(out), &si, sizeof(si), "siginfo: the kernel's layout as it is");
	memset(&back, 0, sizeof(back));
	arch_siginfo_in(d, out, &back);
	is_mem(&back, sizeof(back), &si, sizeof(si), "  and back");
}

static void test_no_relocation(const struct arch_desc *d)
{
	static struct arch_xol x;
	static struct arch_patch pt;
	const uint8_t insn[4] = {0x1f, 0x20, 0x03, 0xd5}; /* nop */

	is_int(arch_xol_prepare(d, insn, 4, 0x400000, 0x10000, &x), 0, "xol_prepare answers");
	ok(x.kind == ARCH_XOL_INPLACE && x.why, "  in place, with a reason");
	is_int(arch_patch_prepare(d, insn, 4, 0x400000, 0x10000, 0x20000, 0x30000, &pt), 0,
	       "patch_prepare answers");
	ok(pt.why != NULL, "  not patchable, with a reason");
}

int main(void)
{
	const struct arch_desc *d = arch_get(ARCH_ARM64);

	if (!ok(d != NULL, "arm64 desc"))
		return done_testing();
	test_numbering(d);
	test_gp(d);
	test_fpsimd(d);
	test_syscalls(d);
	test_personality(d);
	test_siginfo(d);
	test_no_relocation(d);
	return done_testing();
}
