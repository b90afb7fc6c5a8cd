/*
 * siginfo in the inferior's layout (src/arch/x86/x86_siginfo.c): amd64 is
 * passed through; i386 gets the 32-bit layout (union at offset 12, 4-byte
 * pointers and clocks), chosen by signal and si_code, and converts back.
 */
#include <signal.h>
#include <string.h>

#include "arch/arch.h"
#include "tap.h"

static int32_t at32(const uint8_t *b, size_t off)
{
	int32_t v;

	memcpy(&v, b + off, 4);
	return v;
}

static void test_amd64_passthrough(void)
{
	siginfo_t si = {.si_signo = SIGSEGV, .si_code = SEGV_MAPERR};
	uint8_t out[ARCH_SIGINFO_SIZE];

	si.si_addr = (void *)0x123456789abcULL;
	arch_siginfo_out(arch_get(ARCH_AMD64), &si, out);
	is_mem(out, sizeof(out), &si, sizeof(si), "amd64: the kernel's layout as it is");
}

static void test_i386_fault(void)
{
	siginfo_t si = {.si_signo = SIGSEGV, .si_errno = 0, .si_code = SEGV_ACCERR}, back;
	uint8_t out[ARCH_SIGINFO_SIZE];

	si.si_addr = (void *)0x8049000UL;
	arch_siginfo_out(arch_get(ARCH_I386), &si, out);
	is_int(at32(out, 0), SIGSEGV, "i386 SIGSEGV: si_signo at 0");
	is_int(at32(out, 8), SEGV_ACCERR, "  si_code at 8");
	is_int(at32(out, 12), 0x8049000, "  si_addr at 12, 4 bytes");
	is_int(at32(out, 16), 0, "  nothing after it");
	arch_siginfo_in(arch_get(ARCH_I386), out, &back);
	ok(back.si_addr == si.si_addr && back.si_code == si.si_code, "  and back");
}

static void test_i386_kill_chld_rt(void)
{
	siginfo_t si = {.si_signo = SIGUSR1, .si_code = SI_USER}, back;
	uint8_t out[ARCH_SIGINFO_SIZE];

	si.si_pid = 4242;
	si.si_uid = 1000;
	arch_siginfo_out(arch_get(ARCH_I386), &si, out);
	is_int(at32(out, 12), 4242, "i386 kill(): si_pid at 12");
	is_int(at32(out, 16), 1000, "  si_uid at 16");

	memset(&si, 0, sizeof(si));
	si.si_signo = SIGCHLD;
	si.si_code = CLD_EXITED;
	si.si_pid = 77;
	si.si_status = 3;
	si.si_utime = 5;
	si.si_stime = 6;
	arch_siginfo_out(arch_get(ARCH_I386), &si, out);
	ok(at32(out, 12) == 77 && at32(out, 20) == 3 && at32(out, 24) == 5 && at32(out, 28) == 6,
	   "i386 SIGCHLD: pid, status, utime, stime at 12, 20, 24, 28");
	arch_siginfo_in(arch_get(ARCH_I386), out, &back);
	ok(back.si_pid == 77 && back.si_status == 3 && back.si_stime == 6, "  and back");

	memset(&si, 0, sizeof(si));
	si.si_signo = SIGRTMIN;
	si.si_code = SI_QUEUE;
	si.si_pid = 9;
	si.si_value.sival_int = 0x55;
	arch_siginfo_out(arch_get(ARCH_I386), &si, out);
	is_int(at32(out, 20), 0x55, "i386 sigqueue(): si_value at 20");
}

int main(void)
{
	test_amd64_passthrough();
	test_i386_fault();
	test_i386_kill_chld_rt();
	return done_testing();
}
